#!/bin/bash
# t296: -T (gprof's traditional BSD layout) on spy profiles says what a spy profile has (issue 26,
# item 6): the call graph's header labels the off-CPU column of a time-mode profile with off-CPU
# time ("off cpu", its right edge on the numbers' right edge) and puts "parents" and "children"
# where the parents' and children's names start; the flat profile's granularity line is the spy
# profile's own (exact cycles in mode time, exact calls in mode count), not gprof's "each sample
# hit covers 0 byte(s) for 0.00%", which a spy profile has no samples to make true.
# samples/twocallers.c (main calls heavy and light, both call work).
. "$(dirname "$0")/lib-spinprof.sh"
. "$(dirname "$0")/lib-runtime.sh"

[ -x "$SPINPROF" ] || tap_skip_all "no spinprof"
rt_setup
P=$T/twocallers
tap_plan 5

run_it() {
	rt_sample twocallers "$P" || return 1
	RT_ENV="SPYRT_MODE=time SPYRT_WATCH=none" rt_run "$P" 2000 || return 1
	mv "$P.out" "$P-time.out"
	RT_ENV="SPYRT_MODE=count SPYRT_WATCH=none" rt_run "$P" 2000 || return 1
	mv "$P.out" "$P-count.out"
	"$SPINPROF" -T -b "$P-time.out" >"$P-time.txt" && "$SPINPROF" -T -b "$P-count.out" >"$P-count.txt"
}
if ! sp_check "twocallers builds, runs in modes time and count, spinprof -T -b reads both" run_it; then
	for _ in 1 2 3 4; do not_ok "no profile"; done
	tap_done
fi

# the column of a line's LABEL (0-based) and the right edge of the number before a name NAME [N]
col_of() { awk -v l="$2" 'index($0, l) { print index($0, l) - 1; exit }' "$1"; }
header() {
	local f=$P-time.txt off name numend
	grep -q '^off CPU: ' "$f" || { echo "# no off-CPU time here (perf events refused)"; return 0; }
	off=$(col_of "$f" "off cpu  name")
	name=$(col_of "$f" "  name") && name=$((name + 2))
	# work's own line: [N] %time self descendants called off-cpu name
	numend=$(awk '/^\[[0-9]+\].* work \[[0-9]+\]$/ { print index($0, " work [") - 3; exit }' "$f")
	echo "off cpu at $off, name at $name; work's off-CPU number ends at $numend"
	[ -n "$off" ] && [ $((off + 6)) = "$numend" ] && [ "$name" = $((numend + 3)) ]
}
sp_check "the call graph's header labels the off-CPU column over its numbers, name over the names" header

children() {
	local f=$P-time.txt lab sub
	grep -q '^off CPU: ' "$f" || return 0
	lab=$(awk '/called\/total +children/ { print index($0, "children") - 1; exit }' "$f")
	# a child line of main's entry: "self descendants called/total off-cpu name [N]"
	sub=$(awk '/^ +[0-9.]+ +[0-9.]+ +[0-9]+\/[0-9]+ +[0-9.]+ +heavy \[[0-9]+\]$/ { print index($0, "heavy [") - 1; exit }' "$f")
	echo "children at $lab, a child's name at $sub"
	[ -n "$lab" ] && [ "$lab" = "$sub" ]
}
sp_check "parents and children labelled where their names start" children

gran() {
	local t c
	t=$(grep -c '^granularity: exact cycle counts' "$P-time.txt")
	c=$(grep -c '^granularity: exact calls per function' "$P-count.txt")
	echo "time: $t exact-cycle lines; count: $c exact-call lines"
	! grep -h 'covers' "$P-time.txt" "$P-count.txt" && [ "$t" = 2 ] && [ "$c" = 2 ]
}
sp_check "both granularity lines, flat profile's and call graph's, are the spy profile's own" gran

gnu_same() {
	# the same layout as gprof's where the profile is gprof's own (t216 compares every option)
	command -v gprof >/dev/null || return 0
	cat >"$T/pg.c" <<'EOS'
static volatile unsigned long sink;
__attribute__((noinline)) void leaf(int n) { for (int i = 0; i < n; i++) sink++; }
int main(void) { for (int i = 0; i < 200; i++) leaf(i); return 0; }
EOS
	gcc -O0 -pg "$T/pg.c" -o "$T/pg" && (cd "$T" && ./pg) || return 1
	(cd "$T" && gprof -T -b ./pg gmon.out) >"$T/g.txt" 2>&1 && (cd "$T" && "$SPINPROF" -T -b ./pg gmon.out) >"$T/s.txt" 2>&1 &&
		diff -u "$T/g.txt" "$T/s.txt"
}
sp_check "GNU mode's -T -b is still gprof's byte for byte" gnu_same
tap_done
