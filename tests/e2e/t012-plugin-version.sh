#!/bin/bash
# The plugin loaded into a GCC other than the one it was built for refuses with one clear line naming
# both versions, instead of failing on an undefined symbol of GCC's internals.
. "$(dirname "$0")/lib.sh"
need_plugin
setup_workdir

other=$(command -v gcc-11 || true)
if [ -z "$other" ]; then
	tap_skip_all "gcc-11 is not installed (mk/deps.sh installs it)"
fi
tap_plan 4
echo 'int main(void) { return 0; }' >m.c

"$other" -fplugin="$SPY_PLUGIN" -c m.c -o m.o 2>err.txt
rc=$?
check "gcc-11 refuses the plugin (exit $rc)" test "$rc" -ne 0
check "the error names both GCC versions" grep -q "spyinstr: built for GCC 12\.[0-9.]* (.*), loaded into GCC 11\.[0-9.]*" err.txt
check "no undefined-symbol message from the loader" bash -c "! grep -q 'undefined symbol' err.txt"
"$CC" -fplugin="$SPY_PLUGIN" -c m.c -o m.o 2>err2.txt
check "the GCC it was built for loads it" test -s m.o
diag <err.txt
tap_done
