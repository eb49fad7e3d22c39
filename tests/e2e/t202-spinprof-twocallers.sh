#!/bin/bash
# t202: spinprof gives each caller its own share of a callee's time, measured, not averaged as gprof does.
# samples/twocallers.c: heavy() calls work(100 S) 100 times, light() calls work(S) 10 000 times; the program
# times every call of work with the thread's CPU clock and prints each caller's total (the truth). In a spy time
# profile, the call graph's line for work under heavy (self + children) and under light, and the lines
# for heavy and light among work's parents, must each be within 5 % of that truth. gprof's split by call
# counts (heavy gets 100/10100 of work's time) must be far outside 5 %, or the sample proves nothing.
. "$(dirname "$0")/lib-spinprof.sh"
. "$(dirname "$0")/lib-runtime.sh"

[ -x "$SPINPROF" ] || tap_skip_all "no spinprof"
rt_setup

S=${SPY_TWOCALLERS_S:-40000} # about 0.6 s of work per caller
P=$T/twocallers

tap_plan 6

run_it() {
	rt_sample twocallers "$P" || return 1
	RT_ENV=SPYRT_MODE=time rt_run "$P" "$S" || return 1
	"$SPINPROF" -b "$P.out" >"$P.txt" 2>"$P.err" || { echo "spinprof: status $?"; cat "$P.err"; return 1; }
	sp_facts "$P.txt" >"$P.facts"
	grep -q '^heavy_ns [0-9]' "$P.stdout" && grep -q '^light_ns [0-9]' "$P.stdout" ||
		{ echo "no timings printed:"; cat "$P.stdout"; return 1; }
}
if ! sp_check "twocallers S=$S builds, runs in time mode, spinprof reads it" run_it; then
	for _ in 1 2 3 4 5; do not_ok "twocallers (no profile)"; done
	tap_done
fi

truth() { awk -v k="$1_ns" '$1 == k { printf "%.6f\n", $2 / 1e9 }' "$P.stdout"; }
echo "# truth: heavy $(truth heavy) s, light $(truth light) s in work"

# within KIND CALLER: the time of work on the call graph line KIND ("child CALLER work" or
# "parent work CALLER") is within 5 % of the caller's measured time
within() {
	local key=$1 want=$2
	awk -v key="$key" -v want="$want" '
		{ at = index($0, " = "); if (substr($0, 1, at - 1) == key) { split(substr($0, at + 3), v, " "); found = 1 } }
		END {
			if (!found) { print "no line \"" key "\" in the call graph"; exit 1 }
			got = v[2] + v[3]
			printf "%s: self %s + children %s = %.2f s, measured %.4f s (%+.1f %%)\n", key, v[2], v[3], got, want, want ? 100 * (got - want) / want : 0
			exit !(want > 0 && got >= want * 0.95 && got <= want * 1.05)
		}' "$P.facts"
}
check "work's time under heavy (heavy's child line) within 5 % of the measured" within "child heavy work" "$(truth heavy)"
check "work's time under light (light's child line) within 5 % of the measured" within "child light work" "$(truth light)"
check "heavy's line among work's parents within 5 % of the measured" within "parent work heavy" "$(truth heavy)"
check "light's line among work's parents within 5 % of the measured" within "parent work light" "$(truth light)"

# the sample discriminates: gprof's split by calls would give heavy 100/10100 of work's time
discriminates() {
	local h l
	h=$(truth heavy)
	l=$(truth light)
	awk -v h="$h" -v l="$l" 'BEGIN {
		g = (h + l) * 100 / 10100
		printf "gprof would give heavy %.4f s of work, the truth is %.4f s\n", g, h
		exit !(g < h * 0.5)
	}'
}
check "gprof's averaging would be far off (the sample is a real test)" discriminates
tap_done
