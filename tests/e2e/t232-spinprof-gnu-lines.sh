#!/bin/bash
# t232: spinprof -l (--line), the line-by-line profile of GNU mode, prints what gprof -l prints, byte for
# byte with -b: every source line (where bfd_find_nearest_line's function, file or line changes while
# walking .text) is a symbol "NAME (FILE:LINE @ ADDR)", the histogram's ticks go to lines, the arcs come
# from the calling lines to the called functions, the call graph lists functions only, ties sort on the
# symbols' names. Built with gcc -O2 -pg -g: samples/calls.c, samples/recursion.c (cycles),
# samples/tailcall.c, samples/twocallers.c (with time: its hot loop's ticks fall on several lines) and
# samples/tie.cc (demangled, and with --no-demangle), each with -l -b, -l -b -p, -l -b -q and -l -b -z.
# Also: the time is really by line (twocallers' ticks are on work's loop, not on its entry line), and -l
# with a spy profile is one line and status 2.
. "$(dirname "$0")/lib-spinprof.sh"

sp_setup
command -v gprof >/dev/null || tap_skip_all "no gprof"

progs="calls recursion tailcall twocallers tie"
tap_plan 28

# build NAME: $T/NAME/prog and its gmon.out
build() {
	case $1 in
	twocallers) sp_build_pg "$1" "${SPY_TWOCALLERS_S:-10000}" ;;
	*) sp_build_pg "$1" ;;
	esac
}
# same NAME OPTS...: spinprof's report is gprof's, byte for byte
same() {
	local d=$T/$1
	shift
	(cd "$d" && gprof "$@" ./prog gmon.out) >"$d/g.txt" 2>&1 || { echo "gprof failed"; cat "$d/g.txt"; return 1; }
	(cd "$d" && "$SPINPROF" "$@" ./prog gmon.out) >"$d/s.txt" 2>"$d/s.err" ||
		{ echo "spinprof $*: status $?"; cat "$d/s.err"; return 1; }
	diff -u "$d/g.txt" "$d/s.txt"
}
for p in $progs; do
	if ! sp_check "$p builds with -pg -g and writes gmon.out" build "$p"; then
		for _ in 1 2 3 4; do not_ok "$p: no profile"; done
		continue
	fi
	check "$p: spinprof -l -b = gprof -l -b" same "$p" -l -b
	check "$p: spinprof -l -b -p = gprof -l -b -p" same "$p" -l -b -p
	check "$p: spinprof --line -b -q = gprof -l -b -q" same "$p" --line -b -q
	check "$p: spinprof -l -b -z = gprof -l -b -z" same "$p" -l -b -z
done
check "tie: spinprof -l -b --no-demangle = gprof -l -b --no-demangle" same tie -l -b --no-demangle
split() {
	same twocallers -l -b -p >/dev/null
	awk '$NF ~ /^[0-9a-f]+\)$/ && $(NF - 3) == "work" { print }
		$NF ~ /^[0-9a-f]+\)$/ && $(NF - 3) == "work" && $4 == 10100 { entry = $NF }
		$NF ~ /^[0-9a-f]+\)$/ && $(NF - 3) == "work" && $3 > 0 { hot[$NF] = 1 }
		END { for (a in hot) if (a != entry) n++; exit !(entry != "" && n > 0) }' "$T/twocallers/s.txt"
}
check "twocallers' time is on work's loop lines, apart from its entry line with the 10100 calls" split
spy_refused() {
	printf 'not a profile' >"$T/x.out"
	"$SPINPROF" -l "$T/x.out" >"$T/o" 2>"$T/e"
	local rc=$?
	cat "$T/e"
	[ $rc -eq 2 ] && [ "$(wc -l <"$T/e")" -eq 1 ] && [ ! -s "$T/o" ]
}
check "-l with a spy profile: one line, status 2" spy_refused
tap_done
