#!/bin/bash
# t215: summed profiles sum their samples. Synthetic sampled profiles, written through gmon_encode by a
# generator compiled here (on tests/e2e/spygen.h, as t206's), of one executable (binary gone) with main A B C D U T, libc and the
# runtime as modules without symbols:
#   a: wall at 1000 Hz, t206's stacks: thread 100 (6 stacks) and 101 (1 stack), totals 100 taken ...
#   b: the same program loaded elsewhere (executable, libc and runtime at other addresses), wall at
#      1000 Hz: thread 100 with 2 stacks that are a's once relocated and 1 of its own, thread 102 (1 stack)
# so `--spy a b` must show the sums: every total of the header, every procedure's self and callees'
# weight in the tree, every thread, and 7 + 4 - 2 = 9 distinct stacks (a stack seen in the same thread of
# both merges; b's addresses are relocated to a's load addresses, as arcs are). `--spy a a` doubles every
# number and keeps 7 stacks. `-s a b` writes a gmon.sum whose report (Spy report, and the whole report
# but the file count) is `a b`'s byte for byte. Profiles watching something else (cpu; wall at another
# rate; another divisor; calls of another function; cpu ticks with another target, which the line
# names) are refused: status 2, one line naming both files and what differs, and no gmon.sum. A profile without samples adds no samples, in either order, and its watch does not
# count: a third file is compared with the first sampled one.
. "$(dirname "$0")/lib-spinprof.sh"

sp_setup

cat >"$T/spygen.c" <<'EOF'
#include "spygen.h"

int main(int argc, char **argv)
{
	struct gmon_profile p;
	const char *sc = argc > 1 ? argv[1] : "";

	if (argc != 3)
		return 1;
	if (strcmp(sc, "b") == 0) {
		exe += 0x100000;
		libc += 0x10000000;
		spyrt += 0x20000000;
	}
	uint64_t ms = libc + 0x1500; /* main's call site in libc */
	syn_profile(&p, 3, ms);
	if (strcmp(sc, "a") == 0) {
		sampling(&p, GMON_WATCH_WALL, 1000, 1, "");
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
		stack(15, 15000000, libc + 0x1234, 0, 4, U, fa(B) + 0x20, B, fa(A) + 0x10, A, fa(MAIN) + 0x10, MAIN, ms);
		stack(5, 5000000, spyrt + 0x100, GMON_STACK_RUNTIME, 3, D, fa(A) + 0x20, A, fa(MAIN) + 0x10, MAIN, ms);
		stack(8, 8000000, 0, GMON_STACK_WAITING, 4, U, fa(D) + 0x20, D, fa(A) + 0x20, A, fa(MAIN) + 0x10, MAIN, ms);
		thread(&p, 101);
		stack(12, 12000000, fa(U) + 0x10, 0, 2, U, fa(T) + 0x10, T, libc + 0x2000);
		thread(&p, 0);
	} else if (strcmp(sc, "b") == 0) {
		sampling(&p, GMON_WATCH_WALL, 1000, 1, "");
		p.sampling->flags = GMON_SAMP_THREADS_CUT;
		p.sampling->expected = 50;
		p.sampling->taken = 40;
		p.sampling->missed = 2;
		p.sampling->in_runtime = 0;
		p.sampling->cpu_ns = 500000000ull;
		p.sampling->faults = 23;
		p.sampling->allocs = 1;
		p.sampling->alloc_bytes = 100;
		p.sampling->handler_cycles = 5000000;
		thread(&p, 100);
		/* a's first and waiting stacks, at b's addresses; then B's own PC */
		stack(4, 4000000, fa(C) + 0x10, 0, 4, C, fa(B) + 0x10, B, fa(A) + 0x10, A, fa(MAIN) + 0x10, MAIN, ms);
		stack(3, 3000000, 0, GMON_STACK_WAITING, 4, U, fa(D) + 0x20, D, fa(A) + 0x20, A, fa(MAIN) + 0x10, MAIN, ms);
		stack(25, 25000000, fa(B) + 0x30, 0, 3, B, fa(A) + 0x10, A, fa(MAIN) + 0x10, MAIN, ms);
		thread(&p, 102);
		stack(8, 8000000, libc + 0x1234, 0, 2, U, fa(T) + 0x18, T, libc + 0x2000);
		thread(&p, 0);
	} else if (strcmp(sc, "cpu") == 0 || strcmp(sc, "wall500") == 0 || strcmp(sc, "div2") == 0 ||
		   strcmp(sc, "callsC") == 0 || strcmp(sc, "callsD") == 0 || strcmp(sc, "cputgt") == 0) {
		int calls = sc[0] == 'c' && sc[1] == 'a', tgt = strcmp(sc, "cputgt") == 0;
		/* cputgt: cpu ticks as cpu's, with a target (no runtime writes one: another's file) */
		sampling(&p, sc[0] == 'c' ? (calls ? GMON_WATCH_CALLS : GMON_WATCH_CPU) : GMON_WATCH_WALL,
			 strcmp(sc, "cpu") == 0 || tgt ? 100 : strcmp(sc, "wall500") == 0 ? 500 : 1000,
			 strcmp(sc, "div2") == 0 ? 2 : 1, calls ? sc + 5 : tgt ? "X" : "");
		p.sampling->taken = 1;
		thread(&p, 100);
		stack(1, 1000000, fa(A) + 0x30, 0, 2, A, fa(MAIN) + 0x10, MAIN, ms);
		thread(&p, 0);
	} else if (strcmp(sc, "nosamples") != 0) {
		return 1;
	}
	return syn_write(&p, argv[2]);
}
EOF
# shellcheck disable=SC2086
$CC -O2 $SPY_SAN_FLAGS -I"$SPY_SRC/common" -I"$SPY_SRC/tests/e2e" "$T/spygen.c" "$GMON_IO" -o "$T/spygen" -lz || exit 1

