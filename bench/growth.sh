#!/bin/bash
# bench/growth.sh: costs that must not grow with the depth of the stack or the count of records
# (issue 24, item 12), measured rather than asserted (the tests check that the results stay exact:
# tests/unit/test-runtime-offcpu.c, t120, t250, t216).
#
#  1. Mode time, off-CPU time: a thread recurses to depth D, then sleeps 1000 times, each sleep a
#     context switch drained at the next exit. The loop's wall time, the fastest of RUNS runs, at
#     depth 10 and 200,000: before, each switch walked every open frame.
#  2. spinprof on a glibc gmon.out of N one-bin histogram records (one per function of a program of
#     N tiny functions), N = 40,000 to 320,000: `spinprof -b PROG gmon.out`, the fastest of RUNS
#     runs; in address order and in reverse. Before, each record was compared with every earlier one,
#     and its samples assigned by a walk from the first symbol (gprof's hist_assign_samples_1).
#
# usage: bench/growth.sh [RUNS]   (default 3)
# env:   SPY_BUILD (default build/), CC (gcc), NS (the record counts, default "40000 80000 160000 320000"),
#        GROWTH_TIMEOUT (seconds a spinprof run may take, default 600: ">600" past it), BENCH_KEEP=1
#
# Measured with `bench/growth.sh 1` (one run each) on the 2-core development VM shared with other
# work (load 8 to 11 throughout), before: main at 0d8f7b9 built apart (SPY_BUILD=.../build
# NS="40000 80000 160000" GROWTH_TIMEOUT=300), after: branch h-mod (NS="40000 80000 160000 320000"):
#
#   off-CPU, 1000 sleeps                depth 10    depth 200000
#     before                            0.119 s     10.321 s
#     after                             0.126 s      0.109 s
#   spinprof -b PROG gmon.out          40000      80000      160000     320000 functions
#     one record for all, after         0.54 s     0.80 s     2.09 s     4.25 s   (the rest of the report)
#     one-bin records, before          10.59 s   103.87 s    >300 s
#     one-bin records, after            0.63 s     1.55 s     3.23 s     5.69 s
#     the same in reverse, before      15.08 s   100.70 s    >300 s
#     the same in reverse, after        0.58 s     1.51 s     3.16 s     6.38 s
set -eu

# shellcheck source=bench/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
spinprof=$build/spinprof
[ -x "$spinprof" ] && spinprof=$(cd "$(dirname "$spinprof")" && pwd)/spinprof
runs=${1:-3}
NS=${NS:-40000 80000 160000 320000}
limit=${GROWTH_TIMEOUT:-600}

bench_need "$plugin" "$rtlib/libspyrt.so"
[ -x "$spinprof" ] || { echo "bench: no $spinprof (run make first)" >&2; exit 2; }
bench_workdir growth

# ---- 1. off-CPU time at depth ----
cat >"$w/deep.c" <<'EOC'
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
static long depth;
static volatile int sink;
__attribute__((noinline)) void leaf(void)
{
	sink++;
}
__attribute__((noinline)) void bottom(void)
{
	struct timespec d = { 0, 1000 }, t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (int i = 0; i < 1000; i++) {
		nanosleep(&d, NULL); /* a switch out and in */
		leaf();              /* its exit reads the switch */
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	printf("ns=%lld\n", (t1.tv_sec - t0.tv_sec) * 1000000000LL + t1.tv_nsec - t0.tv_nsec);
}
__attribute__((noinline)) void rec(long n)
{
	if (n > 1)
		rec(n - 1);
	else
		bottom();
	__asm__ volatile("" ::: "memory");
}
static void *run(void *arg)
{
	(void)arg;
	rec(depth);
	return NULL;
}
int main(int argc, char **argv)
{
	pthread_attr_t a;
	pthread_t t;
	depth = atol(argv[1]);
	pthread_attr_init(&a);
	pthread_attr_setstacksize(&a, (size_t)256 << 20); /* 200,000 frames of rec */
	if (pthread_create(&t, &a, run, NULL) || pthread_join(t, NULL))
		return 1;
	return 0;
}
EOC
$CC -O2 -fplugin="$plugin" -fplugin-arg-spyinstr-mode=time "$w/deep.c" -o "$w/deep" -L"$rtlib" -lspyrt \
	-Wl,-rpath,"$rtlib" -lpthread
for d in 10 200000; do
	fastest=
	for ((r = 0; r < runs; r++)); do
		ns=$(SPYRT_MODE=time SPYRT_OUT="$w/deep.out" "$w/deep" "$d" | sed -n 's/^ns=//p')
		[ -z "$fastest" ] || [ "$ns" -lt "$fastest" ] && fastest=$ns
	done
	printf 'off-CPU, 1000 sleeps at depth %6d: %.3f s\n' "$d" "$(awk -v n="$fastest" 'BEGIN { print n / 1e9 }')"
done

# ---- 2. spinprof on N one-bin histogram records ----
$CC -O2 -I"$src/common" "$here/spinprof-gen.c" "$src"/common/*.c -o "$w/gen" -lz
label() {
	case $1 in
	one) echo "one record for all (the rest of the report)" ;;
	fwd) echo "a one-bin record each, in address order" ;;
	rev) echo "a one-bin record each, in reverse order" ;;
	esac
}
for n in $NS; do
	# n functions of 16 bytes each, and main
	awk -v nf="$n" 'BEGIN {
		print "\t.text"
		for (i = 0; i < nf; i++)
			printf "\t.globl f%d\n\t.type f%d, @function\n\t.p2align 4\nf%d:\n\tnop\n\tnop\n\tnop\n\tret\n\t.size f%d, .-f%d\n", i, i, i, i, i
		print "\t.globl main\n\t.type main, @function\nmain:\n\txorl %eax, %eax\n\tret\n\t.size main, .-main"
		print "\t.section .note.GNU-stack,\"\",@progbits"
	}' >"$w/prog.s"
	$CC -no-pie "$w/prog.s" -o "$w/prog"
	nm --defined-only -S "$w/prog" | awk '$3 ~ /^[Tt]$/ && $4 ~ /^f[0-9]+$/ { print $1, $2 }' | sort >"$w/syms"
	for order in one fwd rev; do
		# one: a single record over the whole text, the same symbols: what the rest of the report costs
		case $order in
		one) "$w/gen" gnu "$w/gmon.out" 0 <"$w/syms" ;;
		fwd) "$w/gen" gnuhist "$w/gmon.out" <"$w/syms" ;;
		rev) "$w/gen" gnuhist "$w/gmon.out" rev <"$w/syms" ;;
		esac
		fastest=
		for ((r = 0; r < runs; r++)); do
			t0=$(date +%s%N)
			rc=0
			timeout "$limit" "$spinprof" -b "$w/prog" "$w/gmon.out" >/dev/null || rc=$?
			if [ $rc -ne 0 ]; then
				[ $rc = 124 ] && fastest=">$limit" || fastest="failed (status $rc)"
				break
			fi
			t1=$(date +%s%N)
			[ -z "$fastest" ] || [ $((t1 - t0)) -lt "$fastest" ] && fastest=$((t1 - t0))
		done
		case $fastest in
		'>'* | f*) printf 'spinprof, %6d functions, %s: %s s\n' "$n" "$(label $order)" "$fastest" ;;
		*) printf 'spinprof, %6d functions, %s: %.2f s\n' "$n" "$(label $order)" "$(awk -v n="$fastest" 'BEGIN { print n / 1e9 }')" ;;
		esac
	done
done
echo "load: $(cut -d' ' -f1-3 /proc/loadavg)"
