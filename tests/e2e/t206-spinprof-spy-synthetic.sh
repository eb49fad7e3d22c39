#!/bin/bash
# t206: the Spy report of synthetic sampled profiles, written through gmon_encode by a generator compiled
# here (on tests/e2e/spygen.h), whose numbers are known by construction. Functions main A B C D U T of one executable (its binary
# gone: the plugin's names and lines are used), plus libc and the runtime as modules without symbols.
# Watch wall, thread 100 (main) and 101:
#   30 ticks  C <- B <- A <- main        20 ticks  C <- D <- A <- main     10 ticks  A <- main
#   15 ticks  libc <- U <- B <- A <- main    5 ticks  in the profiler, over D <- A <- main
#    8 ticks  U <- D <- A <- main, waiting (pc 0)     12 ticks (thread 101)  U <- T
# so C (reached through B and D) sits under A; the profiler's 5 are left out of the procedures, threads
# and their percentages (of the program's 95 ticks; the header, the all-ticks and modules listings keep them); U, called from both threads, under the root; B and D
# share a disjoint set, C does not; self, total, refs, callee lines, threads, lines, the three PC listings
# and the modules are exact, and the whole tree section is compared as text. The cutoff hides what is
# below it, nothing is printed twice; allocbytes (return-address PCs, bytes as the unit) and calls:C
# (self to the watched function, on the stack or, as the runtime records it, only named as the target) too; the default report appends the Spy report after the call graph.
. "$(dirname "$0")/lib-spinprof.sh"

sp_setup

cat >"$T/spygen.c" <<'EOF'
#include "spygen.h"

int main(int argc, char **argv)
{
	struct gmon_profile p;
	const char *sc = argc > 1 ? argv[1] : "";
	uint64_t ms = LIBC + 0x1500; /* main's call site in libc */

	if (argc != 3)
		return 1;
	syn_profile(&p, 2, ms);
	if (strcmp(sc, "nosamples") == 0)
		goto write;
	p.sampling = calloc(1, sizeof(*p.sampling));
	p.sampling->divisor = 1;
	p.sampling->target = strdup("");
	p.sampling->start = strdup("");
	p.sampling->stop = strdup("");
	if (strcmp(sc, "wall") == 0) {
		p.sampling->watch = GMON_WATCH_WALL;
		p.sampling->hz = 1000;
		p.sampling->expected = 120;
		p.sampling->taken = 100;
		p.sampling->missed = 3;
		p.sampling->in_runtime = 5;
		p.sampling->cpu_ns = 1500000000ull;
		p.sampling->faults = 77;
		p.sampling->allocs = 9;
		p.sampling->alloc_bytes = 4096;
		p.sampling->handler_cycles = 15000000;
		thread(&p, 100);
		stack(30, 30000000, fa(C) + 0x10, 0, 4, C, fa(B) + 0x10, B, fa(A) + 0x10, A, fa(MAIN) + 0x10, MAIN, ms);
		stack(20, 20000000, fa(C) + 0x20, 0, 4, C, fa(D) + 0x10, D, fa(A) + 0x20, A, fa(MAIN) + 0x10, MAIN, ms);
		stack(10, 10000000, fa(A) + 0x30, 0, 2, A, fa(MAIN) + 0x10, MAIN, ms);
		stack(15, 15000000, LIBC + 0x1234, 0, 4, U, fa(B) + 0x20, B, fa(A) + 0x10, A, fa(MAIN) + 0x10, MAIN, ms);
		stack(5, 5000000, SPYRT + 0x100, GMON_STACK_RUNTIME, 3, D, fa(A) + 0x20, A, fa(MAIN) + 0x10, MAIN, ms);
		stack(8, 8000000, 0, GMON_STACK_WAITING, 4, U, fa(D) + 0x20, D, fa(A) + 0x20, A, fa(MAIN) + 0x10, MAIN, ms);
		thread(&p, 101);
		stack(12, 12000000, fa(U) + 0x10, 0, 2, U, fa(T) + 0x10, T, LIBC + 0x2000);
		thread(&p, 0);
	} else if (strcmp(sc, "allocbytes") == 0) {
		p.sampling->watch = GMON_WATCH_ALLOCBYTES;
		p.sampling->taken = 5;
		thread(&p, 100);
		/* malloc's return address is C's first byte: B's last call, so it is B's */
		stack(3, 3000, fa(C), 0, 3, B, fa(A) + 0x10, A, fa(MAIN) + 0x10, MAIN, ms);
		stack(2, 48, LIBC + 0x1235, 0, 4, U, fa(D) + 0x20, D, fa(A) + 0x20, A, fa(MAIN) + 0x10, MAIN, ms);
		thread(&p, 0);
	} else if (strcmp(sc, "calls") == 0) {
		p.sampling->watch = GMON_WATCH_CALLS;
		free(p.sampling->target);
		p.sampling->target = strdup("C");
		p.sampling->taken = 10;
		thread(&p, 100);
		stack(7, 7, fa(B) + 0x10, 0, 4, C, fa(B) + 0x10, B, fa(A) + 0x10, A, fa(MAIN) + 0x10, MAIN, ms);
		/* the runtime's layout: FUNC's callers only, FUNC's call site as the PC */
		stack(3, 3, fa(D) + 0x10, 0, 3, D, fa(A) + 0x20, A, fa(MAIN) + 0x10, MAIN, ms);
		thread(&p, 0);
	} else {
		return 1;
	}
write:
	return syn_write(&p, argv[2]);
}
EOF
# shellcheck disable=SC2086
$CC -O2 $SPY_SAN_FLAGS -I"$SPY_SRC/common" -I"$SPY_SRC/tests/e2e" "$T/spygen.c" "$GMON_IO" -o "$T/spygen" -lz || exit 1

