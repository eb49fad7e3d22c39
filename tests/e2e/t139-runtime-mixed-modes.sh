#!/bin/bash
# t139: units built with different plugin modes in one process (issue 23, item 8). a.c (a hot leaf and
# its caller) built mode=count and b.c (main and the leaf's caller's caller) mode=time, linked together,
# said "mode: count" while the hooks of b.c recorded: the hot leaf showed 0.00 s, its time its caller's.
# Now the process records in the mode every unit has, from before any hook runs (mode count: calls
# exact, no arcs, the samples' time at the leaf's PC), says so in one stderr line and in the header's
# mode line; in either link order, and with a.c a shared library. mode=arcs beside mode=time is written
# as arcs, exact. A mode=count library dlopen'ed after recording began with hooks is refused: one
# line, the header's error, its calls counted as unregistered, the rest exact.
. "$(dirname "$0")/lib-runtime.sh"
rt_setup
tap_plan 9

cat >"$T/a.c" <<'EOC'
#include "sample.h"
static volatile unsigned long sink;
NOINL void hot_leaf(void)
{
	for (int i = 0; i < 50000; i++)
		sink += (unsigned long)i;
}
NOINL void a_caller(void)
{
	for (int i = 0; i < 2000; i++)
		hot_leaf();
}
EOC
cat >"$T/b.c" <<'EOC'
#include "sample.h"
void a_caller(void);
NOINL void b_work(void) { a_caller(); BARRIER(); }
int main(void)
{
	b_work();
	return 0;
}
EOC
# the dlopen case: main runs its own hooked code, then opens lib.so (mode=count) and calls it 5 times
cat >"$T/lib.c" <<'EOC'
#include "sample.h"
static volatile int sink;
NOINL void lib_leaf(void) { sink++; }
NOINL void lib_entry(void) { for (int i = 0; i < 3; i++) lib_leaf(); }
EOC
cat >"$T/dl.c" <<'EOC'
#include <dlfcn.h>
#include "sample.h"
static volatile int sink;
NOINL void own(int i) { sink += i; }
int main(int argc, char **argv)
{
	void *h;
	void (*f)(void);
	for (int i = 0; i < 10; i++)
		own(i);
	if (argc < 2 || !(h = dlopen(argv[1], RTLD_NOW)) || !(f = (void (*)(void))dlsym(h, "lib_entry")))
		return 3;
	for (int i = 0; i < 5; i++)
		f();
	return 0;
}
EOC
COUNT=-fplugin-arg-spyinstr-mode=count
ARCS=-fplugin-arg-spyinstr-mode=arcs
built() {
	# shellcheck disable=SC2086
	cc_obj() { $CC -fplugin="$SPY_PLUGIN" -O2 -g -I"$SAMPLES" $SPY_SAN_FLAGS "$@" >>"$T/obj.log" 2>&1 ||
		{ echo "compile failed: $*"; cat "$T/obj.log"; return 1; }; }
	cc_obj $COUNT -c "$T/a.c" -o "$T/a-count.o" && cc_obj $ARCS -c "$T/a.c" -o "$T/a-arcs.o" &&
		cc_obj -c "$T/b.c" -o "$T/b-time.o" &&
		cc_obj $COUNT -fPIC -shared "$T/a.c" -o "$T/liba.so" -L"$RT_DIR" -lspyrt &&
		cc_obj $COUNT -fPIC -shared "$T/lib.c" -o "$T/lib.so" -L"$RT_DIR" -lspyrt &&
		rt_cc "$T/ct" "$CC" "$T/a-count.o" "$T/b-time.o" && rt_cc "$T/tc" "$CC" "$T/b-time.o" "$T/a-count.o" &&
		rt_cc "$T/at" "$CC" "$T/a-arcs.o" "$T/b-time.o" &&
		rt_cc "$T/so" "$CC" "$T/b-time.o" -L"$T" -la -Wl,-rpath,"$T" && rt_cc "$T/dl" "$CC" "$T/dl.c"
}
check "a.c mode=count or arcs, b.c mode=time; a library mode=count; the dlopen program build" built

