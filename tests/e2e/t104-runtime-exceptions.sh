#!/bin/bash
# t104: C++ exceptions: samples/exceptions.cc (exceptions through instrumented frames, ended by the
# catch hook after the handler's __cxa_begin_catch) gives exact counts and arcs, nothing abandoned or
# unmatched, and sane times; an exception through C frames compiled without -fexceptions ends at the
# catch all the same; one caught in code without the plugin is repaired from the stack pointer by a
# later hook, with counts still exact.
. "$(dirname "$0")/lib-runtime.sh"
rt_setup
tap_plan 6

E=$T/exceptions
check "exceptions builds" rt_sample exceptions "$E"
check "counts and arcs exact" rt_check_expect exceptions "$E"
clean() {
	local a u
	a=$(rt_get "$E.out" lost abandoned)
	u=$(rt_get "$E.out" lost unmatched)
	[ "$a" = 0 ] && [ "$u" = 0 ] || { echo "abandoned $a, unmatched $u"; return 1; }
}
check "the catch ends the unwound calls: nothing abandoned, nothing unmatched" clean

# inclusive >= self >= 0 for every function (none recursive here), and thrower1 > thrower2 > thrower3
sane() {
	rt_dump "$E.out" | awk '
		function v(k,   i) { for (i = 2; i <= NF; i++) if (index($i, k "=") == 1) return substr($i, length(k) + 2) + 0 }
		$1 == "time" { f = v("func"); split($3, kv, "="); f = kv[2]; incl[f] = v("incl"); if (v("incl") < v("self") || v("max") < v("min") || v("calls") == 0) { print "bad: " $0; bad++ } }
		END {
			if (!(incl["_Z8thrower1i"] > incl["_Z8thrower2i"] && incl["_Z8thrower2i"] > incl["_Z8thrower3i"] && incl["_Z8thrower3i"] > 0)) {
				print "thrower incl: " incl["_Z8thrower1i"], incl["_Z8thrower2i"], incl["_Z8thrower3i"]; bad++
			}
			exit bad != 0
		}'
}
check "times sane: incl >= self, max >= min, throwers nested" sane

cat >"$T/cframes.c" <<'EOC'
/* C, compiled without -fexceptions: an exception from the callback passes through, no exit hook */
#include "sample.h"
NOINL void c_inner(void (*cb)(int), int i) { cb(i); BARRIER(); }
NOINL void c_outer(void (*cb)(int), int i) { c_inner(cb, i); BARRIER(); }
EOC
cat >"$T/cxxmain.cc" <<'EOC'
#include "sample.h"
extern "C" void c_outer(void (*cb)(int), int i);
int catcher(int i);
struct Oops { int i; };
NOINL void thrower(int i) { BARRIER(); throw Oops{ i }; }
extern "C" void cb(int i) { thrower(i); }
NOINL int after(int x) { BARRIER(); return x + 1; }
NOINL int here(int i)
{
	try {
		c_outer(cb, i);
	} catch (const Oops &) {
		return 1;
	}
	return 0;
}
int main(int argc, char **argv)
{
	int caught = 0;
	(void)argv;
	for (int i = 0; i < 100; i++) {
		caught += argc > 1 ? catcher(i) : here(i); /* argv[1]: catch without the plugin */
		caught = after(caught) - 1;
	}
	return caught != 100;
}
EOC
cat >"$T/catcher.cc" <<'EOC'
/* compiled without the plugin: no catch hook */
#include "sample.h"
extern "C" void c_outer(void (*cb)(int), int i);
extern "C" void cb(int i);
struct Oops { int i; };
NOINL int catcher(int i)
{
	try {
		c_outer(cb, i);
	} catch (const Oops &) {
		return 1;
	}
	return 0;
}
EOC
cx_build() {
	local f=$T/cx
	[ -x "$f" ] && return 0
	$CC -fplugin="$SPY_PLUGIN" -O2 -g -fno-exceptions -I"$SAMPLES" -c "$T/cframes.c" -o "$T/cframes.o" $SPY_SAN_FLAGS || return 1
	$CXX -O2 -g -I"$SAMPLES" -c "$T/catcher.cc" -o "$T/catcher.o" $SPY_SAN_FLAGS || return 1
	rt_cc "$f" "$CXX" "$T/cxxmain.cc" "$T/cframes.o" "$T/catcher.o"
}
# the counts and arcs of either run; cb calls thrower as a tail call, counted from cb (ABI 5)
cx_expect() {
	cat <<EOT
func main 1
func c_outer 100
func c_inner 100
func cb 100
func _Z7throweri 100
func _Z5afteri 100
arc <spontaneous> main 1
arc c_outer c_inner 100
arc main _Z5afteri 100
arc cb _Z7throweri 100
arc c_inner cb 100
EOT
	case $1 in
	here) printf '%s\n' "func _Z4herei 100" "arc main _Z4herei 100" "arc _Z4herei c_outer 100" ;;
	*) echo "arc main c_outer 100" ;; # the caller from the shadow stack: catcher has no hooks
	esac
}
# cx_run CATCHER ABANDONED: run with the catch in here() (instrumented) or in catcher() (foreign);
# counts and arcs exact, ABANDONED frames repaired, nothing unmatched
cx_run() {
	local f=$T/cx-$1
	cx_build || return 1
	cp "$T/cx" "$f" || return 1
	if [ "$1" = here ]; then rt_run "$f" || return 1; else rt_run "$f" foreign || return 1; fi
	rt_facts "$f.out" >"$f.facts"
	cx_expect "$1" | sort >"$f.expect"
	rt_compare "$f.expect" "$f.facts" || return 1
	[ "$(rt_get "$f.out" lost abandoned)" = "$2" ] || { rt_dump "$f.out" | grep '^lost'; return 1; }
	[ "$(rt_get "$f.out" lost unmatched)" = 0 ] || { rt_dump "$f.out" | grep '^lost'; return 1; }
}
# thrower, cb (its tail caller), c_inner and c_outer end at here()'s catch: none is left to repair
check "an exception through C frames without hooks ends at the catch; counts exact" cx_run here 0
# no catch hook: the four frames of each throw (c_outer, c_inner, cb and thrower, which cb reached by a
# tail call) are found dead by after()'s or main's hooks
check "caught where no hook runs: repaired from the stack pointer, counts exact" cx_run foreign 400
tap_done
