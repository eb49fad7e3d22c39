#!/bin/bash
# t016: `gcc -specs=spy.specs`, one flag for the plugin and the runtime (the build tree's build/spy.specs):
# compiled and linked apart, under --as-needed, the counts and arcs of samples/calls are exact; libspyrt is
# linked into executables and shared libraries and never into -r links; plugin options still pass; -flto
# is instrumented whether or not the link repeats -flto; g++ takes it too; the old two flags still work.
. "$(dirname "$0")/lib-runtime.sh"
rt_setup
SPECS=$SPY_BUILD/spy.specs
if [ ! -f "$SPECS" ]; then
	tap_plan 1
	not_ok "make wrote $SPECS"
	tap_done
fi
tap_plan 10

# sp OUT CC ARG...: run CC -specs=spy.specs ARG... (output in OUT.log)
sp() {
	local out=$1 cc=$2
	shift 2
	# shellcheck disable=SC2086
	$cc -specs="$SPECS" "$@" $SPY_SAN_FLAGS >"$out.log" 2>&1 ||
		{ echo "failed: $cc -specs=spy.specs $*"; head -n 30 "$out.log"; return 1; }
}

needs_spyrt() {
	readelf -d "$1" | grep -q 'NEEDED.*\[libspyrt\.so\]' ||
		{ echo "$1 does not need libspyrt.so:"; readelf -d "$1" | grep NEEDED; return 1; }
}

# separate steps, as a build system runs them; --as-needed given again, as Debian packages do
apart() {
	sp "$T/calls.o" "$CC" -O2 -g -c "$SAMPLES/calls.c" -o "$T/calls.o" || return 1
	nm -u "$T/calls.o" | grep -q "__spy_counts_[a-z_]*in_libspyrt" || { echo "calls.o is not instrumented"; return 1; }
	sp "$T/calls" "$CC" -Wl,--as-needed "$T/calls.o" -o "$T/calls" || return 1
	needs_spyrt "$T/calls" && rt_check_expect calls "$T/calls"
}
check "calls: -c then link, both with -specs, under --as-needed: counts and arcs exact" apart

