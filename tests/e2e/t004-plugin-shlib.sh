#!/bin/bash
# t004: an instrumented -fPIC shared library (libshape.so) called from an instrumented program,
# and an instrumented module loaded with dlopen, called through dlsym and dlclose'd: every module
# registers once and unregisters at dlclose or exit, the module's names survive its dlclose,
# and call sites inside the DSOs resolve (addr2line) to the callers the trace names.
. "$(dirname "$0")/lib.sh"
need_plugin
setup_workdir

S=$SAMPLES/shlib
levels="O0 O2"

build_shlib() {
	local lv=$1 d=$T/shlib-$1
	mkdir -p "$d"
	if ! spycc "$d/libshape.so" "$CC" -"$lv" -fPIC -shared -I"$SAMPLES" "$S/shape.c" ||
		! spycc "$d/plugin.so" "$CC" -"$lv" -fPIC -shared -I"$SAMPLES" "$S/plugin.c" ||
		! spycc "$d/main" "$CC" -"$lv" -I"$SAMPLES" -I"$S" "$S/main.c" -L"$d" -lshape -Wl,-rpath,"$d"; then
		cat "$d"/*.log
		return 1
	fi
}

modules_ok() {
	local d=$T/shlib-$1 tr=$T/shlib-$1/trace rc=0 want
	for want in "module $d/main nfuncs=1 regs=1 unregs=1 mode=2 abi=$SPY_ABI" \
		"module $d/libshape.so nfuncs=2 regs=1 unregs=1 mode=2 abi=$SPY_ABI" \
		"module $d/plugin.so nfuncs=2 regs=1 unregs=1 mode=2 abi=$SPY_ABI"; do
		grep -qxF "$want" "$tr" || { echo "missing: $want"; rc=1; }
	done
	[ "$(grep -c '^module ' "$tr")" = 3 ] || { echo "want 3 modules"; rc=1; }
	[ $rc -eq 0 ] || grep '^module ' "$tr"
	return $rc
}

dlclosed_names_ok() {
	local tr=$T/shlib-$1/trace
	if ! grep -q "^func plugin_entry count=7 enter=7 exit=7 .*file=$SAMPLES/shlib/plugin.c " "$tr" ||
		! grep -q "^func plugin_inner count=21 enter=21 exit=21 .*file=$SAMPLES/shlib/plugin.c " "$tr"; then
		echo "plugin.so's functions lost after dlclose:"
		grep '^func' "$tr"
		return 1
	fi
}

dso_callsites_ok() {
	local tr=$T/shlib-$1/trace n=0 caller off mod got
	while read -r _ caller off mod _; do
		case $mod in *.so) ;; *) continue ;; esac
		got=$(addr2line -f -e "$mod" "$off" | head -n 1)
		[ "$got" = "$caller" ] || { echo "$mod $off: trace says $caller, addr2line says $got"; return 1; }
		n=$((n + 1))
	done < <(grep '^callsite-sample ' "$tr")
	# shape_area in libshape.so and plugin_entry in plugin.so (dlclose'd, still on disk)
	[ $n -ge 2 ] || { echo "only $n call sites inside the DSOs"; grep '^callsite' "$tr"; return 1; }
}

tap_plan $((5 * 2))
for lv in $levels; do
	if ! check "shlib -$lv builds (-fPIC -shared library, dlopen module)" build_shlib "$lv"; then
		for _ in 1 2 3 4; do not_ok "shlib -$lv (not built)"; done
		continue
	fi
	d=$T/shlib-$lv
	check "shlib -$lv: counts and arcs across modules" eval \
		'run_traced "$d/main" "$d/trace" "$d/plugin.so" && trace_compare "$SAMPLES/shlib.expect" "$d/trace" "$lv" time'
	check "shlib -$lv: each module registered once, unregistered once" modules_ok "$lv"
	check "shlib -$lv: the dlclose'd module's names survive" dlclosed_names_ok "$lv"
	check "shlib -$lv: call sites in the DSOs agree with addr2line" dso_callsites_ok "$lv"
done
tap_done