# section FILE TITLE: the lines of one section of the Spy report (between its tilde rows and the next)
section() {
	awk -v t="$2" '
		/^~~~~/ { tilde++; if (tilde == 2 && intro) { on = 1; next } if (on) exit; next }
		$0 == t { intro = 1; tilde = 1; next }
		on' "$1"
}

# tree_entries FILE: the tree as "DEPTH ENTER MARKS NAME" per entry (MARKS "-" when none)
tree_entries() {
	section "$1" "Breakdown of procedures." | awk '
		{
			i = 1; n = 0
			while (substr($0, i + 1, 1) == " " && index(".! ", substr($0, i, 1)) && substr($0, i, 1) != "") {
				last = substr($0, i, 1); i += 2; n++
			}
			rest = substr($0, i)
			if (rest == "" || substr(rest, 1, 1) == "(")
				next
			marks = ""
			while (substr(rest, 1, 1) == "*" || substr(rest, 1, 1) == "~") { marks = marks substr(rest, 1, 1); rest = substr(rest, 2) }
			sub(/ \([0-9]+ refs?\) = .*/, "", rest)
			print n - 1, last, (marks == "" ? "-" : marks), rest
		}'
}

# listing FILE TITLE-PREFIX: the rows "COUNT PERCENT NAME" of one Count/Percent listing
listing() {
	awk -v t="$2" 'index($0, t) == 1 { on = 1; next } on && /^(Count|-----)/ { next } on && (NF == 0 || /^~/) { exit } on' "$1"
}

run() { # run NAME ARGS...: spinprof into $T/NAME.txt, stderr in .err; fail on a non-zero status
	local name=$1
	shift
	"$SPINPROF" "$@" >"$T/$name.txt" 2>"$T/$name.err" || { echo "spinprof $*: status $?"; cat "$T/$name.err"; return 1; }
}

has() { # has FILE LINE...: every LINE is a whole line of FILE
	local f=$1 l bad=0
	shift
	for l in "$@"; do
		grep -qFx -- "$l" "$f" || { echo "missing line: $l"; bad=1; }
	done
	[ $bad = 0 ] || { echo "--- in:"; cat "$f"; }
	return $bad
}

tap_plan 15

for s in wall allocbytes calls nosamples; do
	"$T/spygen" $s "$T/$s.out" || { echo "Bail out! spygen $s failed"; exit 1; }
done
sp_check "--spy on the wall profile" run wall --spy "$T/wall.out"

tree_exact() {
	section "$T/wall.txt" "Breakdown of procedures." >"$T/wall.tree"
	diff -u - "$T/wall.tree" <<'EOF'
. main (1 ref) = 0, 83 (87.4%).
!     (syn.c:15) A = 83 (87.4%).
! . *A (1 ref) = 10, 73 (10.5%) (87.4%).
!       (syn.c:25) B = 45 (47.4%).
!       (syn.c:45) D = 28 (29.5%).
!   . *~C (2 refs) = 50, 0 (52.6%) (52.6%).
!   . B (1 ref) = 0, 45 (47.4%).
!   !     (syn.c:35) C = 30 (31.6%).
!   !     (syn.c:55) U = 15 (15.8%).
!   ! D (1 ref) = 0, 28 (29.5%).
!         (syn.c:35) C = 20 (21.1%).
!         (syn.c:55) U = 8 (8.4%).
! T (1 ref) = 0, 12 (12.6%).
.     (syn.c:55) U = 12 (12.6%).
. *U (3 refs) = 20, 15 (21.1%) (36.8%).
      (?) [libc.so.6] = 15 (15.8%).
      (waiting) = 8 (8.4%).
  . *[libc.so.6] (0 refs) = 15, 0 (15.8%) (15.8%).

EOF
}
check "wall: the tree (C under A, U under the root, sets {B D} {C}, {main T} {U}) is exactly as constructed" tree_exact

