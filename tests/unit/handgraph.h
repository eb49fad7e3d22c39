/* The GNU-style call graph built by hand that test-spinprof-graph analyses and
 * test-spinprof-print-gprof prints: main -> a 1, a -> b 3, b -> a 1 (a and b one cycle), main -> c 2,
 * c -> c 5 (a self call), self times main 1, a 2, b 4, c 8 ticks at 100 Hz. hand_graph fills p (after
 * prof_init) and returns the indices of main, a, b and c in f[]; graph_analyse is the caller's. */
#ifndef SPY_TEST_HANDGRAPH_H
#define SPY_TEST_HANDGRAPH_H

#include "prof.h"

static uint32_t func(struct prof *p, const char *name, uint64_t addr, double self)
{
	uint32_t i = prof_add_func(p, name, addr, addr + 0x100);

	p->items[i].time = self;
	p->items[i].prop_fract = 1.0;
	return i;
}

static void arc(struct prof *p, uint32_t from, uint32_t to, uint64_t n)
{
	p->items[to].ncalls += n;
	prof_add_arc(p, from, to, n);
}

static void hand_graph(struct prof *p, uint32_t f[4])
{
	p->kind = PROF_GNU;
	p->hz = 100;
	f[0] = func(p, "main", 0x1000, 1);
	f[1] = func(p, "a", 0x2000, 2);
	f[2] = func(p, "b", 0x3000, 4);
	f[3] = func(p, "c", 0x4000, 8);
	prof_reserve_arcs(p, 5, 1);
	arc(p, f[0], f[1], 1);
	arc(p, f[1], f[2], 3);
	arc(p, f[2], f[1], 1);
	arc(p, f[0], f[3], 2);
	arc(p, f[3], f[3], 5);
	prof_drop_arc_hash(p);
}

#endif
