#!/bin/bash
# make PROFILE=1 builds spinprof with the project's own plugin and runtime into build-prof/ (SPIN's
# separate profiled tree). That spinprof profiles itself reading a profile, and the normal spinprof
# reads the result: its own functions are there, called as often as they must be, and the Multics
# self-check (add-one counts against incoming arcs) finds nothing wrong.
. "$(dirname "$0")/lib.sh"
need_plugin
setup_workdir

prof=$SPY_SRC/build-prof/spinprof
spinprof=$SPY_BUILD/spinprof
[ -x "$spinprof" ] || tap_skip_all "no spinprof at $spinprof"
tap_plan 6

# A make of its own: not the sanitizer or debug flavour this suite may be running under.
check "make PROFILE=1 spinprof builds the profiled tree" \
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u BUILD -u SAN -u DEBUG \
	make -s -C "$SPY_SRC" PROFILE=1 spinprof
check "the profiled spinprof is instrumented" bash -c "nm '$prof' | grep -q __spy_slot"

# A profile to read: samples/calls.c through plugin and runtime.
"$CC" -O2 -I"$SAMPLES" -fplugin="$SPY_PLUGIN" "$SAMPLES/calls.c" -o calls -I"$SPY_SRC/runtime" \
	-L"$SPY_BUILD" -lspyrt -Wl,-rpath,"$SPY_BUILD" $SPY_SAN_FLAGS && ./calls
check "the profiled spinprof reports calls.c and writes its own profile" \
	bash -c "SPYRT_OUT=self.gmon '$prof' -b gmon.out >report.txt && test -s self.gmon && grep -q ' a\$' report.txt"
"$spinprof" self.gmon >self.txt 2>self.err
check "spinprof reads the profiled spinprof's profile" test -s self.txt
check "its main ran once" \
	bash -c "awk '/^Flat profile/ { f = 1 } f && \$NF == \"main\" { print \$4; exit }' self.txt | grep -qx 1"
check "self-check: add-one counts equal incoming arcs" grep -q '^self-check: [0-9]* functions, add-one counts equal incoming arc counts' self.txt
diag <self.err
tap_done
