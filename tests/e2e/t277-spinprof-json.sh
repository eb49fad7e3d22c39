#!/bin/bash
# t277: spinprof --format=json writes the analysed model as JSON, read back by python3's json module.
# samples/calls.c in time mode: calls main 1, a 10, b 30, c 60 and the arcs main->a 10, a->b 30,
# b->c 60 by id; the header says spy, time, cycles; the selves add up to the header's total, main's
# total is it, seconds are units over hz; one thread. samples/recursion.c: one cycle of exactly
# is_even and is_odd, is_even 51 calls, fib 1 call and 21890 recursive ones. samples/threads.c with 3
# threads of 1000 calls: 4 threads, worker 3 calls (3 spontaneous), work 3000. A sampled run (mode
# arcs, cpu) has a samples object whose procedures' selves add up to its total, and with the
# profiler's weight to all of it. A gcc -pg calls.c
# gives kind gnu and the same counts. A function named café and an argument with a quote, a
# backslash and a newline come back exactly. Every key written is one docs/spinprof-json.md lists.
. "$(dirname "$0")/lib-spinprof.sh"
. "$(dirname "$0")/lib-runtime.sh"

[ -x "$SPINPROF" ] || tap_skip_all "no spinprof"
command -v python3 >/dev/null || tap_skip_all "no python3 (in mk/deps.sh)"
rt_setup

tap_plan 9

cd "$T" || exit 1

# js OUT.json PROFILE...: spinprof --format=json, status 0, nothing on stderr
js() { sp_export json "$@"; }

# py FILE.json 'PYTHON': run PYTHON with d = the parsed document, f = functions by name, a = arcs as
# {(caller name, callee name): count}; an assertion that fails prints what it compared
py() {
	python3 - "$1" <<PY
import json, sys
d = json.load(open(sys.argv[1]))
f = {x["name"]: x for x in d["functions"]}
n = {x["id"]: x["name"] for x in d["functions"]}
a = {(n[x["caller"]], n[x["callee"]]): x["count"] for x in d["arcs"]}
def eq(got, want, what):
    if got != want:
        print(what, "got", got, "want", want)
        sys.exit(1)
def near(got, want, what):
    if abs(got - want) > 1e-6 * max(1.0, abs(want)):
        print(what, "got", got, "want", want)
        sys.exit(1)
$2
PY
}

P=$T/calls
build() { rt_sample calls "$P" && rt_run "$P"; }
if ! check "calls.c builds with the plugin and runs (time mode)" build; then
	for _ in $(seq 8); do not_ok "calls (not built)"; done
	tap_done
fi

