#!/bin/bash
# t287: spinprof --format=chrome opened by a real viewer: speedscope (the npm package, pinned by
# tests/e2e/viewer/package-lock.json) in headless Chromium. samples/flame.c with SPYRT_WATCH=calls:leaf
# (a stack per call of leaf, one unit each, which the cpuProfile's microseconds carry): speedscope
# takes the file for a Chrome timeline (the cpuProfile importer, not the trace events'); one lane;
# its sandwich table shows each function's total and self exactly as folded independently from the
# runtime's own records (leaf 310 self, main 310, b 210, a 170, c 60, the others no self); its Export
# holds the five call paths with the counts samples/flame.c states and, for each function, the file
# and the line where flame.c defines it (V8's lines count from 0, speedscope's from 1); a screenshot
# of its flame chart is a PNG.
. "$(dirname "$0")/lib-folded.sh"
. "$SPY_SRC/tests/e2e/viewer/viewer.sh"

viewer_setup
fl_setup
tap_plan 5
P=$T/flame
V=$T/speedscope

made() {
	fl_build flame "$P" || return 1
	RT_ENV=SPYRT_WATCH=calls:leaf rt_run "$P" 10 || return 1
	"$SPINPROF" --format=chrome -o "$P.json" "$P.out"
}
if ! sp_check "flame, calls:leaf: spinprof --format=chrome writes it" made; then
	for _ in 1 2 3 4; do not_ok "no profile of flame"; done
	tap_done
fi

loaded() {
	viewer_speedscope "$P.json" "$V" || return 1
	grep -qx 'import Chrome Timeline Object' "$V/shown" || { echo "not imported as a Chrome timeline"; return 1; }
	# one thread: one profile, no lane selector
	! grep -q '^lane ' "$V/shown" && grep -q '^row 1 ' "$V/shown" && ! grep '^row' "$V/shown" | grep -qv '^row 1 '
}
if ! sp_check "speedscope imports it as a Chrome timeline (its cpuProfile), one lane" loaded; then
	for _ in 1 2 3; do not_ok "speedscope did not load it"; done
	tap_done
fi

# speedscope's time format for a value in microseconds (its own: ns below 1, ms from 1000)
SS_FMT='function fmt(v) { return v == 0 ? "0.00ns" : v < 1000 ? sprintf("%.2fµs", v) : sprintf("%.2fms", v / 1000) }'

sandwich() {
	fl_dump_folded "$P.out" leaf >"$T/dump.folded" || return 1
	# total: the stacks a function is in (once each), self: those it ends
	awk "$SS_FMT"'{ n = split($1, f, ";"); delete seen
		for (i = 1; i <= n; i++) if (!seen[f[i]]++) tot[f[i]] += $2
		self[f[n]] += $2 }
		END { for (k in tot) printf "%s %s %s\n", k, fmt(tot[k]), fmt(self[k] + 0) }' "$T/dump.folded" | LC_ALL=C sort >"$T/want"
	# speedscope's rows: TOTAL (PCT) \t SELF (PCT) \t NAME \t FILE
	awk -F'\t' '/^row 1 / { sub(/^row 1 /, ""); sub(/ \(.*/, "", $1); sub(/ \(.*/, "", $2); print $3, $1, $2 }' "$V/shown" |
		LC_ALL=C sort >"$T/got"
	cat "$T/got"
	diff "$T/want" "$T/got" || return 1
	# and the numbers samples/flame.c states
	printf '%s\n' "a 170.00µs 0.00ns" "b 210.00µs 0.00ns" "c 60.00µs 0.00ns" "leaf 310.00µs 310.00µs" "main 310.00µs 0.00ns" |
		diff - "$T/got"
}
check "its sandwich table: each function's total and self, as folded from the runtime's records (leaf 310 self)" sandwich

exported() {
	viewer_export_folded "$V" 1 >"$T/export.folded" || { cat "$T/export.folded"; return 1; }
	cat "$T/export.folded"
	printf '%s\n' "main;a;leaf 100" "main;b;leaf 100" "main;b;a;leaf 50" "main;c;b;leaf 40" "main;c;b;a;leaf 20" |
		LC_ALL=C sort | diff - "$T/export.folded" || return 1
	# each frame's file and line: where flame.c defines the function
	python3 - "$V/export.speedscope.json" "$SAMPLES/flame.c" <<'PY'
import json, os, re, sys
d = json.load(open(sys.argv[1]))
src = open(sys.argv[2]).read().split("\n")
bad = 0
for f in d["shared"]["frames"]:
    want = [i + 1 for i, l in enumerate(src) if re.match(r"^(NOINL )?(static )?\w+ %s\(" % f["name"], l)]
    if os.path.realpath(f.get("file", "")) != os.path.realpath(sys.argv[2]) or [f.get("line")] != want:
        print("%s at %s:%s, defined at line %s" % (f["name"], f.get("file"), f.get("line"), want))
        bad = 1
sys.exit(bad)
PY
}
check "its Export: flame's five call paths with their counts; each function at its file and line" exported

shot() {
	file "$V/speedscope-1.png"
	[ "$(head -c 8 "$V/speedscope-1.png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] &&
		[ "$(stat -c %s "$V/speedscope-1.png")" -gt 10000 ]
}
check "a screenshot of speedscope's flame chart of it is a PNG" shot

tap_done
