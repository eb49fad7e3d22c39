#!/bin/bash
# t248: the profiler's own cost is stated once, in CPU terms, the same in every output (issue 23,
# item 7). A program that makes many small calls (so that the hooks cost a share worth measuring) run in
# mode time sampled by CPU time, in mode arcs sampled by CPU time, and in mode time without samples. The
# references are the profile's own records (`spinprof --dump`): with samples, the share is the ticks whose
# PC was in the profiler of all the ticks on the CPU; without, the cycles the hook correction took off
# (every arc's raw self cycles summed, less the corrected selves json's header totals) of all the cycles
# measured. Checked for each run: the header's "profiler:" line gives that share (to its 0.1 %) and the
# Spy report's is the same line; json's profiler_share is it; the views weigh <profiler> at that share:
# folded (and so svg and the HTML page's flame graph), pprof (go tool pprof, no <unknown>), chrome; the
# HTML page states the header's line. Mode arcs' header no longer prints a share of 0 seconds.
. "$(dirname "$0")/lib-spinprof.sh"
. "$(dirname "$0")/lib-runtime.sh"
. "$(dirname "$0")/lib-pprof.sh"

[ -x "$SPINPROF" ] || tap_skip_all "no spinprof"
command -v python3 >/dev/null || tap_skip_all "no python3 (in mk/deps.sh)"
rt_setup
pp_go_setup
tap_plan 18

cat >"$T/many.c" <<'EOF'
#include <stdlib.h>
#include "sample.h"
static volatile unsigned long sink;
NOINL void tiny(void) { sink++; }
NOINL void own(long n) { unsigned long x = sink; for (long i = 0; i < n; i++) { x = x * 6364136223846793005ul + 1; BARRIER(); } sink = x; }
/* six call sites of tiny: mode arcs' inline cache keeps two, the others take the runtime's slow path */
NOINL void calls(long n)
{
	for (long i = 0; i < n; i += 6) {
		tiny(); BARRIER(); tiny(); BARRIER(); tiny(); BARRIER();
		tiny(); BARRIER(); tiny(); BARRIER(); tiny(); BARRIER();
	}
}
int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 2000000;
	calls(n);
	own(20 * n);
	return 0;
}
EOF

P=$T/many
N=${SPY_MANY_N:-2000000}
# run_it TAG MODE WATCH: build in MODE, run with SPYRT_WATCH=WATCH, the report, the Spy report alone, the
# dump and every view
run_it() {
	local t=$P-$1
	rt_cc "$t" "$CC" "-fplugin-arg-spyinstr-mode=$2" "$T/many.c" || return 1
	RT_ENV="SPYRT_WATCH=$3" rt_run "$t" "$N" || return 1
	"$SPINPROF" -b "$t.out" >"$t.txt" 2>"$t.err" || { cat "$t.err"; return 1; }
	"$SPINPROF" -b --spy "$t.out" >"$t.spy" 2>"$t.err" || { cat "$t.err"; return 1; }
	"$SPINPROF" --dump "$t.out" >"$t.dump" || return 1
	sp_export json "$t.json" "$t.out" && sp_export folded "$t.folded" "$t.out" &&
		sp_export pprof "$t.pb.gz" "$t.out" && sp_export chrome "$t.chrome" "$t.out" &&
		sp_export html "$t.html" "$t.out"
}

# want TAG: the share the records give, as a fraction
want() {
	python3 - "$P-$1.dump" "$P-$1.json" <<'PY'
import json, sys
period, part, all_, raw = None, 0.0, 0.0, 0.0
for line in open(sys.argv[1]):
    w = line.split()
    kv = dict(x.split("=", 1) for x in w[1:] if "=" in x)
    if w[0] == "sampling" and kv["watch"] in ("cpu", "wall") and int(kv["hz"]):
        period = 1e9 / int(kv["hz"])
    elif w[0] == "stack" and period and "waiting" not in kv["flags"]:
        v = int(kv["weight"]) / period
        all_ += v
        if "runtime" in kv["flags"]:
            part += v
    elif w[0] == "arc":
        raw += int(kv["self"])
if all_ > 0:
    print("%.9f samples" % (part / all_))
else:
    prog = json.load(open(sys.argv[2]))["header"]["total"]
    print("%.9f calibration" % ((raw - prog) / raw))
PY
}

