#!/bin/bash
# t146: a call still open when the profile is written counts up to that moment (issue 23, item 6), in
# mode time, with samples/openframes.c: sleeper_loop, asleep in a loop that never returns, is off the
# CPU (blocked, or waiting for a CPU once woken) for its whole wall time, in its arc, its thread's
# total and the report's header, as sleeper_ret, which returns, is; spinner_loop, which never
# returns, has its thread's CPU clock as CPU self time and the rest of its wall time off the CPU;
# held(), open when main calls spy_dump, counts in the dump up to the dump, and the dump does not end
# it: the final file has it once, whole, nothing abandoned or unmatched. Without perf events (no
# off-CPU time) the loops still get their wall time.
. "$(dirname "$0")/lib-runtime.sh"
rt_setup
tap_plan 7

P=$T/openframes
if ! check "samples/openframes.c builds" rt_cc "$P" "$CC" "$SAMPLES/openframes.c"; then
	for _ in $(seq 6); do not_ok "not built"; done
	tap_done
fi

# ms FILE FUNC FIELD: FIELD (incl, self, off_incl, off_self, off_self_pre, count) summed over the arcs
# into FUNC, in milliseconds (count as is); wall: incl + off_incl
ms() {
	rt_dump "$1" | awk -v f="$2" -v k="$3" '
		function val(key,   i) { for (i = 2; i <= NF; i++) if (index($i, key "=") == 1) return substr($i, length(key) + 2) }
		$1 == "times" { hz = val("tsc_hz") }
		$1 == "arc" && val("callee") == f { s += k == "wall" ? val("incl") + val("off_incl") : val(k) }
		END { if (k == "count") print s + 0; else printf "%.1f\n", hz ? s * 1000 / hz : -1 }'
}
# thr FILE FUNC KEY: KEY of the thread line of the thread whose arcs reach FUNC, in ms
thr() {
	rt_dump "$1" | awk -v f="$2" -v k="$3" '
		function val(key,   i) { for (i = 2; i <= NF; i++) if (index($i, key "=") == 1) return substr($i, length(key) + 2) }
		$1 == "times" { hz = val("tsc_hz") }
		$1 == "thread" { line = $0; tid = val("tid"); v[tid] = val(k) }
		$1 == "arc" && val("callee") == f { t = val("tid") }
		END { printf "%.1f\n", hz && t != "" ? v[t] * 1000 / hz : -1 }'
}
out() { awk -v k="$1_ns" '$1 == k { printf "%.1f\n", $2 / 1e6 }' "$P.stdout"; }
run() {
	rt_run "$P" "$T/dump.out" || return 1
	cat "$P.stdout"
	[ -s "$T/dump.out" ] || { echo "no dump"; return 1; }
	rt_dump "$P.out" | grep -c '^thread .*offcpu,' | grep -qx 5 || { echo "# no off-CPU time here"; return 0; }
}
check "the run writes its dump and its profile" run

# each sleeper's off-CPU time is its wall time, less its few microseconds of CPU a nap
sleepers() {
	rt_is 'loop >= 0.95 * wall && loop <= wall + 100 && ret >= 0.95 * 1000 && loop >= 0.9 * ret && toff >= 0.95 * loop' \
		loop="$(ms "$P.out" sleeper_loop off_incl)" wall="$(out loop_wall)" \
		ret="$(ms "$P.out" sleeper_ret off_incl)" \
		toff="$(awk -v b="$(thr "$P.out" sleeper_loop off_blocked)" -v p="$(thr "$P.out" sleeper_loop off_preempted)" 'BEGIN { print b + p }')"
}
check "sleeper_loop, never returning, is off the CPU its whole wall time, as sleeper_ret that returns" sleepers

spinner() {
	rt_is 'self >= 0.95 * cpu - 5 && self <= 1.05 * cpu + 5 && cpu >= 20 && self + off >= 0.95 * wall' \
		self="$(ms "$P.out" spinner_loop self)" off="$(ms "$P.out" spinner_loop off_incl)" \
		cpu="$(out spin_cpu)" wall="$(out loop_wall)"
}
check "spinner_loop, never returning, has its thread's CPU clock as CPU self, the rest off the CPU" spinner

# the header's off-CPU total holds every thread's waits (each about its wall time: the loop's, 1 s for
# sleeper_ret, 600 ms for holder; main's wall time less its CPU time, the dump's cost, which under
# ThreadSanitizer on a loaded host was 200 ms), its call graph spinner_loop's CPU time
report() {
	local off self
	"$SPY_BUILD/spinprof" -b "$P.out" >"$T/report" || return 1
	# blocked and preempted: a sleeper that woke may wait for a CPU (under load, under TSan)
	off=$(sed -n 's/^off CPU: \([0-9.]*\) seconds, of which blocked .*/\1/p' "$T/report")
	# its self and children in the call graph: the code without hooks it ran (ThreadSanitizer's,
	# with SAN=thread) is its children there, a row of its own in the flat profile
	self=$(awk '$1 ~ /^\[[0-9]+\]$/ && $(NF - 1) == "spinner_loop" { print ($3 + $4) * 1000; exit }' "$T/report")
	rt_is 'off * 1000 >= 0.95 * (wall + 1000 + mwall - mcpu + 600) && self >= 0.95 * cpu - 5' off="$off" \
		self="$self" wall="$(out loop_wall)" cpu="$(out spin_cpu)" mwall="$(out main_wall)" \
		mcpu="$(out main_cpu)" || { head -n 20 "$T/report"; return 1; }
}
check "the report's header counts their waits, its call graph spinner_loop's CPU time" report

# held() began before the dump (at 300 ms) and lasts 600 ms
dumped() {
	rt_is 'dc == 1 && dwall >= 250 && dwall < fwall && fc == 1 && fwall >= 600 && ab == 0 && um == 0' \
		dc="$(ms "$T/dump.out" held count)" dwall="$(ms "$T/dump.out" held wall)" \
		fc="$(ms "$P.out" held count)" fwall="$(ms "$P.out" held wall)" \
		ab="$(rt_get "$P.out" lost abandoned)" um="$(rt_get "$P.out" lost unmatched)"
}
check "held(), open at spy_dump: the dump counts it up to then, the final file whole and once" dumped

# without a ring (perf_event_open refused by tests/e2e/noperf.c: wall time), the open loops still get
# their time
wall_only() {
	$CC -O2 -o "$T/noperf" "$SPY_SRC/tests/e2e/noperf.c" || return 1
	rm -f "$P.out"
	SPYRT_OUT="$P.out" "$T/noperf" "$P" >"$P.stdout" 2>"$P.stderr" || { cat "$P.stderr"; return 1; }
	rt_is 'loop >= 0.95 * wall && spin >= 0.95 * wall' loop="$(ms "$P.out" sleeper_loop incl)" \
		spin="$(ms "$P.out" spinner_loop incl)" wall="$(out loop_wall)"
}
check "without perf events, the open loops' inclusive time is their wall time" wall_only
tap_done
