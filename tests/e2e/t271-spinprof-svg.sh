#!/bin/bash
# t271: spinprof --format=svg and --format=icicle: the flame graph of samples/flame.c (calls:leaf,
# and CPU samples) is well-formed XML (xmllint); every box is as wide as its weight (1180 pixels for
# all of it) and its title says that weight; the boxes, read back as stacks (a box's own weight is
# its width less its children's, its stack the boxes above it), are exactly --format=folded's lines;
# b's and c's boxes under main take 150 and 60 of 310; the icicle has the same boxes with the roots
# on top; the executable's frames are in its palette (flamegraph.pl's "hot") and named in the legend;
# the README's docs/flame.svg is one of flame's (calls:leaf) exact stacks.
. "$(dirname "$0")/lib-folded.sh"

command -v xmllint >/dev/null || tap_skip_all "no xmllint (libxml2-utils, in mk/deps.sh)"
fl_setup
tap_plan 7
P=$T/flame

# The boxes of an SVG, one a line: depth x weight width-in-pixels y fill name (from the attributes the
# generator writes on each frame's <g> and its <rect>).
boxes() {
	awk '/^<g[ >]/ && /data-d=/ {
		d = $0; sub(/.*data-d="/, "", d); sub(/".*/, "", d)
		x = $0; sub(/.*data-x="/, "", x); sub(/".*/, "", x)
		n = $0; sub(/.*data-n="/, "", n); sub(/".*/, "", n)
		nm = $0; sub(/.*data-name="/, "", nm); sub(/".*/, "", nm)
		t = $0; sub(/.*<title>/, "", t); sub(/<\/title>.*/, "", t)
		r = $0; sub(/.*<rect /, "", r)
		w = r; sub(/.* width="/, "", w); sub(/".*/, "", w)
		y = r; sub(/.* y="/, "", y); sub(/".*/, "", y)
		fill = r; sub(/.*fill="/, "", fill); sub(/".*/, "", fill)
		print d, x, n, w, y, fill, nm "\t" t
	}' "$1"
}

make_all() {
	fl_build flame "$P" || return 1
	RT_ENV=SPYRT_WATCH=calls:leaf rt_run "$P" 10 || return 1
	"$SPINPROF" --format=folded "$P.out" >"$P.folded" &&
		"$SPINPROF" --format=svg -o "$P.svg" "$P.out" &&
		"$SPINPROF" --format=icicle -o "$P.icicle.svg" "$P.out" || return 1
	xmllint --noout "$P.svg" && xmllint --noout "$P.icicle.svg"
}
if ! sp_check "flame (calls:leaf): svg and icicle written, xmllint accepts both" make_all; then
	for _ in 1 2 3 4 5; do not_ok "no flame graph"; done
	tap_done
fi

# widths SVG FOLDED: every box's width is its weight's share of 1180 pixels (0.01 rounding), its title
# gives the weight, and the root's weight is the folded lines' sum
widths() {
	boxes "$1" >"$1.boxes"
	awk -v total="$(awk '{ s += $NF } END { print s }' "$2")" -F'\t' '
		{ split($1, f, " "); d = f[1]; n = f[3]; w = f[4]; t = $2
		  want = n / total * 1180
		  if (w - want > 0.011 || want - w > 0.011) { print "box " f[7] " width " w ", weight " n " wants " want; bad++ }
		  if (index(t, "(" n " ") == 0) { print "box " f[7] " title " t " does not say " n; bad++ }
		  if (d == 0 && n != total) { print "root " n " != folded " total; bad++ }
		  boxes++ }
		END { print boxes " boxes"; exit bad > 0 || boxes < 2 }' "$1.boxes"
}
check "every box's width is its weight (of 1180 pixels for all) and its title says it" widths "$P.svg" "$P.folded"