tree_shape() {
	tree_entries "$T/wall.txt" | diff -u - <(printf '%s\n' '0 . - main' '1 . * A' '2 . *~ C' '2 . - B' '2 ! - D' \
		'0 ! - T' '0 . * U' '1 . * [libc.so.6]')
}
check "wall: depths, set marks (! same set as the previous sibling) and markers parse back" tree_shape

check "wall: header: rate, samples per second, missed ticks, totals, profiler's cost" has "$T/wall.txt" \
	"watching: wall at 1000 Hz (one tick 1.000 ms)" \
	"samples: 100 taken, 50.0 per second; 100 ticks in all" \
	"missed: 120 asked for, 20 fewer taken: ticks were missed (3 timer overruns)" \
	"totals: CPU 1.500000 seconds, 77 page faults, allocations not watched" \
	"profiler: 5.4% of the CPU time (5 of the 92 ticks on the CPU were in it), in no function's time (mode arcs counts most calls inline, in the callers' own ticks)" \
	"sampling: 15000000 cycles recording samples (150000 a sample, 0.015000 seconds); 5 ticks in the profiler, left out below" \
	"program: 95 ticks, the 100% of the percentages below (the profiler's left out)" \
	"stacks: 7 distinct, 0 cut short; 8 ticks waiting (8.4%)"

check "wall: threads with their counts, waiting and top procedures" has "$T/wall.txt" \
	'Thread 100 "syn" (main) (8 waiting) = 83 (87.4%).' '    C = 50 (52.6%).' '    [libc.so.6] = 15 (15.8%).' \
	'Thread 101 "worker" = 12 (12.6%).' '    U = 12 (12.6%).'

lines_c() {
	section "$T/wall.txt" "Breakdown of highly active procedures." >"$T/wall.lines"
	diff -u - <(grep -A2 -Fx 'C (2 refs) = 50, 0 (52.6%) (52.6%).' "$T/wall.lines") <<'EOF'
C (2 refs) = 50, 0 (52.6%) (52.6%).
    (0x401310) = 30 (31.6%).
    (0x401320) = 20 (21.1%).
EOF
	has "$T/wall.lines" 'U (3 refs) = 20, 15 (21.1%) (36.8%).' '    (0x401510) = 12 (12.6%).' '    (waiting) = 8 (8.4%).'
	! grep -q '^B \|^D \|^main \|^T ' "$T/wall.lines" || { echo "a procedure without self ticks has a line breakdown"; return 1; }
}
check "wall: highly active procedures by PC in address order (no binary: addresses), waiting apart" lines_c

pc_listings() {
	diff -u - <(listing "$T/wall.txt" "All ticks") <<'EOF' || return 1
50        50.00  C
20        20.00  U
15        15.00  [libc.so.6]
10        10.00  A
5          5.00  <profiler>
EOF
	diff -u - <(listing "$T/wall.txt" "Ticks in the program") <<'EOF' || return 1
50        52.63  C
20        21.05  U
15        15.79  [libc.so.6]
10        10.53  A
EOF
	diff -u - <(listing "$T/wall.txt" "Ticks in the profiler") <<'EOF' || return 1
5        100.00  D
EOF
	diff -u - <(listing "$T/wall.txt" "Samples per executable") <<'EOF'
80        80.00  /nonexistent/spy-synthetic
15        15.00  /nonexistent/libc.so.6
5          5.00  /nonexistent/libspyrt.so
EOF
}
check "wall: the PC listings (all, program, profiler charged to D) and the modules" pc_listings

