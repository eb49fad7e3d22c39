#!/bin/bash
# t220: spinprof -s (--sum) in GNU mode writes gmon.sum as GNU gprof -s does. A program whose calls are
# known by construction (main calls work N times, N its argument; work calls leaf from two lines, once
# each; leaf is also called from main once) runs three times (N = 30, 50, 7) with -pg, -O0 -g and -O2.
# Checked: spinprof -s PROG g1 g2 prints nothing (gprof neither) and its gmon.sum is gprof's byte for
# byte after the 20-byte header, whose magic and version are gprof's and whose spare bytes are zero
# (gprof leaves them uninitialized); gprof reads spinprof's gmon.sum and prints the same report as
# from its own (the default report, -b, -b -l); the sum's counts are the runs' counts added (work
# 80 calls, leaf 2 * 80 + 2); a sum summed again with a third run (gmon.sum g3) is gprof's too and
# holds 87 calls of work (each tool summing its own sum); -s with report options prints gprof's report (--sum implies --line);
# -s -k FROM/TO leaves the arcs out of the sum, as gprof; a bad
# gmon.out is one line and status 2.
. "$(dirname "$0")/lib-spinprof.sh"

sp_setup
command -v gprof >/dev/null || tap_skip_all "no gprof"

cat >"$T/sum.c" <<'EOS'
#include <stdlib.h>
static volatile unsigned long sink;
__attribute__((noinline)) void leaf(int k)
{
	for (unsigned long i = 0; i < 300000ul * (unsigned long)k; i++)
		sink += i;
}
__attribute__((noinline)) void work(int k)
{
	leaf(k % 3 + 1);
	for (unsigned long i = 0; i < 500000; i++)
		sink += i;
	leaf(2);
}
int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 1;
	leaf(1);
	for (int i = 0; i < n; i++)
		work(i);
	return 0;
}
EOS

tap_plan 23

# build DIR FLAGS: DIR/prog and DIR/g1, g2, g3 (runs of N = 30, 50, 7)
build() {
	local d=$1 n k=1
	shift
	mkdir -p "$d"
	# shellcheck disable=SC2086
	$CC "$@" -pg "$T/sum.c" -o "$d/prog" $SPY_SAN_FLAGS >"$d/cc.log" 2>&1 ||
		{ echo "compile failed"; head -n 20 "$d/cc.log"; return 1; }
	for n in 30 50 7; do
		(cd "$d" && rm -f gmon.out && ./prog $n && mv gmon.out g$k) || { echo "run $n failed"; return 1; }
		k=$((k + 1))
	done
}

# sums DIR OPERANDS...: gprof -s and spinprof -s of the same operands, in DIR/g.sum and DIR/s.sum;
# both print nothing and succeed
sums() {
	local d=$1
	shift
	(cd "$d" && rm -f gmon.sum && gprof -s ./prog "$@" >g.out 2>&1 && mv gmon.sum g.sum) ||
		{ echo "gprof -s failed"; cat "$d/g.out"; return 1; }
	(cd "$d" && "$SPINPROF" -s ./prog "$@" >s.out 2>&1) ||
		{ echo "spinprof -s: status $?"; cat "$d/s.out"; return 1; }
	(cd "$d" && mv gmon.sum s.sum) || return 1
	[ ! -s "$d/g.out" ] && [ ! -s "$d/s.out" ] || { echo "output:"; cat "$d/g.out" "$d/s.out"; return 1; }
}

# sum2 DIR: gprof -s PROG g.sum g3 into g.sum, spinprof -s PROG s.sum g3 into s.sum, both silent
sum2() {
	local d=$1
	(cd "$d" && rm -f gmon.sum && gprof -s ./prog g.sum g3 >g.out 2>&1 && mv gmon.sum g.sum) ||
		{ echo "gprof -s failed"; cat "$d/g.out"; return 1; }
	(cd "$d" && "$SPINPROF" -s ./prog s.sum g3 >s.out 2>&1 && mv gmon.sum s.sum) ||
		{ echo "spinprof -s failed"; cat "$d/s.out"; return 1; }
	[ ! -s "$d/g.out" ] && [ ! -s "$d/s.out" ] || { echo "output:"; cat "$d/g.out" "$d/s.out"; return 1; }
}

# same_body DIR: spinprof's gmon.sum is gprof's from byte 21 on; the header is glibc's: "gmon",
# version 1, twelve zero bytes
same_body() {
	cmp <(tail -c +21 "$1/g.sum") <(tail -c +21 "$1/s.sum") || return 1
	[ "$(head -c 20 "$1/s.sum" | od -An -tx1 | tr -d ' \n')" = \
		"676d6f6e01000000000000000000000000000000" ] || { echo "header:"; head -c 20 "$1/s.sum" | od -An -tx1; return 1; }
	[ "$(head -c 8 "$1/g.sum" | od -An -tx1)" = "$(head -c 8 "$1/s.sum" | od -An -tx1)" ]
}

