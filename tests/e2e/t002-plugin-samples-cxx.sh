#!/bin/bash
# t002: the C++ samples at every optimisation level, mode time: exceptions unwinding through
# instrumented frames (ended by the catch hook in the handler: nothing to repair), members, templates,
# a COMDAT inline function used from two files (one body, one record), and a global constructor
# that runs before main (its unit registered first: nothing counted in slot 0).
. "$(dirname "$0")/lib.sh"
need_plugin
setup_workdir

# one_record TRACE NAME: exactly one func line of that name
one_record() {
	local n
	n=$(grep -c "^func $2 " "$1")
	[ "$n" = 1 ] || { echo "$n func lines for $2"; grep "^func $2 " "$1"; return 1; }
}

tap_plan $((4 * 5))
for lv in $OPT_LEVELS; do
	check "exceptions -$lv" check_sample exceptions "$lv" time
	check "exceptions -$lv: COMDAT shared_inline has one record" \
		one_record "$T/exceptions-$lv-time.trace" _Z13shared_inlinei
	check "cxxinit -$lv" check_sample cxxinit "$lv" time
	check "throwonly -$lv" check_sample throwonly "$lv" time
done
tap_done
