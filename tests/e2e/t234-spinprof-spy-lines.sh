#!/bin/bash
# t234: spinprof -l on a spy profile: the line-by-line flat profile from the CPU samples, in gprof -l's
# layout. A program of two functions, each a loop on one marked line (/* hot-a */, /* hot-b */), b's
# twice a's work, built with the plugin and run with SPYRT_WATCH=cpu. The reference is independent of
# spinprof: each sample's PC from `spinprof --dump` (its module's base taken off) put on its line by
# binutils' addr2line. Checked: every row of the program's file (lines.c) has the percentage of the
# program's ticks (the header's "program: N ticks") that addr2line's lines give, to the printed
# 0.01; the two marked lines lead, b's first, each under its function's name; the percentages add up
# to 100; and -l with a profile without samples is one line and status 2.
. "$(dirname "$0")/lib-spinprof.sh"
. "$(dirname "$0")/lib-runtime.sh"

[ -x "$SPINPROF" ] || tap_skip_all "no spinprof"
command -v addr2line >/dev/null || tap_skip_all "no addr2line (binutils)"
rt_setup

cat >"$T/lines.c" <<'EOS'
#include <stdlib.h>
#include "sample.h"
static volatile unsigned long sink;
NOINL void a(long n)
{
	unsigned long x = sink;
	for (long i = 0; i < n; i++) { x = x * 6364136223846793005ul + 1; BARRIER(); } /* hot-a */
	sink = x;
}
NOINL void b(long n)
{
	unsigned long x = sink;
	for (long i = 0; i < 2 * n; i++) { x = x * 6364136223846793005ul + 1; BARRIER(); } /* hot-b */
	sink = x;
}
int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000;
	a(n);
	b(n);
	return 0;
}
EOS

N=${SPY_LINES_N:-150000000}
P=$T/lines
tap_plan 5

run_it() {
	rt_cc "$P" "$CC" "$T/lines.c" || return 1
	RT_ENV="SPYRT_WATCH=cpu" rt_run "$P" "$N" || return 1
	"$SPINPROF" -l "$P.out" >"$P.txt" 2>"$P.err" || { echo "spinprof -l: status $?"; cat "$P.err"; return 1; }
	"$SPINPROF" -b --threads "$P.out" >"$P.hdr" 2>"$P.err" || { echo "spinprof --threads: status $?"; cat "$P.err"; return 1; }
	"$SPINPROF" --dump "$P.out" >"$P.dump" 2>"$P.err" || { echo "spinprof --dump: status $?"; cat "$P.err"; return 1; }
}
if ! sp_check "two loops built with the plugin, run with CPU sampling, read with -l" run_it; then
	for _ in 1 2 3 4; do not_ok "no profile"; done
	tap_done
fi
head -12 "$P.txt" | diag

# shellcheck disable=SC2016
HEX='function hex(s,  i, v) { s = tolower(s); sub(/^0x/, "", s); v = 0
	for (i = 1; i <= length(s); i++) v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
	return v }'
# shellcheck disable=SC2016
FIELD='function field(k,  i) { for (i = 1; i <= NF; i++) if (index($i, k "=") == 1) return substr($i, length(k) + 2); return "" }'

# the program's samples (not the profiler's) as "OFFSET TICKS" from the main module's base
main_pcs() {
	awk "$HEX $FIELD"'
		$1 == "module" && / flags=main/ { base = hex(field("base")); split(field("text"), tx, "-"); lo = hex(tx[1]); hi = hex(tx[2]) }
		$1 == "sampling" { period = 1e9 / field("hz") }
		$1 == "stack" && field("flags") !~ /runtime/ {
			pc = hex(field("pc")); if (pc >= lo && pc < hi) t[pc - base] += field("weight") / period }
		END { for (o in t) printf "%x %s\n", o, t[o] }' "$P.dump"
}
program=$(sed -n 's/^program: \([0-9.]*\) ticks.*/\1/p' "$P.hdr")

by_addr2line() {
	[ -n "$program" ] || { echo "no program ticks in the header"; return 1; }
	local off tk want got
	want=$(main_pcs | while read -r off tk; do
		printf '%s %s\n' "$(addr2line -e "$P" "0x$off" | sed 's/ .*//; s,.*/,,')" "$tk"
	done | awk -v g="$program" '$1 ~ /^lines\.c:/ { w[$1] += $2 } END { for (l in w) printf "%s %.2f\n", l, 100 * w[l] / g }' | sort)
	got=$(awk '$NF ~ /^\(lines\.c:[0-9]+\)$/ { l = $NF; gsub(/[()]/, "", l); print l, $1 }' "$P.txt" | sort)
	echo "report:"; printf '%s\n' "$got"; echo "addr2line:"; printf '%s\n' "$want"
	[ -n "$want" ] && awk 'NR == FNR { w[$1] = $2; next } { g[$1] = $2 }
		END { for (l in w) { d = w[l] - g[l]; if (!(l in g) || d > 0.011 || d < -0.011) bad = 1 }
		      for (l in g) if (!(l in w)) bad = 1; exit bad }' <(printf '%s\n' "$want") <(printf '%s\n' "$got")
}
check "lines.c's rows have the percentages of the ticks addr2line puts on their lines" by_addr2line
leaders() {
	[ -z "$SPY_TSAN" ] || return 0
	local la lb
	la=$(grep -n 'hot-a' "$T/lines.c" | cut -d: -f1)
	lb=$(grep -n 'hot-b' "$T/lines.c" | cut -d: -f1)
	awk 'NR > 5 && NF' "$P.txt" | head -2 | tee /dev/stderr | awk -v la="$la" -v lb="$lb" '
		NR == 1 && !($(NF - 1) == "b" && $NF == "(lines.c:" lb ")") { bad = 1 }
		NR == 2 && !($(NF - 1) == "a" && $NF == "(lines.c:" la ")") { bad = 1 }
		END { exit bad }'
}
check "the marked lines lead, b's (twice the work) first, under their functions' names$(tsan_skip "$TSAN_DELAYS_SIGNALS": the loops make no intercepted call, so the ticks land after them)" leaders
check "the percentages add up to 100" eval "awk 'NR > 5 && NF { s += \$1 } END { print s; exit !(s > 99.8 && s < 100.2) }' '$P.txt'"
no_samples() {
	RT_ENV="SPYRT_WATCH=none" rt_run "$P" 1000 || return 1
	"$SPINPROF" -l "$P.out" >"$P.o" 2>"$P.e"
	local rc=$?
	cat "$P.e"
	[ $rc -eq 2 ] && [ "$(wc -l <"$P.e")" -eq 1 ] && [ ! -s "$P.o" ]
}
check "-l with a profile without samples: one line, status 2" no_samples
tap_done
