#!/bin/bash
# t228: a glibc gmon.out of many histogram records, one bin each (a histogram that came in pieces):
# spinprof's flat profile is gprof's, byte for byte, with the records in address order, in reverse
# order, and each one given twice (a range read again adds up); records of other ranges that share
# addresses are refused in one line. (What they cost, against the count of records, is measured by
# bench/growth.sh: no longer the square of it.)
. "$(dirname "$0")/lib-spinprof.sh"

sp_setup
command -v gprof >/dev/null || tap_skip_all "no gprof"
tap_plan 5

N=3000
# N functions of 16 bytes each, and main
awk -v nf="$N" 'BEGIN {
	print "\t.text"
	for (i = 0; i < nf; i++)
		printf "\t.globl f%d\n\t.type f%d, @function\n\t.p2align 4\nf%d:\n\tnop\n\tnop\n\tnop\n\tret\n\t.size f%d, .-f%d\n", i, i, i, i, i
	print "\t.globl main\n\t.type main, @function\nmain:\n\txorl %eax, %eax\n\tret\n\t.size main, .-main"
	print "\t.section .note.GNU-stack,\"\",@progbits"
}' >"$T/prog.s"
# hist OUT ORDER: a one-bin record of the first 4 bytes of each function (fwd, rev, twice: every
# record a second time, at the end), its count 1 to 5; ORDER overlap adds one of the same scale over
# the second half of f0's
cat >"$T/hist.c" <<'EOC'
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
static void put(FILE *f, unsigned long long v, int n)
{
	for (int i = 0; i < n; i++)
		putc((int)(v >> 8 * i) & 0xff, f);
}
static void rec(FILE *f, unsigned long long lo, unsigned long long hi, unsigned count)
{
	putc(0, f);
	put(f, lo, 8);
	put(f, hi, 8);
	put(f, 1, 4);
	put(f, 100, 4);
	fwrite("seconds\0\0\0\0\0\0\0\0", 1, 15, f);
	putc('s', f);
	put(f, count, 2);
}
int main(int argc, char **argv)
{
	unsigned long long a[100000], s;
	int n = 0, rev = !strcmp(argv[2], "rev"), twice = !strcmp(argv[2], "twice");
	FILE *f = fopen(argv[1], "wb");
	while (n < 100000 && scanf("%llx %llx", &a[n], &s) == 2)
		n++;
	if (!f || !n)
		return 1;
	fwrite("gmon", 1, 4, f);
	put(f, 1, 4);
	put(f, 0, 12);
	for (int r = 0; r < 1 + twice; r++)
		for (int k = 0; k < n; k++) {
			int i = rev ? n - 1 - k : k;
			rec(f, a[i], a[i] + 4, 1 + (unsigned)(i * 7 % 5));
		}
	if (!strcmp(argv[2], "overlap"))
		rec(f, a[0] + 2, a[0] + 6, 1);
	return fclose(f) != 0;
}
EOC
build() {
	$CC -no-pie "$T/prog.s" -o "$T/prog" && $CC -O2 "$T/hist.c" -o "$T/hist" &&
		nm --defined-only -S "$T/prog" | awk '$3 ~ /^[Tt]$/ && $4 ~ /^f[0-9]+$/ { print $1, $2 }' | sort >"$T/syms" &&
		[ "$(wc -l <"$T/syms")" -eq $N ]
}
if ! check "a program of $N functions and the record writer build" build; then
	for _ in 1 2 3 4; do not_ok "not built"; done
	tap_done
fi
# same ORDER: spinprof -b -p and gprof -b -p agree on the file
same() {
	"$T/hist" "$T/$1.out" "$1" <"$T/syms" || return 1
	"$SPINPROF" -b -p "$T/prog" "$T/$1.out" >"$T/$1.sp" 2>&1 || { cat "$T/$1.sp"; return 1; }
	gprof -b -p "$T/prog" "$T/$1.out" >"$T/$1.gp" 2>&1 || { cat "$T/$1.gp"; return 1; }
	grep -q ' f2999$' "$T/$1.sp" && diff -u "$T/$1.gp" "$T/$1.sp" | head -n 20
	cmp -s "$T/$1.gp" "$T/$1.sp"
}
check "$N one-bin records in address order: gprof's flat profile, byte for byte" same fwd
check "$N one-bin records in reverse order: gprof's flat profile, byte for byte" same rev
check "each record twice: the counts add up, as gprof's" same twice
overlap() {
	local err rc
	"$T/hist" "$T/overlap.out" overlap <"$T/syms" || return 1
	err=$("$SPINPROF" -b -p "$T/prog" "$T/overlap.out" 2>&1 >/dev/null)
	rc=$?
	[ $rc = 2 ] && [ "$err" = "spinprof: $T/overlap.out: overlapping histogram records" ] || { echo "status $rc: $err"; return 1; }
}
check "a record over part of another's range: refused, one line, status 2" overlap
tap_done
