#!/bin/bash
# t283: spinprof --format=pprof of profiles without samples, read by go tool pprof. A time-mode run
# of samples/twocallers.c (SPYRT_MODE=time SPYRT_WATCH=none): the calls are exact (work 10 100, heavy,
# light and main 1; -traces: 100 calls of work from heavy, 10 000 from light), the self cycles add up
# to the header's total (<profiler>'s aside), and heavy's and light's cumulative time are in the ratio of the CPU time the
# program measured around its calls of work (heavy_ns, light_ns). A `gcc -pg` run of the same program:
# pprof's calls per function are gprof's own (the reference), and work's samples are gprof's self
# seconds at 100 Hz.
. "$(dirname "${BASH_SOURCE[0]}")/lib-pprof.sh"

[ -x "$SPINPROF" ] || tap_skip_all "no spinprof"
rt_setup
pp_go_setup

S=${SPY_TWOCALLERS_S:-20000}
P=$T/twocallers

run_it() {
	rt_sample twocallers "$P" || return 1
	RT_ENV="SPYRT_MODE=time SPYRT_WATCH=none" rt_run "$P" "$S" || return 1
	sp_export pprof "$P.pb.gz" "$P.out" || return 1
	"$SPINPROF" --spy -b --cutoff=0 "$P.out" >"$P.spy" 2>>"$P.err" || { cat "$P.err"; return 1; }
	pp -top -nodefraction=0 -sample_index=calls "$P.pb.gz" >"$P.calls" || { echo "go tool pprof -top failed"; cat "$T/pprof.err"; return 1; }
}
tap_plan 7
if ! sp_check "twocallers in time mode: spinprof --format=pprof writes it, go tool pprof reads it" run_it; then
	for _ in 1 2 3 4 5 6; do not_ok "twocallers (no profile)"; done
	tap_done
fi

calls() {
	local want='main 1
heavy 1
light 1
work 10100' got
	got=$(for f in main heavy light work; do echo "$f $(pp_top "$P.calls" $f 1)"; done)
	[ "$got" = "$want" ] || { printf 'got:\n%s\nwant:\n%s\n' "$got" "$want"; cat "$P.calls"; return 1; }
}
check "calls per function are the program's (main, heavy, light 1, work 10 100)" calls

paths() {
	pp -traces -sample_index=calls "$P.pb.gz" | awk '
		/^-----/ { on = 1; if (n) end(); n = 0; next }
		!on { next }
		{ v[++n] = $1; fr[n] = $NF }
		function end() { if (fr[1] == "work" && fr[2] == "heavy") h += v[1]; if (fr[1] == "work" && fr[2] == "light") l += v[1] }
		END { if (n) end(); if (h != 100 || l != 10000) { print "work from heavy " h ", from light " l; exit 1 } }'
}
check "-traces: work called 100 times from heavy, 10 000 from light" paths

cycles() {
	local total
	total=$(sed -n 's/.*; total \([0-9]*\) cycles$/\1/p' "$P.spy")
	pp -top -nodefraction=0 -sample_index=cycles "$P.pb.gz" >"$P.cycles" || return 1
	# one cycle of rounding per sample at most; <profiler>'s sample (the hook correction's cycles,
	# t248 checks its weight) is not in the program's total
	awk -v t="$total" '/^Showing .* of [0-9]* total$/ { s = $(NF - 1) } $NF == "<profiler>" { p = $1 } END {
		if (!t || s - p - t > 20 || t - s + p > 20) { print "pprof " s " cycles, <profiler> " p ", the header " t; exit 1 } }' "$P.cycles" ||
		{ head "$P.cycles"; return 1; }
}
check "the self cycles add up to the header's total" cycles

ratio() {
	local hn ln
	hn=$(sed -n 's/^heavy_ns //p' "$P.stdout")
	ln=$(sed -n 's/^light_ns //p' "$P.stdout")
	pp -top -unit=ns "$P.pb.gz" >"$P.ns" || return 1
	awk -v hn="$hn" -v ln="$ln" -v h="$(pp_top "$P.ns" heavy 4 | sed 's/ns$//')" -v l="$(pp_top "$P.ns" light 4 | sed 's/ns$//')" 'BEGIN {
		if (!hn || !ln || !h || !l) { print "missing: heavy_ns " hn " light_ns " ln " pprof " h " " l; exit 1 }
		r = (h / l) / (hn / ln)
		if (r < 0.85 || r > 1.15) { print "pprof heavy/light " h / l ", the program measured " hn / ln; exit 1 } }' ||
		{ cat "$P.ns"; return 1; }
}
check "heavy's and light's cumulative times are in the ratio the program measured (15 %)" ratio

# GNU mode: gprof is the reference
D=$T/pg
mkdir -p "$D"
gnu() {
	# shellcheck disable=SC2086
	$CC -O2 -pg -I"$SAMPLES" "$SAMPLES/twocallers.c" -o "$D/prog" $SPY_SAN_FLAGS >"$D/cc.log" 2>&1 || { cat "$D/cc.log"; return 1; }
	(cd "$D" && ./prog "$S" >/dev/null) || { echo "prog failed"; return 1; }
	(cd "$D" && "$SPINPROF" --format=pprof -o prof.pb.gz ./prog gmon.out) 2>"$D/err" || { cat "$D/err"; return 1; }
	pp -top -nodefraction=0 -sample_index=calls "$D/prof.pb.gz" >"$D/calls" || { cat "$T/pprof.err"; return 1; }
	(cd "$D" && gprof -b -p ./prog gmon.out) >"$D/gprof" || return 1
	local f want got
	for f in heavy light work; do
		want=$(awk -v f="$f" '$NF == f && NF >= 6 { print $4 }' "$D/gprof")
		got=$(pp_top "$D/calls" "$f" 1)
		[ "$got" = "$want" ] || { echo "$f: pprof $got calls, gprof $want"; cat "$D/calls" "$D/gprof"; return 1; }
	done
}
check "GNU gmon.out: pprof's calls per function are gprof's (heavy, light 1, work 10 100)" gnu

gnu_time() {
	pp -top -nodefraction=0 -sample_index=samples "$D/prof.pb.gz" >"$D/samples" || return 1
	local s g
	s=$(pp_top "$D/samples" work 1)
	g=$(awk '$NF == "work" && NF >= 4 { printf "%.0f\n", $3 * 100 }' "$D/gprof")
	[ "${g:-0}" -gt 0 ] && [ "${s:-0}" = "$g" ] || { echo "pprof $s samples in work, gprof ${g} (its seconds at 100 Hz)"; cat "$D/samples" "$D/gprof"; return 1; }
}
check "GNU gmon.out: work's samples are gprof's self seconds at 100 Hz" gnu_time

tap_done
