#!/bin/bash
# t216: every gprof option that shapes the flat profile, call graph and index, alone and combined,
# prints in GNU mode what GNU gprof prints, byte for byte (with -b: the explanations are our own
# words). The program has time in several functions, a cycle (ping, pong), recursion (fact), a
# function of several callers (leaf, static), a second file of static functions (util.c: ustep,
# uhelp) for the FILE and FILE:FUNC and FILE:LINE symspecs, forward calls and one never run (never,
# for -c). Built -O0 -g (line information: the file symspecs match) and -O2 without -g (they match
# nothing, and both tools then list everything); -T (gprof's BSD layout) too; -l (line granularity:
# the cycle ping-pong has no entry of its own), and -A, -J, -C, -Z with and without symspecs, with -m, -t, -x (the
# annotated source of the functions' files read by their absolute names; without -g none). -d
# (gprof's debugging output) and -y (files written) are left out.
. "$(dirname "$0")/lib-spinprof.sh"

sp_setup
command -v gprof >/dev/null || tap_skip_all "no gprof"

sp_gnu_sources 80

# the option sets, one a line; fact is on line 9 of opts.c, ping on line 7, uhelp on line 7 of util.c
MATRIX=$(cat <<'EOS'
-b
-b -z
-b -pbeta
-b --flat-profile=beta
-b -pbeta -palpha
-b -Pbeta
-b --no-flat-profile=beta
-b -qleaf
-b --graph=leaf
-b -qping
-b -Qleaf
-b --no-graph=leaf
-b -Qping
-b -qmain/beta
-b -Qmain/leaf
-b -putil.c
-b -qutil.c
-b -Putil.c
-b -Qutil.c
-b -putil.c:ustep
-b -qutil.c:uhelp
-b -Qutil.c:uhelp
-b -qopts.c:9
-b -popts.c:9
-b -Qopts.c:7
-b -qutil.c:7
-b -p:ping
-b -qnosuchfunction
-b -e leaf
-b -E leaf
-b -f alpha
-b -F alpha
-b -e ping
-b -E pong
-b -F ping
-b -k main/leaf
-b -k /leaf
-b -k beta/
-b -k pong/ping
-b -n beta
-b -N beta
-b --time=alpha
-b --no-time=util_mix
-b -N ping
-b -n pong
-b -a
-b -a -z
-b -D
-b -c
-b -c -z
-b -c -qnever -z
-b -m 3
-b -t 5
-b -w 60
-b -w 120 -z
-b -x
-b -Z
-b -L -z
-b -p -qalpha
-b -Pbeta -Qleaf
-b -P -qalpha
-b -p -P
-b -q -Q
-b -E leaf -k main/beta -Putil.c
-b -F beta -palpha -N leaf
-b -z -e fact -n main
-b -p
-b -q
-b -P
-b -Q
--brief
-b --no-static --display-unused-functions
-b --static-call-graph
-b --ignore-non-functions
-b --print-path --display-unused-functions
-b --width=50
-b --min-count=2 --table-length=3
-b --all-lines
-b --no-exec-counts
-b -O auto
-b --file-format=magic
-b --demangle
-b --no-demangle
-i
--file-info
-i -b -p
-b -T
-b -T -z
-b -T -p
-b -T -qleaf
-b -T -c -z -a
-b -T -L -z -w 100
-b --traditional -F ping
-T -b -i
-b -l
-b -l -z
-b -l -q
-b -l -T
-b -l -Qping
-b -A
-b -Aalpha
-b --annotated-source=util.c
-b -A -Jutil.c
-b -Jalpha
-b -Aopts.c:9
-b -A -J
-b -A -x
-b -C
-b -Cbeta
-b -C -Zbeta
-b --exec-counts=util.c
-b -p -Cleaf
-b -C -z
-b -A -m 10
-b -A -m 6 -x
-b -A -m 2 -t 4
-b -A -t 1
EOS
)
nlines=$(grep -c . <<<"$MATRIX")
tap_plan $((2 + 2 * nlines))

# build FLAGS DIR: the program built with FLAGS in DIR, run there
build() {
	mkdir -p "$2"
	# shellcheck disable=SC2086
	gcc $1 -pg "$T/opts.c" "$T/util.c" -o "$2/opts" >"$2/cc.log" 2>&1 || { cat "$2/cc.log"; return 1; }
	(cd "$2" && ./opts) || { echo "opts failed"; return 1; }
	[ -s "$2/gmon.out" ] || { echo "no gmon.out"; return 1; }
	# the test means something: time in more than one function
	[ "$(gprof -b -p "$2/opts" "$2/gmon.out" | awk '$3 + 0 > 0' | wc -l)" -ge 3 ] ||
		{ gprof -b -p "$2/opts" "$2/gmon.out"; echo "fewer than 3 functions with time"; return 1; }
}


for b in "O0 -O0 -g" "O2 -O2"; do
	dir=$T/${b%% *}
	if ! sp_check "the program builds with ${b#* } -pg and runs" build "${b#* }" "$dir"; then
		for ((i = 0; i < nlines; i++)); do not_ok "no profile"; done
		continue
	fi
	# without -g, -A and -J print nothing
	SP_SAME_EMPTY=0
	[ "${b%% *}" = O0 ] || SP_SAME_EMPTY=1
	while read -r opts; do
		# shellcheck disable=SC2086
		check "${b%% *}: spinprof $opts = gprof $opts" sp_same "$dir" opts $opts
	done <<<"$MATRIX"
done
tap_done
