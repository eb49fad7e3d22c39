#!/bin/bash
# t233: gprof's source outputs. GNU mode prints what gprof prints, byte for byte: -A (each line where a
# function starts marked "CALLS -> " or "##### -> ", then "Top 10 Lines:" and "Execution Summary:"),
# -C (FILE:LINE: (NAME:0xADDR) N executions), with -b or not, with -p and -q, -z, -x, -J, for
# samples/calls.c, samples/recursion.c (cycles), samples/tailcall.c, samples/twocallers.c and
# samples/tie.cc (-C with --no-demangle too), built -O2 -pg -g; and a program of two files whose sources moved
# after the build: found with -I DIR and --directory-path=A:B, written with -y into FILE-ann files in the
# current directory (compared with gprof's), and, not found, one line each on stderr and status 0.
# A spy profile (samples/calls.c built with the plugin) has -A and -C from the plugin's exact counts:
# 60, 30, 10 and 1 on the lines defining c, b, a and main, and -C's addresses are nm's file addresses.
. "$(dirname "$0")/lib-spinprof.sh"
. "$(dirname "$0")/lib-runtime.sh"

sp_setup
command -v gprof >/dev/null || tap_skip_all "no gprof"

mkdir -p "$T/mf/src"
cat >"$T/mf/src/m1.c" <<'EOS'
void f2(int);
__attribute__((noinline)) void f1(int x) { if (x) f2(x - 1); }
int main(void) { for (int i = 0; i < 7; i++) f1(i); return 0; }
EOS
cat >"$T/mf/src/m2.c" <<'EOS'
void f1(int);
__attribute__((noinline)) void f3(void) { }
__attribute__((noinline)) void f2(int x) { f3(); if (x > 2) f1(x - 2); }
EOS

progs="calls recursion tailcall twocallers tie"
opts=("-A -b" "-A" "-b -p -A" "-b -q -A" "-C -b" "-A -C -b" "-b -A -z" "-b -C -z" "-b -A -x" "-b -A -J")
tap_plan 65

# build NAME: $T/NAME/prog and its gmon.out
build() {
	case $1 in
	twocallers) sp_build_pg "$1" 2000 ;;
	*) sp_build_pg "$1" ;;
	esac
}
# same DIR OPTS...: spinprof's report (and stderr) is gprof's, byte for byte (gprof's "could not
# locate" lines aside: spinprof says them its own way)
same() {
	local d=$1
	shift
	(cd "$d" && gprof "$@" ./prog gmon.out) >"$d/g.txt" 2>"$d/g.err" || { echo "gprof failed"; cat "$d/g.err"; return 1; }
	(cd "$d" && "$SPINPROF" "$@" ./prog gmon.out) >"$d/s.txt" 2>"$d/s.err" ||
		{ echo "spinprof $*: status $?"; cat "$d/s.err"; return 1; }
	diff -u "$d/g.txt" "$d/s.txt"
}
for p in $progs; do
	if ! sp_check "$p builds with -pg -g and writes gmon.out" build "$p"; then
		for _ in "${opts[@]}"; do not_ok "$p: no profile"; done
		continue
	fi
	for o in "${opts[@]}"; do
		# shellcheck disable=SC2086
		check "$p: spinprof $o = gprof $o" same "$T/$p" $o
	done
done
check "tie: spinprof -C -b --no-demangle = gprof -C -b --no-demangle" same "$T/tie" -C -b --no-demangle
# the tests mean something: gprof marked lines, with the counts the samples are built for
marks() {
	same "$T/calls" -A -b >/dev/null
	# the line after each definition (its "{", where the function's code starts) has the mark
	awk 'want != "" { print; if ($1 != want || $2 != "->") bad = 1; want = ""; n++ }
		/^ +void c\(void\)$/ { want = 60 } /^ +NOINL void c\(void\)$/ { want = 60 }
		/^ +NOINL void b\(void\)$/ { want = 30 } /^ +NOINL void a\(void\)$/ { want = 10 }
		/^ +int main\(void\)$/ { want = "#####" }
		END { exit bad || n != 4 }' "$T/calls/g.txt" && grep -q '^Top 10 Lines:' "$T/calls/g.txt"
}
check "calls: gprof -A marks c, b, a and main's lines 60, 30, 10, #####" marks

