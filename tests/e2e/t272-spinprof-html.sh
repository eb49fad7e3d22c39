#!/bin/bash
# t272: spinprof --format=html in a real browser (headless Chromium): the page of samples/flame.c
# (calls:leaf) needs no network (no src or href to another place); the page's self-test hook clicks b
# in the flat profile, and the call graph then shows b with its callers and callees and their exact
# calls (main 50, c 20; leaf 140, a 70); zooming the flame graph on b makes it the full 1180 pixels
# and its a and leaf 50 and 100 of its 150, c's frames hidden; sorting the flat profile by calls puts
# leaf (310), a (170), b (70) first; searching ^a$ covers 170 of 310, leaf|a all of it; the call
# paths hold b under main with 150 and 60 under c; the Spy tree has main over a, b, c and leaf (their
# dominator); the SVG file alone runs its own script (zoom on c, search b); a screenshot is a PNG.
. "$(dirname "$0")/lib-folded.sh"

CHROME=$(command -v chromium || command -v chromium-browser || command -v google-chrome)
[ -n "$CHROME" ] || tap_skip_all "no chromium (in mk/deps.sh)"
fl_setup
tap_plan 9
P=$T/flame

# browser ARG... URL: headless Chromium with a profile of its own; its own chatter to $T/chrome.log
browser() {
	timeout 120 "$CHROME" --headless --disable-gpu --no-sandbox --no-first-run --user-data-dir="$T/chrome" \
		--disable-extensions "$@" 2>>"$T/chrome.log"
}

# selftest HASH: the page's <pre id="selftest"> after it loaded with #HASH
selftest() {
	browser --dump-dom "file://$P.html#$1" >"$T/dom.html" || { echo "chromium failed"; tail -n 5 "$T/chrome.log"; return 1; }
	awk '/<pre id="selftest">/ { on = 1; sub(/.*<pre id="selftest">/, "") }
		on { end = sub(/<\/pre>.*/, ""); print; if (end) exit }' "$T/dom.html"
}

page() {
	fl_build flame "$P" || return 1
	RT_ENV=SPYRT_WATCH=calls:leaf rt_run "$P" 10 || return 1
	"$SPINPROF" --format=html -o "$P.html" "$P.out" || return 1
	# no network: nothing loaded from elsewhere (the SVG namespace is a name, not a load)
	! grep -Eno '(src|href)="[a-z]+:[^"]*"|@import|url\(' "$P.html"
}
if ! sp_check "flame (calls:leaf): the page is written and loads nothing from elsewhere" page; then
	for _ in 1 2 3 4 5 6 7 8; do not_ok "no page"; done
	tap_done
fi

click() {
	selftest "click=b" >"$T/click" || return 1
	cat "$T/click"
	printf '%s\n' "shown b" "caller main 50" "caller c 20" "callee leaf 140" "callee a 70" | sort >"$T/want"
	sort "$T/click" | diff "$T/want" -
}
check "clicking b in the flat profile shows b's callers and callees with their exact calls" click

zoom() {
	selftest "zoom=b" >"$T/zoom" || return 1
	cat "$T/zoom"
	awk '$1 == "frame" { n++; w[$2 " " $3 " " $4] = $5 }
		END { a = sprintf("%.2f", 50 / 150 * 1180); l = sprintf("%.2f", 100 / 150 * 1180)
		      exit !(n == 6 && w["0 all 10.00"] == "1180.00" && w["2 b 10.00"] == "1180.00" &&
			     w["3 a 10.00"] == a && w["4 leaf 10.00"] == a && ("3 leaf " sprintf("%.2f", 10 + 50 / 150 * 1180)) in w &&
			     w["3 leaf " sprintf("%.2f", 10 + 50 / 150 * 1180)] == l) }' "$T/zoom"
}
check "zooming the flame graph on b: b full width, a (and its leaf) 50 and b's own leaf 100 of its 150, c's frames hidden" zoom

sorted() {
	selftest "sort=calls" >"$T/sort" || return 1
	cat "$T/sort"
	grep -Eq '^sorted calls: leaf a b (main c|c main)$' "$T/sort"
}
check "sorting the flat profile by calls: leaf, a, b, then main and c" sorted

