#!/bin/bash
# t018: mistakes are said. An instrumented object linked without libspyrt fails, and the linker's first
# complaint names libspyrt (the counter references __spy_counts_in_libspyrt, ABI 5, or in code for an
# executable calls __spy_counts_slow_in_libspyrt, ABI 7); the runtime still
# defines the old name, so objects of ABI 4 and older link. A program that links libspyrt but registered
# no instrumented code (built without the plugin, or by clang) says so in one line at exit and writes no
# empty profile.
. "$(dirname "$0")/lib-runtime.sh"
rt_setup
SPECS=$SPY_BUILD/spy.specs
tap_plan 5

nolib() {
	local err
	# shellcheck disable=SC2086
	$CC -fplugin="$SPY_PLUGIN" -O2 -c $SPY_SAN_FLAGS "$SAMPLES/calls.c" -o "$T/calls.o" || return 1
	# shellcheck disable=SC2086
	if $CC $SPY_SAN_FLAGS "$T/calls.o" -o "$T/nolib" 2>"$T/nolib.err"; then
		echo "linked without libspyrt"
		return 1
	fi
	err=$(grep -m1 'undefined reference' "$T/nolib.err")
	grep -q "undefined reference to \`__spy_[a-z_]*_in_libspyrt'" <<<"$err" ||
		{ echo "first complaint: $err"; return 1; }
}
check "an instrumented object linked without libspyrt: the first undefined reference names libspyrt" nolib

both_names() {
	local syms
	syms=$(readelf -W --dyn-syms "$RT_DIR/libspyrt.so" | awk '$7 != "UND" && ($8 == "__spy_counts" || $8 == "__spy_counts_in_libspyrt") { print $2, $4, $8 }')
	[ "$(wc -l <<<"$syms")" -eq 2 ] && [ "$(awk '{ print $1, $2 }' <<<"$syms" | sort -u | wc -l)" -eq 1 ] &&
		grep -q ' TLS ' <<<"$syms" || { echo "libspyrt.so defines:"; echo "$syms"; return 1; }
}
check "libspyrt defines __spy_counts (ABI 4 and older) and __spy_counts_in_libspyrt as one TLS variable" both_names

# not_instrumented PROG: run PROG; its stderr must be the one line, and no profile written
not_instrumented() {
	local prog=$1
	rm -f "$prog.out"
	SPYRT_OUT="$prog.out" "$prog" >"$prog.stdout" 2>"$prog.stderr" || { echo "$prog failed"; cat "$prog.stderr"; return 1; }
	[ ! -e "$prog.out" ] || { echo "$prog wrote a profile"; return 1; }
	[ "$(wc -l <"$prog.stderr")" -eq 1 ] && grep -q '^spy: no instrumented code registered' "$prog.stderr" ||
		{ echo "$prog's stderr:"; cat "$prog.stderr"; return 1; }
}

plain() {
	# shellcheck disable=SC2086
	$CC -O2 -c $SPY_SAN_FLAGS "$SAMPLES/calls.c" -o "$T/plain.o" &&
		$CC $SPY_SAN_FLAGS "$T/plain.o" -o "$T/plain" -L"$RT_DIR" -Wl,-rpath,"$RT_DIR" \
			-Wl,--no-as-needed -lspyrt || return 1
	not_instrumented "$T/plain"
}
check "compiled without the plugin, linked with libspyrt: one line at exit, no profile" plain

clang_built() {
	local clang
	clang=$(command -v clang-14 || command -v clang) || { echo "# no clang: skipped"; return 0; }
	[ -f "$SPECS" ] || { echo "no $SPECS"; return 1; }
	"$clang" -O2 -c "$SAMPLES/calls.c" -o "$T/clang.o" || return 1
	# shellcheck disable=SC2086
	$CC -specs="$SPECS" $SPY_SAN_FLAGS "$T/clang.o" -o "$T/clang" || return 1
	not_instrumented "$T/clang"
}
check "built by clang, linked by gcc -specs=spy.specs: one line at exit, no profile" clang_built

# and a program with instrumented code is unchanged: a profile, nothing on stderr
quiet() {
	rt_sample calls "$T/calls" && rt_run "$T/calls" || return 1
	[ ! -s "$T/calls.stderr" ] || { echo "stderr:"; cat "$T/calls.stderr"; return 1; }
}
check "an instrumented program writes its profile and says nothing" quiet
tap_done
