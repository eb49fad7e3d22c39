#!/bin/bash
# t011: functions the plugin must skip: no_instrument_function, the plugin's own spy_noinstr,
# naked (an asm body: instrumenting it would crash), and an ifunc resolver (it runs while the
# program is relocated, before any constructor). They exist in the binary, work, and have no
# record, no counter and no hooks; their neighbours are instrumented as usual.
. "$(dirname "$0")/lib.sh"
need_plugin
setup_workdir

skipped="skip_nif skip_spy skip_naked resolve_pick"

# untouched PROG: the skipped bodies are in the binary, with no call to a hook or the counter
untouched() {
	local prog=$1 f body
	objdump -d --no-show-raw-insn "$prog" >"$prog.dis" || return 1
	for f in $skipped; do
		body=$(awk -v f="<$f>:" '$2 == f { p = 1; next } p && NF == 0 { exit } p' "$prog.dis")
		[ -n "$body" ] || { echo "$f is not in the binary"; return 1; }
		if grep -E '__spy_|%fs:' <<<"$body"; then
			echo "$f is instrumented:"
			echo "$body"
			return 1
		fi
	done
	body=$(awk '$2 == "<plain>:" { p = 1; next } p && NF == 0 { exit } p' "$prog.dis")
	grep -q '__spy_entry' <<<"$body" || { echo "plain is not instrumented"; echo "$body"; return 1; }
}

# not_recorded TRACE: no func line for a skipped function
not_recorded() {
	local f
	grep -q '^func ' "$1" || { echo "no trace"; return 1; }
	for f in $skipped; do
		if grep "^func ${f}[ .]" "$1"; then
			echo "$f has a record"
			return 1
		fi
	done
}

tap_plan $((3 * 5))
for lv in $OPT_LEVELS; do
	check "attrs -$lv: runs, counts exact, skipped functions absent" check_sample attrs "$lv" time
	check "attrs -$lv: no record for a skipped function" not_recorded "$T/attrs-$lv-time.trace"
	check "attrs -$lv: skipped bodies carry no instrumentation" untouched "$T/attrs-$lv-time"
done
tap_done
