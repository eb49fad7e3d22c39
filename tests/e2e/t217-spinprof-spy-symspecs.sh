#!/bin/bash
# t217: gprof's symspec options on a spy profile of samples/calls.c (main 1, a 10, b 30, c 60 calls;
# arcs main->a 10, a->b 30, b->c 60), by construction: -pb and --flat-profile=b list only b (30);
# -Pb lists main, a and c, not b; -qb and --graph=b print the entries of b and of c (what b calls),
# not main's or a's; -Qc all but c's; -e a all but a's, -f a those of a, b, c; FILE:FUNC (calls.c:b)
# is FUNC in FILE, FILE (calls.c) is all of them, another file none (and gprof then shows all);
# -k b/c deletes the arc b->c and c's 60 calls; -qmain/a keeps only the arc main->a (b and c keep
# no calls). Then the operands: `spinprof` alone reads ./gmon.out; `spinprof PROG gmon.out` with a
# spy gmon.out is the report of gmon.out alone when PROG is the program that ran, and one line and
# status 2 when it is another (a different build-id); in GNU mode no operands mean a.out and
# gmon.out, as gprof's; -i says what a spy profile holds (4 functions, 1 thread).
. "$(dirname "$0")/lib-spinprof.sh"
. "$(dirname "$0")/lib-runtime.sh"

[ -x "$SPINPROF" ] || tap_skip_all "no spinprof"
rt_setup

tap_plan 19

prof() {
	rt_sample calls "$T/calls" || return 1
	RT_ENV=SPYRT_MODE=arcs rt_run "$T/calls" || return 1
	cp "$T/calls.out" "$T/calls-arcs.out"
}
if ! sp_check "samples/calls builds and writes a spy profile (mode arcs)" prof; then
	for _ in $(seq 18); do not_ok "no profile"; done
	tap_done
fi

