#!/bin/bash
# t218: gprof's options on a C++ -pg program print what GNU gprof prints, byte for byte (-b),
# demangled and not: symspecs name functions by the symbol table's (mangled) names, so
# -p_ZN2ns4workEi names ns::work(int) and "ns::work(int)" (a colon: FILE:FUNC to gprof) names no
# function; overloads (two ns::work), a cycle between two methods (K::even, K::odd), a template, a
# static function, and -e/-E/-f/-F/-k/-n/-N on them, and -T (mangled names); built -O0 -g and -O2. The cycle's members
# differ in calls (7, 6): members tied in time and calls gprof lists in its depth-first order,
# spinprof in address order (a difference not tested here).
. "$(dirname "$0")/lib-spinprof.sh"

sp_setup
command -v gprof >/dev/null || tap_skip_all "no gprof"
command -v "$CXX" >/dev/null || tap_skip_all "no $CXX"

cat >"$T/cxx.cc" <<'EOS'
static volatile unsigned long sink;
#define WORK(n) for (unsigned long i_ = 0; i_ < 40 * (n); i_++) sink += i_
namespace ns {
__attribute__((noinline)) void work(int n) { WORK(100000 * (unsigned long)n); }
__attribute__((noinline)) void work(double x) { WORK(300000 + (unsigned long)x); }
}
struct K {
	__attribute__((noinline)) void even(int n);
	__attribute__((noinline)) void odd(int n);
};
void K::even(int n) { WORK(200000); if (n > 0) odd(n - 1); sink += 1; }
void K::odd(int n) { ns::work(2); if (n > 0) even(n - 1); sink += 2; }
template <typename T> __attribute__((noinline)) T twice(T x) { WORK(150000); return x + x; }
__attribute__((noinline)) static void helper() { ns::work(1.0); WORK(400000); }
int main()
{
	K k;
	for (int i = 0; i < 10; i++) {
		ns::work(3);
		ns::work(1.5);
		helper();
		sink += (unsigned long)twice(i) + (unsigned long)twice(1.0 * i);
	}
	k.even(12); /* even 7 calls, odd 6: members never tie (gprof orders ties its own way) */
	return 0;
}
EOS

MATRIX=$(cat <<'EOS'
-b
-b --no-demangle
-b -z --no-demangle
-b -p_ZN2ns4workEi
-b -p_ZN2ns4workEi --no-demangle
-b -P_ZN2ns4workEd
-b -q_ZN1K4evenEi
-b -Q_ZN1K3oddEi
-b -q_ZL6helperv
-b -qns::work(int)
-b -e _ZN2ns4workEi
-b -E _ZN2ns4workEd
-b -f _ZN1K3oddEi
-b -F _ZN1K4evenEi
-b -k main/_ZN2ns4workEi
-b -k _ZN1K3oddEi/_ZN1K4evenEi
-b -n _ZL6helperv
-b -n main
-b -N _ZN2ns4workEd
-b -qcxx.cc
-b -pcxx.cc:main
-b -a
-b -c -z
-b -D --no-demangle
-b -L -z
-b -w 100
-b -T
-b -T -z --demangle
-b -T -E _ZN2ns4workEd
EOS
)
nlines=$(grep -c . <<<"$MATRIX")
tap_plan $((2 + 2 * nlines))

build() {
	mkdir -p "$2"
	# shellcheck disable=SC2086
	$CXX $1 -pg "$T/cxx.cc" -o "$2/cxx" >"$2/cc.log" 2>&1 || { cat "$2/cc.log"; return 1; }
	(cd "$2" && ./cxx) || { echo "cxx failed"; return 1; }
	[ -s "$2/gmon.out" ] || { echo "no gmon.out"; return 1; }
	# the test means something: a cycle, and time in more than one function
	gprof -b -q "$2/cxx" "$2/gmon.out" | grep -q '<cycle 1 as a whole>' || { echo "no cycle"; return 1; }
	[ "$(gprof -b -p "$2/cxx" "$2/gmon.out" | awk '$3 + 0 > 0' | wc -l)" -ge 3 ] ||
		{ gprof -b -p "$2/cxx" "$2/gmon.out"; echo "fewer than 3 functions with time"; return 1; }
}


for b in "O0 -O0 -g" "O2 -O2"; do
	dir=$T/${b%% *}
	if ! sp_check "the C++ program builds with ${b#* } -pg and runs" build "${b#* }" "$dir"; then
		for ((i = 0; i < nlines; i++)); do not_ok "no profile"; done
		continue
	fi
	while read -r opts; do
		# shellcheck disable=SC2086
		check "${b%% *}: spinprof $opts = gprof $opts" sp_same "$dir" cxx $opts
	done <<<"$MATRIX"
done
tap_done