for s in a b cpu wall500 div2 callsC callsD cputgt nosamples; do
	"$T/spygen" $s "$T/$s.out" || { echo "Bail out! spygen $s failed"; exit 1; }
done

run() { # run NAME ARGS...: spinprof into $T/NAME.txt, stderr in .err; fail on a non-zero status
	local name=$1
	shift
	"$SPINPROF" "$@" >"$T/$name.txt" 2>"$T/$name.err" || { echo "spinprof $*: status $?"; cat "$T/$name.err"; return 1; }
}

# procs FILE: "NAME SELF REST" per entry of the tree (REST: its callees' weight), sorted by name
procs() {
	awk '/^Breakdown of procedures\./ { on = 1 } /^Breakdown of highly active/ { on = 0 }
		on && / \([0-9]+ refs?\) = [0-9]+, [0-9]+ / {
			nm = $0; sub(/ \([0-9]+ refs?\) = .*/, "", nm); sub(/^[.! ]*/, "", nm); sub(/^[*~]*/, "", nm)
			v = $0; sub(/.* refs?\) = /, "", v); split(v, w, /[, ]+/)
			print nm, w[1], w[2]
		}' "$1" | sort
}

# threads FILE: "TID WEIGHT" per thread line
threads() { sed -n 's/^Thread \([0-9]*\) .* = \([0-9]*\) (.*/\1 \2/p' "$1" | sort; }

# summed N FACTS... : per key (the fields but the last N), the sums of the last N fields over the files
summed() {
	local n=$1
	shift
	cat "$@" | awk -v n="$n" '{ k = $1; for (i = 2; i <= NF - n; i++) k = k " " $i
		for (i = 1; i <= n; i++) s[k, i] += $(NF - n + i); keys[k] = 1 }
		END { for (k in keys) { l = k; for (i = 1; i <= n; i++) l = l " " s[k, i]; print l } }' | sort
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

tap_plan 13

ok_runs() { run a --spy -b --cutoff=0 "$T/a.out" && run b --spy -b --cutoff=0 "$T/b.out" && run ab --spy -b --cutoff=0 "$T/a.out" "$T/b.out"; }
sp_check "--spy of a, of b, and of a b" ok_runs

