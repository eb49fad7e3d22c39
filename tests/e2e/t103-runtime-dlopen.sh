#!/bin/bash
# t103: shared libraries and dlopen: samples/shlib (a program, a library, a dlopen'ed and dlclose'd
# module) gives exact counts and arcs across modules; the closed module keeps its names and is marked
# closed in the module map with its build-id, moved to a range of its own; a dlopen/dlclose loop
# reuses the module's slots. Two libraries dlopen'ed and dlclose'd in turn at one address (and the
# first one again) keep their calls, arcs and samples apart in modes count, arcs and time, with
# threads that called the first one and exited, or blocked through the swap; spinprof's self-check
# says when a file has two modules' functions at one address.
. "$(dirname "$0")/lib-runtime.sh"
rt_setup
tap_plan 19

S=$SAMPLES/shlib
D=$T/shlib
mkdir -p "$D"
build() {
	rt_cc "$D/libshape.so" "$CC" -fPIC -shared -I"$S" "$S/shape.c" &&
		rt_cc "$D/plugin.so" "$CC" -fPIC -shared -I"$S" "$S/plugin.c" &&
		rt_cc "$D/main" "$CC" -I"$S" "$S/main.c" -L"$D" -lshape -Wl,-rpath,"$D"
}
check "shlib builds: program, libshape.so, plugin.so" build
check "counts and arcs exact across the modules" rt_check_expect shlib "$D/main" "$D/plugin.so"

closed() {
	local d
	d=$(rt_dump "$D/main.out")
	grep -q "^module .*flags=instr,closed,moved, base=0x1[0-9a-f]\{15\} .*build_id=[0-9a-f]\{40\} path=$D/plugin.so$" <<<"$d" &&
		grep -q "^module .*flags=main,instr, .*path=$D/main$" <<<"$d" &&
		grep -q "^module .*flags=instr, .*path=$D/libshape.so$" <<<"$d" &&
		grep -q "^func plugin_inner count=21 .*at=$S/plugin.c:" <<<"$d" ||
		{ grep -E '^(module|func)' <<<"$d"; return 1; }
}
check "the dlclose'd module: marked closed and moved, build-id, names and files kept" closed

cat >"$T/loop.c" <<'EOC'
#include <dlfcn.h>
#include <stdio.h>
int main(int argc, char **argv)
{
	int s = 0;
	for (int r = 0; r < 5; r++) {
		void *h = dlopen(argv[1], RTLD_NOW);
		if (!h)
			return 2;
		int (*entry)(int) = (int (*)(int))dlsym(h, "plugin_entry");
		for (int i = 0; i < 7; i++)
			s += entry(i);
		dlclose(h);
	}
	return s != 5 * 84;
}
EOC
loop() {
	rt_cc "$T/loop" "$CC" "$T/loop.c" && rt_run "$T/loop" "$D/plugin.so" || return 1
	rt_facts "$T/loop.out" >"$T/loop.facts"
	grep -qx 'func plugin_entry 35' "$T/loop.facts" && grep -qx 'func plugin_inner 105' "$T/loop.facts" &&
		grep -qx 'arc plugin_entry plugin_inner 105' "$T/loop.facts" &&
		[ "$(rt_dump "$T/loop.out" | grep -c '^func plugin_entry ')" -eq 1 ] ||
		{ cat "$T/loop.facts"; return 1; }
}
check "5 x dlopen/dlclose: counts add up, one entry per function (slots reused)" loop

static_main() {
	cat >"$T/dl.c" <<'EOC'
#include <dlfcn.h>
int main(int argc, char **argv)
{
	void *h = dlopen(argv[1], RTLD_NOW);
	int (*entry)(int) = h ? (int (*)(int))dlsym(h, "plugin_entry") : 0;
	return entry ? entry(1) != 6 : 2; /* 3 x (1 + 1) */
}
EOC
	# an uninstrumented program without libspyrt: the module brings the runtime with it
	# shellcheck disable=SC2086
	$CC -O2 $SPY_SAN_FLAGS "$T/dl.c" -o "$T/dl" -ldl || return 1
	rm -f "$T/dl.out"
	SPYRT_OUT=$T/dl.out "$T/dl" "$D/plugin.so" || return 1
	rt_facts "$T/dl.out" | grep -qx 'func plugin_inner 3' || { rt_facts "$T/dl.out"; return 1; }
}
check "a dlopen'ed instrumented module in a plain program loads and writes the runtime" static_main

# ---- two modules at one address in turn ----

cat >"$T/swap-lib.c" <<'EOC'
/* compiled as libalpha.so (-DNAME=alpha) and libbravo.so (-DNAME=bravo): one layout, so that the
 * loader maps the second where the first was and every function lands at its twin's address */
