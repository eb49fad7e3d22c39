/* unit: spinprof/graph.c spinprof/prof.c spinprof/u64map.c spinprof/symspec.c common/gmon-io.c common/gmon-encode.c common/gmon-write.c common/gmon-decode.c common/gmon-read.c common/gmon-dump.c common/esc.c -lz */
/* spinprof/graph.c, the analyser's graph work. graph_components, spinprof's one SCC routine, on random
 * graphs of up to 40 nodes with self loops, against mutual reachability by Warshall's closure: the
 * same components, numbered densely from 0, and a component's successors complete before it (so an
 * edge between two goes to the lower number); on a 200,000-deep chain and a 200,000-node ring (the
 * search is iterative). graph_analyse on a GNU-style call graph built by hand, as gprof would print
 * it: main -> a 1, a -> b 3, b -> a 1 (a and b one cycle), main -> c 2, c -> c 5 (a self call), self
 * times main 1, a 2, b 4, c 8: one cycle header of 6, entered once from outside, with 4 calls among
 * its members; c's self calls apart from its 2; main's children 6 + 8 = 14. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "handgraph.h"
#include "prof.h"
#include "xorshift.h"

static uint64_t rng = 0x2545f4914f6cdd1dull;

/* the components of an adjacency matrix by its transitive closure, and the checks against comp */
static void check_graph(uint32_t n, const unsigned char *adj)
{
	uint32_t *first = calloc(n + 1, sizeof(uint32_t)), *count = calloc(n + 1, sizeof(uint32_t));
	uint32_t *succ = calloc((size_t)n * n + 1, sizeof(uint32_t)), *comp, m = 0, ncomp = 0;
	unsigned char *r = malloc((size_t)n * n + 1);

	assert_non_null(first);
	assert_non_null(count);
	assert_non_null(succ);
	assert_non_null(r);
	for (uint32_t u = 0; u < n; u++) {
		first[u] = m;
		for (uint32_t v = 0; v < n; v++)
			if (adj[u * n + v])
				succ[m++] = v;
		count[u] = m - first[u];
	}
	comp = graph_components(n, first, count, succ);
	assert_non_null(comp);
	memcpy(r, adj, (size_t)n * n);
	for (uint32_t u = 0; u < n; u++)
		r[u * n + u] = 1;
	for (uint32_t k = 0; k < n; k++)
		for (uint32_t i = 0; i < n; i++)
			if (r[i * n + k])
				for (uint32_t j = 0; j < n; j++)
					r[i * n + j] |= r[k * n + j];
	for (uint32_t u = 0; u < n; u++) {
		if (comp[u] + 1 > ncomp)
			ncomp = comp[u] + 1;
		for (uint32_t v = 0; v < n; v++) {
			int same = r[u * n + v] && r[v * n + u];

			if (same != (comp[u] == comp[v]))
				fail_msg("n %u: %u and %u: mutually reachable %d, components %u and %u", n, u,
					 v, same, comp[u], comp[v]);
			if (adj[u * n + v] && comp[u] != comp[v] && comp[v] > comp[u])
				fail_msg(
					"n %u: edge %u -> %u, component %u completes before its successor %u",
					n, u, v, comp[u], comp[v]);
		}
	}
	/* dense: every number below ncomp is used */
	for (uint32_t c = 0; c < ncomp; c++) {
		uint32_t u = 0;

		while (u < n && comp[u] != c)
			u++;
		if (u == n)
			fail_msg("n %u: component %u of %u unused", n, c, ncomp);
	}
	free(comp);
	free(first);
	free(count);
	free(succ);
	free(r);
}

static void test_components_random(void **state)
{
	(void)state;
	for (int round = 0; round < 3000; round++) {
		uint32_t n = (uint32_t)(xorshift64(&rng) % 41);
		uint64_t density = 1 + xorshift64(&rng) % 8; /* out of 64: sparse to dense */
		unsigned char *adj = calloc((size_t)n * n + 1, 1);

		assert_non_null(adj);
		for (uint32_t i = 0; i < n * n; i++)
			adj[i] = xorshift64(&rng) % 64 < density;
		check_graph(n, adj);
		free(adj);
	}
}

static void test_components_deep(void **state)
{
	const uint32_t n = 200000;
	uint32_t *first = malloc(n * sizeof(uint32_t)), *count = malloc(n * sizeof(uint32_t));
	uint32_t *succ = malloc(n * sizeof(uint32_t)), *comp;

	(void)state;
	assert_non_null(first);
	assert_non_null(count);
	assert_non_null(succ);
	/* a chain 0 -> 1 -> ... -> n-1: each its own component, the deepest first */
	for (uint32_t u = 0; u < n; u++) {
		first[u] = u;
		count[u] = u + 1 < n;
		succ[u] = u + 1;
	}
	comp = graph_components(n, first, count, succ);
	for (uint32_t u = 0; u < n; u++)
		if (comp[u] != n - 1 - u)
			fail_msg("chain: node %u in component %u, want %u", u, comp[u], n - 1 - u);
	free(comp);
	/* a ring: one component */
	count[n - 1] = 1;
	succ[n - 1] = 0;
	comp = graph_components(n, first, count, succ);
	for (uint32_t u = 0; u < n; u++)
		if (comp[u] != 0)
			fail_msg("ring: node %u in component %u", u, comp[u]);
	free(comp);
	free(first);
	free(count);
	free(succ);
}

static void test_analyse_gprof(void **state)
{
	struct prof *p = calloc(1, sizeof(*p));
	uint32_t f[4], m, a, b, c, h;

	(void)state;
	assert_non_null(p);
	prof_init(p);
	hand_graph(p, f);
	m = f[0];
	a = f[1];
	b = f[2];
	c = f[3];
	graph_analyse(p);

	assert_int_equal(p->ncycles, 1);
	assert_int_equal(p->nsyms, 4);
	h = (uint32_t)p->nsyms; /* the one cycle header, after the functions */
	assert_null(p->items[h].name);
	assert_int_not_equal(p->items[a].cyc, 0);
	assert_int_equal(p->items[a].cyc, p->items[b].cyc);
	assert_int_equal(p->items[a].head, h);
	assert_int_equal(p->items[b].head, h);
	assert_int_equal(p->items[c].cyc, 0);
	assert_int_equal(p->items[m].cyc, 0);
	/* the cycle: its members' time, one call from outside, four among them */
	assert_true(p->items[h].time == 6.0);
	assert_int_equal(p->items[h].ncalls, 1);
	assert_int_equal(p->items[h].self_calls, 4);
	/* c: its two calls from main, its five to itself apart */
	assert_int_equal(p->items[c].ncalls, 2);
	assert_int_equal(p->items[c].self_calls, 5);
	/* main's children: the whole cycle (its only caller from outside) and all of c */
	assert_true(p->items[m].child_time == 14.0);
	assert_true(p->items[m].prop_self + p->items[m].prop_child == 15.0);
	/* the call graph's 100 %: every function's self time */
	assert_true(p->print_time == 15.0);
	prof_release(p);
	free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_components_random),
		cmocka_unit_test(test_components_deep),
		cmocka_unit_test(test_analyse_gprof),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
