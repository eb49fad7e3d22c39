#!/bin/bash
# t022: code with mode=arcs's inline path (ABI 6; the executable's through its own copy of the thread's
# state, ABI 7) and code that calls __spy_arc (what ABI 5 emitted,
# and what the plugin still emits for -mcmodel=large, where the inline asm's TLS access does not apply)
# share one shadow stack and one runtime: a program with the inline path dlopens, 4 times over, a
# module built -mcmodel=large (its calls go through __spy_arc) and a module built with the inline
# path; each calls back into the program. Counts and arcs are exact by construction (callers across
# the kinds of code included), nothing abandoned; the large-model module references __spy_arc and
# not the inline path's symbols, the others the reverse.
. "$(dirname "$0")/lib-runtime.sh"
rt_setup
tap_plan 4

ARCS=-fplugin-arg-spyinstr-mode=arcs
R=4 K=7

cat >"$T/old.c" <<'EOC'
#include "sample.h"
static volatile int sink;
NOINL static int old_leaf(int x) { sink += x; BARRIER(); return x + 1; }
NOINL int old_entry(int n, int (*cb)(int))
{
	int s = 0;
	for (int i = 0; i < 3; i++) {
		s += old_leaf(n);
		BARRIER();
	}
	s += cb(n);
	BARRIER();
	return s;
}
EOC
cat >"$T/new.c" <<'EOC'
#include "sample.h"
static volatile int sink;
NOINL static int new_inner(int x) { sink += x; BARRIER(); return x + 2; }
NOINL int new_entry(int n, int (*cb)(int))
{
	int s = 0;
	for (int i = 0; i < 2; i++) {
		s += new_inner(n);
		BARRIER();
	}
	s += cb(n);
	BARRIER();
	return s;
}
EOC
cat >"$T/main.c" <<'EOC'
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include "sample.h"
static volatile int sink;
NOINL int back_old(int x) { BARRIER(); return x; }
NOINL int back_new(int x) { BARRIER(); return -x; }
NOINL int run(const char *path, const char *sym, int (*cb)(int), int k)
{
	void *h = dlopen(path, RTLD_NOW);
	int s = 0;
	if (!h)
		exit(3);
	int (*entry)(int, int (*)(int)) = (int (*)(int, int (*)(int)))dlsym(h, sym);
	for (int i = 0; i < k; i++) {
		s += entry(i, cb);
		BARRIER();
	}
	dlclose(h);
	return s;
}
int main(int argc, char **argv)
{
	int r = atoi(argv[3]), k = atoi(argv[4]);
	for (int i = 0; i < r; i++) {
		sink = run(argv[1], "old_entry", back_old, k);
		BARRIER();
		sink = run(argv[2], "new_entry", back_new, k);
		BARRIER();
	}
	return 0;
}
EOC

build() {
	rt_cc "$T/libold.so" "$CC" $ARCS -mcmodel=large -fPIC -shared "$T/old.c" &&
		rt_cc "$T/libnew.so" "$CC" $ARCS -fPIC -shared "$T/new.c" &&
		rt_cc "$T/main" "$CC" $ARCS "$T/main.c" || return 1
	nm -D -u "$T/libold.so" | grep -q ' __spy_arc$' && ! nm -D -u "$T/libold.so" | grep -q '__spy_arc_miss\|__spy_thread_in' ||
		{ echo "libold.so:"; nm -D -u "$T/libold.so"; return 1; }
	for f in libnew.so main; do
		nm -D -u "$T/$f" | grep -q ' __spy_arc_miss$' && ! nm -D -u "$T/$f" | grep -q ' __spy_arc$' ||
			{ echo "$f:"; nm -D -u "$T/$f"; return 1; }
	done
	# the shared object reads libspyrt's thread variable, the executable its own copy (ABI 7)
	nm -D -u "$T/libnew.so" | grep -q ' __spy_thread_in_libspyrt$' || { echo "libnew.so:"; nm -D -u "$T/libnew.so"; return 1; }
	! nm -D -u "$T/main" | grep -q ' __spy_thread_in_libspyrt$' &&
		readelf -Ws "$T/main" | awk '$4 == "TLS" && $7 != "UND" && $8 == "__spy_thread_exe"' | grep -q . ||
		{ echo "main:"; readelf -Ws "$T/main" | grep spy_thread; return 1; }
}
check "a large-model module calls __spy_arc, the others have the inline path" build

exact() {
	rt_run "$T/main" "$T/libold.so" "$T/libnew.so" $R $K || return 1
	rt_facts "$T/main.out" >"$T/main.facts"
	local n=$((R * K))
	printf '%s\n' "func main 1" "arc <spontaneous> main 1" "func run $((2 * R))" "arc main run $((2 * R))" \
		"func old_entry $n" "arc run old_entry $n" "func old_leaf $((3 * n))" "arc old_entry old_leaf $((3 * n))" \
		"func back_old $n" "arc old_entry back_old $n" \
		"func new_entry $n" "arc run new_entry $n" "func new_inner $((2 * n))" "arc new_entry new_inner $((2 * n))" \
		"func back_new $n" "arc new_entry back_new $n" >"$T/main.expect"
	rt_compare "$T/main.expect" "$T/main.facts" || return 1
	[ "$(rt_get "$T/main.out" lost abandoned)" = 0 ] && [ "$(rt_get "$T/main.out" lost unmatched)" = 0 ] ||
		{ rt_dump "$T/main.out" | grep '^lost'; return 1; }
}
RT_ENV=SPYRT_MODE=arcs check "$R rounds of dlopen/dlclose of both modules: counts and arcs exact" exact
RT_ENV=SPYRT_MODE=time check "the same under SPYRT_MODE=time" exact

# the file's header says the runtime's ABI
abi() {
	local want
	want=$(sed -n 's/^#define SPY_ABI_VERSION \([0-9]*\)$/\1/p' "$SPY_SRC/common/spy-abi.h")
	[ "$(rt_get "$T/main.out" header abi)" = "$want" ] || { echo "abi $(rt_get "$T/main.out" header abi), want $want"; return 1; }
}
check "the profile's header carries the runtime's ABI (spy-abi.h)" abi

tap_done
