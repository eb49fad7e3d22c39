#!/bin/bash
# t148: where a thread blocked, told apart (issue 23, item 12, Cedar's process states), in mode time
# with samples/waits.c: main blocks five ways, each in a function of its own and for a time it sets
# (napper sleeps 300 ms; locker, waiter, reader and toucher wait 200 ms for a mutex, a condition
# variable, a pipe and a page that a userfaultfd fills). The file's waits put each one in its function
# with the PC the kernel sampled at the switch (a system call's, or the faulting instruction's); they
# add up to each thread's blocked time exactly; the report's header says the time by state (lock,
# condition, sleep, I/O, page fault) and the places, each in its state under its function; two files
# summed keep them. Run by an unprivileged user where perf_event_paranoid is above 1, the kernel
# refuses the samples: the profile says so, and its off-CPU times are still there.
. "$(dirname "$0")/lib-runtime.sh"
rt_setup
tap_plan 8
skip() { ok "$1 # SKIP $2"; }

P=$T/waits
if ! check "samples/waits.c builds" rt_cc_static "$P" "$CC" "$SAMPLES/waits.c"; then
	for _ in $(seq 7); do not_ok "not built"; done
	tap_done
fi

# whether this host gives the samples at switches (root, CAP_PERFMON or perf_event_paranoid <= 1):
# root always gets them where there are perf events at all
run() {
	rt_run "$P" || return 1
	cat "$P.stdout"
	rt_dump "$P.out" | grep -q '^thread .*offcpu,' || { echo "# no off-CPU time here (no perf events)"; return 0; }
	rt_dump "$P.out" | grep -q '^thread .*waits,' && return 0
	echo "# no waits here (the kernel refused the samples)"
	[ "$(id -u)" -ne 0 ] || { echo "but this is root"; return 1; }
}
check "the run writes its profile, with waits where the kernel allows them" run
HAVE=0
rt_dump "$P.out" | grep -q '^thread .*waits,' && HAVE=1
[ "$(id -u)" -ne 0 ] || ! rt_dump "$P.out" | grep -q '^thread .*offcpu,' || HAVE=1
UFFD=$(awk '$1 == "uffd" { print $2 }' "$P.stdout")

# wait_of FUNC KIND: main's waits of that kind under FUNC, summed: "COUNT MS" (cycles in ms); a wait
# may be at two PCs of one call (glibc's clock_nanosleep has two system calls), and under
# ThreadSanitizer its interceptors add short waits of their own
wait_of() {
	rt_dump "$P.out" | awk -v f="$1" -v k="$2" '
		function val(key,   i) { for (i = 2; i <= NF; i++) if (index($i, key "=") == 1) return substr($i, length(key) + 2) }
		$1 == "times" { hz = val("tsc_hz") }
		$1 == "wait" && val("func") == f && val("kind") == k { n += val("count"); c += val("cycles") }
		END { printf "%d %.1f\n", n, hz ? c * 1000 / hz : -1 }'
}
# each of main's waits: in its function, of its kind (a system call's, but the fault's), as long as the
# program made it (the wake-up on a loaded host may add some)
places() {
	local f want kind c ms ok=0
	for f in napper:300:syscall locker:200:syscall waiter:200:syscall reader:200:syscall toucher:200:fault; do
		IFS=: read -r f want kind <<<"$f"
		[ "$f" != toucher ] || [ "$UFFD" = 1 ] || { echo "# toucher: no userfaultfd here"; continue; }
		read -r c ms <<<"$(wait_of "$f" "$kind")"
		rt_is 'ms >= 0.95 * want && ms <= want + 250 && c >= 1' f="$f" kind="$kind" ms="$ms" want="$want" c="$c" || ok=1
	done
	return $ok
}
if [ $HAVE = 1 ]; then check "each of main's waits is in its function, of its kind, as long as it waited" places; else skip "waits" "the kernel gives no samples at switches here"; fi

# a thread's waits hold its blocked time, no more and no less
sums() {
	rt_dump "$P.out" | awk '
		function val(key,   i) { for (i = 2; i <= NF; i++) if (index($i, key "=") == 1) return substr($i, length(key) + 2) }
		$1 == "thread" { b[val("tid")] = val("off_blocked") + 0 }
		$1 == "wait" { w[val("tid")] += val("cycles") }
		END { for (t in b) { printf "%s %d %d\n", t, b[t], w[t]; if (b[t] != w[t] + 0) bad = 1 } exit bad }'
}
if [ $HAVE = 1 ]; then check "each thread's waits add up to its blocked time exactly" sums; else skip "waits" "the kernel gives no samples at switches here"; fi

