#!/bin/bash
# t025: ABI 7, mode=arcs in an executable: its inline code reads its own copy of the thread's state
# (local-exec TLS, __spy_thread_exe), which the runtime writes. A thread started by a library's
# constructor before the executable's units registered, and threads started by main, each call the
# executable's functions K times: counts and arcs exact by construction, and an interposed
# __spy_arc_miss sees only a handful of misses per thread (the copy written at the thread's first
# miss, then the inline path hits). Linked with libspyrt.so and with libspyrt.a (there the runtime's
# own variable and the copy are two variables of one executable). mode=count's counter reads the
# executable's copy of the slab pointer: the same threads' counts exact.
. "$(dirname "$0")/lib-runtime.sh"
rt_setup
tap_plan 4

ARCS=-fplugin-arg-spyinstr-mode=arcs
K=100000 N=3

# not instrumented: its constructor starts a thread before the executable's constructors run
cat >"$T/early.c" <<'EOC'
#include <pthread.h>
#include <stdatomic.h>
void (*_Atomic early_work)(void);
static pthread_t tid;
static void *early(void *arg)
{
	void (*w)(void);
	(void)arg;
	while (!(w = atomic_load(&early_work)))
		sched_yield();
	w();
	return 0;
}
__attribute__((constructor)) static void start(void)
{
	pthread_create(&tid, 0, early, 0);
}
void early_join(void)
{
	pthread_join(tid, 0);
}
EOC
cat >"$T/main.c" <<'EOC'
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include "sample.h"
extern void (*_Atomic early_work)(void);
void early_join(void);
static __thread volatile int sink; /* per thread: no race between the threads */
static int k; /* atomic: the constructor's thread reads it, and libearly.so, built without the sanitizer, orders nothing TSan sees */
NOINL int leaf(int x) { BARRIER(); return x + 1; }
NOINL int mid(int x) { int r = leaf(x); BARRIER(); return r + leaf(r); }
NOINL void work(void)
{
	for (int i = 0; i < __atomic_load_n(&k, __ATOMIC_RELAXED); i++) {
		sink = mid(i);
		BARRIER();
	}
}
NOINL void *side(void *arg) { (void)arg; work(); return 0; }
int main(int argc, char **argv)
{
	int n = atoi(argv[2]);
	pthread_t t[8];
	__atomic_store_n(&k, atoi(argv[1]), __ATOMIC_RELAXED);
	atomic_store(&early_work, work);
	early_join();
	for (int i = 0; i < n; i++)
		pthread_create(&t[i], 0, side, 0);
	for (int i = 0; i < n; i++)
		pthread_join(t[i], 0);
	return 0;
}
EOC

expect() {
	local th=$((N + 1))
	# the early thread's work() has no instrumented caller: <spontaneous>, as the side threads'
	# side() has; main's calls are its own
	printf '%s\n' "func main 1" "func side $N" "func work $th" "arc side work $N" \
		"func mid $((th * K))" "arc work mid $((th * K))" "func leaf $((2 * th * K))" \
		"arc mid leaf $((2 * th * K))"
}

# run PROG: exact, and few misses
run() {
	local p=$1 pre=$T/libmiss.so m
	case $SPY_SAN_FLAGS in *address*) pre="$($CC -print-file-name=libasan.so):$pre" ;; esac
	[ -z "${NOPRELOAD:-}" ] || pre=
	RT_ENV="SPYRT_MODE=arcs${pre:+ LD_PRELOAD=$pre}" rt_run "$p" $K $N || return 1
	rt_facts "$p.out" | grep -v ' <spontaneous> ' >"$p.facts"
	expect >"$p.expect"
	rt_compare "$p.expect" "$p.facts" || return 1
	[ "$(rt_get "$p.out" lost abandoned)" = 0 ] || { rt_dump "$p.out" | grep '^lost'; return 1; }
	m=$(sed -n 's/^misses //p' "$p.stderr")
	[ -n "$m" ] || { echo "the interposer said nothing"; cat "$p.stderr"; return 1; }
	# 3 * 100 000 calls in each of 4 threads; each thread misses its first calls (the copy is the
	# held word until then) and each arc's first: a few dozen in all, never a share of the calls
	[ "$m" -ge 4 ] && [ "$m" -le 400 ] || { echo "misses $m"; return 1; }
}

