#!/bin/bash
# t247: time spent in code without hooks is shown where it went (issue 23, item 3), not as its caller's
# self time. samples/libwork.c: match() runs glibc's regexec with a back-reference, copy() memmove()s
# 2 MiB, own() loops in its own code; built in modes time, arcs and count, run with CPU samples. The
# reference is the profile's own samples (`spinprof --dump`): each stack's PC placed in the program's
# sized symbols (nm) or else in the row of code without hooks that starts below it (json's functions with
# "instrumented": false), whose names are checked against libc's own symbols (nm of libc6-dbg's debug
# file) at their addresses. Checked:
#   - mode time, the default report: the flat profile's first ten rows name a glibc regex function and
#     memmove's as NAME [libc.so.6], as grep's case needs (bench/realprog2.sh grep);
#   - mode time: each caller's measured self time is split exactly in the proportions of its own samples:
#     a row's share of (its caller's self + its caller's rows) is the share of the caller's ticks that fell
#     in it, the caller keeps the share that fell in instrumented code;
#   - modes arcs and count: a row's self ticks are the ticks of its PCs (mode arcs: stacks with a frame;
#     count: every stack), an arc's from its caller those of the caller's stacks;
#   - the rows are functions of libc at those addresses (nm of libc's debug file; skipped without it);
#   - the call graph: a row's called column blank, its arcs' counts "-"; the self-check counts the four
#     instrumented functions only;
#   - the views agree with the flat profile: every row of 1 % or more is in the HTML page's flat profile
#     (NAME [libc.so.6]) and, by its name, in its flame graph, in the folded stacks under its caller, in
#     pprof's functions and chrome's events.
. "$(dirname "$0")/lib-spinprof.sh"
. "$(dirname "$0")/lib-runtime.sh"

[ -x "$SPINPROF" ] || tap_skip_all "no spinprof"
command -v python3 >/dev/null || tap_skip_all "no python3 (in mk/deps.sh)"
command -v nm >/dev/null || tap_skip_all "no nm (binutils)"
rt_setup

P=$T/libwork
N=${SPY_LIBWORK_N:-300}
tap_plan 10

run_mode() {
	local m=$1
	rt_cc "$P-$m" "$CC" "-fplugin-arg-spyinstr-mode=$m" "$SAMPLES/libwork.c" || return 1
	RT_ENV="SPYRT_WATCH=cpu" rt_run "$P-$m" "$N" || return 1
	nm -S --defined-only "$P-$m" | awk 'NF == 4 && $3 ~ /^[tTwW]$/ { print $1, $2, $4 }' >"$P-$m.syms"
	"$SPINPROF" --dump "$P-$m.out" >"$P-$m.dump" || return 1
	sp_export json "$P-$m.json" "$P-$m.out" || return 1
	"$SPINPROF" "$P-$m.out" >"$P-$m.txt" 2>"$P-$m.err" || { cat "$P-$m.err"; return 1; }
}
ok_modes=
for m in time arcs count; do
	check "mode $m: built, run with CPU samples, read" run_mode "$m" && ok_modes="$ok_modes $m"
done
has() { [[ " $ok_modes " == *" $1 "* ]]; }

# first_ten: the default report's flat profile, its first ten rows (as bench/realprog2.py reads them)
first_ten() {
	awk '/^Flat profile:/ { on = 1; next } on && /^ *[0-9.]+ / { print; if (++n == 10) exit } on && n && /^$/ { exit }' "$1"
}
top_rows() {
	first_ten "$P-time.txt" >"$T/top10"
	cat "$T/top10"
	grep -Eq ' (re_search_internal|check_[a-z_]+|transit_state[a-z_]*|merge_state_with_log|re_string_[a-z_]+|build_trtable|check_matching|sift_states_backward|get_subexp|set_regs) \[libc\.so\.6\]$' "$T/top10" ||
		{ echo "no glibc regex function among them"; return 1; }
	grep -Eq ' __mem(move|cpy)[a-z0-9_]* \[libc\.so\.6\]$' "$T/top10" || { echo "no memmove among them"; return 1; }
}
if has time; then
	check "mode time: the default report's first ten flat rows name glibc's regex and memmove, NAME [libc.so.6]" top_rows
else
	not_ok "mode time: no report"
fi

