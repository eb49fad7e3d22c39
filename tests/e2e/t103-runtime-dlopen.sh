#!/bin/bash
# t103: shared libraries and dlopen: samples/shlib (a program, a library, a dlopen'ed and dlclose'd
# module) gives exact counts and arcs across modules; the closed module keeps its names and is marked
# closed in the module map with its build-id; a dlopen/dlclose loop reuses the module's slots.
. "$(dirname "$0")/t100-runtime-basics.sh"
rt_setup
tap_plan 5

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
	grep -q "^module .*flags=instr,closed, .*build_id=[0-9a-f]\{40\} path=$D/plugin.so$" <<<"$d" &&
		grep -q "^module .*flags=main,instr, .*path=$D/main$" <<<"$d" &&
		grep -q "^module .*flags=instr, .*path=$D/libshape.so$" <<<"$d" &&
		grep -q "^func plugin_inner count=21 .*at=$S/plugin.c:" <<<"$d" ||
		{ grep -E '^(module|func)' <<<"$d"; return 1; }
}
check "the dlclose'd module: marked closed, build-id, names and files kept" closed

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
tap_done
