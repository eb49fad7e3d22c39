/* An interposed __spy_arc_miss for the tests of mode=arcs's inline path (t020, t025, t306): it counts
 * the calls that leave the inline code, then lets libspyrt's take them, and says "misses N" on stderr
 * at exit. Built as a preloaded library: cc -O2 -fPIC -shared spymiss.c -o libspymiss.so -ldl. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>

static _Atomic long misses;
static void (*_Atomic real)(void *, void *, const uint64_t *);

void __spy_arc_miss(void *self, void *cfa, const uint64_t *slot)
{
	if (!real)
		real = (void (*)(void *, void *, const uint64_t *))dlsym(RTLD_NEXT, "__spy_arc_miss");
	misses++;
	real(self, cfa, slot);
}

__attribute__((destructor)) static void say(void)
{
	fprintf(stderr, "misses %ld\n", (long)misses);
}
