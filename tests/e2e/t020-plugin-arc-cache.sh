#!/bin/bash
# t020: mode=arcs's inline fast path (ABI 6) and its per-thread, per-function cache of two call sites:
# exact counts and callers whether the cache hits or misses, by construction: one function called from
# three sites of one caller (more sites than ways), from two callers in turn, recursion through two
# sites (fib) and three (trib), one site calling through a function pointer into two functions, a
# callback from qsort (libc, no hooks: all its calls counted), a callee whose depth changes
# at every call from one site (recursion around it), and a loop in the caller of a leaf that drops the
# leaf's frames; in SPYRT_MODE=arcs and time, linked with libspyrt.so and libspyrt.a. In the steady
# state the calls stay inline (an interposed __spy_arc_miss counts the calls that leave it): the misses
# of a million calls are a handful, their first calls; with the hooks held (SPYRT_MODE=count) every
# call misses, and __spy_arc_miss counts each exactly.
. "$(dirname "$0")/lib-runtime.sh"
rt_setup
tap_plan 5

ARCS=-fplugin-arg-spyinstr-mode=arcs
N1=3000 N2=2000 F=20 TR=15 N3=1000 D=12 R=50 Q=500

cat >"$T/cache.c" <<'EOC'
#include <stdio.h>
#include <stdlib.h>
#include "sample.h"

static volatile int sink;
static long ncmp;

NOINL int leaf(int x) { BARRIER(); return x + 1; }
NOINL int leaf2(int x) { BARRIER(); return x + 2; }
/* three sites in one caller: more than the cache's two ways */
NOINL int three(int n)
{
	int s = 0;
	for (int i = 0; i < n; i++) {
		s += leaf(i);
		BARRIER();
		s += leaf(i);
		BARRIER();
		s += leaf(i);
		BARRIER();
	}
	return s;
}
NOINL int ca(int x) { int r = leaf(x); BARRIER(); return r + 1; }
NOINL int cb(int x) { int r = leaf(x); BARRIER(); return r + 2; }
NOINL long fib(int n)
{
	if (n < 2)
		return n;
	long x = fib(n - 1);
	BARRIER();
	long y = fib(n - 2);
	BARRIER();
	return x + y;
}
NOINL long trib(int n)
{
	if (n < 3)
		return 1;
	long x = trib(n - 1);
	BARRIER();
	long y = trib(n - 2);
	BARRIER();
	long z = trib(n - 3);
	BARRIER();
	return x + y + z;
}
NOINL int fa(int x) { BARRIER(); return x * 2; }
NOINL int fb(int x) { BARRIER(); return x * 3; }
int (*volatile tab[2])(int) = { fa, fb };
NOINL int disp(int n)
{
	int s = 0;
	for (int i = 0; i < n; i++) {
		s += tab[i & 1](i);
		BARRIER();
	}
	return s;
}
/* leaf2 from one site at every depth of the recursion */
NOINL int rec(int n)
{
	int s = leaf2(n);
	BARRIER();
	if (n)
		s += rec(n - 1);
	BARRIER();
	return s;
}
NOINL int cmp(const void *a, const void *b)
{
	ncmp++;
	return *(const int *)a - *(const int *)b;
}
NOINL void sorter(int n)
{
	int *v = malloc(sizeof(int) * n);
	for (int i = 0; i < n; i++)
		v[i] = (i * 7919) % n;
	qsort(v, n, sizeof(int), cmp);
	BARRIER();
	free(v);
}
int main(int argc, char **argv)
{
	int n1 = atoi(argv[1]), n2 = atoi(argv[2]), f = atoi(argv[3]), tr = atoi(argv[4]);
	int n3 = atoi(argv[5]), d = atoi(argv[6]), r = atoi(argv[7]), q = atoi(argv[8]);

	sink = three(n1);
	for (int i = 0; i < n2; i++) {
		sink = ca(i);
		BARRIER();
		sink = cb(i);
		BARRIER();
	}
	sink = (int)fib(f);
	sink = (int)trib(tr);
	sink = disp(n3);
	for (int i = 0; i < r; i++) {
		sink = rec(d);
		BARRIER();
	}
	sorter(q);
	printf("ncmp %ld\n", ncmp);
	return 0;
}
EOC

