#!/bin/bash
# t147: a library dlopen'ed by a relative path is recorded by the path the loader resolved (issue 26,
# item 6): the program, run in the libraries' directory, dlopens "./plugin.so" (instrumented, entered
# in the module map when it registers, then dlclose'd) and "./plain.so" (built without the plugin,
# entered when the file is written, still open), then changes to / before it exits. Both modules'
# paths in the file are absolute, the libraries' own, and spinprof, run from another directory, finds
# plugin.so's binary, where the relative path named nothing ("binary missing; using the names recorded
# in the profile").
. "$(dirname "$0")/lib-runtime.sh"
rt_setup
tap_plan 3

S=$SAMPLES/shlib
D=$T/rel
mkdir -p "$D"
cat >"$D/plain.c" <<'EOC'
int plain_value(int x) { return x * 3; }
EOC
cat >"$D/rel.c" <<'EOC'
#include <dlfcn.h>
#include <stdio.h>
#include <unistd.h>
int main(void)
{
	void *p = dlopen("./plugin.so", RTLD_NOW), *q = dlopen("./plain.so", RTLD_NOW);
	int (*entry)(int) = p ? (int (*)(int))dlsym(p, "plugin_entry") : NULL;
	int (*value)(int) = q ? (int (*)(int))dlsym(q, "plain_value") : NULL;
	int s = 0;

	if (!entry || !value) {
		fprintf(stderr, "rel: %s\n", dlerror());
		return 2;
	}
	for (int i = 0; i < 7; i++)
		s += entry(i) + value(i);
	dlclose(p);
	return chdir("/") != 0 || s == 0;
}
EOC
build() {
	rt_cc "$D/plugin.so" "$CC" -fPIC -shared -I"$S" "$S/plugin.c" &&
		$CC -O2 -fPIC -shared -o "$D/plain.so" "$D/plain.c" &&
		rt_cc "$D/rel" "$CC" "$D/rel.c"
}
check "the program and its two libraries build" build

paths() {
	local d
	(cd "$D" && env ${RT_ENV:-} SPYRT_OUT="$T/rel.out" ./rel) >"$T/rel.stdout" 2>"$T/rel.stderr" ||
		{ cat "$T/rel.stderr"; return 1; }
	d=$(rt_dump "$T/rel.out")
	grep -E '^module .*(plugin|plain)\.so' <<<"$d"
	grep -q "^module .*flags=instr,closed.* path=$D/plugin.so$" <<<"$d" &&
		grep -q "^module .* path=$D/plain.so$" <<<"$d" && ! grep -q '^module .* path=\./' <<<"$d"
}
check "both modules' paths are the absolute ones the loader resolved" paths

found() {
	local out
	out=$(cd / && "$SPY_BUILD/spinprof" "$T/rel.out" 2>&1 >/dev/null) || { echo "$out" | head -5; return 1; }
	# with the relative path: "spinprof: warning: ./plugin.so: binary missing; using the names
	# recorded in the profile"
	! grep . <<<"$out"
}
check "spinprof run from / finds every module's binary (no warning)" found
tap_done
