#!/bin/bash
# t304: the comparer of bench/realprog2.sh (issue 23), bench/realprog2.py, on a program of known arcs,
# so that the measuring instrument is itself measured: callgrind's calls from code without hooks (the
# comparator of libc's tsearch, the actions of twalk and tdestroy, main from libc's start) count for
# the nearest instrumented function on the stack, as spy counts them, and mode time's arcs then equal
# callgrind's, every one; an arc planted in spy's profile from a leaf that had returned (the shape of
# issue 23's first defect) is found and named as such; and bench/realprog2.sh exits 2 with one line
# when the build it should measure is missing. Not qsort: ASan's qsort calls the comparator once more
# for each pair, to check them. Cheap: one small program, callgrind on its plain build (about a
# second); the whole script, which takes minutes, is not run here.
. "$(dirname "$0")/lib-runtime.sh"
rt_setup
command -v valgrind >/dev/null || tap_skip_all "no valgrind (make deps installs it)"
command -v python3 >/dev/null || tap_skip_all "no python3 (make deps installs it)"
tap_plan 4
CMP=$SPY_SRC/bench/realprog2.py

cat >"$T/known.c" <<'EOC'
#define _GNU_SOURCE
#include <search.h>
#include <stdio.h>
#include <stdlib.h>
#include "sample.h"
/* callbacks from libc (no hooks there): the comparator of tsearch, the action of twalk */
static int cmp(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return (x > y) - (x < y);
}
static long visited;
static void visit(const void *node, VISIT v, int depth)
{
	(void)node;
	(void)depth;
	visited += v == leaf || v == postorder;
}
static void keep(void *p) { (void)p; }
NOINL int leaf_of(int x) { BARRIER(); return x * 3 + 1; }
NOINL int mid(int n)
{
	int s = 0;
	for (int i = 0; i < n; i++)
		s += leaf_of(i);
	BARRIER();
	return s;
}
int main(int argc, char **argv)
{
	static int a[2000];
	void *root = NULL;
	long s = 0;
	int n = argc > 1 ? atoi(argv[1]) : 300;
	for (int i = 0; i < n; i++)
		s += mid(i % 17);
	for (int i = 0; i < 2000; i++) {
		a[i] = (i * 7919) % 2003;
		tsearch(&a[i], &root, cmp);
	}
	twalk(root, visit);
	tdestroy(root, keep);
	printf("%ld %ld\n", s, visited);
	return 0;
}
EOC

mkdir -p "$T/cg"
built() {
	$CC -O2 -g -I"$SAMPLES" "$T/known.c" -o "$T/plain" >"$T/plain.log" 2>&1 ||
		{ cat "$T/plain.log"; return 1; }
	rt_cc "$T/spy" "$CC" "$T/known.c" -fplugin-arg-spyinstr-mode=time || return 1
	valgrind -q --tool=callgrind --separate-threads=yes --callgrind-out-file="$T/cg/callgrind.out" \
		--demangle=no "$T/plain" >"$T/plain.out" 2>"$T/cg.err" || { cat "$T/cg.err"; return 1; }
	RT_ENV= rt_run "$T/spy" || { cat "$T/spy.stderr"; return 1; }
	cmp -s "$T/plain.out" "$T/spy.stdout" || { echo "the two builds printed different things"; return 1; }
	rt_dump "$T/spy.out" >"$T/dump.txt"
}
if ! check "the program builds plain and in mode time, runs under callgrind and with spy" built; then
	for _ in 1 2 3; do not_ok "(not built)"; done
	tap_done
fi

# mode time: every arc equal, main -> cmp, visit and keep (through libc) and <spontaneous> -> main included
equal() {
	local out
	out=$(python3 "$CMP" arcs "$T/plain" "$T/cg" "$T/dump.txt") || { echo "$out"; return 1; }
	echo "$out"
	grep -q '^  time  calls per function: 6 of 6 equal' <<<"$out" || return 1
	grep -q '^  time: 6 arcs .* 6 equal (100.00 %), 0 different, 0 only in spy, 0 only in callgrind' <<<"$out"
}
check "mode time's 6 arcs equal callgrind's, the callbacks' caller taken through libc as main" equal

# a leaf that had returned named as a caller: leaf_of -> cmp in place of main -> cmp
planted() {
	local out
	sed 's/^arc \(.*\) caller=main callee=cmp /arc \1 caller=leaf_of callee=cmp /' "$T/dump.txt" >"$T/planted.txt"
	cmp -s "$T/dump.txt" "$T/planted.txt" && { echo "no main -> cmp arc to change"; return 1; }
	out=$(python3 "$CMP" arcs "$T/plain" "$T/cg" "$T/planted.txt") || { echo "$out"; return 1; }
	echo "$out"
	grep -q ': 7 arcs .* 5 equal (71.43 %), 0 different, 1 only in spy, 1 only in callgrind' <<<"$out" &&
		grep -q '1 only spy .*a caller that calls nothing in callgrind (a leaf: it had returned)' <<<"$out" &&
		grep -q 'leaf_of *-> cmp .*callgrind *0 ' <<<"$out" &&
		grep -q 'main *-> cmp .*spy *0 .*via .*spy gave the calls to another caller' <<<"$out"
}
check "an arc planted from a returned leaf is counted and named" planted

# the script itself: a build without spy's files is one line and status 2, before any fetching
missing() {
	local out rc=0
	out=$(SPY_BUILD=$T/nothing BENCH_CACHE=$T/cache bash "$SPY_SRC/bench/realprog2.sh" 2>&1) || rc=$?
	[ "$rc" -eq 2 ] && [ "$(wc -l <<<"$out")" -eq 1 ] && grep -q "^bench: $T/nothing/spy.specs is missing" <<<"$out" &&
		[ ! -e "$T/cache" ] || { echo "status $rc: $out"; return 1; }
}
check "bench/realprog2.sh on a missing build: one line, status 2, nothing fetched" missing
tap_done
