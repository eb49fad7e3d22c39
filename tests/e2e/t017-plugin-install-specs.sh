#!/bin/bash
# t017: `make install` writes $PREFIX/lib/spy.specs naming the installed plugin and runtime: installed into a
# temporary PREFIX, `gcc -specs=$PREFIX/lib/spy.specs` builds samples/calls with exact counts and the
# program finds libspyrt there (rpath). For a system PREFIX (into a DESTDIR) the specs also go into GCC's own
# directory, where a bare -specs=spy.specs is looked up (shown with -B, which adds a directory to that
# search), and name PREFIX's files without an rpath. uninstall removes both.
. "$(dirname "$0")/lib-runtime.sh"
rt_setup
tap_plan 4

# install ARG...: `make install` from the build tree as it is (-o all: nothing is rebuilt)
install() {
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -C "$SPY_SRC" --no-print-directory -o all BUILD="$SPY_BUILD" SAN="$SPY_SAN" CC="$CC" CXX="$CXX" "$@" \
		>"$T/install.log" 2>&1 || { echo "make $*:"; tail -n 20 "$T/install.log"; return 1; }
}

prefix() {
	local p=$T/prefix
	install install PREFIX="$p" || return 1
	[ -f "$p/lib/spy.specs" ] || { echo "no $p/lib/spy.specs"; return 1; }
	grep -q -- "-fplugin=$p/lib/spyinstr.so" "$p/lib/spy.specs" && grep -q -- "-rpath $p/lib" "$p/lib/spy.specs" ||
		{ echo "spy.specs:"; cat "$p/lib/spy.specs"; return 1; }
	grep -q "$SPY_BUILD" "$p/lib/spy.specs" && { echo "spy.specs names the build tree"; return 1; }
	# shellcheck disable=SC2086
	$CC -specs="$p/lib/spy.specs" -O2 -Wl,--as-needed $SPY_SAN_FLAGS "$SAMPLES/calls.c" -o "$T/calls" \
		>"$T/calls.log" 2>&1 || { cat "$T/calls.log"; return 1; }
	ldd "$T/calls" | grep -q "libspyrt.so => $p/lib/libspyrt.so" || { ldd "$T/calls"; return 1; }
	rt_check_expect calls "$T/calls"
}
check "PREFIX=tmp: gcc -specs=\$PREFIX/lib/spy.specs builds an exact, instrumented program" prefix

system() {
	local d=$T/dest gccdir
	gccdir=$($CC -print-file-name=)
	install install DESTDIR="$d" PREFIX=/usr/local || return 1
	[ -f "$d$gccdir/spy.specs" ] && cmp -s "$d$gccdir/spy.specs" "$d/usr/local/lib/spy.specs" ||
		{ echo "no $d${gccdir}spy.specs equal to $d/usr/local/lib/spy.specs"; return 1; }
	grep -q -- '-rpath' "$d/usr/local/lib/spy.specs" && { echo "an rpath for /usr/local"; return 1; }
	$CC -B"$d$gccdir" -specs=spy.specs -### -c "$SAMPLES/calls.c" 2>&1 |
		grep -q 'cc1 .*-fplugin=/usr/local/lib/spyinstr\.so' ||
		{ echo "-specs=spy.specs not found in GCC's directory:"; $CC -B"$d$gccdir" -specs=spy.specs -### -c "$SAMPLES/calls.c"; return 1; }
}
check "PREFIX=/usr/local (DESTDIR): spy.specs also in GCC's directory, found by a bare -specs=spy.specs" system

uninstalled() {
	local d=$T/dest gccdir
	gccdir=$($CC -print-file-name=)
	install uninstall DESTDIR="$d" PREFIX=/usr/local || return 1
	[ ! -e "$d$gccdir/spy.specs" ] && [ ! -e "$d/usr/local/lib/spy.specs" ] || { echo "left behind"; return 1; }
	install uninstall PREFIX="$T/prefix" || return 1
	[ ! -e "$T/prefix/lib/spy.specs" ] || { echo "left $T/prefix/lib/spy.specs"; return 1; }
}
check "uninstall removes both" uninstalled

# the bare name, without -B, finds nothing unless a system install put it there: the error is GCC's own
bare() {
	local gccdir
	gccdir=$($CC -print-file-name=)
	if [ -f "${gccdir}spy.specs" ]; then
		echo "# ${gccdir}spy.specs installed on this machine: not checked"
		return 0
	fi
	(cd "$T" && $CC -specs=spy.specs -c "$SAMPLES/calls.c" -o x.o 2>&1) | grep -q 'spy.specs' ||
		{ echo "no error naming spy.specs"; return 1; }
}
check "without an install, -specs=spy.specs fails naming the file" bare
tap_done
