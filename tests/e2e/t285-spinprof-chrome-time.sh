#!/bin/bash
# t285: spinprof --format=chrome of time-mode profiles without samples: each thread's call tree as
# complete events (ph "X") laid out by inclusive time. samples/threads.c (4 workers): a thread_name
# for each of the 5 threads; every event nests in its parent's span and siblings do not overlap; each
# worker thread holds one worker event with one work event inside, the main thread main. samples/
# twocallers.c: heavy's and light's durations are in the ratio of the CPU time the program measured
# around its calls of work (heavy_ns, light_ns), and each holds a work event. A profile with neither
# samples nor times (SPYRT_MODE=arcs) and a GNU gmon.out are refused with one line, status 2.
. "$(dirname "${BASH_SOURCE[0]}")/lib-spinprof.sh"
. "$(dirname "${BASH_SOURCE[0]}")/lib-runtime.sh"

[ -x "$SPINPROF" ] || tap_skip_all "no spinprof"
command -v python3 >/dev/null || tap_skip_all "no python3"
rt_setup

P=$T/threads
Q=$T/twocallers
run_it() {
	rt_sample threads "$P" || return 1
	RT_ENV="SPYRT_MODE=time SPYRT_WATCH=none" rt_run "$P" 4 20000 || return 1
	"$SPINPROF" --format=chrome -o "$P.json" "$P.out" 2>"$P.err" || { echo "spinprof --format=chrome: status $?"; cat "$P.err"; return 1; }
	rt_sample twocallers "$Q" || return 1
	RT_ENV="SPYRT_MODE=time SPYRT_WATCH=none" rt_run "$Q" 20000 || return 1
	"$SPINPROF" --format=chrome -o "$Q.json" "$Q.out" 2>"$Q.err" || { echo "spinprof --format=chrome: status $?"; cat "$Q.err"; return 1; }
}
tap_plan 5
if ! sp_check "threads and twocallers in time mode: spinprof --format=chrome writes them" run_it; then
	for _ in 1 2 3 4; do not_ok "(no profile)"; done
	tap_done
fi

cat >"$T/check.py" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
what = sys.argv[2]
def fail(msg):
    print(msg)
    sys.exit(1)
ev = d["traceEvents"]
names = {e["tid"]: e["args"]["name"] for e in ev if e["ph"] == "M" and e["name"] == "thread_name"}
xs = [e for e in ev if e["ph"] == "X"]
# nesting per thread: sorted by start, then longest first, each event inside the open one or after it
trees = {}
eps = 1e-3
for tid in {e["tid"] for e in xs}:
    if tid not in names:
        fail("thread %d has events but no thread_name" % tid)
    stack, roots = [], []
    for e in sorted((e for e in xs if e["tid"] == tid), key=lambda e: (e["ts"], -e["dur"])):
        while stack and e["ts"] >= stack[-1]["ts"] + stack[-1]["dur"] - eps:
            stack.pop()
        if stack and e["ts"] + e["dur"] > stack[-1]["ts"] + stack[-1]["dur"] + eps:
            fail("%s at %.3f+%.3f overlaps %s" % (e["name"], e["ts"], e["dur"], stack[-1]["name"]))
        e["kids"] = []
        (stack[-1]["kids"] if stack else roots).append(e)
        stack.append(e)
    trees[tid] = roots
def shape(es):
    return [(e["name"], shape(e["kids"])) for e in es]
if what == "threads":
    if len(names) != 5:
        fail("%d thread names: %r" % (len(names), names))
    # a thread's <profiler> event (what the hook correction took off its roots) comes after its roots
    def own(t):
        s = shape(trees[t])
        return s[:-1] if s and s[-1] == ("<profiler>", []) else s
    workers = [t for t in trees if own(t) == [("worker", [("work", [])])]]
    mains = [t for t in trees if trees[t] and trees[t][0]["name"] == "main"]
    if len(workers) != 4 or len(mains) != 1:
        fail("trees: %r" % {t: shape(trees[t]) for t in trees})
elif what == "ratio":
    hn, ln = float(sys.argv[3]), float(sys.argv[4])
    (t,) = trees
    dur = {}
    for e in xs:
        dur[e["name"]] = dur.get(e["name"], 0) + e["dur"]
    for r in trees[t]:
        for k in r["kids"]:
            if k["name"] in ("heavy", "light") and [x["name"] for x in k["kids"]] != ["work"]:
                fail("%s holds %r" % (k["name"], shape(k["kids"])))
    r = (dur["heavy"] / dur["light"]) / (hn / ln)
    if not 0.85 <= r <= 1.15:
        fail("heavy/light %.3f, the program measured %.3f" % (dur["heavy"] / dur["light"], hn / ln))
EOF

check "threads: 5 thread names; events nest in their parents, siblings apart" python3 "$T/check.py" "$P.json" nest
check "threads: each worker thread holds worker with work inside, the main thread main" python3 "$T/check.py" "$P.json" threads
check "twocallers: heavy's and light's durations in the program's measured ratio (15 %), each holding work" \
	python3 "$T/check.py" "$Q.json" ratio "$(sed -n 's/^heavy_ns //p' "$Q.stdout")" "$(sed -n 's/^light_ns //p' "$Q.stdout")"

refused() {
	local out err rc
	RT_ENV="SPYRT_MODE=arcs SPYRT_WATCH=none" rt_run "$Q" 200 || return 1
	out=$("$SPINPROF" --format=chrome "$Q.out" 2>"$T/err")
	rc=$?
	err=$(cat "$T/err")
	[ $rc = 2 ] && [ -z "$out" ] && [ "$(wc -l <"$T/err")" = 1 ] && [[ $err == "spinprof: $Q.out: "* ]] ||
		{ echo "arcs mode: status $rc, stdout '$out', stderr '$err'"; return 1; }
	mkdir -p "$T/pg" && $CC -O2 -pg -I"$SAMPLES" "$SAMPLES/calls.c" -o "$T/pg/prog" && (cd "$T/pg" && ./prog) || return 1
	out=$(cd "$T/pg" && "$SPINPROF" --format=chrome ./prog gmon.out 2>"$T/err")
	rc=$?
	err=$(cat "$T/err")
	[ $rc = 2 ] && [ -z "$out" ] && [ "$(wc -l <"$T/err")" = 1 ] && [[ $err == "spinprof: gmon.out: "* ]] ||
		{ echo "GNU: status $rc, stdout '$out', stderr '$err'"; return 1; }
}
check "no samples nor times (arcs mode), or GNU's gmon.out: one line 'spinprof: FILE: ...', status 2" refused

tap_done
