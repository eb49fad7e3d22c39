#!/bin/bash
# t284: spinprof --format=chrome of a sampled run of samples/twocallers.c (SPYRT_WATCH=cpu): python3's
# json reads it; the structure follows the trace event format (an object with traceEvents; every event
# with ph, pid, tid; process_name and thread_name metadata; per thread one "Profile" and one
# "ProfileChunk" of the same id whose cpuProfile has unique node ids, parents defined before their
# children, samples naming nodes and as many timeDeltas as samples); the timeDeltas add up to the
# profile's sampled nanoseconds (/1000: microseconds); work holds nearly all of them, heavy's and
# light's subtrees each 30-70 % (half each by construction).
. "$(dirname "${BASH_SOURCE[0]}")/lib-spinprof.sh"
. "$(dirname "${BASH_SOURCE[0]}")/lib-runtime.sh"

[ -x "$SPINPROF" ] || tap_skip_all "no spinprof"
command -v python3 >/dev/null || tap_skip_all "no python3"
rt_setup

S=${SPY_TWOCALLERS_S:-40000}
P=$T/twocallers

run_it() {
	rt_sample twocallers "$P" || return 1
	RT_ENV="SPYRT_WATCH=cpu" rt_run "$P" "$S" || return 1
	"$SPINPROF" --format=chrome -o "$P.json" "$P.out" 2>"$P.err" || { echo "spinprof --format=chrome: status $?"; cat "$P.err"; return 1; }
}
if ! run_it >"$T/setup.log" 2>&1; then
	echo "1..1"
	not_ok "twocallers builds, runs with SPYRT_WATCH=cpu, spinprof --format=chrome writes it"
	diag <"$T/setup.log"
	tap_done
fi
[ "$(rt_get "$P.out" sampling taken)" -gt 0 ] 2>/dev/null || tap_skip_all "the runtime recorded no cpu samples"

tap_plan 3

# the checks in python: the file, and the facts the shell passes
cat >"$T/check.py" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
want_us = float(sys.argv[2]) / 1000
pid = int(sys.argv[3])
what = sys.argv[4]
def fail(msg):
    print(msg)
    sys.exit(1)
if not isinstance(d, dict) or not isinstance(d.get("traceEvents"), list):
    fail("not an object with a traceEvents list")
ev = d["traceEvents"]
# every event as Chrome writes them: speedscope recognizes a Chrome trace by its first event's pid,
# tid, ph and cat (and sorts the events on ts)
for e in ev:
    for k in ("ph", "pid", "tid", "name", "cat", "ts"):
        if k not in e:
            fail("an event without %s: %r" % (k, e))
if what == "json":
    sys.exit(0)
meta = [e for e in ev if e["ph"] == "M"]
if not any(e["name"] == "process_name" and e["pid"] == pid for e in meta):
    fail("no process_name for pid %d" % pid)
tids = {e["tid"] for e in meta if e["name"] == "thread_name" and e["args"].get("name")}
prof = {}
for e in ev:
    if e["ph"] == "P":
        prof.setdefault(e["id"], {})[e["name"]] = e
if not prof:
    fail("no Profile events")
total = 0
weight = {}
for pid_, pe in prof.items():
    if set(pe) != {"Profile", "ProfileChunk"}:
        fail("profile %s has %s" % (pid_, sorted(pe)))
    if pe["Profile"]["tid"] != pe["ProfileChunk"]["tid"] or pe["Profile"]["tid"] not in tids:
        fail("profile %s: its thread has no thread_name" % pid_)
    data = pe["ProfileChunk"]["args"]["data"]
    cp, td = data["cpuProfile"], data["timeDeltas"]
    nodes = {}
    for n in cp["nodes"]:
        if n["id"] in nodes:
            fail("node %d twice" % n["id"])
        if "parent" in n and n["parent"] not in nodes:
            fail("node %d: parent %d not defined before" % (n["id"], n["parent"]))
        nodes[n["id"]] = n
    if len(td) != len(cp["samples"]) or any(s not in nodes for s in cp["samples"]):
        fail("%d samples, %d timeDeltas, or a sample naming no node" % (len(cp["samples"]), len(td)))
    # a sample lasts until the next: its weight is the next delta
    for s, dt in zip(cp["samples"], td[1:]):
        n = s
        path = []
        while n:
            path.append(nodes[n]["callFrame"]["functionName"])
            n = nodes[n].get("parent")
        for f in set(path):
            weight[f] = weight.get(f, 0) + dt
        weight["<leaf>" + path[0]] = weight.get("<leaf>" + path[0], 0) + dt
        total += dt
if what == "structure":
    sys.exit(0)
if abs(total - want_us) > 0.01 * len(weight) + 0.001 * want_us:
    fail("timeDeltas add up to %.3f us, the profile's samples to %.3f" % (total, want_us))
w, h, l = weight.get("<leaf>work", 0), weight.get("heavy", 0), weight.get("light", 0)
if w < 0.85 * total or not (0.3 * total <= h <= 0.7 * total) or not (0.3 * total <= l <= 0.7 * total) or h + l < 0.95 * total:
    fail("of %.0f us: work's own %.0f, heavy %.0f, light %.0f" % (total, w, h, l))
EOF

ns=$(rt_dump "$P.out" | awk '$1 == "stack" { for (i = 2; i <= NF; i++) if ($i ~ /^weight=/) s += substr($i, 8) } END { printf "%.0f\n", s }')
pid=$(rt_get "$P.out" header pid)
check "python3's json reads it: an object with traceEvents, each with ph, cat, name, pid, tid and ts" python3 "$T/check.py" "$P.json" "$ns" "$pid" json
check "process and thread names; per thread a Profile and a ProfileChunk whose cpuProfile is well formed" \
	python3 "$T/check.py" "$P.json" "$ns" "$pid" structure
check "the timeDeltas add up to the sampled time; work has it, heavy and light half each (30-70 %)" \
	python3 "$T/check.py" "$P.json" "$ns" "$pid" shares

tap_done
