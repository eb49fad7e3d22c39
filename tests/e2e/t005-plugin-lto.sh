#!/bin/bash
# t005: -flto. The objects hold GIMPLE only, so the plugin must be given at compile time and at
# link time (where the bodies are finally optimised and emitted); the result must be the same
# shape as without LTO. Compiled and linked in separate steps, as a build system does.
. "$(dirname "$0")/lib.sh"
need_plugin
setup_workdir

# lto_sample NAME LEVEL: compile each source with -c -flto, link with -flto, run, compare.
lto_sample() {
	local name=$1 lv=$2 exp=$SAMPLES/$1.expect srcs cc=$CC cflags objs=() s out
	out=$T/$name-lto-$lv
	srcs=$(sample_sources "$name")
	case $srcs in *.cc*) cc=$CXX ;; esac
	cflags=$(expect_directive "$exp" cflags)
	for s in $srcs; do
		# shellcheck disable=SC2086
		$cc -fplugin="$SPY_PLUGIN" -fplugin-arg-spyinstr-mode=time -"$lv" -g -flto $cflags \
			$SPY_SAN_FLAGS -I"$SAMPLES" -c "$SAMPLES/$s" -o "$out-${s%.*}.o" >"$out.log" 2>&1 ||
			{ echo "compile $s failed"; cat "$out.log"; return 1; }
		objs+=("$out-${s%.*}.o")
	done
	# shellcheck disable=SC2086
	spycc "$out" "$cc" -fplugin-arg-spyinstr-mode=time -"$lv" -flto $cflags "${objs[@]}" ||
		{ echo "link failed"; cat "$out.log"; return 1; }
	run_sample "$name" "$out" "$out.trace" &&
		trace_compare "$exp" "$out.trace" "$lv" time
}

cases="calls:O2 recursion:O2 tailcall:O2 longjmp:O2 inline:O3 exceptions:O2 cxxinit:O2 openmp:O2 threads:O2"
tap_plan "$(wc -w <<<"$cases")"
for c in $cases; do
	if [ -n "$SPY_TSAN" ] && [ "${c%%:*}" = openmp ]; then
		ok "${c%%:*} -${c#*:} -flto$(tsan_skip "$TSAN_NO_OPENMP")"
		continue
	fi
	check "${c%%:*} -${c#*:} -flto" lto_sample "${c%%:*}" "${c#*:}"
done
tap_done