tree() {
	browser --dump-dom "file://$P.html" >"$T/dom.html" || return 1
	# the tree's summaries in document order: NAME <span class="n">W</span>
	grep -o '<details[^>]*data-name="[^"]*"><summary>[^<]*<span class="n">[0-9.]*</span>' "$T/dom.html" |
		sed -e 's/.*<summary>//' -e 's/ <span class="n">/ /' -e 's/<\/span>//' >"$T/tree"
	cat "$T/tree"
	printf '%s\n' "all 310" "main 310" "a 100" "leaf 100" "b 150" "a 50" "leaf 50" "leaf 100" "c 60" "b 60" \
		"a 20" "leaf 20" "leaf 40" | diff - "$T/tree"
}
check "the call paths: every frame of the stacks with its weight, nested as called" tree

spytree() {
	browser --dump-dom "file://$P.html" >"$T/dom.html" || return 1
	sed -n '/<div id="spytree">/,/^<\/div>/p' "$T/dom.html" |
		sed -n 's/.* data-depth="\([0-9]*\)" data-self="\([0-9.]*\)" data-total="\([0-9.]*\)" data-name="\([^"]*\)".*/\1 \4 \2 \3/p' |
		sort >"$T/spytree"
	cat "$T/spytree"
	# main dominates a, b, c and leaf (each is called from two places, or only from main); leaf has
	# every call's weight as self (calls:leaf), the others theirs as total
	printf '%s\n' "0 main 0 310" "1 leaf 310 310" "1 b 0 210" "1 a 0 170" "1 c 0 60" | sort | diff - "$T/spytree" || return 1
	grep -q '<summary>main (1 ref) = 0, 310 (100.0%)</summary>' "$T/dom.html" &&
		grep -q '>\*~leaf (3 refs) = 310, 0 (100.0%) (100.0%)</div>' "$T/dom.html"
}
check "the Spy tree: main dominating a, b, c and leaf, with their self and total weights" spytree

search() {
	selftest "search=%5Ea%24" >"$T/search1" && selftest "search=leaf%7Ca" >"$T/search2" || return 1
	cat "$T/search1" "$T/search2"
	# a's frames: 100 + 50 + 20 of 310; leaf or a: every stack, a's leaves inside a's frames counted once
	[ "$(cat "$T/search1")" = "Matched: $(awk 'BEGIN { printf "%.2f", 17000 / 310 }')%" ] &&
		[ "$(cat "$T/search2")" = "Matched: 100.00%" ]
}
check "searching the flame graph: ^a\$ covers 170 of 310, leaf|a all of it (nested frames once)" search

standalone() {
	local got
	"$SPINPROF" --format=svg -o "$P.svg" "$P.out" || return 1
	browser --dump-dom "file://$P.svg#zoom=c&search=%5Eb%24" >"$T/svgdom" || return 1
	got=$(sed -n 's/.* data-selftest="\([^"]*\)".*/\1/p' "$T/svgdom" | head -n 1)
	echo "$got"
	grep -q 'data-ready="1"' "$T/svgdom" || { echo "its script did not finish"; return 1; }
	# zoomed on c: all, main, c, b full width; under b its a (and a's leaf) 20 and its own leaf 40 of 60
	[ "$got" = "0 all 1180.00; 1 main 1180.00; 2 c 1180.00; 3 b 1180.00; 4 a 393.33; 5 leaf 393.33; 4 leaf 786.67; Matched: $(awk 'BEGIN { printf "%.2f", 21000 / 310 }')%" ]
}
check "the SVG file alone: its script zooms on c (b's 20 and 40 of 60) and finds b's 210 of 310" standalone

shot() {
	browser --screenshot="$T/page.png" --window-size=1280,1024 "file://$P.html" || return 1
	file "$T/page.png"
	[ "$(head -c 8 "$T/page.png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] &&
		[ "$(stat -c %s "$T/page.png")" -gt 10000 ]
}
check "a screenshot of the page is a PNG" shot
tap_done