mf_build() {
	(cd "$T/mf/src" && $CC -O1 -pg -g m1.c m2.c -o ../prog) >"$T/mf/cc.log" 2>&1 || { cat "$T/mf/cc.log"; return 1; }
	(cd "$T/mf" && ./prog) || return 1
	mkdir -p "$T/mf/other" && mv "$T"/mf/src/*.c "$T/mf/other/"
}
if sp_check "two files built with -pg -g, their sources moved" mf_build; then
	check "two files: -A -b -I other = gprof" same "$T/mf" -A -b -I other
	check "two files: -b -C -A --directory-path=nowhere:other = gprof" same "$T/mf" -b -C -A --directory-path=nowhere:other
	separate() {
		mkdir -p "$T/mf/g" "$T/mf/s"
		(cd "$T/mf/g" && gprof -b -A -y -I ../other ../prog ../gmon.out) >"$T/mf/g.out" 2>&1 || return 1
		(cd "$T/mf/s" && "$SPINPROF" -b -A -y -I ../other ../prog ../gmon.out) >"$T/mf/s.out" 2>&1 || return 1
		ls "$T/mf/g" "$T/mf/s"
		[ -s "$T/mf/g/m1.c-ann" ] && [ -s "$T/mf/g/m2.c-ann" ] && [ ! -s "$T/mf/s.out" ] &&
			[ "$(ls "$T/mf/g")" = "$(ls "$T/mf/s")" ] && diff "$T/mf/g/m1.c-ann" "$T/mf/s/m1.c-ann" &&
			diff "$T/mf/g/m2.c-ann" "$T/mf/s/m2.c-ann"
	}
	check "two files: -y writes m1.c-ann and m2.c-ann as gprof's, nothing on stdout" separate
	missing() {
		(cd "$T/mf" && "$SPINPROF" -b -A ./prog gmon.out) >"$T/mf/o" 2>"$T/mf/e"
		local rc=$?
		cat "$T/mf/e"
		[ $rc -eq 0 ] && [ ! -s "$T/mf/o" ] && [ "$(wc -l <"$T/mf/e")" -eq 2 ] &&
			[ "$(grep -c '^spinprof: .*/src/m[12]\.c: could not locate the source$' "$T/mf/e")" -eq 2 ]
	}
	check "two files, no -I: one line a missing source, status 0" missing
else
	for _ in 1 2 3 4; do not_ok "two files: no profile"; done
fi

# spy profiles: the plugin's exact counts on the lines of the definitions
rt_setup
spy_run() {
	rt_sample calls "$T/spycalls" || return 1
	rt_run "$T/spycalls" || return 1
	"$SPINPROF" -b -A "$T/spycalls.out" >"$T/spy.A" 2>"$T/spy.err" || { cat "$T/spy.err"; return 1; }
	"$SPINPROF" -b -C "$T/spycalls.out" >"$T/spy.C" 2>"$T/spy.err" || { cat "$T/spy.err"; return 1; }
}
if sp_check "samples/calls built with the plugin runs, spinprof -A and -C read it" spy_run; then
	spy_marks() {
		local fn want line bad=0
		for fn in c:60 b:30 a:10 main:1; do
			want=${fn#*:}
			line=$(grep -nE "^(NOINL void|int) ${fn%%:*}\(void\)" "$SAMPLES/calls.c" | cut -d: -f1)
			# the LINE-th source line of the listing is marked with the count
			awk -v l="$line" -v w="$want" -v f="${fn%%:*}" '/^\*\*\* File / { on = 1; n = 0; next }
				/^Top 10 Lines:/ { on = 0 } on { n++ } on && n == l { print f ": line " l ": " $0
					exit !($1 == w && $2 == "->") }' "$T/spy.A" || bad=1
		done
		grep -A6 '^Top 10 Lines:' "$T/spy.A"
		return $bad
	}
	check "spy -A: 60, 30, 10 and 1 on the lines defining c, b, a and main" spy_marks
	spy_counts() {
		cat "$T/spy.C"
		local fn bad=0 addr
		for fn in c:60 b:30 a:10 main:1; do
			addr=$(nm "$T/spycalls" | awk -v n="${fn%%:*}" '$3 == n { sub(/^0+/, "", $1); print $1 }')
			grep -qE ".*/calls\.c:[0-9]+: \(${fn%%:*}:0x$addr\) ${fn#*:} executions$" "$T/spy.C" || bad=1
		done
		[ "$(wc -l <"$T/spy.C")" -eq 4 ] && return $bad
	}
	check "spy -C: c 60, b 30, a 10, main 1, at nm's file addresses" spy_counts
else
	for _ in 1 2; do not_ok "spy: no profile"; done
fi
tap_done
