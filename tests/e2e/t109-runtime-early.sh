#!/bin/bash
# Instrumented code that runs before any constructor: ASan calls the program's (instrumented)
# __asan_default_options while it starts, before its interceptors work. The runtime must not set
# itself up from there (it once recursed, then crashed in clock_gettime); the call is reported as
# unregistered, and everything after it is recorded exactly.
. "$(dirname "$0")/lib.sh"
need_plugin
setup_workdir

spinprof=$SPY_BUILD/spinprof
[ -x "$spinprof" ] || tap_skip_all "no spinprof at $spinprof"
# Under SAN= the runtime is itself compiled with ASan, and no ASan-compiled code can run before ASan
# has mapped its shadow memory: the case only exists for the runtime as shipped.
[ -z "$SPY_SAN_FLAGS" ] || tap_skip_all "the sanitized runtime cannot run before ASan starts"
tap_plan 4
cat >early.c <<'SRC'
#include <stdio.h>
const char *__asan_default_options(void) { return "detect_leaks=0"; }
__attribute__((noinline)) int f(int x) { return x + 1; }
int main(void) { int s = 0; for (int i = 0; i < 10; i++) s = f(s); printf("%d\n", s); return 0; }
SRC
check "builds with ASan and the plugin" \
	"$CC" -O2 -fsanitize=address -fplugin="$SPY_PLUGIN" early.c -o early -I"$SPY_SRC/runtime" \
	-L"$SPY_BUILD" -lspyrt -Wl,-rpath,"$SPY_BUILD"
check "runs and writes its profile" bash -c 'SPYRT_OUT=early.gmon ./early >out.txt && grep -qx 10 out.txt && test -s early.gmon'
"$spinprof" early.gmon >report.txt 2>&1
check "f called exactly 10 times, main once" \
	bash -c "awk '/^Flat profile/ { p = 1 } /Call graph/ { p = 0 } p && \$NF == \"f\" { f = \$4 } p && \$NF == \"main\" { m = \$4 } END { exit !(f == 10 && m == 1) }' report.txt"
check "the early call is reported, not lost: unregistered 1" grep -q 'unregistered 1$' report.txt
tap_done
