#!/bin/bash
# t273: --format=folded of a time-mode profile without samples: call paths from the exact arcs, each
# path's cycles as measured. samples/flame.c built with mode=time, each call of leaf the same work:
# the five leaf paths weigh 100, 100, 50, 40, 20 of 310 (within 0.02 each), and all lines sum to the
# flat profile's total self cycles, the line <profiler> aside (it weighs the header's calibrated hook cost);
# samples/twocallers.c, where heavy calls work 100 times and light
# 10 000 times for the same work: main;heavy;work and main;light;work split work's cycles as the
# program measured them (within 0.1), not by calls (1 %); the SVG of it is well-formed.
. "$(dirname "$0")/lib-folded.sh"

fl_setup
tap_plan 5
P=$T/flame

# A leaf's measured cycles can stray on a busy host (CI once gave main;a;leaf 0.3434 for 0.3226: an
# interrupt's cache refill or a frequency step inside a's leaves): the shares are judged on the first
# of three runs that holds them; a systematic error fails all three.
flame_time() {
	local try
	rt_sample flame "$P" -fplugin-arg-spyinstr-mode=time || return 1
	for try in 1 2 3; do
		RT_ENV=SPYRT_WATCH=none rt_run "$P" 200000 || return 1
		"$SPINPROF" --format=folded "$P.out" >"$P.folded" || return 1
		echo "run $try:"
		cat "$P.folded"
		awk '{ w[$1] = $NF; if ($1 ~ /;leaf$/) leaves += $NF }
			function near(k, want,   got) { got = w[k] / leaves; printf "%s %.4f (want %.4f)\n", k, got, want
				return got > want - 0.02 && got < want + 0.02 }
			END { ok = near("main;a;leaf", 100 / 310) && near("main;b;leaf", 100 / 310) && near("main;b;a;leaf", 50 / 310) &&
				   near("main;c;b;leaf", 40 / 310) && near("main;c;b;a;leaf", 20 / 310)
			      exit !ok }' "$P.folded" && return 0
	done
	return 1
}
if ! sp_check "flame, mode time: the leaf paths weigh as their calls of equal work (within 0.02)" flame_time; then
	for _ in 1 2 3 4; do not_ok "no profile"; done
	tap_done
fi

# The folded lines' cycles against the flat profile's self seconds (two decimals a line) and the Spy
# report's total self cycles (each folded line rounded to whole cycles).
total() {
	local hz spy folded
	hz=$("$SPINPROF" -b "$P.out" | sed -n 's/^mode: time (time stamps at \([0-9]*\) Hz.*/\1/p')
	spy=$("$SPINPROF" --spy "$P.out" | sed -n 's/^unit: one cycle .* total \([0-9]*\) cycles$/\1/p')
	# the profiler's own line (<profiler>, the hook correction's cycles) is not in the program's total
	folded=$(awk '$1 != "<profiler>" { s += $NF } END { printf "%.0f", s }' "$P.folded")
	[ -n "$hz" ] && [ -n "$spy" ] || { echo "no rate or total in the reports"; return 1; }
	echo "folded $folded cycles, Spy report $spy"
	awk -v f="$folded" -v s="$spy" -v n="$(wc -l <"$P.folded")" 'BEGIN { d = f - s; exit !(d <= n && -d <= n) }' || return 1
	"$SPINPROF" -b -p "$P.out" | awk -v hz="$hz" -v folded="$folded" '
		$1 ~ /^[0-9.]+$/ && NF >= 7 { self += $3; n++ }
		END { printf "flat profile: %.2f s self in all; folded: %.6f s\n", self, folded / hz
		      exit !(self > 0 && folded / hz > self - 0.005 * n && folded / hz < self + 0.005 * n) }'
}
check "the folded lines sum to the Spy report's total cycles and the flat profile's self seconds" total

# <profiler>'s line weighs what the header's profiler: line says the hook correction took off
profiler_line() {
	local hz line part cyc
	hz=$("$SPINPROF" -b "$P.out" | sed -n 's/^mode: time (time stamps at \([0-9]*\) Hz.*/\1/p')
	line=$("$SPINPROF" -b "$P.out" | grep -m1 '^profiler:')
	part=$(sed -n "s/.*its hooks' calibrated cost, \([0-9.]*\) of .*/\1/p" <<<"$line")
	cyc=$(awk '$1 == "<profiler>" { print $NF }' "$P.folded")
	echo "$line; folded <profiler> $cyc cycles"
	[ -n "$hz" ] && [ -n "$part" ] && [ -n "$cyc" ] &&
		awk -v c="$cyc" -v hz="$hz" -v p="$part" 'BEGIN { d = c / hz - p; exit !(c > 0 && d < 1e-6 && -d < 1e-6) }'
}
check "the <profiler> line weighs the header's calibrated cost of the hooks" profiler_line

Q=$T/twocallers
split() {
	local h l
	rt_sample twocallers "$Q" -fplugin-arg-spyinstr-mode=time || return 1
	RT_ENV=SPYRT_WATCH=none rt_run "$Q" 20000 || return 1
	"$SPINPROF" --format=folded "$Q.out" >"$Q.folded" || return 1
	cat "$Q.folded"
	h=$(awk '$1 == "heavy_ns" { print $2 }' "$Q.stdout")
	l=$(awk '$1 == "light_ns" { print $2 }' "$Q.stdout")
	awk -v h="$h" -v l="$l" '$1 == "main;heavy;work" { a = $NF } $1 == "main;light;work" { b = $NF }
		END { want = h / (h + l); got = a / (a + b)
		      printf "heavy share %.3f, measured %.3f (calls would give 0.010)\n", got, want
		      exit !(a > 0 && b > 0 && got > want - 0.1 && got < want + 0.1) }' "$Q.folded"
}
check "twocallers, mode time: heavy's and light's paths split work as measured, not by calls" split

svg() {
	command -v xmllint >/dev/null || { echo "no xmllint"; return 1; }
	"$SPINPROF" --format=svg "$Q.out" | xmllint --noout -
}
check "its flame graph is well-formed XML" svg
tap_done