# the facts by construction; qsort's comparisons as the program counted them
trib_calls() {
	local n=$1 i
	local -a t=(1 1 1)
	for ((i = 3; i <= n; i++)); do t[i]=$((1 + t[i - 1] + t[i - 2] + t[i - 3])); done
	echo "${t[n]}"
}
fib_calls() {
	local a=0 b=1 i
	for ((i = 0; i < $1 + 1; i++)); do
		local c=$((a + b))
		a=$b b=$c
	done
	echo $((2 * a - 1)) # 2 fib(n + 1) - 1
}
expect() {
	local fc tc ncmp
	fc=$(fib_calls "$F")
	tc=$(trib_calls "$TR")
	ncmp=$(sed -n 's/^ncmp //p' "$1.stdout")
	cat <<EOT
func main 1
func three 1
func leaf $((3 * N1 + 2 * N2))
func ca $N2
func cb $N2
func fib $fc
func trib $tc
func disp 1
func fa $((N3 / 2))
func fb $((N3 / 2))
func rec $((R * (D + 1)))
func leaf2 $((R * (D + 1)))
func sorter 1
arc <spontaneous> main 1
arc main three 1
arc three leaf $((3 * N1))
arc main ca $N2
arc main cb $N2
arc ca leaf $N2
arc cb leaf $N2
arc main fib 1
arc fib fib $((fc - 1))
arc main trib 1
arc trib trib $((tc - 1))
arc main disp 1
arc disp fa $((N3 / 2))
arc disp fb $((N3 / 2))
arc main rec $R
arc rec rec $((R * D))
arc rec leaf2 $((R * (D + 1)))
arc main sorter 1
EOT
}

exact() {
	local p=$1
	rt_run "$p" $N1 $N2 $F $TR $N3 $D $R $Q || return 1
	[ "$(sed -n 's/^ncmp //p' "$p.stdout")" -gt "$Q" ] || { echo "qsort made $(cat "$p.stdout")"; return 1; }
	expect "$p" >"$p.expect"
	rt_facts "$p.out" >"$p.facts"
	rt_compare "$p.expect" "$p.facts" || return 1
	# qsort's callback: its calls all counted, whoever the caller (the frame below; glibc's merge
	# sort, or a sanitizer's qsort, calls it from deeper and shallower frames without hooks, so a
	# lazy frame of cmp may lie below a later call: <various> or cmp, as __spy_arc always said)
	[ "$(awk '$1 == "arc" && $3 == "cmp" { s += $4 } END { print s + 0 }' "$p.facts")" = "$(sed -n 's/^ncmp //p' "$p.stdout")" ] &&
		grep -qx "func cmp $(sed -n 's/^ncmp //p' "$p.stdout")" "$p.facts" || { grep cmp "$p.facts"; return 1; }
	[ "$(rt_get "$p.out" lost abandoned)" = 0 ] && [ "$(rt_get "$p.out" lost unmatched)" = 0 ] ||
		{ rt_dump "$p.out" | grep '^lost'; return 1; }
}

built() {
	local d
	rt_cc "$T/cache" "$CC" $ARCS "$T/cache.c" || return 1
	d=$(objdump -d "$T/cache") || return 1
	# the inline code reads the thread's state and calls __spy_arc_miss, never __spy_arc
	grep -q '__spy_arc_miss' <<<"$d" || { echo "no call of __spy_arc_miss"; return 1; }
	! grep -q '<__spy_arc@\|<__spy_arc>' <<<"$d" || { echo "a call of __spy_arc"; return 1; }
	# an executable reads its own copy of the thread's state (ABI 7), local-exec: defined in it as TLS,
	# read %fs-relative, and libspyrt's variable not referenced
	readelf -Ws "$T/cache" | awk '$4 == "TLS" && $7 != "UND" && $8 == "__spy_thread_exe"' | grep -q . ||
		{ echo "no copy of the thread's state defined"; return 1; }
	grep -q 'mov    %fs:0x[0-9a-f]*,%r' <<<"$d" || { echo "no local-exec read"; return 1; }
	! nm -u "$T/cache" | grep -q ' __spy_thread_in_libspyrt$' || { echo "libspyrt's variable referenced"; return 1; }
}
check "mode=arcs builds the inline path: the executable's copy of the thread's state read, __spy_arc_miss called" built
RT_ENV=SPYRT_MODE=arcs check "SPYRT_MODE=arcs: every count and caller exact, cache hits and misses" exact "$T/cache"
RT_ENV=SPYRT_MODE=time check "SPYRT_MODE=time on the same code: the same facts" exact "$T/cache"
check "linked with libspyrt.a: the same facts" eval 'rt_cc_static "$T/cache-static" "$CC" $ARCS "$T/cache.c" && RT_ENV=SPYRT_MODE=arcs exact "$T/cache-static"'