header_sums() {
	# a: 100 taken, 120 expected, 3 missed, 5 in the profiler, CPU 1.5 s, 77 faults, 15e6 cycles; b: 40,
	# 50, 2, 0, 0.5 s, 23, 5e6; four seconds in all (allocations are in the files, but a wall watch
	# does not watch them); the percentages are of the program's 135 ticks
	has "$T/ab.txt" "watching: wall at 1000 Hz (one tick 1.000 ms)" \
		"warning: some threads could not be sampled" \
		"duration: 4.000000 seconds" \
		"samples: 140 taken, 35.0 per second; 140 ticks in all" \
		"missed: 170 asked for, 30 fewer taken: ticks were missed (5 timer overruns)" \
		"totals: CPU 2.000000 seconds, 100 page faults, allocations not watched" \
		"profiler: 3.9% of the CPU time (5 of the 129 ticks on the CPU were in it), in no function's time (mode arcs counts most calls inline, in the callers' own ticks)" \
		"sampling: 20000000 cycles recording samples (142857 a sample, 0.020000 seconds); 5 ticks in the profiler, left out below" \
		"program: 135 ticks, the 100% of the percentages below (the profiler's left out)" \
		"stacks: 9 distinct, 0 cut short; 11 ticks waiting (8.1%)" || return 1
	! grep -q '^note:.*first' "$T/ab.txt" || { echo "still says only the first file's samples are used"; return 1; }
}
check "a b: the header's totals are the sums; 9 distinct stacks (b's relocated stacks merged into a's)" header_sums

proc_sums() {
	procs "$T/a.txt" >"$T/a.procs"
	procs "$T/b.txt" >"$T/b.procs"
	procs "$T/ab.txt" >"$T/ab.procs"
	[ "$(wc -l <"$T/a.procs")" -ge 8 ] || { echo "too few procedures parsed:"; cat "$T/a.procs"; return 1; }
	diff -u <(summed 2 "$T/a.procs" "$T/b.procs") "$T/ab.procs" || { echo "a b's procedures are not a's plus b's"; return 1; }
	# and the numbers themselves: B's own 25 ticks from b, its callees 45 + 4; C 30 + 20 + 4; U 20 + 3
	# waiting, under it libc 15 + 8 (b's thread 102, a PC in b's libc)
	grep -qx 'B 25 49' "$T/ab.procs" && grep -qx 'C 54 0' "$T/ab.procs" && grep -qx 'U 23 23' "$T/ab.procs" &&
		grep -qx '\[libc.so.6\] 23 0' "$T/ab.procs" ||
		{ cat "$T/ab.procs"; return 1; }
}
check "a b: every procedure's self and callees' weight is a's plus b's (by b's relocated addresses)" proc_sums

thread_sums() {
	diff -u <(summed 1 <(threads "$T/a.txt") <(threads "$T/b.txt")) <(threads "$T/ab.txt") &&
		diff -u <(printf '%s\n' '100 115' '101 12' '102 8') <(threads "$T/ab.txt")
}
check "a b: threads 100 (a's and b's), 101 (a's) and 102 (b's) with the summed weights" thread_sums

twice() {
	run aa --spy -b --cutoff=0 "$T/a.out" "$T/a.out" || return 1
	diff -u <(awk '{ print $1, 2 * $2, 2 * $3 }' "$T/a.procs") <(procs "$T/aa.txt") || return 1
	has "$T/aa.txt" "samples: 200 taken, 50.0 per second; 200 ticks in all" "stacks: 7 distinct, 0 cut short; 16 ticks waiting (8.4%)"
}
check "a a: every number doubled, still 7 distinct stacks" twice

