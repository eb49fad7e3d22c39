/* GCC's clones at -O2, each doing a known share of the work: ipa-split's work.part.0 (work's early
 * return inlined into its callers, its loop split off), IPA-SRA's sum.constprop.0.isra.0 (only b->n
 * used, the unused argument dropped) and hot's loop in hot.cold (a path that calls a cold function
 * is thought never to run, so GCC moves it out of hot's range; it runs every call). drive(N) calls
 * work, sum and hot N times each (argv, default 3000), loops of up to 20 000 steps; drive2 calls work
 * 10 times. Spy records the clones as functions (a .cold part belongs to its function): their
 * samples are theirs, not the symbol's before them (t246; no .expect: the clones' names are GCC's). */
#include <stdio.h>
#include <stdlib.h>

#include "sample.h"

static volatile unsigned sink;
static unsigned table[4096];

/* not NOINL (noipa would forbid the clones): GCC's own choices are what is measured */
static unsigned work(unsigned n, unsigned k)
{
	if (table[n & 4095] == k)
		return 0;
	unsigned s = 0;
	for (unsigned i = 0; i < n; i++) {
		s += table[(i * 7 + s) & 4095] ^ i;
		table[i & 4095] += s;
		if (s == 12345) {
			printf("x");
			fflush(stdout);
		}
		if (s == 123456) {
			printf("y");
			fflush(stdout);
		}
	}
	return s;
}

struct box {
	unsigned n, pad[15];
};

static __attribute__((noinline)) unsigned sum(const struct box *b, unsigned unused)
{
	unsigned s = 0;
	for (unsigned i = 0; i < b->n; i++)
		s += table[(i * 13 + s) & 4095] + i;
	return s;
}

__attribute__((cold, noinline)) void rare(unsigned s)
{
	sink += s;
}

__attribute__((noinline)) unsigned hot(unsigned n)
{
	if (n & 1) {
		unsigned s = 0;
		rare(n);
		for (unsigned i = 0; i < n; i++)
			s += table[(i * 3 + s) & 4095] * i;
		return s;
	}
	return n;
}

NOINL void drive2(unsigned rounds)
{
	for (unsigned r = 0; r < rounds; r++)
		sink += work(r % 200 + 1, 9);
}

NOINL void drive(unsigned rounds)
{
	for (unsigned r = 0; r < rounds; r++) {
		struct box b = { r % 20000 + 1, { 0 } };
		sink += work(r % 20000 + 1, 7);
		sink += sum(&b, r);
		sink += hot(2 * (r % 20000) + 1);
	}
}

int main(int argc, char **argv)
{
	drive2(10);
	drive(argc > 1 ? (unsigned)atoi(argv[1]) : 3000);
	printf("%u\n", sink);
	return 0;
}