# how often the inline path calls out: an interposed __spy_arc_miss counts the calls
cat >"$T/steady.c" <<'EOC'
#include <stdlib.h>
#include "sample.h"
static volatile int sink;
NOINL int leaf(int x) { BARRIER(); return x + 1; }
NOINL int ca(int x) { int r = leaf(x); BARRIER(); return r + 1; }
NOINL int cb(int x) { int r = leaf(x); BARRIER(); return r + 2; }
NOINL long fib(int n)
{
	if (n < 2)
		return n;
	long x = fib(n - 1);
	BARRIER();
	long y = fib(n - 2);
	BARRIER();
	return x + y;
}
int main(int argc, char **argv)
{
	int n = atoi(argv[1]);
	for (int i = 0; i < n; i++) {
		sink = ca(i);
		BARRIER();
		sink = cb(i);
		BARRIER();
	}
	sink = (int)fib(25); /* 242785 calls */
	return 0;
}
EOC
steady() {
	local p=$T/steady m pre=$T/libmiss.so
	$CC -O2 -fPIC -shared "$SPY_SRC/tests/e2e/spymiss.c" -o "$T/libmiss.so" -ldl || return 1
	# under AddressSanitizer its runtime must come first among the preloaded libraries
	case $SPY_SAN_FLAGS in *address*) pre="$($CC -print-file-name=libasan.so):$pre" ;; esac
	rt_cc "$p" "$CC" $ARCS "$T/steady.c" || return 1
	RT_ENV="SPYRT_MODE=arcs LD_PRELOAD=$pre" rt_run "$p" 250000 || return 1
	rt_facts "$p.out" >"$p.facts"
	printf '%s\n' 'func leaf 500000' 'arc ca leaf 250000' 'arc cb leaf 250000' 'arc main ca 250000' \
		'arc main cb 250000' 'func fib 242785' 'arc fib fib 242784' >"$p.expect"
	rt_compare "$p.expect" "$p.facts" || return 1
	m=$(sed -n 's/^misses //p' "$p.stderr")
	[ -n "$m" ] || { echo "the interposer said nothing"; cat "$p.stderr"; return 1; }
	# 1 242 786 calls; the first call of each (site, callee) misses, and fib's first calls at each
	# depth: a few dozen in all
	[ "$m" -ge 5 ] && [ "$m" -le 200 ] || { echo "misses $m"; return 1; }
	# the reference: SPYRT_MODE=count leaves every thread idle (held), so every call misses
	RT_ENV="SPYRT_MODE=count LD_PRELOAD=$pre" rt_run "$p" 250000 || return 1
	m=$(sed -n 's/^misses //p' "$p.stderr")
	[ "$m" = 1242786 ] || { echo "SPYRT_MODE=count: misses $m, want every call (1242786)"; return 1; }
	# where the counter is part of the inline code, __spy_arc_miss counts the calls it takes
	rt_facts "$p.out" >"$p.count-facts"
	grep -v '^arc' "$p.expect" >"$p.count-expect"
	rt_compare "$p.count-expect" "$p.count-facts"
}
check "steady state: 1.2 M calls, a handful of misses; with the hooks held (SPYRT_MODE=count), every call misses and is counted" steady

tap_done
