#!/bin/bash
# t200: spinprof reads glibc's gmon.out of `gcc -O2 -pg` programs as GNU gprof does: for samples/calls,
# samples/recursion (cycles, fib's 1+N), samples/threads with one thread and a generated program with many
# functions, cycles and real time, `spinprof -b PROG gmon.out` and `gprof -b PROG gmon.out` are parsed
# (not diffed as text) and every function's calls, self seconds and % time, every arc's count and
# self/children, and the cycles' members must agree; -p and -q print the same numbers alone.
. "$(dirname "$0")/lib-spinprof.sh"

# ---- the tests of t200 ----

sp_setup
command -v gprof >/dev/null || tap_skip_all "no gprof"

# many.c: NF functions f0..f(NF-1) with work and calls among them; three rings of mutual recursion
# (cycles of 2, 3 and 5), a self-recursive one; enough work for gprof's 100 Hz ticks to matter
gen_many() {
	awk -v nf=120 'BEGIN {
		print "#include \"sample.h\""
		print "static volatile unsigned long sink;"
		# the work is in each function body, so self times differ
		print "#define spin(n) do { unsigned long x_ = sink; for (long i_ = 0; i_ < 8 * (n); i_++) { x_ = x_ * 6364136223846793005ul + 1; BARRIER(); } sink = x_; } while (0)"
		for (i = 0; i < nf; i++) print "NOINL void f" i "(int d);"
		for (i = 0; i < 10; i++) print "NOINL void r" i "(int d);"
		# rings: r0<->r1, r2->r3->r4->r2, r5->...->r9->r5
		for (i = 0; i < 10; i++) {
			nx = i == 1 ? 0 : i == 4 ? 2 : i == 9 ? 5 : i + 1
			printf "NOINL void r%d(int d) { spin(%d); if (d > 0) r%d(d - 1); BARRIER(); }\n", i, 2000 * (i + 1), nx
		}
		print "NOINL long selfrec(int d) { spin(3000); long r = d > 0 ? selfrec(d - 1) + 1 : 0; BARRIER(); return r; }"
		for (i = 0; i < nf; i++) {
			printf "NOINL void f%d(int d) { spin(%d);", i, 500 * ((i * 37) % 13 + 1)
			if (i + 1 < nf) printf " if (d > 0) f%d(d - 1);", i + 1
			if (i % 7 == 0 && i + 3 < nf) printf " for (int k = 0; k < %d; k++) { f%d(0); BARRIER(); }", i % 5 + 1, i + 3
			if (i % 11 == 0) printf " r%d(%d);", i % 10, i % 4 + 2
			printf " BARRIER(); }\n"
		}
		print "int main(void) {"
		print "	for (int k = 0; k < 400; k++) { f0(k % 30); BARRIER(); f40(5); BARRIER(); r5(k % 12); BARRIER(); selfrec(k % 9); BARRIER(); }"
		print "	return 0;"
		print "}"
	}' >"$T/many.c"
}
gen_many

# build_pg NAME OUT SRC: compile with -O2 -pg
build_pg() {
	# shellcheck disable=SC2086
	$CC -O2 -pg -I"$SAMPLES" "$3" -o "$2" $SPY_SAN_FLAGS -lpthread >"$2.log" 2>&1 ||
		{ echo "compile failed: $1"; head -n 20 "$2.log"; return 1; }
}

# run_pg DIR PROG [ARG...]: run in DIR (gmon.out lands there)
run_pg() {
	local d=$1
	shift
	(cd "$d" && "$@" >run.stdout 2>run.stderr) || { echo "$* failed"; head "$d/run.stderr"; return 1; }
	[ -s "$d/gmon.out" ] || { echo "$* wrote no gmon.out"; return 1; }
}

# both DIR [OPTS]: gprof and spinprof facts of DIR/prog DIR/gmon.out with -b OPTS
both() {
	local d=$1 tag=${2:-all}
	shift 2
	(cd "$d" && gprof -b "$@" ./prog gmon.out) >"$d/gprof.$tag" 2>"$d/gprof.$tag.err" ||
		{ echo "gprof failed"; cat "$d/gprof.$tag.err"; return 1; }
	(cd "$d" && "$SPINPROF" -b "$@" ./prog gmon.out) >"$d/spinprof.$tag" 2>"$d/spinprof.$tag.err" ||
		{ echo "spinprof -b $* ./prog gmon.out: status $?"; head "$d/spinprof.$tag.err"; return 1; }
	sp_facts "$d/gprof.$tag" >"$d/gprof.$tag.facts"
	sp_facts "$d/spinprof.$tag" >"$d/spinprof.$tag.facts"
	[ -s "$d/gprof.$tag.facts" ] || { echo "no facts parsed from gprof's output"; return 1; }
}

cmp_kind() { sp_compare "$1/spinprof.$2.facts" "$1/gprof.$2.facts" "$3"; }

# only_sections FILE FLAT CG: whether FILE has a flat profile / a call graph (1 or 0)
only_sections() {
	local f=0 c=0
	grep -q '^Flat profile:' "$1" && f=1
	grep -q '^index[ 	]*% time' "$1" && c=1
	[ $f = "$2" ] && [ $c = "$3" ] || { echo "$1: flat profile $f (want $2), call graph $c (want $3)"; return 1; }
}

progs="calls recursion threads many"
tap_plan $(($(wc -w <<<"$progs") * 7))
for p in $progs; do
	d=$T/$p
	mkdir -p "$d"
	src=$SAMPLES/$p.c
	args=
	case $p in
	many) src=$T/many.c ;;
	threads) args="1 300000" ;;
	esac
	# shellcheck disable=SC2086
	if ! sp_check "$p: builds with -pg and runs" eval 'build_pg $p $d/prog $src && run_pg $d ./prog $args'; then
		for _ in 1 2 3 4 5 6; do not_ok "$p (not built)"; done
		continue
	fi
	if ! sp_check "$p: spinprof -b and gprof -b both read it" both "$d" all; then
		for _ in 1 2 3 4 5; do not_ok "$p (no output)"; done
		continue
	fi
	check "$p: flat profile: calls, self seconds, % time of every function" cmp_kind "$d" all '^flat '
	check "$p: call graph: every entry's called, % time, self, children" cmp_kind "$d" all '^prim '
	check "$p: call graph: every arc's count, self, children (parents and children)" \
		cmp_kind "$d" all '^(parent|child) '
	check "$p: cycles: the same members" cmp_kind "$d" all '^(member |prim <cycle)'
	pq() {
		both "$1" p -p && only_sections "$1/spinprof.p" 1 0 && cmp_kind "$1" p . &&
			both "$1" q -q && only_sections "$1/spinprof.q" 0 1 && cmp_kind "$1" q .
	}
	check "$p: -p alone and -q alone agree with gprof -p / -q" pq "$d"
done
tap_done
