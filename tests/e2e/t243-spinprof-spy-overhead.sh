#!/bin/bash
# t243: the Spy report leaves the profiler's own ticks out of the procedures, as the flat profile leaves
# the hooks' cost out of its times (Mesa's overhead correction), so both rank alike. A program of five
# functions called equally often, whose work per call is 400, 800, 1600, 3200 and 6400 steps (f400 ...
# f6400; long enough that the hooks' cost left in main's measured self stays well below f400's), and
# f6400 calls tiny() 10 times, for the profiler's ticks (tiny's own stay well below f400's), built in
# mode time and sampled by CPU time. The header keeps the profiler's ticks; the Spy report's procedures are
# weighed against the program's own ticks (each SELF% is SELF over the header's program ticks), no
# <profiler> procedure ranks among them, the five heaviest procedures of the flat profile and of the
# Spy report (its highly active procedures) are the five functions in both, and each function's share
# of self time is the same in both within sampling error (3 binomial standard deviations of the samples
# taken, plus 2 points for what measuring and sampling see differently).
. "$(dirname "$0")/lib-spinprof.sh"
. "$(dirname "$0")/lib-runtime.sh"

[ -x "$SPINPROF" ] || tap_skip_all "no spinprof"
rt_setup

cat >"$T/six.c" <<'EOS'
#include <stdlib.h>
#include "sample.h"
static volatile unsigned long sink;
#define W(n) do { unsigned long x_ = sink; for (int i_ = 0; i_ < (n); i_++) { x_ = x_ * 6364136223846793005ul + 1; BARRIER(); } sink = x_; } while (0)
NOINL void f400(void) { W(400); }
NOINL void f800(void) { W(800); }
NOINL void f1600(void) { W(1600); }
NOINL void f3200(void) { W(3200); }
NOINL void tiny(void) { BARRIER(); }
NOINL void f6400(void) { W(6400); for (int k = 0; k < 10; k++) { tiny(); BARRIER(); } }
int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000;
	for (long i = 0; i < n; i++) {
		f400(); f800(); f1600(); f3200(); f6400();
		BARRIER();
	}
	return 0;
}
EOS

N=${SPY_SIX_N:-120000}
P=$T/six
tap_plan 7

run_it() {
	rt_cc "$P" "$CC" "$T/six.c" || return 1
	RT_ENV="SPYRT_MODE=time SPYRT_WATCH=cpu" rt_run "$P" "$N" || return 1
	"$SPINPROF" -b "$P.out" >"$P.txt" 2>"$P.err" || { echo "spinprof: status $?"; cat "$P.err"; return 1; }
}
if ! sp_check "five functions built in mode time, run with CPU sampling, read" run_it; then
	for _ in 1 2 3 4 5; do not_ok "no profile"; done
	tap_done
fi
grep -E '^(samples|profiler|sampling|program):' "$P.txt" | diag

# the header's one statement of the profiler's share: its ticks of all the ticks on the CPU
share() {
	sed -n 's/^profiler: \([0-9.]*\)% of the CPU time (\([0-9]*\) of the \([0-9]*\) ticks on the CPU were in it), in no function.s time$/\1 \2 \3/p' "$P.txt" |
		awk '{ print "profiler: " $2 " ticks of " $3 ", " $1 " %"; f = $2 > 0 && sprintf("%.1f", 100 * $2 / $3) == $1 } END { exit !f }'
}
check "the header keeps the profiler's ticks and share of all (some, or the test proves nothing)" share

# the Spy report's highly active procedures, in order: "NAME SELF SELF%"
active() {
	awk '/^Breakdown of highly active procedures\./ { on = 1; next } on && /^~/ { if (seen) exit; next }
		on && / \([0-9]+ refs?\) = / { seen = 1; n = $1; s = $0; sub(/^.* = /, "", s); split(s, v, /[ ,()%]+/); print n, v[1], v[3] }' "$P.txt"
}
check "no <profiler> procedure in the Spy report's tree or highly active procedures" eval '! grep -n "<profiler> (" "$P.txt"'
percent_of_program() {
	local prog
	prog=$(sed -n 's/^program: \([0-9]*\) ticks, .*/\1/p' "$P.txt")
	[ -n "$prog" ] || { echo "no program line in the header"; return 1; }
	active | awk -v prog="$prog" '{ want = 100 * $2 / prog; if ($3 - want > 0.051 || want - $3 > 0.051) { print $1 ": SELF " $2 " is " $3 " %, of the program'"'"'s " prog " ticks " want " %"; bad = 1 } n++ }
		END { exit bad || n < 5 }'
}
check "each procedure's SELF% is of the program's own ticks" percent_of_program

flat_top() { sp_facts "$P.txt" | awk '$1 == "flat" { print $6, $2 }' | sort -k1,1gr -k2 | head -5 | awk '{ print $2 }' | sort | tr '\n' ' '; }
# Under ThreadSanitizer every load of the functions calls libtsan's checks (__tsan_read8, which calls
# __tsan::MemoryAccess...), procedures of their own in the Spy report (their PCs are libtsan's), which
# the flat profile charges to the instrumented caller: they are left out of the Spy report's heaviest,
# and the shares of self time cannot agree (skipped).
spy_top() { active | { if [ -n "$SPY_TSAN" ]; then grep -vE '^__(tsan|sanitizer)[_:]'; else cat; fi; } | head -5 | awk '{ print $1 }' | sort | tr '\n' ' '; }
same_top() {
	local f s
	f=$(flat_top)
	s=$(spy_top)
	echo "flat profile: $f"
	echo "Spy report:   $s"
	[ "$f" = "$s" ] && [ "$f" = "f1600 f3200 f400 f6400 f800 " ]
}
check "the five heaviest of the flat profile and of the Spy report: the five functions, in both$([ -z "$SPY_TSAN" ] || echo " (under ThreadSanitizer: libtsan's __tsan functions left out)")" same_top
agree() {
	local taken
	[ -z "$SPY_TSAN" ] || return 0
	taken=$(sed -n 's/^samples: \([0-9]*\) taken.*/\1/p' "$P.txt")
	{ sp_facts "$P.txt" | awk '$1 == "flat" { print "flat", $2, $5 }'; active | awk '{ print "spy", $1, $3 }'; } |
		awk -v n="$taken" '$1 == "flat" { fl[$2] = $3 } $1 == "spy" { sp[$2] = $3 }
		END {
			for (f in fl) if (f ~ /^f[0-9]+$/) {
				p = (fl[f] + sp[f]) / 200; tol = 300 * sqrt(p * (1 - p) / n) + 2
				d = fl[f] - sp[f]; if (d < 0) d = -d
				printf "%s: flat %.1f %%, Spy %.1f %% (within %.1f)\n", f, fl[f], sp[f], tol
				if (d > tol) bad = 1; k++
			}
			exit bad || k != 5 || n < 50
		}'
}
check "each function's share of self time agrees within sampling error$(tsan_skip "libtsan's checks, called by every load, have their own time in the Spy report and the caller's in the flat profile")" agree
flat_ok() { sp_facts "$P.txt" | awk '$1 == "flat" && $2 ~ /^f[0-9]+$/ { n++; if ($4 != '"$N"') bad = 1 } END { exit bad || n != 5 }'; }
check "the flat profile's calls are exact ($N each)" flat_ok
tap_done