# shares MODE: every row's time against the samples (see the header); prints what differs
shares() {
	python3 - "$1" "$P-$1.syms" "$P-$1.dump" "$P-$1.json" <<'PY'
import json, sys
mode, syms_f, dump_f, json_f = sys.argv[1:]
syms = []
for line in open(syms_f):
    a, s, n = line.split()
    syms.append((int(a, 16), int(a, 16) + int(s, 16), n))
d = json.load(open(json_f))
F = d["functions"]
byname = {f["name"]: f for f in F}
instr = {f["name"] for f in F if "count" in f}
rows = sorted((f["addr"], f["name"]) for f in F if f.get("instrumented") is False)
arcs = {(F[a["caller"]]["name"], F[a["callee"]]["name"]): a for a in d["arcs"]}
mods, period, stacks = [], None, []
for line in open(dump_f):
    w = line.split()
    kv = dict(x.split("=", 1) for x in w[1:] if "=" in x)
    if w[0] == "module":
        lo, hi = kv["text"].split("-")
        mods.append((int(lo, 16), int(hi, 16), int(kv["base"], 16), "main" in kv["flags"]))
    elif w[0] == "sampling":
        period = 1e9 / int(kv["hz"])
    elif w[0] == "stack" and "runtime" not in kv["flags"] and int(kv["weight"]):
        fr = [] if kv["frames"] == "-" else [x.rsplit("@", 1)[0] for x in kv["frames"].split(",")]
        stacks.append((int(kv["pc"], 16), fr, int(kv["weight"]) / period))

def module(pc):
    for lo, hi, base, main in mods:
        if lo <= pc < hi:
            return lo, hi, base, main
    return None

def row_of(pc):
    """None: instrumented code (or no module); else the row's name"""
    m = module(pc)
    if not m or pc == 0:
        return None
    lo, hi, base, main = m
    if main:
        for a, e, n in syms:
            if a <= pc - base < e:
                return None if n in byname and "count" in byname[n] else "%s [%s]" % (n, "?")
        return "?"
    below = [r for r in rows if lo <= r[0] <= pc]
    return below[-1][1] if below else "?"

bad = []
def near(got, want, what, tol=1e-6):
    if abs(got - want) > tol * max(1.0, abs(want)):
        bad.append("%s: %.9g, want %.9g" % (what, got, want))

per = {}   # caller -> {row or None: ticks}
alone = {} # row -> ticks of every stack (mode count), of stacks with a frame (arcs)
for pc, fr, t in stacks:
    r = row_of(pc)
    if r is not None and (fr or mode == "count"):
        alone[r] = alone.get(r, 0) + t
    if fr and fr[0] in instr:
        c = per.setdefault(fr[0], {})
        c[r] = c.get(r, 0) + t
if mode == "time":
    for caller, w in per.items():
        all_ = sum(w.values())
        S = byname[caller]["self"] + sum(a["self"] for (c, l), a in arcs.items() if c == caller and byname[l].get("instrumented") is False)
        if S <= 0 or all_ <= 0:
            continue
        for r, t in w.items():
            if r is None:
                near(byname[caller]["self"] / S, t / all_, caller + "'s own share")
            elif (caller, r) not in arcs:
                bad.append("no arc %s -> %s (%.1f of its %.1f ticks)" % (caller, r, t, all_))
            else:
                near(arcs[(caller, r)]["self"] / S, t / all_, "%s -> %s share" % (caller, r))
else:
    for r, t in alone.items():
        if r not in byname:
            bad.append("no row %s (%.1f ticks)" % (r, t))
        else:
            near(byname[r]["self"], t, r + " self ticks")
    for _, r in rows:
        if r not in alone:
            bad.append("row %s has no sample" % r)
    if mode == "arcs":
        for caller, w in per.items():
            for r, t in w.items():
                if r is not None:
                    near(arcs[(caller, r)]["self"] if (caller, r) in arcs else -1, t, "%s -> %s ticks" % (caller, r))
if not rows:
    bad.append("no row of code without hooks")
for b in bad:
    print(b)
sys.exit(1 if bad else 0)
PY
}
for m in time arcs count; do
	case $m in
	time) what="a caller's measured self time split in its samples' proportions" ;;
	arcs) what="the rows' and their arcs' ticks are their samples'" ;;
	count) what="the rows' ticks are their PCs' samples" ;;
	esac
	if has $m; then check "mode $m: $what" shares $m; else not_ok "mode $m: $what: no profile"; fi
done