# refold SVG: the boxes as folded lines: a box's stack is the boxes over it at each depth (the one
# whose [x, x + n) holds its x), its own weight its n less its children's
refold() {
	boxes "$1" | sort -t' ' -k1,1n -k2,2g | awk -F'\t' '
		{ split($1, f, " "); i = ++nb; d[i] = f[1]; x[i] = f[2]; n[i] = f[3]; nm[i] = f[7] }
		END {
			for (i = 1; i <= nb; i++) {
				own[i] = n[i]
				if (d[i] == 0) { path[i] = ""; continue }
				for (j = 1; j <= nb; j++)
					if (d[j] == d[i] - 1 && x[j] <= x[i] + 1e-9 && x[i] < x[j] + n[j] - 1e-9) {
						par = j; break
					}
				own[par] -= n[i]
				path[i] = (d[i] == 1 ? "" : path[par] ";") nm[i]
			}
			for (i = 1; i <= nb; i++)
				if (d[i] > 0 && own[i] > 1e-9)
					print path[i], own[i]
		}' | LC_ALL=C sort
}
same_stacks() {
	refold "$1" >"$1.refold"
	LC_ALL=C sort "$2" | diff - "$1.refold"
}
check "the boxes read back as stacks are --format=folded's lines" same_stacks "$P.svg" "$P.folded"

known() {
	awk -F'\t' '{ split($1, f, " "); key = f[1] " " f[7]
		  if (key == "2 b") b = f[4]; if (key == "2 c") c = f[4]; if (key == "1 main") m = f[4] }
		END { printf "main %s px, main;b %s px (150/310: %.2f), main;c %s px (60/310: %.2f)\n", m, b, 150 / 310 * 1180, c, 60 / 310 * 1180
		      exit !(m == "1180.00" && b == sprintf("%.2f", 150 / 310 * 1180) && c == sprintf("%.2f", 60 / 310 * 1180)) }' "$P.svg.boxes"
}
check "known proportions: main;b is 150/310 of the width, main;c 60/310" known

icicle() {
	same_stacks "$P.icicle.svg" "$P.folded" || return 1
	boxes "$P.icicle.svg" | awk '{ if ($1 == 0) y0 = $5; if ($1 == 1) y1 = $5; if ($1 == 5) y5 = $5 }
		END { print "icicle: depth 0 at y " y0 ", 1 at " y1 ", 5 at " y5; exit !(y0 < y1 && y1 < y5) }' || return 1
	boxes "$P.svg" | awk '{ if ($1 == 0) y0 = $5; if ($1 == 5) y5 = $5 }
		END { print "flame: depth 0 at y " y0 ", 5 at " y5; exit !(y0 > y5) }'
}
check "the icicle: the same stacks, roots at the top (the flame graph's at the bottom)" icicle

colours() {
	RT_ENV=SPYRT_WATCH=cpu rt_run "$P" 100000 || return 1
	"$SPINPROF" --format=svg "$P.out" >"$P.cpu.svg" || return 1
	xmllint --noout "$P.cpu.svg" || return 1
	grep -q '<g id="fg-legend"><rect [^>]*/><text [^>]*>flame</text>' "$P.cpu.svg" || { echo "the legend does not name flame"; return 1; }
	# (under ThreadSanitizer, libtsan's checks, called by every load, are frames of libtsan; the frame
	# <profiler>, the ticks in the profiler on top of the stack they interrupted, has a grey of its own;
	# code without hooks (libc's __mmap, the vDSO) in its module's palette: the executable's frames are
	# those named by its own symbols (nm)
	nm --defined-only "$P" | awk '$2 ~ /^[tTwW]$/ { print $3 }' >"$P.own"
	boxes "$P.cpu.svg" | awk -v tsan="$SPY_TSAN" 'FNR == NR { own[$1] = 1; next }
		$1 > 0 && ($7 in own) && !(tsan && $7 ~ /^__(tsan|sanitizer)[_:]/) { c = $6; gsub(/[rgb()]/, "", c); split(c, v, ",")
		if (v[1] < 205 || v[3] > 55) { print "frame " $7 " of the executable in " $6; bad++ } n++ }
		END { print n " frames"; exit bad > 0 || n == 0 }' "$P.own" -
}
check "CPU samples: xmllint accepts it, the executable's frames in its palette, named in the legend" colours

readme() {
	xmllint --noout "$SPY_SRC/docs/flame.svg" || return 1
	refold "$SPY_SRC/docs/flame.svg" >"$T/readme.refold"
	printf '%s\n' "main;a;leaf 100" "main;b;leaf 100" "main;b;a;leaf 50" "main;c;b;leaf 40" \
		"main;c;b;a;leaf 20" | LC_ALL=C sort | diff - "$T/readme.refold"
}
check "the README's docs/flame.svg is well-formed and holds flame's exact stacks (calls:leaf)" readme
tap_done