sum_file() {
	local d=$T/sum
	mkdir -p "$d"
	(cd "$d" && "$SPINPROF" -s -b "$T/a.out" "$T/b.out" >full-ab.txt 2>full-ab.err) || { echo "spinprof -s: status $?"; return 1; }
	[ -s "$d/gmon.sum" ] || { echo "no gmon.sum"; return 1; }
	run sum --spy -b --cutoff=0 "$d/gmon.sum" || return 1
	cmp "$T/sum.txt" "$T/ab.txt" || { diff -u "$T/ab.txt" "$T/sum.txt" | head -30; return 1; }
	run sum-full -b "$d/gmon.sum" || return 1
	diff -u <(sed 1d "$d/full-ab.txt") <(sed 1d "$T/sum-full.txt") || return 1
	grep -q '^Breakdown of procedures\.' "$T/sum-full.txt" || { echo "no Spy report after the call graph"; return 1; }
	# and gmon.sum itself holds the summed records
	run sum-dflt --spy "$d/gmon.sum" && run ab-dflt --spy "$T/a.out" "$T/b.out" && cmp "$T/sum-dflt.txt" "$T/ab-dflt.txt"
}
check "-s a b: the Spy report (and the whole report but its file count) of gmon.sum is a b's, byte for byte" sum_file

# refused A B WATCH-B WATCH-A: spinprof -s A B refuses with one line, status 2, and writes no gmon.sum
refused() {
	local d=$T/ref.$RANDOM rc err
	mkdir -p "$d"
	err=$(cd "$d" && "$SPINPROF" -s "$1" "$2" 2>&1 >/dev/null)
	rc=$?
	[ $rc = 2 ] || { echo "status $rc"; return 1; }
	[ "$err" = "spinprof: $2: watches $3, $1 watches $4: cannot sum" ] || { echo "stderr: $err"; return 1; }
	[ ! -e "$d/gmon.sum" ] || { echo "gmon.sum written"; return 1; }
}
check "a cpu: another watch is refused" refused "$T/a.out" "$T/cpu.out" "cpu at 100 Hz" "wall at 1000 Hz"
check "a wall500, a div2: another rate, another divisor are refused" eval \
	'refused "$T/a.out" "$T/wall500.out" "wall at 500 Hz" "wall at 1000 Hz" &&
	refused "$T/a.out" "$T/div2.out" "wall at 1000 Hz, one event in 2 kept" "wall at 1000 Hz"'
check "callsC callsD: calls of another function are refused" refused "$T/callsC.out" "$T/callsD.out" "calls of D" "calls of C"
check "cpu cputgt: cpu ticks with another target are refused, the line names the target" \
	refused "$T/cpu.out" "$T/cputgt.out" "cpu at 100 Hz, target X" "cpu at 100 Hz"

unsampled() {
	run an --spy -b --cutoff=0 "$T/a.out" "$T/nosamples.out" && run na --spy -b --cutoff=0 "$T/nosamples.out" "$T/a.out" || return 1
	for f in an na; do
		diff -u "$T/a.procs" <(procs "$T/$f.txt") || { echo "$f: not a's procedures"; return 1; }
		diff -u <(threads "$T/a.txt") <(threads "$T/$f.txt") || return 1
		has "$T/$f.txt" "samples: 100 taken, 25.0 per second; 100 ticks in all" "duration: 4.000000 seconds" || return 1
	done
}
check "a + a profile without samples, in either order: a's samples, over both runs' duration" unsampled

unsampled_first() {
	local err rc
	err=$("$SPINPROF" --spy "$T/nosamples.out" "$T/a.out" "$T/cpu.out" 2>&1 >/dev/null)
	rc=$?
	[ $rc = 2 ] && [ "$err" = "spinprof: $T/cpu.out: watches cpu at 100 Hz, $T/a.out watches wall at 1000 Hz: cannot sum" ] ||
		{ echo "status $rc, stderr: $err"; return 1; }
}
check "nosamples a cpu: the line names the first file with samples" unsampled_first

check "stderr holds only the missing binary's warning" bash -c "! grep -hv 'binary missing' '$T/ab.err' '$T/sum.err' '$T/an.err' | grep -q ."

tap_done
