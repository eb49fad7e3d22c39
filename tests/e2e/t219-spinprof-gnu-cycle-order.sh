#!/bin/bash
# t219: cycles in GNU mode are numbered and their members listed as gprof's depth-first search
# finds them, byte for byte: tie.c has one cycle of three functions with equal calls (9 each) and no
# time, so only the search's order decides their order (gprof: zz, aa, mm, which is neither
# address nor name order); cyc.c has three cycles whose first members by address are not the
# search's heads (a3 and b2 come first in the file, c2 before c1). Built -O0 and -O2, with -b,
# -b -z, -b -q, -c and -T.
. "$(dirname "$0")/lib-spinprof.sh"

sp_setup
command -v gprof >/dev/null || tap_skip_all "no gprof"

cat >"$T/tie.c" <<'EOS'
static volatile unsigned long sink;
__attribute__((noinline)) void zz(int n);
__attribute__((noinline)) void mm(int n) { if (n > 0) zz(n - 1); sink++; }
__attribute__((noinline)) void aa(int n) { if (n > 0) mm(n - 1); sink++; }
__attribute__((noinline)) void zz(int n) { if (n > 0) aa(n - 1); sink++; }
int main(void) { mm(8); aa(8); zz(8); return 0; }
EOS
cat >"$T/cyc.c" <<'EOS'
static volatile unsigned long sink;
void a1(int n); void a2(int n); void a3(int n); void b1(int n); void b2(int n);
__attribute__((noinline)) void a3(int n) { if (n > 0) a1(n - 1); sink++; }
__attribute__((noinline)) void b2(int n) { if (n > 0) b1(n - 1); sink++; }
__attribute__((noinline)) void a2(int n) { if (n > 0) a3(n - 1); sink++; }
__attribute__((noinline)) void a1(int n) { if (n > 0) a2(n - 1); sink++; }
__attribute__((noinline)) void b1(int n) { if (n > 0) b2(n - 1); sink++; }
__attribute__((noinline)) void c1(int n);
__attribute__((noinline)) void c2(int n) { if (n > 0) c1(n - 1); sink++; }
__attribute__((noinline)) void c1(int n) { if (n > 0) c2(n - 1); sink++; }
int main(void) { b1(8); a2(9); c1(6); a1(3); return 0; }
EOS

OPTS=("-b" "-b -z" "-b -q" "-b -c -z" "-b -T")
tap_plan $((4 + 4 * ${#OPTS[@]} + 1))

build() {
	mkdir -p "$2"
	gcc "$3" -pg "$T/$1.c" -o "$2/$1" >"$2/cc.log" 2>&1 || { cat "$2/cc.log"; return 1; }
	(cd "$2" && "./$1") || { echo "$1 failed"; return 1; }
	[ -s "$2/gmon.out" ] || { echo "no gmon.out"; return 1; }
}

same() {
	local d=$1 p=$2
	shift 2
	(cd "$d" && gprof "$@" "./$p" gmon.out) >"$d/g.txt" 2>&1 || { cat "$d/g.txt"; return 1; }
	(cd "$d" && "$SPINPROF" "$@" "./$p" gmon.out) >"$d/s.txt" 2>&1 || { cat "$d/s.txt"; return 1; }
	diff -u "$d/g.txt" "$d/s.txt"
}

for p in tie cyc; do
	for lv in -O0 -O2; do
		d=$T/$p$lv
		if ! sp_check "$p.c builds with $lv -pg and runs" build "$p" "$d" "$lv"; then
			for o in "${OPTS[@]}"; do not_ok "no profile"; done
			continue
		fi
		for o in "${OPTS[@]}"; do
			# shellcheck disable=SC2086
			check "$p $lv: spinprof $o = gprof $o" same "$d" "$p" $o
		done
	done
done
# the test means something: gprof's order of tie's members is not their address order
order() {
	local got addr
	got=$(cd "$T/tie-O0" && gprof -b -q ./tie gmon.out | awk '/as a whole/ { on = 1; next } on && /<cycle 1>/ { print $2 } on && /^---/ { exit }' | tr '\n' ' ')
	addr=$(nm "$T/tie-O0/tie" | awk '$2 == "T" && ($3 == "aa" || $3 == "mm" || $3 == "zz")' | sort | awk '{ print $3 }' | tr '\n' ' ')
	echo "gprof: $got; by address: $addr"
	[ -n "$got" ] && [ "$got" != "$addr" ]
}
check "tie: gprof's member order is not the address order" order
tap_done