# facts OPTS...: the facts of spinprof -b OPTS calls-arcs.out, sorted
facts() {
	"$SPINPROF" -b "$@" "$T/calls-arcs.out" >"$T/f.txt" 2>"$T/f.err" || { echo "status $?"; cat "$T/f.err"; return 1; }
	sp_facts "$T/f.txt" | sort
}
# want OPTS... -- LINE...: the facts of kind flat and prim (name and calls only), and the arcs as
# "child CALLER CALLEE COUNT", are exactly LINEs
want() {
	local opts=()
	while [ "$1" != -- ]; do opts+=("$1"); shift; done
	shift
	local got
	got=$(facts "${opts[@]}") || { echo "$got"; return 1; }
	got=$(awk '$1 == "flat" { print "flat", $2, $4 } $1 == "prim" { print "prim", $2, $4 }
		$1 == "child" { for (i = 4; i < NF && $i != "="; i++); split($(i + 1), c, "/"); print "child", $2, $3, c[1] }' <<<"$got" | sort)
	diff -u <(printf '%s\n' "$@" | sort) <(printf '%s\n' "$got")
}

check "-pb: the flat profile of b alone" want -pb -- "flat b 30"
check "--flat-profile=b: the same" want --flat-profile=b -- "flat b 30"
check "-Pb: the flat profile without b" want -Pb -- "flat main 1" "flat a 10" "flat c 60"
check "-qb: the entries of b and c" want -qb -- "prim b 30" "prim c 60" "child b c 60"
check "--graph=calls.c:b: the same" want --graph=calls.c:b -- "prim b 30" "prim c 60" "child b c 60"
check "-Qc: all entries but c's" want -Qc -- "prim main 1" "prim a 10" "prim b 30" "child main a 10" \
	"child a b 30" "child b c 60"
check "-q -e a: all entries but a's" want -q -e a -- "prim main 1" "prim b 30" "prim c 60" "child main a 10" \
	"child b c 60"
check "-q -f a: the entries of a, b, c" want -q -f a -- "prim a 10" "prim b 30" "prim c 60" "child a b 30" \
	"child b c 60"
check "-qcalls.c: every entry" want -qcalls.c -- "prim main 1" "prim a 10" "prim b 30" "prim c 60" \
	"child main a 10" "child a b 30" "child b c 60"
check "-qother.c (no such file): every entry, as gprof" want -qother.c -- "prim main 1" "prim a 10" \
	"prim b 30" "prim c 60" "child main a 10" "child a b 30" "child b c 60"
check "-k b/c: the arc b->c and c's 60 calls gone" want -k b/c -- "flat main 1" "flat a 10" "flat b 30" \
	"prim main 1" "prim a 10" "prim b 30" "child main a 10" "child a b 30"
check "-qmain/a: only the arc main->a" want -qmain/a -- "prim main 1" "prim a 10" "child main a 10"

alone() {
	mkdir -p "$T/alone"
	cp "$T/calls-arcs.out" "$T/alone/gmon.out"
	(cd "$T/alone" && "$SPINPROF" -b) >"$T/alone.txt" 2>&1 || { cat "$T/alone.txt"; return 1; }
	"$SPINPROF" -b "$T/alone/gmon.out" >"$T/explicit.txt" 2>&1 || return 1
	diff -u "$T/explicit.txt" "$T/alone.txt"
}
check "spinprof alone reads ./gmon.out" alone

with_prog() {
	"$SPINPROF" -b "$T/calls" "$T/alone/gmon.out" >"$T/prog.txt" 2>"$T/prog.err" || { cat "$T/prog.err"; return 1; }
	[ ! -s "$T/prog.err" ] || { cat "$T/prog.err"; return 1; }
	diff -u "$T/explicit.txt" "$T/prog.txt"
}
check "spinprof PROG gmon.out (spy, PROG the program that ran) = spinprof gmon.out" with_prog

other_prog() {
	local err rc
	# another program: spinprof itself, whose build-id is not the run's
	err=$("$SPINPROF" -b "$SPINPROF" "$T/alone/gmon.out" 2>&1 >/dev/null)
	rc=$?
	[ $rc -eq 2 ] && [ "$(printf '%s\n' "$err" | wc -l)" -eq 1 ] && [[ $err == "spinprof: $SPINPROF: "*build-id* ]] ||
		{ echo "status $rc: $err"; return 1; }
}
check "spinprof OTHER gmon.out (spy): one line naming OTHER, status 2" other_prog

gnu_default() {
	command -v gprof >/dev/null || { echo "no gprof (in mk/deps.sh)"; return 1; }
	mkdir -p "$T/gnu"
	$CC -O2 -pg -I"$SAMPLES" "$SAMPLES/calls.c" -o "$T/gnu/a.out" >"$T/gnu/cc.log" 2>&1 || { cat "$T/gnu/cc.log"; return 1; }
	(cd "$T/gnu" && ./a.out >/dev/null) || return 1
	(cd "$T/gnu" && gprof -b) >"$T/gnu/g.txt" 2>&1 || { cat "$T/gnu/g.txt"; return 1; }
	(cd "$T/gnu" && "$SPINPROF" -b) >"$T/gnu/s.txt" 2>&1 || { cat "$T/gnu/s.txt"; return 1; }
	diff -u "$T/gnu/g.txt" "$T/gnu/s.txt"
}
check "GNU mode without operands: a.out and gmon.out, as gprof" gnu_default

file_info() {
	"$SPINPROF" -i "$T/calls-arcs.out" >"$T/i.txt" 2>&1 || { cat "$T/i.txt"; return 1; }
	# samples/calls: four functions, one thread; -i alone prints nothing else
	diff -u <(printf '%s\n' "File \`$T/calls-arcs.out' (spy, mode arcs) contains:" $'\t4 functions' $'\t1 thread') \
		<(grep -v -e ' modules\?$' -e ' call-graph arcs\?$' -e ' sample records\?$' "$T/i.txt")
}
check "-i: what the spy profile holds (4 functions, 1 thread), and no report" file_info

bad_opts() {
	local o err rc
	for o in -X --no-such-option "-w x" "-t -1" "-m 1y" "-O bsd"; do
		# shellcheck disable=SC2086
		err=$("$SPINPROF" $o "$T/calls-arcs.out" 2>&1 >/dev/null)
		rc=$?
		[ $rc -eq 2 ] || { echo "$o: status $rc: $err"; return 1; }
	done
	err=$("$SPINPROF" -X 2>&1 >/dev/null)
	[[ $err == usage:* ]] || { echo "-X: $err"; return 1; }
}
check "unknown options and bad values: status 2 (an unknown one with the usage)" bad_opts
tap_done
