#!/bin/bash
# t007: -fplugin-arg-spyinstr-mode=count inserts only the counter: counts stay exact and no
# entry or exit hook ever runs (and the record's HOOKS flag is clear); mode=arcs inserts the same
# code as time (hooks, record flag set), and the unit tag carries the mode.
. "$(dirname "$0")/lib.sh"
need_plugin
setup_workdir

# no_hook_symbols PROG: the program does not reference the hooks at all
no_hook_symbols() {
	if nm -u "$1" | grep -E '__spy_(enter|exit)'; then
		echo "mode count binary references the hooks"
		return 1
	fi
	nm -u "$1" | grep -q __spy_counts_slow || { echo "no reference to __spy_counts_slow"; return 1; }
}

# flags_are TRACE BIT: every record's flags has HOOKS (bit 0) set (1) or clear (0)
flags_are() {
	awk -v want="$2" '$1 == "func" { for (i = 3; i <= NF; i++) if ($i ~ /^flags=/) {
		f = substr($i, 7) % 2; if (f != want) { print "flags of " $2 ": " $i; bad = 1 } } }
		END { exit bad }' "$1"
}

count_samples="calls recursion tailcall longjmp exceptions inline openmp"
tap_plan $((2 * $(wc -w <<<"$count_samples") + 2 + 4 + 2))
for s in $count_samples; do
	for lv in O0 O2; do
		if [ -n "$SPY_TSAN" ] && [ "$s" = openmp ]; then
			ok "$s -$lv mode=count$(tsan_skip "$TSAN_NO_OPENMP")"
			continue
		fi
		check "$s -$lv mode=count" eval \
			'check_sample "$s" "$lv" count && no_hook_symbols "$T/$s-$lv-count" && flags_are "$T/$s-$lv-count.trace" 0'
	done
done
for lv in O0 O2; do
	check "calls -$lv mode=arcs" eval 'check_sample calls "$lv" arcs && flags_are "$T/calls-$lv-arcs.trace" 1'
done
check "exceptions -O2 mode=arcs" check_sample exceptions O2 arcs
check "longjmp -O2 mode=arcs" check_sample longjmp O2 arcs
# Without a mode argument the plugin inserts everything (mode time, the default).
default_mode() {
	build_sample calls O2 "$T/calls-default" && run_sample calls "$T/calls-default" "$T/calls-default.trace" &&
		trace_compare "$SAMPLES/calls.expect" "$T/calls-default.trace" O2 time
}
check "calls -O2 without mode= is mode time" default_mode
check "mode=count leaves the tail calls as jumps$(tsan_skip "$TSAN_NO_TAILCALLS")" eval \
	'[ -n "$SPY_TSAN" ] || { build_sample tailcall O2 "$T/tc-count" -fplugin-arg-spyinstr-mode=count &&
	 objdump -d --no-show-raw-insn "$T/tc-count" | awk "/^[0-9a-f]+ <to_leaf>:/,/^\$/" | grep -E "jmp +[0-9a-f]+ <leaf>"; }'
# ABI 3: the hook calls are not guarded by a test of __spy_hooks (that cost the compiler blocks), and
# the counter is one asm statement whose slow path is __spy_counts_slow_all, not __spy_counts_slow.
unguarded() {
	local rel
	build_sample "$1" O2 "$T/$1-abi3" -fplugin-arg-spyinstr-mode=time || return 1
	rel=$(objdump -d "$T/$1-abi3")
	# (the stub's other name, __spy_counts_slow_in_libspyrt, in code for an executable: ABI 7)
	grep -q '__spy_entry' <<<"$rel" && grep -q '__spy_leave' <<<"$rel" &&
		grep -qE '__spy_counts_slow_(all|in_libspyrt)' <<<"$rel" ||
		{ echo "no hook or no __spy_counts_slow_all call in $1"; return 1; }
	if grep -qE '__spy_hooks|__spy_counts_slow[^_]' <<<"$rel"; then
		echo "$1 still tests __spy_hooks or calls __spy_counts_slow:"
		grep -E '__spy_hooks|__spy_counts_slow[^_]' <<<"$rel" | head -5
		return 1
	fi
}
check "calls -O2 mode=time: hooks called unguarded, the counter's slow path keeps registers" unguarded calls
check "exceptions -O2 mode=time: the same in C++ with exceptions" unguarded exceptions
tap_done