cutoffs() {
	local c want got
	for c in 0 10 40; do
		run "cut$c" --spy -b --cutoff=$c "$T/wall.out" || return 1
		got=$(tree_entries "$T/cut$c.txt" | awk '{ print $4 }' | sort | tr '\n' ' ')
		case $c in
		0) want='A B C D T U [libc.so.6] main ' ;;
		10) want='A B C D T U [libc.so.6] main ' ;;
		40) want='A B C main ' ;;
		esac
		[ "$got" = "$want" ] || { echo "--cutoff=$c: entries '$got', want '$want'"; return 1; }
		if [ "$(tree_entries "$T/cut$c.txt" | awk '{ print $4 }' | sort | uniq -d)" ]; then
			echo "--cutoff=$c: an entry printed twice"; return 1
		fi
	done
	# callee lines under the cutoff go too: D's U (8 %) at 10 %, the waiting line (8 %)
	section "$T/cut10.txt" "Breakdown of procedures." | grep -q ') U = 8 \|(waiting)' && { echo "--cutoff=10 kept an 8 % line"; return 1; }
	section "$T/cut0.txt" "Breakdown of procedures." | grep -q '(syn.c:55) U = 8 (8.4%)' || { echo "--cutoff=0 lost a line"; return 1; }
	grep -q '^An entry reads' "$T/cut0.txt" && { echo "-b kept the explanations"; return 1; }
	grep -q '^An entry reads' "$T/wall.txt" || { echo "no explanations without -b"; return 1; }
}
check "--cutoff=0, 10, 40: exactly the procedures at or above it, each once; -b drops the legend" cutoffs

allocbytes() {
	run alloc --spy -b "$T/allocbytes.out" || return 1
	has "$T/alloc.txt" "watching: allocbytes" "samples: 5 taken, 2.5 per second; 3048 bytes in all" || return 1
	tree_entries "$T/alloc.txt" | diff -u - <(printf '%s\n' '0 . - main' '1 . - A' '2 . * B' '2 ! - D' '3 . - U' '4 . * [libc.so.6]') || return 1
	section "$T/alloc.txt" "Breakdown of procedures." | grep -q '\*B (1 ref) = 3000, 0 (98.4%) (98.4%)\.$'
}
check "allocbytes: bytes are the unit, a return-address PC belongs to the caller (B, not C)" allocbytes

calls() {
	run calls --spy -b "$T/calls.out" || return 1
	has "$T/calls.txt" "watching: calls of C" || return 1
	section "$T/calls.txt" "Breakdown of procedures." >"$T/calls.tree"
	grep -q '\*~C (2 refs) = 10, 0 (100.0%) (100.0%)\.$' "$T/calls.tree" &&
		grep -q '(syn.c:35) C = 7 (70.0%)\.$' "$T/calls.tree" && grep -q '(syn.c:35) C = 3 (30.0%)\.$' "$T/calls.tree" ||
		{ cat "$T/calls.tree"; return 1; }
}
check "calls:C: every call counted to C, 7 from B and 3 from D" calls

default_report() {
	run dflt "$T/wall.out" || return 1
	awk '/^Index by function name/ { idx = NR } /^Breakdown of procedures\./ { spy = NR }
		END { if (!idx || !spy || spy < idx) { print "index at " idx ", Spy tree at " spy; exit 1 } }' "$T/dflt.txt" || return 1
	run flat -p "$T/wall.out" || return 1
	! grep -q 'Breakdown of procedures' "$T/flat.txt" || { echo "-p printed the Spy report"; return 1; }
	run nos "$T/nosamples.out" || return 1
	! grep -q 'Spy report' "$T/nos.txt" || { echo "a profile without samples got a Spy report by default"; return 1; }
}
check "default report: gprof's part, then the Spy report when there are samples (not with -p, not without samples)" default_report

threads_only() {
	run thr --threads "$T/wall.out" || return 1
	grep -q '^Thread 101 "worker" = 12 (12.6%)\.$' "$T/thr.txt" && ! grep -q 'Breakdown of procedures\|Flat profile' "$T/thr.txt"
}
check "--threads: the header and the threads alone" threads_only

nothing_to_weigh() {
	local err rc
	err=$("$SPINPROF" --spy "$T/nosamples.out" 2>&1 >/dev/null)
	rc=$?
	err=$(grep -v '^spinprof: warning: ' <<<"$err")
	[ $rc = 2 ] && [ "$(printf '%s\n' "$err" | wc -l)" = 1 ] && [[ $err == "spinprof: $T/nosamples.out: "* ]] ||
		{ echo "status $rc, stderr: $err"; return 1; }
}
check "--spy on a profile with neither samples nor times: one line naming the file, status 2" nothing_to_weigh

twice() {
	# a second profile summed in: the report stays consistent (the samples of both files, no crash)
	run two --spy -b "$T/wall.out" "$T/wall.out" || return 1
	tree_entries "$T/two.txt" | awk '{ print $4 }' | sort | uniq -d | grep -q . && { echo "printed twice"; return 1; }
	return 0
}
check "two profiles given: the report is printed, each procedure once" twice

check "stderr holds only the missing binary's warning" bash -c "! grep -v 'binary missing' '$T/wall.err' '$T/cut0.err' | grep -q ."

tap_done
