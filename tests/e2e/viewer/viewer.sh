# tests/e2e/viewer/viewer.sh: sourced by t287-t289 (after lib.sh), which load spinprof's exports into a
# real viewer. speedscope.js (beside this file) drives speedscope, the npm package's own built page, in
# Debian's headless Chromium with playwright-core; `make deps` (mk/deps.sh) installs both with `npm ci`
# from package-lock.json into node_modules/ here.
#   viewer_setup              skip all without chromium or node (mk/deps.sh installs them)
#   viewer_speedscope JSON DIR  load JSON; DIR/shown what it showed (speedscope.js says the lines),
#                             DIR/export.speedscope.json its Export, DIR/speedscope-I.png lane I
#   viewer_export_folded DIR I  lane I of DIR's export as folded stacks "a;b;c WEIGHT" (sorted), from
#                             its evented profile's open and close events, or its sampled one
VIEWER_DIR=$SPY_SRC/tests/e2e/viewer

viewer_setup() {
	CHROME=$(command -v chromium || command -v chromium-browser || command -v google-chrome)
	[ -n "$CHROME" ] || tap_skip_all "no chromium (mk/deps.sh installs it)"
	command -v node >/dev/null || tap_skip_all "no node (mk/deps.sh installs nodejs)"
	command -v python3 >/dev/null || tap_skip_all "no python3 (mk/deps.sh installs it)"
}

viewer_speedscope() {
	local json=$1 dir=$2
	# npm was there to install them: their absence is a failure, not a reason to skip
	[ -f "$VIEWER_DIR/node_modules/speedscope/dist/release/index.html" ] &&
		[ -d "$VIEWER_DIR/node_modules/playwright-core" ] ||
		{ echo "no speedscope or playwright-core in $VIEWER_DIR/node_modules: make deps installs them (npm ci)"; return 1; }
	mkdir -p "$dir"
	CHROMIUM=$CHROME timeout 240 node "$VIEWER_DIR/speedscope.js" "$json" "$dir" >"$dir/shown" 2>"$dir/node.log" ||
		{ echo "speedscope.js failed:"; cat "$dir/shown"; tail -n 5 "$dir/node.log"; return 1; }
	cat "$dir/shown"
}

viewer_export_folded() {
	python3 - "$1/export.speedscope.json" "$2" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
frames = d["shared"]["frames"]
p = d["profiles"][int(sys.argv[2]) - 1]
w = {}
if p["type"] == "evented":
    stack, at = [], p["startValue"]
    for e in p["events"]:
        if stack:
            k = ";".join(frames[f]["name"] for f in stack)
            w[k] = w.get(k, 0) + e["at"] - at
        at = e["at"]
        if e["type"] == "O":
            stack.append(e["frame"])
        elif stack and stack[-1] == e["frame"]:
            stack.pop()
        else:
            print("close of %s not on top" % frames[e["frame"]]["name"])
            sys.exit(1)
else:
    for s, x in zip(p["samples"], p["weights"]):
        k = ";".join(frames[f]["name"] for f in s)
        w[k] = w.get(k, 0) + x
for k in sorted(w):
    # only leaves: a stack's own weight
    if w[k] > 0:
        print("%s %g" % (k, round(w[k], 3)))
PY
}