# the report: the time by state, and each place under its function in its state
report() {
	local r=$T/report line st
	"$SPY_BUILD/spinprof" "$P.out" >"$r" || return 1
	sed -n '/^off CPU:/,/^hook overhead/p' "$r"
	line=$(grep '^blocked: ' "$r") || { echo "no blocked: line"; return 1; }
	for st in lock condition sleep I/O; do
		rt_is 'v >= 0.19' st="$st" v="$(sed -n "s|.* $st \([0-9.]*\) s.*|\1|p" <<<"$line")" || return 1
	done
	[ "$UFFD" != 1 ] || rt_is 'v >= 0.19' st=fault v="$(sed -n 's|.* page fault \([0-9.]*\) s.*|\1|p' <<<"$line")" || return 1
	grep -q 'not placed' <<<"$line" && { echo "some time not placed"; return 1; }
	for f in napper:sleep:clock_nanosleep locker:lock: waiter:condition: reader:I/O:read toucher:page:; do
		IFS=: read -r f st call <<<"$f"
		[ "$f" != toucher ] || [ "$UFFD" = 1 ] || continue
		awk -v f="$f" -v st="$st" -v call="$call" '
			$NF == f && $3 == st && (call == "" || $4 == call) { found = 1 }
			END { exit !found }' "$r" || { echo "no row: $f in state $st ($call)"; return 1; }
	done
}
if [ $HAVE = 1 ]; then check "the report's header gives the time by state and each place in its state" report; else skip "waits" "the kernel gives no samples at switches here"; fi

# the JSON's threads: each one's time by state adds up to its blocked time, and main's lock is locker's
json() {
	"$SPY_BUILD/spinprof" --format=json "$P.out" >"$T/p.json" || return 1
	python3 - "$T/p.json" <<'EOP'
import json, sys
d = json.load(open(sys.argv[1]))
bad = 0
for t in d["threads"]:
    by = t.get("blocked_by")
    print(t["tid"], t["off_blocked"], by)
    if by is None or sum(by.values()) != t["off_blocked"] or sum(w["cycles"] for w in t["waits"]) != t["off_blocked"]:
        bad = 1
locks = [w for t in d["threads"] for w in t["waits"] if w["state"] == "lock"]
print(locks)
if not any(w["under"] == "locker" and w["count"] == 1 for w in locks):
    bad = 1
sys.exit(bad)
EOP
}
if [ $HAVE = 1 ]; then check "the JSON's threads give their blocked time by state and place" json; else skip "waits" "the kernel gives no samples at switches here"; fi

# two files summed: the places are the same, twice as long
summed() {
	local one two
	one=$("$SPY_BUILD/spinprof" "$P.out" | awk '$NF == "locker" && $3 == "lock" { print $1 }')
	two=$("$SPY_BUILD/spinprof" "$P.out" "$P.out" | awk '$NF == "locker" && $3 == "lock" { print $1 }')
	rt_is 'two > 1.99 * one && two < 2.01 * one && one > 0' one="$one" two="$two"
}
if [ $HAVE = 1 ]; then check "two files summed keep their waits" summed; else skip "waits" "the kernel gives no samples at switches here"; fi

# an unprivileged user where perf_event_paranoid is above 1: the samples are refused, and said to be
paranoid=$(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null || echo 9)
unprivileged() {
	local U=65534 d=$T/nobody
	mkdir -p "$d" && chmod 755 "$T" "$d" && chown $U "$d" && cp "$P" "$d/waits" && chmod 755 "$d/waits" || return 1
	(cd "$d" && SPYRT_OUT="$d/n.out" setpriv --reuid=$U --regid=$U --clear-groups -- ./waits) >"$d/stdout" 2>&1 ||
		{ cat "$d/stdout"; return 1; }
	rt_dump "$d/n.out" | grep '^hflags' | grep -q 'waits_none' || { echo "no waits_none flag"; return 1; }
	rt_dump "$d/n.out" | grep -q '^thread .*offcpu,' || { echo "no off-CPU time"; return 1; }
	! rt_dump "$d/n.out" | grep -q '^wait ' || { echo "waits recorded"; return 1; }
	"$SPY_BUILD/spinprof" "$d/n.out" | grep -x 'blocked: where not recorded: the kernel refused a sample at each context switch (perf_event_paranoid above 1, without CAP_PERFMON)'
}
if [ "$(id -u)" -ne 0 ] || ! command -v setpriv >/dev/null; then
	skip "unprivileged" "not root, or no setpriv: cannot run as another user"
elif [ "$paranoid" -le 1 ]; then
	skip "unprivileged" "perf_event_paranoid is $paranoid: an unprivileged user gets the samples"
else
	check "an unprivileged user (perf_event_paranoid $paranoid): the samples refused, and said to be" unprivileged
fi
tap_done