check "calls.c: counts 1, 10, 30, 60 and the three arcs by id" eval 'js calls.json calls.out && py calls.json "
eq({k: f[k][\"calls\"] for k in (\"main\", \"a\", \"b\", \"c\")}, {\"main\": 1, \"a\": 10, \"b\": 30, \"c\": 60}, \"calls\")
eq({k: f[k][\"count\"] for k in (\"main\", \"a\", \"b\", \"c\")}, {\"main\": 1, \"a\": 10, \"b\": 30, \"c\": 60}, \"add-one counts\")
eq(f[\"main\"][\"spontaneous\"], 1, \"main spontaneous\")
eq(a, {(\"main\", \"a\"): 10, (\"a\", \"b\"): 30, (\"b\", \"c\"): 60}, \"arcs\")
eq([x[\"id\"] for x in d[\"functions\"]], list(range(len(d[\"functions\"]))), \"ids\")
"'

check "header: spy, time, cycles; selves sum to the total, main's total is it; seconds = units / hz; one thread" \
	py calls.json '
h = d["header"]
eq((d["format"], d["schema"], h["kind"], h["mode"], h["unit"], h["measured"], h["callers"]), ("spinprof", 1, "spy", "time", "cycles", True, True), "header")
near(sum(x["self"] for x in d["functions"]), h["total"], "selves")
near(f["main"]["total"], h["total"], "main total")
near(f["a"]["total_seconds"] * h["hz"], f["a"]["total"], "seconds")
eq(h["argv"], ["'"$P"'"], "argv")
eq(len(d["threads"]), 1, "threads")
eq(d["samples"], None, "samples of a time profile")
'

R=$T/recursion
recursion() {
	rt_sample recursion "$R" && rt_run "$R" && js rec.json recursion.out || return 1
	py rec.json '
eq(len(d["cycles"]), 1, "cycles")
eq(sorted(n[m] for m in d["cycles"][0]["members"]), ["is_even", "is_odd"], "members")
eq(f["is_even"]["cycle"], d["cycles"][0]["cycle"], "is_even cycle")
eq((f["is_even"]["calls"] + f["is_even"]["self_calls"], f["is_odd"]["calls"] + f["is_odd"]["self_calls"]), (51, 50), "cycle calls")
eq((f["fib"]["calls"], f["fib"]["self_calls"], f["fib"]["cycle"]), (1, 21890, 0), "fib")
eq(a[("fib", "fib")], 21890, "fib->fib")
'
}
check "recursion.c: one cycle {is_even, is_odd}, 51 and 50 calls; fib 1 + 21890 recursive" recursion

TH=$T/threads
threads() {
	rt_sample threads "$TH" && rt_run "$TH" 3 1000 && js th.json threads.out || return 1
	py th.json '
eq(len(d["threads"]), 4, "threads")
eq((f["worker"]["calls"], f["worker"]["spontaneous"], f["work"]["calls"]), (3, 3, 3000), "worker, work")
eq(len(set(t["tid"] for t in d["threads"])), 4, "distinct tids")
'
}
check "threads.c 3 1000: 4 threads, worker 3 calls (spontaneous), work 3000" threads

sampled() {
	RT_ENV="SPYRT_MODE=arcs SPYRT_WATCH=cpu SPYRT_HZ=1000" rt_run "$TH" 2 3000000 || return 1
	js smp.json threads.out || return 1
	py smp.json '
s = d["samples"]
if s is None:
    print("no samples"); sys.exit(1)
eq((d["header"]["sampled"], d["header"]["unit"], s["unit"], d["header"]["sampling"]["watch"]), (True, "ticks", "ticks", "cpu"), "sampled")
if s["total"] <= 0 or s["stacks"] <= 0:
    print("empty", s); sys.exit(1)
near(sum(p["self"] for p in s["procedures"]), s["total"], "procedures self sum")
near(s["total"] + s["in_profiler"], s["all"], "the program and the profiler make all")
eq(f["work"]["calls"], 6000000, "work calls")
'
}
check "a sampled run (arcs, cpu): samples in ticks, the procedures' selves add up to its total, with the profiler's to all" sampled

gnu() {
	mkdir -p gnu
	# shellcheck disable=SC2086
	$CC -O2 -pg -I"$SAMPLES" "$SAMPLES/calls.c" -o gnu/prog $SPY_SAN_FLAGS || return 1
	(cd gnu && ./prog) && [ -s gnu/gmon.out ] || { echo "no gmon.out"; return 1; }
	(cd gnu && js ../gnu.json ./prog gmon.out) || return 1
	py gnu.json '
eq((d["header"]["kind"], d["header"]["unit"], d["threads"]), ("gnu", "ticks", []), "gnu header")
eq({k: f[k]["calls"] for k in ("a", "b", "c")}, {"a": 10, "b": 30, "c": 60}, "calls")
eq({k: v for k, v in a.items() if k[0] != "main" or k[1] == "a"}, {("main", "a"): 10, ("a", "b"): 30, ("b", "c"): 60}, "arcs")
'
}
check "gcc -pg calls.c with its gmon.out: kind gnu, unit ticks, the same counts and arcs" gnu

cat >"$T/names.c" <<'C'
__attribute__((noinline)) int café(int x) { return x + 1; }
int main(int argc, char **argv)
{
	(void)argv;
	return café(argc) == 0;
}
C
strings() {
	rt_cc "$T/names" "$CC" "$T/names.c" && rt_run "$T/names" $'q"b\\s\nl' || return 1
	js names.json names.out || return 1
	py names.json '
eq(f["café"]["calls"], 1, "café")
eq(d["header"]["argv"][1], "q\"b\\s\nl", "argv")
'
}
check "a function named café and an argument with a quote, a backslash and a newline come back exactly" strings

documented() {
	python3 - "$SPY_SRC/docs/spinprof-json.md" calls.json rec.json th.json smp.json gnu.json <<'PY'
import json, re, sys
doc = set()
section = ""
for line in open(sys.argv[1]):
    m = re.match(r"^#+ (Top level|`([^`]*)`)", line)
    if m:
        section = m.group(2) or ""
        continue
    if line.startswith("| `"):
        for k in re.findall(r"`([^`]+)`", line.split("|")[1]):
            doc.add((section + "." if section else "") + k)
seen = set()
def walk(v, path):
    if isinstance(v, dict):
        for k, x in v.items():
            p = (path + "." if path else "") + k
            seen.add(p)
            walk(x, p)
    elif isinstance(v, list):
        for x in v:
            if isinstance(x, dict):
                walk(x, path + "[]")
for f in sys.argv[2:]:
    try:
        walk(json.load(open(f)), "")
    except FileNotFoundError:
        pass
missing = sorted(seen - doc)
if missing:
    print("not in docs/spinprof-json.md:", missing)
    sys.exit(1)
PY
}
check "every key written is listed in docs/spinprof-json.md" documented

tap_done