# libc_names: each row in libc is named by one of libc's symbols at its address (libc6-dbg's file)
libc_names() {
	local mod bid dbg
	mod=$(awk '$1 == "module" && $NF ~ /\/libc\.so\.6$/' "$P-time.dump")
	bid=$(printf '%s\n' "$mod" | sed -n 's/.* build_id=\([0-9a-f]*\) .*/\1/p')
	dbg=/usr/lib/debug/.build-id/${bid:0:2}/${bid:2}.debug
	if [ -z "$bid" ] || [ ! -f "$dbg" ]; then
		echo "SKIP"
		return 0
	fi
	nm --defined-only "$dbg" | awk '{ print $1, $NF }' >"$T/libc.nm"
	python3 - "$P-time.json" "$T/libc.nm" "$(printf '%s\n' "$mod" | sed -n 's/.* base=\(0x[0-9a-f]*\) .*/\1/p')" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
base = int(sys.argv[3], 16)
at = {}
for line in open(sys.argv[2]):
    a, n = line.split()
    at.setdefault(int(a, 16), set()).add(n)
bad = 0
libc_rows = [f for f in d["functions"] if f.get("instrumented") is False and f["name"].endswith(" [libc.so.6]")]
if not libc_rows:
    print("no row of libc")
    bad = 1
for f in libc_rows:
    if True:
        n = f["name"][: -len(" [libc.so.6]")]
        if n.endswith("@plt"):
            continue
        if n not in at.get(f["addr"] - base, set()):
            print("%s at libc+0x%x: libc's symbols there: %s" % (f["name"], f["addr"] - base, sorted(at.get(f["addr"] - base, []))))
            bad = 1
sys.exit(bad)
PY
}
if has time; then
	out=$(libc_names 2>&1)
	rc=$?
	if [ "$out" = SKIP ]; then
		ok "# SKIP the rows' names against libc's symbols: no separate debug file for libc (libc6-dbg, mk/deps.sh)"
	elif [ $rc -eq 0 ]; then
		ok "mode time: each row is a libc function at its address (nm of libc's debug file)"
	else
		not_ok "mode time: each row is a libc function at its address (nm of libc's debug file)"
		printf '%s\n' "$out" | head -n 20 | diag
	fi
else
	not_ok "mode time: no rows to name"
fi

# graph_rows: in the call graph, a row's own line has no called count and its arcs "-"; the self-check
# counts the instrumented functions (main, match, copy, own)
graph_rows() {
	local txt=$P-time.txt
	grep -q '^self-check: 4 functions, add-one counts equal incoming arc counts$' "$txt" ||
		{ grep '^self-check' "$txt"; return 1; }
	awk '/Call graph/ { on = 1 } /^Index by function name/ { on = 0 }
		on && /\[libc\.so\.6\] \[[0-9]+\]$/ && /^\[[0-9]+\]/ { prim++; if ($5 ~ /^[0-9]+$/) { print "called column: " $0; bad++ } }
		on && /\[libc\.so\.6\] \[[0-9]+\]$/ && !/^\[[0-9]+\]/ { arc++; if ($3 != "-") { print "arc count: " $0; bad++ } }
		on && / (match|copy) \[[0-9]+\]$/ && !/^\[/ && $3 == "-" { up++ }
		END { if (!prim || !arc || !up) { print "rows " prim ", arcs to them " arc ", from match or copy " up; bad++ }
		      exit bad != 0 }' "$txt"
}
if has time; then check "mode time: the call graph's rows have no called count and '-' arcs; the self-check counts 4 functions" graph_rows; else not_ok "mode time: no call graph"; fi

# views: every row of 1 % or more of the flat profile, in the other views
views() {
	local f=$P-time
	sp_export html "$f.html" "$f.out" && sp_export folded "$f.folded" "$f.out" &&
		sp_export pprof "$f.pb.gz" "$f.out" && sp_export chrome "$f.chrome.json" "$f.out" || return 1
	awk '/^Flat profile:/ { on = 1; next } on && /^ *[0-9.]+ / { if ($1 >= 1 && / \[libc\.so\.6\]$/) { n = $0; sub(/.*  /, "", n); print n } }
		on && /^$/ && seen++ { exit }' "$f.txt" >"$T/rows"
	[ -s "$T/rows" ] || { echo "no row of 1 % or more"; return 1; }
	python3 - "$T/rows" "$f.html" "$f.folded" "$f.pb.gz" "$f.chrome.json" <<'PY'
import gzip, html, json, re, sys
rows = [l.rstrip("\n") for l in open(sys.argv[1]) if l.strip()]
page = html.unescape(open(sys.argv[2]).read())
folded = open(sys.argv[3]).read().split("\n")
pb = gzip.open(sys.argv[4]).read()
chrome = json.load(open(sys.argv[5]))
events = chrome["traceEvents"] if isinstance(chrome, dict) else chrome
names = set()
def walk(x):
    if isinstance(x, dict):
        for k, v in x.items():
            if k in ("name", "functionName") and isinstance(v, str):
                names.add(v)
            walk(v)
    elif isinstance(x, list):
        for v in x:
            walk(v)
walk(events)
bad = 0
for r in rows:
    bare = r[: -len(" [libc.so.6]")]
    flat = page.split('id="flat"', 1)[-1].split('id="graph"', 1)[0]
    checks = {
        "html flat profile": r in flat,
        "html flame graph": bare in page.split('id="flat"', 1)[0],
        "folded under match or copy": any(re.search(r";(match|copy);" + re.escape(bare) + r" \d+$", l) for l in folded),
        "pprof": bare.encode() in pb,
        "chrome": bare in names,
    }
    for k, v in checks.items():
        if not v:
            print("%s: not in the %s" % (r, k))
            bad = 1
sys.exit(bad)
PY
}
if has time; then check "mode time: every row of 1 % or more is in the HTML (flat and flame), folded, pprof and chrome views" views; else not_ok "mode time: no views"; fi
tap_done