# header TAG: the header's profiler line; it gives the share the records give, to its 0.1 %; the report
# has no other statement of it (the Spy report at its end repeats the line)
header() {
	local t=$P-$1 line w how
	line=$(grep -m 1 '^profiler:' "$t.txt")
	echo "$line"
	read -r w how < <(want "$1")
	echo "records: $w ($how)"
	case $how in
	samples) grep -q '^profiler: [0-9.]*% of the CPU time ([0-9]* of the [0-9]* ticks on the CPU were in it)' <<<"$line" || return 1 ;;
	*) grep -q "^profiler: [0-9.]*% of the measured\( CPU\)\? time (its hooks' calibrated cost" <<<"$line" || return 1 ;;
	esac
	awk -v l="$line" -v w="$w" 'BEGIN { split(l, a, "%"); sub(/^profiler: /, "", a[1]); exit !(a[1] == sprintf("%.1f", 100 * w)) }' &&
		[ "$(grep '^profiler:' "$t.txt" | sort -u | wc -l)" = 1 ] &&
		! grep -q '% of the run\|seconds total, \|ticks in the profiler (' "$t.txt"
}
# same_spy TAG: the Spy report alone states the same line
same_spy() {
	diff <(grep -m 1 '^profiler:' "$P-$1.txt") <(grep '^profiler:' "$P-$1.spy")
}
# views TAG: json's share, and <profiler>'s share in folded, pprof and chrome, and the HTML page's line
views() {
	local t=$P-$1 w how top
	read -r w how < <(want "$1")
	timeout 120 go tool pprof -top -nodefraction=0 -unit=ms "$t.pb.gz" >"$t.top" 2>>"$T/pprof.err" || { cat "$T/pprof.err"; return 1; }
	! grep -q '<unknown>' "$t.top" || { echo "pprof has <unknown>:"; grep '<unknown>' "$t.top"; return 1; }
	top=$(pp_top "$t.top" "<profiler>" 2)
	python3 - "$w" "$how" "$t.json" "$t.folded" "$t.chrome" "$t.html" "$t.txt" "${top:-none}" <<'PY'
import html, json, sys
w, how, jf, ff, cf, hf, tf, pprof = sys.argv[1:]
w = float(w)
tol = 1e-6 if how == "samples" else 0.002  # the cycles of time mode's paths are shared among paths
bad = []
def near(got, what, t=tol):
    if got is None or abs(got - w) > t:
        bad.append("%s: %s, want %.6f" % (what, got, w))
near(json.load(open(jf))["header"]["profiler_share"], "json profiler_share", 1e-9)
tot = prof = 0.0
for line in open(ff):
    stack, v = line.rsplit(" ", 1)
    tot += float(v)
    if stack.split(";")[-1] == "<profiler>":
        prof += float(v)
near(prof / tot if tot else None, "folded <profiler> share")
near(float(pprof) / 100 if pprof != "none" else None, "pprof <profiler> flat%", 0.0006)
c = json.load(open(cf))
ev = c["traceEvents"]
if how == "samples":
    selfs = {}
    for e in ev:
        if e.get("ph") == "P" and e.get("name") == "ProfileChunk":
            cp = e["args"]["data"]["cpuProfile"]
            names = {n["id"]: n["callFrame"]["functionName"] for n in cp["nodes"]}
            deltas = e["args"]["data"]["timeDeltas"]
            # the sample after each gap is the node whose time the gap was
            for s, d in zip(cp["samples"], deltas[1:]):
                selfs[names[s]] = selfs.get(names[s], 0) + d
    allc = sum(selfs.values())
    near(selfs.get("<profiler>", 0) / allc if allc else None, "chrome <profiler> share", 0.0006)
else:
    xs = [e for e in ev if e.get("ph") == "X"]
    roots = sum(e["dur"] for e in xs if e["ts"] >= 0 and e.get("cat") == "profiler")
    # the roots of each thread are the events at its depth 0: every event not inside another of its thread
    by_tid = {}
    for e in xs:
        by_tid.setdefault(e["tid"], []).append(e)
    top = 0.0
    for evs in by_tid.values():
        end = -1.0
        for e in sorted(evs, key=lambda e: (e["ts"], -e["dur"])):
            if e["ts"] >= end - 1e-9:
                top += e["dur"]
                end = e["ts"] + e["dur"]
    near(roots / top if top else None, "chrome <profiler> share", 0.0006)
page = html.unescape(open(hf).read())
line = [l for l in open(tf).read().split("\n") if l.startswith("profiler:")][0]
if '<p id="profiler">' + line + "</p>" not in page:
    bad.append("the HTML page does not state: " + line)
for b in bad:
    print(b)
sys.exit(1 if bad else 0)
PY
}

for r in "tcpu time cpu" "acpu arcs cpu" "tnone time none"; do
	read -r tag mode watch <<<"$r"
	if ! check "$tag: mode $mode, SPYRT_WATCH=$watch: built, run, read, every view written" run_it "$tag" "$mode" "$watch"; then
		for _ in 1 2 3 4 5; do not_ok "$tag: no profile"; done
		continue
	fi
	check "$tag: the header states the share once, as the records give it" header "$tag"
	check "$tag: the Spy report's profiler line is the header's" same_spy "$tag"
	check "$tag: json, folded, pprof, chrome and the HTML page give the same share, as <profiler>" views "$tag"
	case $tag in
	acpu) check "acpu: mode arcs' hook overhead line says the calibration, no share of 0 seconds" \
		grep -q '^hook overhead: [0-9.]* cycles per call (.*), [0-9]* calls (no time stamps in mode arcs: not in seconds)$' "$P-$tag.txt" ;;
	*) check "$tag: the hook overhead line says the calibration in seconds, no share" \
		grep -q '^hook overhead: [0-9.]* cycles per call (.*), [0-9]* calls, [0-9.]* seconds in all$' "$P-$tag.txt" ;;
	esac
	check "$tag: there is a share to compare (some ticks or cycles of the profiler)" \
		eval 'read -r w how < <(want "$tag"); awk -v w="$w" "BEGIN { exit !(w > 0) }"'
done
tap_done