# counted PROG: mode count, said once on stderr and in the header's mode line; counts exact, no arcs;
# the hot leaf holds the samples' time (it is all the work: at least 90 % of the flat profile)
counted() {
	local p=$1 n
	RT_ENV=${2:-} rt_run "$p" || return 1
	[ "$(rt_get "$p.out" header mode)" = count ] || { echo "header mode $(rt_get "$p.out" header mode)"; return 1; }
	if [ -n "${2:-}" ]; then
		[ ! -s "$p.stderr" ] || { echo "stderr under $2:"; cat "$p.stderr"; return 1; }
	else
		n=$(grep -c . "$p.stderr")
		[ "$n" = 1 ] && grep -q '^spy: units built with mode=count and mode=time in one process: recorded in mode count' \
			"$p.stderr" || { echo "stderr ($n lines):"; cat "$p.stderr"; return 1; }
	fi
	rt_facts "$p.out" >"$p.facts"
	printf '%s\n' 'func a_caller 1' 'func b_work 1' 'func hot_leaf 2000' 'func main 1' | diff - "$p.facts" ||
		return 1
	"$SPY_BUILD/spinprof" -b "$p.out" >"$p.report" 2>&1 || { head -n 5 "$p.report"; return 1; }
	grep -qx 'mode: count (units built with mode=count and mode=time: recorded in the mode they all have)' \
		"$p.report" || { grep '^mode' "$p.report"; return 1; }
}
check "count then time: recorded in mode count, said once, counts exact" counted "$T/ct"
check "time then count (link order): the same" counted "$T/tc"
check "a.c a shared library of mode=count: the same" counted "$T/so"
# the hot leaf holds the samples' time in each report (it is all the work: at least 90 % of the
# instrumented functions' share of the flat profile; its time was its caller's). Rows of code without
# hooks ("NAME [MODULE]") are apart: under ASan a tick or two of 17 can fall in its mmap.
own_time() {
	[ -z "$SPY_TSAN" ] || return 0
	local p r
	for p in ct tc so; do
		r=$T/$p.share
		"$SPY_BUILD/spinprof" -b "$T/$p.out" >"$r" 2>&1 || { head -n 5 "$r"; return 1; }
		awk '/^ time   seconds/ { on = 1; next }
			on && NF >= 7 && $NF !~ /^\[/ { all += $1; if ($NF == "hot_leaf") p = $1 }
			on && NF == 0 { on = 0 }
			END { if (!(all > 0 && p / all >= 0.9)) { print FILENAME ": hot_leaf has " p "% of the flat profile, of the instrumented functions " all "%, want at least 90 % of theirs"; exit 1 } }' \
			"$r" || { sed -n '/^ *%/,/^$/p' "$r" | head -n 8; return 1; }
	done
}
check "the hot leaf's samples are its own in the three builds$(tsan_skip "$TSAN_DELAYS_SIGNALS")" own_time
check "SPYRT_MODE=count asked: the same, and no line" counted "$T/ct" SPYRT_MODE=count

arcs_time() {
	rt_run "$T/at" || return 1
	[ "$(rt_get "$T/at.out" header mode)" = arcs ] || { echo "header mode $(rt_get "$T/at.out" header mode)"; return 1; }
	[ "$(grep -c . "$T/at.stderr")" = 1 ] &&
		grep -q '^spy: units built with mode=arcs and mode=time in one process: written in mode arcs' "$T/at.stderr" ||
		{ cat "$T/at.stderr"; return 1; }
	rt_dump "$T/at.out" | grep -q '^time ' && { echo "function times in a file of mode arcs"; return 1; }
	rt_facts "$T/at.out" >"$T/at.facts"
	printf '%s\n' 'arc <spontaneous> main 1' 'arc a_caller hot_leaf 2000' 'arc b_work a_caller 1' 'arc main b_work 1' \
		'func a_caller 1' 'func b_work 1' 'func hot_leaf 2000' 'func main 1' | diff - "$T/at.facts" || return 1
	"$SPY_BUILD/spinprof" -b "$T/at.out" >"$T/at.report" 2>&1 &&
		grep -q '^self-check: 4 functions, add-one counts equal incoming arc counts$' "$T/at.report" &&
		grep -qx 'mode: arcs (units built with mode=arcs and mode=time: recorded in the mode they all have)' "$T/at.report" ||
		{ grep '^mode\|^self-check\|^mismatch' "$T/at.report"; return 1; }
}
check "a.c mode=arcs, b.c mode=time: written in mode arcs, arcs and counts exact, one line" arcs_time

refused() {
	local n
	rt_run "$T/dl" "$T/lib.so" || return 1
	n=$(grep -c . "$T/dl.stderr")
	[ "$n" = 1 ] && grep -q "^spy: $T/lib.so: built with mode=count, loaded after recording began in mode time: not registered" \
		"$T/dl.stderr" || { echo "stderr ($n lines):"; cat "$T/dl.stderr"; return 1; }
	[ "$(rt_get "$T/dl.out" header mode)" = time ] || { echo "header mode $(rt_get "$T/dl.out" header mode)"; return 1; }
	# lib_entry 5 and lib_leaf 15 calls: unregistered
	[ "$(rt_get "$T/dl.out" lost unregistered)" = 20 ] || { rt_dump "$T/dl.out" | grep '^lost'; return 1; }
	rt_facts "$T/dl.out" >"$T/dl.facts"
	printf '%s\n' 'arc <spontaneous> main 1' 'arc main own 10' 'func main 1' 'func own 10' | diff - "$T/dl.facts"
}
check "a mode=count library dlopen'ed after hooks recorded: refused in one line, its calls unregistered" refused
report_says() {
	"$SPY_BUILD/spinprof" -b "$T/dl.out" >"$T/dl.report" 2>&1 &&
		grep -q "^runtime error: $T/lib.so: built with mode=count, loaded after recording began in mode time: not registered" \
			"$T/dl.report" && grep -q 'unregistered 20$' "$T/dl.report" ||
		{ grep '^runtime error\|^dropped' "$T/dl.report"; return 1; }
}
check "the refused library's report says so in its header" report_says
tap_done
