#!/bin/bash
# t274: spinprof --format=html of a gcc -pg profile (GNU mode: no stacks): the page says there is no
# flame graph, and in headless Chromium, clicking a function of samples/calls.c in the flat profile
# shows the callers and callees GNU gprof's call graph gives it, with the same calls (b: called by a
# 30 times, calls c 60 times; gprof's own numbers are the reference, not these); sorting by calls
# orders the functions as gprof's flat profile's calls do.
. "$(dirname "$0")/lib-spinprof.sh"

sp_setup
command -v gprof >/dev/null || tap_skip_all "no gprof (binutils, in mk/deps.sh)"
CHROME=$(command -v chromium || command -v chromium-browser || command -v google-chrome)
[ -n "$CHROME" ] || tap_skip_all "no chromium (in mk/deps.sh)"
tap_plan 4
D=$T/calls
mkdir -p "$D"

browser() {
	timeout 120 "$CHROME" --headless --disable-gpu --no-sandbox --no-first-run --user-data-dir="$T/chrome" \
		--disable-extensions "$@" 2>>"$T/chrome.log"
}

selftest() {
	browser --dump-dom "file://$D/page.html#$1" >"$T/dom.html" || { echo "chromium failed"; tail -n 5 "$T/chrome.log"; return 1; }
	awk '/<pre id="selftest">/ { on = 1; sub(/.*<pre id="selftest">/, "") }
		on { end = sub(/<\/pre>.*/, ""); print; if (end) exit }' "$T/dom.html"
}

page() {
	# shellcheck disable=SC2086
	$CC -O2 -pg -I"$SAMPLES" "$SAMPLES/calls.c" -o "$D/prog" $SPY_SAN_FLAGS >"$D/cc.log" 2>&1 || { cat "$D/cc.log"; return 1; }
	(cd "$D" && ./prog) || return 1
	(cd "$D" && gprof -b ./prog gmon.out >gprof.txt) || return 1
	sp_facts "$D/gprof.txt" >"$D/gprof.facts"
	(cd "$D" && "$SPINPROF" --format=html -o page.html ./prog gmon.out) || return 1
	grep -q "<p>No flame graph: gcc -pg&apos;s gmon.out has no stacks.</p>" "$D/page.html"
}
if ! sp_check "calls built with -pg: the page is written, and says it has no flame graph" page; then
	for _ in 1 2 3; do not_ok "no page"; done
	tap_done
fi

# the callers and callees gprof gives FUNC, as the page's self-test prints them
want() {
	{
		echo "shown $1"
		awk -v f="$1" '$1 == "parent" && $2 == f { print "caller", $3, $5 }
			$1 == "child" && $2 == f { print "callee", $3, $5 }' "$D/gprof.facts"
	} | sort
}

click() {
	want "$2" >"$T/want.$1"
	selftest "click=$2" | sort >"$T/got.$1" || return 1
	cat "$T/got.$1"
	[ "$(wc -l <"$T/want.$1")" -ge "$3" ] || { echo "gprof gives $2 too few arcs"; cat "$T/want.$1"; return 1; }
	diff "$T/want.$1" "$T/got.$1"
}
check "clicking b shows gprof's callers and callees of b with their calls (a 30, c 60)" click b b 3
check "clicking a shows gprof's callers and callees of a (main 10, b 30)" click a a 3

sorted() {
	local got want
	got=$(selftest "sort=calls" | sed -n 's/^sorted calls: //p')
	# gprof's flat profile: calls per function (the column before the name when there are 7 fields)
	want=$(awk '$1 == "flat" && $4 != "-" { print $4, $2 }' "$D/gprof.facts" | sort -k1,1nr | awk '{ printf "%s%s", (NR > 1 ? " " : ""), $2 }')
	echo "page: $got; gprof: $want"
	[ -n "$want" ] && [ "${got#"$want"}" != "$got" ]
}
check "sorting by calls orders the functions as gprof's calls do (c 60, b 30, a 10, main 1)" sorted
tap_done
