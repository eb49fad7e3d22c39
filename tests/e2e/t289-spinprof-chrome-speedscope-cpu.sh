#!/bin/bash
# t289: spinprof --format=chrome of CPU samples in speedscope (headless Chromium): samples/twocallers.c
# with SPYRT_WATCH=cpu, where heavy and light each ask for half of work's iterations. speedscope takes
# the file for a Chrome timeline; its one lane's total is the CPU time the runtime sampled (the dump's
# stack weights, nanoseconds, shown as speedscope rounds them); its sandwich table shows work with
# nearly all of it as self (85 %), heavy and light each 30-70 % of it as total and together 95 %,
# main all of it but the profiler's own ticks (a root of their own, <profiler>); its Export's call
# paths end in work under heavy and under light.
. "$(dirname "${BASH_SOURCE[0]}")/lib-spinprof.sh"
. "$(dirname "${BASH_SOURCE[0]}")/lib-runtime.sh"
. "$SPY_SRC/tests/e2e/viewer/viewer.sh"

viewer_setup
[ -x "$SPINPROF" ] || tap_skip_all "no spinprof"
rt_setup

S=${SPY_TWOCALLERS_S:-40000}
P=$T/twocallers
V=$T/speedscope

made() {
	rt_sample twocallers "$P" || return 1
	RT_ENV="SPYRT_WATCH=cpu" rt_run "$P" "$S" || return 1
	"$SPINPROF" --format=chrome -o "$P.json" "$P.out"
}
tap_plan 4
if ! sp_check "twocallers, SPYRT_WATCH=cpu: spinprof --format=chrome writes it" made; then
	for _ in 1 2 3; do not_ok "no profile of twocallers"; done
	tap_done
fi
if [ "$(rt_get "$P.out" sampling taken)" -gt 0 ] 2>/dev/null; then :; else
	for _ in 1 2 3; do ok "# SKIP the runtime recorded no cpu samples"; done
	tap_done
fi

cat >"$T/check.py" <<'PY'
import re, sys
shown, ns = sys.argv[1], float(sys.argv[2])
imp, rows = None, {}
for l in open(shown):
    l = l.rstrip("\n")
    if l.startswith("import "):
        imp = l[7:]
    elif l.startswith("row 1 "):
        r = l[6:].split("\t")
        rows[r[2]] = r
    elif l.startswith("lane "):
        print("more than one lane: " + l)
        sys.exit(1)
def us(s):
    m = re.match(r"([0-9.]+)(ns|µs|ms|s) ", s + " ")
    k = {"ns": 1e-3, "µs": 1, "ms": 1e3, "s": 1e6}[m.group(2)]
    return float(m.group(1)) * k, 0.005 * k
if imp != "Chrome Timeline Object":
    print("imported as %r" % imp)
    sys.exit(1)
want = ns / 1000
total, prec = us(rows["main"][0])
# the profiler's own ticks are a root of their own (<profiler>), beside main
if "<profiler>" in rows:
    t, p = us(rows["<profiler>"][0])
    total, prec = total + t, prec + p
if abs(total - want) > prec + 1e-6 * want:
    print("main's total %s, the runtime sampled %.3f us" % (rows["main"][0], want))
    sys.exit(1)
work_self = us(rows["work"][1])[0]
h, l = us(rows["heavy"][0])[0], us(rows["light"][0])[0]
print("of %.0f us: work's self %.0f, heavy %.0f, light %.0f" % (total, work_self, h, l))
if work_self < 0.85 * total or not 0.3 * total <= h <= 0.7 * total or not 0.3 * total <= l <= 0.7 * total or h + l < 0.95 * total:
    sys.exit(1)
PY

loaded() {
	viewer_speedscope "$P.json" "$V" >/dev/null || { cat "$V/shown"; return 1; }
	cat "$V/shown"
	local ns
	ns=$(rt_dump "$P.out" | awk '$1 == "stack" { for (i = 2; i <= NF; i++) if ($i ~ /^weight=/) s += substr($i, 8) } END { printf "%.0f\n", s }')
	python3 "$T/check.py" "$V/shown" "$ns"
}
check "speedscope: main's total the sampled CPU time; work's self 85 %, heavy and light 30-70 % each" loaded

paths() {
	viewer_export_folded "$V" 1 >"$T/folded" || { cat "$T/folded"; return 1; }
	cat "$T/folded"
	grep -q '^main;heavy;work ' "$T/folded" && grep -q '^main;light;work ' "$T/folded"
}
check "its Export: work's samples under main;heavy and under main;light" paths

shot() {
	[ "$(head -c 8 "$V/speedscope-1.png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] &&
		[ "$(stat -c %s "$V/speedscope-1.png")" -gt 10000 ]
}
check "a screenshot of its flame chart is a PNG" shot
tap_done