# reads_same DIR OPTS...: gprof OPTS on spinprof's gmon.sum prints what it prints on its own
reads_same() {
	local d=$1
	shift
	(cd "$d" && gprof "$@" ./prog g.sum) >"$d/rg.txt" 2>&1 || { echo "gprof on g.sum failed"; return 1; }
	(cd "$d" && gprof "$@" ./prog s.sum) >"$d/rs.txt" 2>&1 || { echo "gprof on s.sum failed"; cat "$d/rs.txt"; return 1; }
	diff -u "$d/rg.txt" "$d/rs.txt"
}

# calls DIR FUNC WANT: the flat profile gprof prints from spinprof's sum gives FUNC WANT calls
calls() {
	local got
	got=$(cd "$1" && gprof -b -p ./prog s.sum | awk -v f="$2" '$NF == f && NF == 7 { print $4 }')
	[ "$got" = "$3" ] || { echo "$2: $got calls, want $3"; return 1; }
}

# report DIR OPTS...: spinprof -s OPTS prints gprof -s OPTS's report and writes the same sum
report() {
	local d=$1
	shift
	(cd "$d" && rm -f gmon.sum && gprof -s "$@" ./prog g1 g2 >g.txt 2>&1 && mv gmon.sum g.sum) ||
		{ echo "gprof failed"; return 1; }
	(cd "$d" && "$SPINPROF" -s "$@" ./prog g1 g2 >s.txt 2>&1 && mv gmon.sum s.sum) ||
		{ echo "spinprof failed"; cat "$d/s.txt"; return 1; }
	[ -s "$d/g.txt" ] || { echo "gprof printed no report"; return 1; }
	diff -u "$d/g.txt" "$d/s.txt" && same_body "$d"
}

# ksums DIR: with -k (an arc spec), the arcs it names are not in gmon.sum, as gprof's cg_tally never
# adds them; the sums are gprof's, and smaller than without
ksums() {
	local d=$1 k
	for k in main/leaf work/; do
		(cd "$d" && rm -f gmon.sum && gprof -s -k $k ./prog g1 g2 && mv gmon.sum gk.sum &&
			"$SPINPROF" -s -k $k ./prog g1 g2 && mv gmon.sum sk.sum) || { echo "-k $k failed"; return 1; }
		cmp <(tail -c +21 "$d/gk.sum") <(tail -c +21 "$d/sk.sum") || return 1
		[ "$(stat -c %s "$d/sk.sum")" -lt "$(stat -c %s "$d/s.sum")" ] || { echo "-k $k: no arc left out"; return 1; }
	done
}

for b in "O0 -O0 -g" "O2 -O2"; do
	d=$T/${b%% *}
	flags=${b#* }
	# shellcheck disable=SC2086
	if ! sp_check "${b%% *}: the program builds with $flags -pg and runs three times" build "$d" $flags; then
		for _ in $(seq 10); do not_ok "not built"; done
		continue
	fi
	if sp_check "${b%% *}: spinprof -s PROG g1 g2 and gprof -s PROG g1 g2 succeed and print nothing" sums "$d" g1 g2; then
		check "${b%% *}: gmon.sum is gprof's byte for byte (after the header's spare bytes)" same_body "$d"
		check "${b%% *}: gprof's default report of spinprof's gmon.sum is that of gprof's" reads_same "$d"
		check "${b%% *}: ... and with -b -l" reads_same "$d" -b -l
		check "${b%% *}: the sum's calls are the runs' added: work 30 + 50" calls "$d" work 80
		check "${b%% *}: ... leaf (1 + 2 * 30) + (1 + 2 * 50)" calls "$d" leaf 162
	else
		for _ in 1 2 3 4 5; do not_ok "no sums"; done
	fi
	if sp_check "${b%% *}: each tool's gmon.sum summed with a third run (gmon.sum g3)" sum2 "$d" &&
		cmp -s <(tail -c +21 "$d/g.sum") <(tail -c +21 "$d/s.sum"); then
		check "${b%% *}: ... the same bytes, and work 87 calls" calls "$d" work 87
	else
		not_ok "${b%% *}: the sum of a sum differs from gprof's"
	fi
	check "${b%% *}: spinprof -s -b -p -q = gprof -s -b -p -q (line granularity), and the same sum" report "$d" -b -p -q
	check "${b%% *}: -s -k main/leaf and -s -k work/: gprof's sums without those arcs" ksums "$d"
done

# a bad gmon.out: one line, status 2
bad() {
	local d=$T/O0 out st
	head -c 30 "$d/g1" >"$d/short"
	out=$(cd "$d" && "$SPINPROF" -s ./prog g1 short 2>&1)
	st=$?
	[ $st = 2 ] && [ "$(wc -l <<<"$out")" = 1 ] && [[ $out == "spinprof: short: "* ]] ||
		{ echo "status $st: $out"; return 1; }
}
check "a truncated gmon.out: one line naming it and status 2" bad
tap_done
