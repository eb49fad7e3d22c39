/* Time spent in libc, which has no hooks, under instrumented callers: match() runs glibc's regexec
 * with a back-reference (grep -E '([a-z]{3,}) \1': the time in glibc's matcher, re_search_internal
 * and its helpers), copy() memmove()s 2 MiB, and own() loops in its own code. main calls each N times
 * (argv, default 300) on a fixed text. Spy's flat profile and call graph show the libc functions the
 * CPU samples caught as rows NAME [libc.so.6] under match and copy, their time carved from those
 * callers' self time by the samples (t247; no .expect: calls main 1, match, copy and own N each). */
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sample.h"

static char text[4096];
char src[2 << 20], dst[2 << 20]; /* not static: the memory clobber keeps the copies */
static volatile unsigned long sink;

NOINL int match(const regex_t *re)
{
	return regexec(re, text, 0, NULL, 0) == 0;
}

NOINL void copy(void)
{
	memmove(dst, src, sizeof(src));
	BARRIER();
}

NOINL void own(void)
{
	unsigned long x = sink;
	for (int i = 0; i < 100000; i++) {
		x = x * 6364136223846793005ul + 1;
		BARRIER();
	}
	sink = x;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 300, hits = 0;
	unsigned seed = 1;
	regex_t re;
	if (regcomp(&re, "([a-z]{3,}) \\1", REG_EXTENDED))
		return 1;
	for (size_t i = 0; i < sizeof(text) - 1; i++) {
		seed = seed * 1103515245u + 12345u;
		unsigned r = (seed >> 16) % 32;
		text[i] = r < 26 ? (char)('a' + r) : ' ';
	}
	memset(src, 1, sizeof(src));
	for (int i = 0; i < n; i++) {
		hits += match(&re);
		copy();
		own();
	}
	regfree(&re);
	printf("%d %lu\n", hits, sink);
	return 0;
}