# what the driver would run: libspyrt only where it links an executable or a shared library
driver() {
	local o
	o=$($CC -specs="$SPECS" -### -c "$SAMPLES/calls.c" -o "$T/x.o" 2>&1)
	grep -q 'cc1.*-fplugin=[^ ]*spyinstr\.so' <<<"$o" || { echo "-c: no plugin for cc1:"; echo "$o"; return 1; }
	grep -q 'collect2\|lspyrt' <<<"$o" && { echo "-c links:"; echo "$o"; return 1; }
	o=$($CC -specs="$SPECS" -### "$T/calls.o" -o "$T/x" 2>&1)
	grep -q 'collect2.*--push-state --no-as-needed -lspyrt --pop-state' <<<"$o" ||
		{ echo "link: no -lspyrt:"; echo "$o"; return 1; }
	o=$($CC -specs="$SPECS" -### -shared "$T/calls.o" -o "$T/x.so" 2>&1)
	grep -q 'collect2.*-lspyrt' <<<"$o" || { echo "-shared: no -lspyrt:"; echo "$o"; return 1; }
	o=$($CC -specs="$SPECS" -### -shared -nostdlib "$T/calls.o" -o "$T/x.so" 2>&1)
	grep -q 'collect2.*-lspyrt' <<<"$o" || { echo "-shared -nostdlib (libtool's C++): no -lspyrt:"; echo "$o"; return 1; }
	o=$($CC -specs="$SPECS" -### -fsanitize=address "$T/calls.o" -o "$T/x" 2>&1)
	grep -q 'collect2.*-lasan.*-lspyrt' <<<"$o" || { echo "-fsanitize=address: libasan not first:"; echo "$o"; return 1; }
	o=$($CC -specs="$SPECS" -### -r "$T/calls.o" -o "$T/x-r.o" 2>&1)
	# (only the LTO plugin's pass-through list names it, as it names -lc)
	grep -q 'collect2' <<<"$o" && ! grep -q ' -lspyrt' <<<"$o" || { echo "-r:"; echo "$o"; return 1; }
	for f in -S -E; do
		o=$($CC -specs="$SPECS" -### $f "$SAMPLES/calls.c" 2>&1)
		grep -q 'collect2\|lspyrt' <<<"$o" && { echo "$f links:"; echo "$o"; return 1; }
	done
	return 0
}
check "-c, -S, -E and -r never link libspyrt; executables and -shared do (-nostdlib too), after libasan" driver

# plugin options, also before the -fplugin the specs add
options() {
	sp "$T/opt" "$CC" -O2 -fplugin-arg-spyinstr-exclude-function=b -fplugin-arg-spyinstr-mode=count \
		"$SAMPLES/calls.c" -o "$T/opt" || return 1
	rt_run "$T/opt" || return 1
	rt_facts "$T/opt.out" >"$T/opt.facts"
	grep -q '^func c 60$' "$T/opt.facts" && ! grep -q '^func b ' "$T/opt.facts" &&
		! grep -q '^arc' "$T/opt.facts" || { echo "facts:"; cat "$T/opt.facts"; return 1; }
}
check "plugin options pass through (exclude-function=b, mode=count)" options

# -flto: the bodies are emitted, and instrumented, by the link's lto1
lto() {
	sp "$T/lto.o" "$CC" -O2 -flto -c "$SAMPLES/calls.c" -o "$T/lto.o" || return 1
	nm -u "$T/lto.o" 2>/dev/null | grep -q __spy && { echo "lto.o instrumented before LTO"; return 1; }
	sp "$T/lto$1" "$CC" $2 "$T/lto.o" -o "$T/lto$1" || return 1
	rt_check_expect calls "$T/lto$1"
}
check "-flto compile, -flto link: exact counts and arcs" lto 1 "-O2 -flto"
check "-flto compile, link without -flto (as make's LDFLAGS): exact" lto 2 ""

# a shared library and its program
shlib() {
	cat >"$T/twice.c" <<'EOF'
int twice(int x) { return 2 * x; }
EOF
	cat >"$T/main.c" <<'EOF'
int twice(int x);
int main(void) { int s = 0; for (int i = 0; i < 7; i++) s += twice(i); return s != 42; }
EOF
	sp "$T/libtwice.so" "$CC" -O2 -fPIC -shared -Wl,--as-needed "$T/twice.c" -o "$T/libtwice.so" || return 1
	needs_spyrt "$T/libtwice.so" || return 1
	sp "$T/shmain" "$CC" -O2 "$T/main.c" -L"$T" -ltwice -Wl,-rpath,"$T" -o "$T/shmain" || return 1
	rt_run "$T/shmain" || return 1
	rt_facts "$T/shmain.out" >"$T/shmain.facts"
	grep -q '^func twice 7$' "$T/shmain.facts" && grep -q '^func main 1$' "$T/shmain.facts" &&
		grep -q '^arc main twice 7$' "$T/shmain.facts" || { echo "facts:"; cat "$T/shmain.facts"; return 1; }
}
check "a shared library linked with -specs needs libspyrt; its calls counted" shlib

cxx() {
	sp "$T/exc" "$CXX" -O2 "$SAMPLES/exceptions.cc" "$SAMPLES/comdat2.cc" -I"$SAMPLES" -o "$T/exc" &&
		rt_check_expect exceptions "$T/exc"
}
check "g++ -specs: samples/exceptions exact" cxx

# the same plugin named again on the command line is the same plugin
again() {
	sp "$T/again" "$CC" -O2 -fplugin="$SPY_BUILD/spyinstr.so" "$SAMPLES/calls.c" -o "$T/again" &&
		rt_check_expect calls "$T/again"
}
check "-fplugin=spyinstr.so given as well: still exact" again

old() {
	rt_cc "$T/old" "$CC" -Wl,--as-needed "$SAMPLES/calls.c" && rt_check_expect calls "$T/old"
}
check "the two flags (-fplugin=spyinstr.so ... -lspyrt) still work" old

# the specs name this tree's files by absolute paths: they work from any directory
elsewhere() {
	(cd "$T" && mkdir -p away && cd away && $CC -specs="$SPECS" -O2 $SPY_SAN_FLAGS "$SAMPLES/calls.c" \
		-o "$T/away/calls" >"$T/away.log" 2>&1) || { cat "$T/away.log"; return 1; }
	rt_check_expect calls "$T/away/calls"
}
check "used from another directory" elsewhere
tap_done