built() {
	$CC -O2 -fPIC -shared "$SPY_SRC/tests/e2e/spymiss.c" -o "$T/libmiss.so" -ldl &&
		$CC -O2 -fPIC -shared "$T/early.c" -o "$T/libearly.so" -lpthread || return 1
	rt_cc "$T/main" "$CC" $ARCS "$T/main.c" -L"$T" -learly -Wl,-rpath,"$T" || return 1
	readelf -Ws "$T/main" | awk '$4 == "TLS" && $7 != "UND" && $8 == "__spy_thread_exe"' | grep -q . ||
		{ echo "no copy of the thread's state in main"; return 1; }
	run "$T/main"
}
check "libspyrt.so: a thread older than the executable's units and $N newer ones, exact, few misses" built

# in a static link the executable's calls of __spy_arc_miss are wrapped (ld --wrap) instead
cat >"$T/wrap.c" <<'EOC'
#include <stdint.h>
#include <stdio.h>
static _Atomic long misses;
void __real___spy_arc_miss(void *self, void *cfa, const uint64_t *slot);
void __wrap___spy_arc_miss(void *self, void *cfa, const uint64_t *slot)
{
	misses++;
	__real___spy_arc_miss(self, cfa, slot);
}
__attribute__((destructor)) static void say(void)
{
	fprintf(stderr, "misses %ld\n", (long)misses);
}
EOC
static() {
	# shellcheck disable=SC2086
	$CC -O2 -c $SPY_SAN_FLAGS "$T/wrap.c" -o "$T/wrap.o" || return 1
	rt_cc_static "$T/main-static" "$CC" $ARCS "$T/main.c" "$T/wrap.o" -Wl,--wrap=__spy_arc_miss -L"$T" \
		-learly -Wl,-rpath,"$T" || return 1
	NOPRELOAD=1 run "$T/main-static"
}
check "libspyrt.a: the same (the misses counted through ld --wrap)" static

# mode=count: the counter reads the executable's copy of the slab pointer (__spy_counts_exe), NULL in
# each thread until its first count's slow path, which writes it
count() {
	rt_cc "$T/main-count" "$CC" -fplugin-arg-spyinstr-mode=count "$T/main.c" -L"$T" -learly \
		-Wl,-rpath,"$T" || return 1
	readelf -Ws "$T/main-count" | awk '$4 == "TLS" && $7 != "UND" && $8 == "__spy_counts_exe"' | grep -q . &&
		! nm -u "$T/main-count" | grep -q '__spy_counts_in_libspyrt' ||
		{ echo "main-count:"; readelf -Ws "$T/main-count" | grep spy_counts; return 1; }
	RT_ENV=SPYRT_MODE=count rt_run "$T/main-count" $K $N || return 1
	rt_facts "$T/main-count.out" >"$T/main-count.facts"
	expect | grep -v '^arc' >"$T/main-count.expect"
	rt_compare "$T/main-count.expect" "$T/main-count.facts"
}
check "mode=count: the executable's copy of the slab pointer, every thread's counts exact" count

# -fPIC code for a shared object keeps reading libspyrt's variable (initial-exec): no copy defined
pic() {
	rt_cc "$T/libpic.so" "$CC" $ARCS -fPIC -shared "$SAMPLES/calls.c" || return 1
	! readelf -Ws "$T/libpic.so" | grep -q '__spy_thread_exe' &&
		nm -D -u "$T/libpic.so" | grep -q ' __spy_thread_in_libspyrt$' ||
		{ echo "libpic.so:"; readelf -Ws "$T/libpic.so" | grep spy_thread; return 1; }
}
check "a shared object's code reads libspyrt's variable, defines no copy" pic

tap_done