#define CAT2(a, b) a##b
#define CAT(a, b) CAT2(a, b)
__attribute__((noinline)) int CAT(NAME, _inner)(int i, int (*cb)(int))
{
	return cb(i);
}
int CAT(NAME, _entry)(int n, int (*cb)(int))
{
	int s = 0;
	for (int i = 0; i < n; i++)
		s += CAT(NAME, _inner)(i, cb);
	return s;
}
__attribute__((noinline)) long CAT(NAME, _spin)(long n)
{
	long s = 0;
	for (long i = 0; i < n; i++)
		__asm__ volatile("" : "+r"(s));
	return s + n;
}
EOC
cat >"$T/swap.c" <<'EOC'
/* alpha: a thread calls it and exits, another calls it and blocks; main calls it twice and spins in it;
 * dlclose. bravo at the same address: main calls it once and spins a tenth as long; the blocked thread
 * wakes and calls it; dlclose. alpha again: main calls it once; dlclose. Prints each entry's address. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
typedef int (*entry_fn)(int, int (*)(int));
static entry_fn entry;
static pthread_barrier_t go;
static long spin;
__attribute__((noinline)) int host_cb(int i)
{
	return i + 1;
}
static entry_fn open_lib(const char *path, const char *name, const char *spin_name)
{
	void *h = dlopen(path, RTLD_NOW);
	Dl_info info;
	if (!h) {
		fprintf(stderr, "%s\n", dlerror());
		exit(2);
	}
	entry_fn e = (entry_fn)dlsym(h, name);
	long (*s)(long) = (long (*)(long))dlsym(h, spin_name);
	if (!e || !s || !dladdr((void *)e, &info))
		exit(2);
	printf("%s %p %p\n", name, (void *)e, info.dli_fbase);
	if (spin)
		s(spin);
	spin /= 10;
	return e;
}
static void *early(void *arg)
{
	(void)arg;
	entry(10, host_cb);
	return NULL;
}
static void *late(void *arg)
{
	(void)arg;
	entry(10, host_cb);
	pthread_barrier_wait(&go); /* blocked, with no hook, while the modules change */
	pthread_barrier_wait(&go);
	entry(5, host_cb);
	return NULL;
}
static void close_lib(entry_fn e)
{
	Dl_info info;
	void *h;
	if (!dladdr((void *)e, &info) || !(h = dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD)))
		exit(2);
	dlclose(h); /* the handle just taken */
	dlclose(h); /* open_lib's */
}
int main(int argc, char **argv)
{
	pthread_t t1, t2;
	spin = atol(argv[3]);
	pthread_barrier_init(&go, NULL, 2);
	entry = open_lib(argv[1], "alpha_entry", "alpha_spin");
	if (pthread_create(&t1, NULL, early, NULL) || pthread_join(t1, NULL) ||
	    pthread_create(&t2, NULL, late, NULL))
		return 2;
	pthread_barrier_wait(&go);
	entry(20, host_cb);
	entry(20, host_cb);
	close_lib(entry);
	entry = open_lib(argv[2], "bravo_entry", "bravo_spin");
	entry(20, host_cb);
	pthread_barrier_wait(&go);
	if (pthread_join(t2, NULL))
		return 2;
	close_lib(entry);
	entry = open_lib(argv[1], "alpha_entry", "alpha_spin");
	entry(20, host_cb);
	close_lib(entry);
	return 0;
}
EOC
swap_build() {
	local n
	for n in alpha bravo; do
		rt_cc "$T/lib$n.so" "$CC" -fPIC -shared -DNAME=$n "$T/swap-lib.c" || return 1
	done
	rt_cc "$T/swap" "$CC" "$T/swap.c"
}
# The facts of one run: alpha 2 + 1 + 1 calls from main and the threads, then 1 more after bravo;
# bravo 1 + 1; their inner functions 20 a call (10 and 5 in the threads).
cat >"$T/swap.expect" <<'EOE'
func alpha_entry 5
func alpha_inner 80
func bravo_entry 2
func bravo_inner 25
func host_cb 105
arc main alpha_entry 3
arc early alpha_entry 1
arc late alpha_entry 1
arc main bravo_entry 1
arc late bravo_entry 1
arc alpha_entry alpha_inner 80
arc bravo_entry bravo_inner 25
arc alpha_inner host_cb 80
arc bravo_inner host_cb 25
EOE
# swap_run MODE [SPIN]: run it; 1 with a line when the loader put bravo (or alpha again) elsewhere
swap_run() {
	RT_ENV="SPYRT_MODE=$1 ${2:+SPYRT_WATCH=cpu}" rt_run "$T/swap" "$T/libalpha.so" "$T/libbravo.so" "${2:-0}" ||
		return 2
	cp "$T/swap.out" "$T/swap-$1.out"
	[ "$(awk '{ print $2 }' "$T/swap.stdout" | sort -u | wc -l)" -eq 1 ] || {
		echo "the loader placed them apart:"
		cat "$T/swap.stdout"
		return 1
	}
}
swap_exact() {
	local m=$1 facts
	facts=$(rt_facts "$T/swap-$m.out")
	if [ "$m" = count ]; then
		rt_compare <(grep '^func' "$T/swap.expect") <(printf '%s\n' "$facts")
	else
		rt_compare "$T/swap.expect" <(printf '%s\n' "$facts")
	fi || { printf '%s\n' "$facts"; return 1; }
}
# spinprof's flat profile: calls per function, and a self-check that finds no two functions at one place
swap_report() {
	local m=$1 out calls
	out=$("$SPINPROF" -b -p "$T/swap-$m.out" 2>&1) || { printf '%s\n' "$out"; return 1; }
	calls=$(awk 'NF >= 4 && $NF ~ /^(alpha|bravo)_/ { print $NF, $4 }' <<<"$out" | sort | tr '\n' ' ')
	[ "$calls" = "alpha_entry 5 alpha_inner 80 bravo_entry 2 bravo_inner 25 " ] ||
		{ echo "calls: $calls"; printf '%s\n' "$out"; return 1; }
	out=$("$SPINPROF" -b "$T/swap-$m.out" 2>&1)
	grep -q '^self-check: .*\(add-one counts equal\|not possible in mode count\)' <<<"$out" &&
		! grep -q '^mismatch' <<<"$out" || { grep -E '^(self-check|mismatch)' <<<"$out"; return 1; }
}
# both modules in the map, closed, each moved to a range of its own; alpha once (loaded again at its
# place: the same entry, the same slots)
swap_modules() {
	local d
	d=$(rt_dump "$T/swap-$1.out")
	[ "$(grep -c "^module .*flags=instr,closed,moved, base=0x1[0-9a-f]\{15\} .*path=$T/lib\(alpha\|bravo\).so$" <<<"$d")" -eq 2 ] &&
		[ "$(grep -c '^func alpha_entry ' <<<"$d")" -eq 1 ] &&
		[ "$(grep "^module .*/lib\(alpha\|bravo\).so$" <<<"$d" | sed 's/.* base=\([^ ]*\) .*/\1/' | sort -u | wc -l)" -eq 2 ] ||
		{ grep -E '^(module|func)' <<<"$d"; return 1; }
}
: "${SPINPROF:=$SPY_BUILD/spinprof}"
if ! check "alpha and bravo build, one layout" swap_build; then
	for _ in $(seq 13); do not_ok "alpha and bravo (not built)"; done
	tap_done
