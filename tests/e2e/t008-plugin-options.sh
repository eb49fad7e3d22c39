#!/bin/bash
# t008: the plugin's options. An unknown -fplugin-arg-spyinstr-KEY or a bad mode value stops the
# compile with a message naming it; exclude-function (shell patterns, clone suffixes ignored),
# include-function and exclude-file change exactly which functions are instrumented; verbose
# says something about each instrumented function.
. "$(dirname "$0")/lib.sh"
need_plugin
setup_workdir
export LC_ALL=C

# must_fail WORD ARG...: compiling calls.c with the plugin works, and with ARGs fails with a
# message naming WORD (elsewhere than in the echoed option itself)
must_fail() {
	local word=$1 out
	shift
	out=$($CC -fplugin="$SPY_PLUGIN" -I"$SAMPLES" -c "$SAMPLES/calls.c" -o "$T/x.o" 2>&1) ||
		{ echo "the plugin does not load:"; echo "$out"; return 1; }
	if out=$($CC -fplugin="$SPY_PLUGIN" "$@" -I"$SAMPLES" -c "$SAMPLES/calls.c" -o "$T/x.o" 2>&1); then
		echo "compiled with $*"
		return 1
	fi
	sed -e 's/-fplugin-arg-spyinstr-[^ ]*//g' <<<"$out" | grep -q -- "$word" ||
		{ echo "message does not name '$word':"; echo "$out"; return 1; }
}

# funcs_are TRACE NAME...: the trace's functions are exactly NAMEs
funcs_are() {
	local tr=$1 got want
	shift
	got=$(awk '$1 == "func" { print $2 }' "$tr" | sort | tr '\n' ' ')
	want=$(printf '%s\n' "$@" | sort | tr '\n' ' ')
	[ "$got" = "$want" ] || { echo "functions: $got"; echo "want:      $want"; return 1; }
}

# count_is TRACE NAME N: NAME counted and entered N times
count_is() {
	grep -q "^func $2 count=$3 enter=$3 exit=$3 " "$1" || { echo "want $2 count=$3:"; grep "^func $2 " "$1"; return 1; }
}

# opt_run NAME SAMPLE LEVEL ARG...: build and run a sample with plugin ARGs into $T/NAME
opt_run() {
	local name=$1 s=$2 lv=$3
	shift 3
	build_sample "$s" "$lv" "$T/$name" "$@" && run_sample "$s" "$T/$name" "$T/$name.trace"
}

verbose_ok() {
	local out f
	out=$($CC -O2 -fplugin="$SPY_PLUGIN" -fplugin-arg-spyinstr-verbose -I"$SAMPLES" -c "$SAMPLES/calls.c" \
		-o "$T/v.o" 2>&1) || { echo "$out"; return 1; }
	for f in a b c main; do
		grep -q "spyinstr.*'$f'" <<<"$out" || { echo "nothing about '$f':"; echo "$out"; return 1; }
	done
	out=$($CC -O2 -fplugin="$SPY_PLUGIN" -I"$SAMPLES" -c "$SAMPLES/calls.c" -o "$T/v.o" 2>&1)
	[ -z "$out" ] || { echo "not verbose, yet:"; echo "$out"; return 1; }
}

exclude_file_ok() {
	local S=$SAMPLES/shlib
	$CC -O2 -fPIC -shared -I"$SAMPLES" "$S/plugin.c" -o "$T/plain-plugin.so" || return 1
	spycc "$T/exfile" "$CC" -O2 -fplugin-arg-spyinstr-exclude-file=shape.c -I"$SAMPLES" -I"$S" \
		"$S/main.c" "$S/shape.c" || { cat "$T/exfile.log"; return 1; }
	run_traced "$T/exfile" "$T/exfile.trace" "$T/plain-plugin.so" && funcs_are "$T/exfile.trace" main
}

tap_plan 9
check "unknown option: compile fails naming it" must_fail bogus-key -fplugin-arg-spyinstr-bogus-key=1
check "bad mode value: compile fails naming it" must_fail sometimes -fplugin-arg-spyinstr-mode=sometimes
check "verbose: a note for each instrumented function, silence without it" verbose_ok
check "exclude-function=b" eval 'opt_run exb calls O2 -fplugin-arg-spyinstr-exclude-function=b &&
	funcs_are "$T/exb.trace" main a c && count_is "$T/exb.trace" a 10 && count_is "$T/exb.trace" c 60 &&
	grep -qx "arc a c 60" "$T/exb.trace"'
check "exclude-function='is_*' (a shell pattern)" eval \
	'opt_run exglob recursion O1 "-fplugin-arg-spyinstr-exclude-function=is_*" &&
	funcs_are "$T/exglob.trace" main fib && count_is "$T/exglob.trace" fib 21891'
check "exclude-function=scale_local also skips scale_local.constprop.0" eval \
	'opt_run exclone inline O2 -fplugin-arg-spyinstr-exclude-function=scale_local &&
	funcs_are "$T/exclone.trace" main scale'
check "include-function=b,c" eval 'opt_run incbc calls O2 -fplugin-arg-spyinstr-include-function=b,c &&
	funcs_are "$T/incbc.trace" b c && count_is "$T/incbc.trace" b 30 && count_is "$T/incbc.trace" c 60'
check "exclude-file=shape.c" exclude_file_ok
check "exclude-function of a C++ function by assembler name" eval \
	'opt_run excxx exceptions O2 -fplugin-arg-spyinstr-exclude-function=_Z8thrower2i &&
	! grep -q "^func _Z8thrower2i " "$T/excxx.trace" && count_is "$T/excxx.trace" _Z8thrower1i 1000 &&
	count_is "$T/excxx.trace" _Z8thrower3i 1000 && grep -qx "arc _Z8thrower1i _Z8thrower3i 1000" "$T/excxx.trace"'
tap_done
