#!/bin/bash
# t240: GNU mode on a C++ -pg program whose entries tie (no time, equal calls) prints what gprof prints,
# byte for byte, demangled and with --no-demangle: gprof breaks ties (flat profile, call graph index,
# index by name) on the symbol table's names, which are mangled, so a sort on the demangled names
# orders and numbers them differently. The program: zeta(int) called 4 times; alpha(double),
# ns::beta(), K::gamma(), mid and _under once each, all without time; their mangled order
# (_Z4zetai _Z5alphad _ZN1K5gammaEv _ZN2ns4betaEv _under mid) is not their demangled one.
. "$(dirname "$0")/lib-spinprof.sh"

sp_setup
command -v gprof >/dev/null || tap_skip_all "no gprof"
command -v "$CXX" >/dev/null || tap_skip_all "no $CXX"

cat >"$T/tie.cc" <<'EOS'
static volatile int sink;
__attribute__((noinline)) void zeta(int x) { sink += x; }
__attribute__((noinline)) void alpha(double x) { sink += (int)x; }
namespace ns { __attribute__((noinline)) void beta() { sink += 2; } }
extern "C" __attribute__((noinline)) void mid(void) { sink += 3; }
extern "C" __attribute__((noinline)) void _under(void) { sink += 4; }
struct K { __attribute__((noinline)) void gamma(); };
void K::gamma() { sink += 5; }
int main()
{
	zeta(1); alpha(2); ns::beta(); mid(); _under();
	K k;
	k.gamma();
	for (int i = 0; i < 3; i++)
		zeta(i);
	return 0;
}
EOS

tap_plan 7

build() {
	$CXX -O2 -pg "$T/tie.cc" -o "$T/tie" >"$T/cc.log" 2>&1 || { cat "$T/cc.log"; return 1; }
	(cd "$T" && ./tie) || { echo "tie failed"; return 1; }
	[ -s "$T/gmon.out" ] || { echo "no gmon.out"; return 1; }
}
if ! sp_check "the C++ program builds with -pg and writes gmon.out" build; then
	for _ in 1 2 3 4 5 6; do not_ok "no profile"; done
	tap_done
fi

# same OPTS...: spinprof's report is gprof's, byte for byte
same() {
	(cd "$T" && gprof "$@" ./tie gmon.out) >"$T/g.txt" 2>&1 || { echo "gprof failed"; cat "$T/g.txt"; return 1; }
	(cd "$T" && "$SPINPROF" "$@" ./tie gmon.out) >"$T/s.txt" 2>"$T/s.err" ||
		{ echo "spinprof $*: status $?"; cat "$T/s.err"; return 1; }
	diff -u "$T/g.txt" "$T/s.txt"
}
check "spinprof -b = gprof -b (demangled)" same -b
check "spinprof -b --no-demangle = gprof -b --no-demangle" same -b --no-demangle
check "spinprof -b -z = gprof -b -z (demangled)" same -b -z
check "spinprof -b -p = gprof -b -p (demangled)" same -b -p
check "spinprof -b -q = gprof -b -q (demangled)" same -b -q
# the test means something: the ties are there, and mangled and demangled orders differ
ties() {
	local order
	order=$(awk '/^ *0\.00 +0\.00 +0\.00 +1 / { print $NF }' "$T/g.txt" | tr '\n' ' ')
	echo "gprof's order of the once-called: $order"
	[ "$order" != "$(echo "$order" | tr ' ' '\n' | grep . | LC_ALL=C sort | tr '\n' ' ')" ]
}
same -b -p >/dev/null
check "the once-called tie, and gprof's order is not the demangled names' order" ties
tap_done