fi
for m in count arcs time; do
	out=$(swap_run $m)
	case $? in
	0)
		ok "mode $m: alpha, bravo and alpha again loaded at one address"
		check "mode $m: each one's calls and arcs exact, the threads' too" swap_exact $m
		check "mode $m: spinprof's calls exact, its self-check finds no merged functions" swap_report $m
		check "mode $m: both modules closed, moved apart, alpha once" swap_modules $m
		;;
	1)
		ok "mode $m: one address # SKIP $(head -n 1 <<<"$out") $(tail -n +2 <<<"$out" | tr '\n' ' ')"
		ok "mode $m: exact # SKIP not at one address"
		ok "mode $m: spinprof # SKIP not at one address"
		ok "mode $m: modules # SKIP not at one address"
		;;
	*)
		not_ok "mode $m: the program ran"
		printf '%s\n' "$out" | diag
		not_ok "mode $m: exact (no run)"
		not_ok "mode $m: spinprof (no run)"
		not_ok "mode $m: modules (no run)"
		;;
	esac
done

# CPU samples: alpha spins ten times as long as bravo at the same addresses; each one's samples are its own
swap_samples() {
	local out a b
	swap_run arcs 200000000 >"$T/samples.why"
	case $? in
	1) echo "# SKIP $(tr '\n' ' ' <"$T/samples.why")"; return 0 ;;
	2) cat "$T/samples.why"; return 1 ;;
	esac
	out=$(rt_dump "$T/swap-arcs.out")
	a=$(awk '$1 == "stack" && /frames=alpha_spin@/ { sub(/count=/, "", $3); n += $3 } END { print n + 0 }' <<<"$out")
	b=$(awk '$1 == "stack" && /frames=bravo_spin@/ { sub(/count=/, "", $3); n += $3 } END { print n + 0 }' <<<"$out")
	# 2e8 and 2e7 empty iterations: tens of milliseconds of CPU time at least, at 1000 Hz
	[ "$a" -ge 10 ] && [ "$a" -gt "$b" ] || { echo "samples in alpha_spin $a, in bravo_spin $b"; grep '^stack' <<<"$out"; return 1; }
}
if [ -n "$SPY_TSAN" ]; then
	out=$(tsan_skip "$TSAN_DELAYS_SIGNALS")
	rc=0
else
	out=$(swap_samples)
	rc=$?
fi
case $rc:$out in
0:" # SKIP"*) ok "samples: alpha's and bravo's apart$out" ;;
0:"# SKIP"*) ok "samples: alpha's and bravo's apart $out" ;;
0:*) ok "samples: alpha's and bravo's apart" ;;
*) not_ok "samples: alpha's and bravo's apart"; printf '%s\n' "$out" | diag ;;
esac
tap_done
