#!/bin/bash
# t000: libspytrace on its own, before trusting it to judge the plugin: a hand-instrumented
# program (tests/trace/selftest/fake.c, no plugin) must give exactly the report its shape implies,
# and trace_compare must catch every fault the fake contains on purpose.
. "$(dirname "$0")/lib.sh"
setup_workdir

tap_plan 14
fake=$SPY_SRC/tests/trace/selftest/fake.c

build_fake() {
	# shellcheck disable=SC2086
	$CC -"$1" -g $SPY_SAN_FLAGS -I"$SPY_SRC/common" -I"$SPY_SRC/tests/trace" "$fake" -o "$T/fake-$1" \
		-L"$SPY_TRACE_DIR" -lspytrace -Wl,-rpath,"$SPY_TRACE_DIR" -lpthread
}

# has TRACE LINE...: every LINE is a line of TRACE
has() {
	local tr=$1 l rc=0
	shift
	for l in "$@"; do
		grep -qxF -- "$l" "$tr" || { echo "missing: $l"; rc=1; }
	done
	[ $rc -eq 0 ] || { echo "--- trace:"; cat "$tr"; }
	return $rc
}

funcs_ok() {
	local tr=$1
	for f in "a 10 10 10" "b 30 30 30" "c 60 60 61" "early 4 5 5" "l1 5 5 0" "l2 5 5 0" "l3 5 5 0" \
		"main 1 1 1" "never 0 0 0" "work 2000 2000 2000" "worker 2 2 2"; do
		set -- $f
		grep -q "^func $1 count=$2 enter=$3 exit=$4 flags=1 file=.*fake.c line=" "$tr" ||
			{ echo "want func $1 count=$2 enter=$3 exit=$4"; grep "^func $1 " "$tr"; return 1; }
	done
	[ "$(grep -c '^func ' "$tr")" = 11 ] || { echo "want 11 func lines"; grep '^func' "$tr"; return 1; }
}

addr2line_ok() {
	local tr=$1 n=0 caller off mod got
	while read -r _ caller off mod _; do
		got=$(addr2line -f -e "$mod" "$off" | head -n 1)
		[ "$got" = "$caller" ] || { echo "call site $off in $mod: trace says $caller, addr2line $got"; return 1; }
		n=$((n + 1))
	done < <(grep '^callsite-sample ' "$tr")
	[ $n -ge 5 ] || { echo "only $n callsite-sample lines"; return 1; }
}

sorted_ok() {
	LC_ALL=C sort -c "$1"
}

for lv in O0 O2; do
	if ! build_fake $lv >"$T/build-$lv.log" 2>&1; then
		not_ok "fake -$lv builds"
		diag <"$T/build-$lv.log"
		for _ in 1 2 3 4 5; do not_ok "fake -$lv (not built)"; done
		continue
	fi
	ok "fake -$lv builds"
	tr=$T/fake-$lv.trace
	check "fake -$lv runs and writes a trace" run_traced "$T/fake-$lv" "$tr"
	check "fake -$lv: per-function counter, enter and exit counts" funcs_ok "$tr"
	check "fake -$lv: arcs" has "$tr" "arc <spontaneous> main 1" "arc <spontaneous> worker 2" \
		"arc <spontaneous> early 1" "arc main a 10" "arc a b 30" "arc b c 60" "arc main l1 5" \
		"arc l1 l2 5" "arc l2 l3 5" "arc worker work 2000" "arc main early 4"
	check "fake -$lv: repairs, unmatched exit, slot 0, threads, dedupe" has "$tr" "repaired 15" \
		"unmatched_exit 1" "slot0 1" "threads 3" "open 0" "duplicate_records 0" \
		"callsite ok=$(sed -n 's/^callsite ok=\([0-9]*\) bad=1 .*/\1/p' "$tr") bad=1 foreign=$(
			sed -n 's/^callsite .* foreign=//p' "$tr")" \
		"module $T/fake-$lv nfuncs=11 regs=2 unregs=2 mode=2 abi=$SPY_ABI"
	check "fake -$lv: call sites agree with addr2line; report sorted" \
		eval 'addr2line_ok "$tr" && sorted_ok "$tr" && grep -q "^callsite-bad <spontaneous> early expected=" "$tr"'
done

# The comparator must report each planted fault, and nothing else.
cat >"$T/fake.expect" <<'EOT'
func main 1
func a 10
func b 30
func c 60
func early 5
func l1 5
exit l1 0
exit l2 0
exit l3 0
repaired 15
arc <spontaneous> main 1
arc main a 10
arc a b 30
arc main l1 5
arc <spontaneous> early 1
arc main early 4
@O0 arc b c 60
@O3 arc b c 61
EOT
compare_finds_faults() {
	local got want
	got=$(trace_compare "$T/fake.expect" "$T/fake-O2.trace" O2 time | sort)
	want=$(sort <<'EOT'
func c: exits 61 != enters 60
func early: count 4, want 5
func early: counter 4 != enters 5
arc b -> c: 60, want none
callsite bad=1 (call sites outside the shadow-stack caller)
unmatched_exit 1, want 0
slot0 1, want 0
EOT
)
	[ "$got" = "$want" ] || { echo "comparator said:"; echo "$got"; echo "want:"; echo "$want"; return 1; }
	! trace_compare "$T/fake.expect" "$T/fake-O2.trace" O2 time >/dev/null
}
check "trace_compare reports exactly the planted faults" compare_finds_faults
count_mode_flags_hooks() {
	trace_compare "$T/fake.expect" "$T/fake-O2.trace" O0 count | grep -q 'func a: hooks ran in mode count' &&
		trace_compare "$T/fake.expect" "$T/fake-O2.trace" O0 count | grep -q 'module .* registered with mode 2, want 0'
}
check "trace_compare in mode count rejects hooks and arcs" count_mode_flags_hooks
tap_done
