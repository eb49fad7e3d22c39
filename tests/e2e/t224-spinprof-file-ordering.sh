#!/bin/bash
# t224: spinprof -R MAP (--file-ordering=MAP) prints gprof's suggested link order of MAP's object
# files. MAP is gprof's: lines "FILE:... NAME" as `nm -A` prints them ("No symbols in ..." lines
# skipped); the first function of each run of a file's lines stands for the file (named after it), the
# file's other functions are no symbols. A program of five objects calling one another, a main object
# and an object of data only, with maps: functions only in address order, the objects shuffled, nm -A's
# whole output (data, bss and undefined lines first in a run: that file's functions all vanish), and
# one with a "No symbols in" line and blank lines; -R alone and with -b -p -q -z (the report with the
# mapped symbols), and with arc specs (-k, -q FROM/TO). The reference is GNU gprof 2.40 run under
# valgrind with malloc'd memory zeroed: gprof never clears the map's "first" flag of a line (xmalloc,
# then only is_first = 1), so plain gprof's output depends on what its heap held; zeroed, it is the
# flag as written. By construction: with the
# functions-only map each object is listed exactly once. A missing map, a map line without ':', and
# a damaged profile are one line and status 2. (Spy profiles: t227.)
. "$(dirname "$0")/lib-spinprof.sh"

sp_setup
command -v gprof >/dev/null || tap_skip_all "no gprof"
command -v nm >/dev/null || tap_skip_all "no nm"
command -v valgrind >/dev/null || tap_skip_all "no valgrind (mk/deps.sh installs it)"

D=$T/m
mkdir -p "$D"
for i in 1 2 3 4 5; do
	n=$((i % 5 + 1))
	cat >"$D/m$i.c" <<EOS
static volatile unsigned long s$i;
int tab$i[4] = { $i };
void g$n(int k);
__attribute__((noinline)) static void spin$i(int k) { for (unsigned long x = 0; x < 20000ul * (unsigned long)k; x++) s$i += x; }
__attribute__((noinline)) void g$i(int k) { spin$i(k % 4 + 1); if (k > 0) g$n(k - 1); }
__attribute__((noinline)) void h$i(int k) { for (int j = 0; j < $i * 3; j++) spin$i(1); if (k) g$i(k); }
EOS
done
cat >"$D/main.c" <<'EOS'
void g1(int k); void h1(int k); void h2(int k); void h3(int k); void h4(int k); void h5(int k);
int main(void) { for (int i = 0; i < 30; i++) { g1(i % 7); h5(i % 2); h3(0); h2(i % 3); } h4(1); h1(2); return 0; }
EOS
echo 'int lonely_data = 3;' >"$D/data.c"

maps="funcs shuffled whole noise"
tap_plan $((1 + 2 * 4 + 2 + 1 + 3))

build() {
	(cd "$D" && $CC -O0 -g -pg -c m1.c m2.c m3.c m4.c m5.c main.c data.c &&
		$CC -pg m1.o m2.o m3.o m4.o m5.o main.o data.o -o prog && ./prog) >"$D/build.log" 2>&1 ||
		{ head "$D/build.log"; return 1; }
	[ -s "$D/gmon.out" ] || return 1
	(cd "$D" && nm -A -v --defined-only m1.o m2.o m3.o m4.o m5.o main.o data.o | grep ' [Tt] ' >funcs &&
		{ nm -A --defined-only m4.o m2.o; nm -A --defined-only main.o m5.o m1.o m3.o; } | grep ' [Tt] ' >shuffled &&
		nm -A m1.o m2.o m3.o m4.o m5.o main.o data.o >whole &&
		{ echo "No symbols in empty.o"; nm -A -v --defined-only main.o m3.o m1.o; echo; echo;
			nm -A -v --defined-only m5.o data.o m2.o m4.o; } >noise)
}
# same MAP OPTS...: spinprof's output is gprof's (its uninitialized flags zeroed)
same() {
	local m=$1
	shift
	(cd "$D" && valgrind -q --malloc-fill=0 gprof "$@" -R "$m" ./prog gmon.out) >"$D/g.txt" 2>/dev/null ||
		{ echo "gprof failed"; return 1; }
	(cd "$D" && "$SPINPROF" "$@" -R "$m" ./prog gmon.out) >"$D/s.txt" 2>"$D/s.err" ||
		{ echo "spinprof: status $?"; cat "$D/s.err"; return 1; }
	[ -s "$D/g.txt" ] || { echo "gprof printed nothing"; return 1; }
	diff -u "$D/g.txt" "$D/s.txt"
}
if ! sp_check "seven objects build with -pg, run, and nm writes four maps" build; then
	for _ in $(seq 11); do not_ok "not built"; done
else
	for m in $maps; do
		check "map $m: spinprof -R = gprof -R" same "$m"
		check "map $m: spinprof -b -p -q -z -R = gprof's (the mapped symbols' report)" same "$m" -b -p -q -z
	done
	# arc specs: gprof places the arcs of count 0 it adds between copies of their ends, too
	check "map funcs: -b -k :main.o/:m1.o -R = gprof's (the arc spec's copies placed)" same funcs -b -k :main.o/:m1.o
	check "map funcs: -b -q:m1.o/:m2.o -R = gprof's" same funcs -b -q:m1.o/:m2.o
	once() {
		"$SPINPROF" -R "$D/funcs" "$D/prog" "$D/gmon.out" | sort >"$D/got" || return 1
		cut -d: -f1 "$D/funcs" | sort -u >"$D/want"
		diff -u "$D/want" "$D/got"
	}
	check "functions-only map: every object exactly once" once
fi

# bad WHAT OPERANDS...: one line, status 2
bad() {
	local out st
	out=$(cd "$D" && "$SPINPROF" "$@" 2>&1)
	st=$?
	[ $st = 2 ] && [ "$(wc -l <<<"$out")" = 1 ] || { echo "status $st: $out"; return 1; }
}
check "a missing map: one line, status 2" bad -R nosuchmap ./prog gmon.out
check "a map line without ':': one line, status 2" eval 'echo "no colon here" >"$D/badmap" && bad -R badmap ./prog gmon.out'
check "-R MAP with a damaged spy profile: one line, status 2" eval 'printf "gmon\003\000\000\000" >"$D/spy.out" && bad -R funcs spy.out'
tap_done
