/* unit: spinprof/dom.c spinprof/graph.c spinprof/prof.c spinprof/u64map.c common/gmon-io.c common/gmon-encode.c common/gmon-write.c common/gmon-decode.c common/gmon-read.c common/gmon-dump.c common/esc.c -lz */
/* The Spy tree's dominators and disjoint sets on exact small graphs: the seed's A->B->C, A->D->C
 * (C under A), a utility called from everywhere (near the top), islands of recursion, a 100 000-deep
 * chain (no recursion in the code), random graphs checked against dominators computed by brute
 * force; every shown node printed once with its dominators above it, and siblings of one set never
 * reaching one another. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "dom.h"

struct tg {
	uint32_t n;
	uint32_t *e;
	size_t ne, alloc;
};

static void edge(struct tg *t, uint32_t a, uint32_t b)
{
	if (t->ne == t->alloc) {
		t->alloc = t->alloc ? t->alloc * 2 : 64;
		t->e = realloc(t->e, t->alloc * 2 * sizeof(uint32_t));
		assert_non_null(t->e);
	}
	t->e[2 * t->ne] = a;
	t->e[2 * t->ne + 1] = b;
	t->ne++;
}

/* reach[a * n + b]: a path a -> b of one edge or more in g */
static unsigned char *closure(const struct dom_graph *g)
{
	uint32_t n = g->n;
	unsigned char *r = calloc((size_t)n * n, 1);
	uint32_t *st = malloc(n * sizeof(uint32_t));
	assert_non_null(r);
	assert_non_null(st);
	for (uint32_t a = 0; a < n; a++) {
		size_t top = 0;
		for (uint32_t k = g->succ0[a]; k < g->succ0[a + 1]; k++)
			if (!r[(size_t)a * n + g->succ[k]]) {
				r[(size_t)a * n + g->succ[k]] = 1;
				st[top++] = g->succ[k];
			}
		while (top) {
			uint32_t u = st[--top];
			for (uint32_t k = g->succ0[u]; k < g->succ0[u + 1]; k++)
				if (!r[(size_t)a * n + g->succ[k]]) {
					r[(size_t)a * n + g->succ[k]] = 1;
					st[top++] = g->succ[k];
				}
		}
	}
	free(st);
	return r;
}

/* Nodes reachable from the root without passing through d. */
static void reach_without(const struct dom_graph *g, uint32_t d, unsigned char *seen)
{
	uint32_t *st = malloc(g->n * sizeof(uint32_t));
	size_t top = 0;
	assert_non_null(st);
	memset(seen, 0, g->n);
	if (d != 0) {
		seen[0] = 1;
		st[top++] = 0;
	}
	while (top) {
		uint32_t u = st[--top];
		for (uint32_t k = g->succ0[u]; k < g->succ0[u + 1]; k++) {
			uint32_t w = g->succ[k];
			if (w != d && !seen[w]) {
				seen[w] = 1;
				st[top++] = w;
			}
		}
	}
	free(st);
}

/* idom against the definition: d dominates v iff v is unreachable once d is removed; the
 * immediate dominator is the strict dominator that all other strict dominators dominate. */
static void check_idom_brute(const struct dom_graph *g, const uint32_t *idom)
{
	uint32_t n = g->n;
	unsigned char *dom = calloc((size_t)n * n, 1), *seen = malloc(n); /* dom[d * n + v] */
	assert_non_null(dom);
	assert_non_null(seen);
	for (uint32_t d = 0; d < n; d++) {
		reach_without(g, d, seen);
		for (uint32_t v = 0; v < n; v++)
			dom[(size_t)d * n + v] = v == d || !seen[v];
	}
	for (uint32_t v = 1; v < n; v++) {
		uint32_t want = DOM_NONE;
		for (uint32_t d = 0; d < n; d++) {
			if (d == v || !dom[(size_t)d * n + v])
				continue;
			/* the strict dominator dominated by every other one */
			uint32_t o;
			for (o = 0; o < n; o++)
				if (o != v && dom[(size_t)o * n + v] && !dom[(size_t)o * n + d])
					break;
			if (o == n)
				want = d;
		}
		if (idom[v] != want)
			fail_msg("node %u: idom %u, brute force %u", v, idom[v], want);
	}
	free(dom);
	free(seen);
}

/* The layout's promises: shown nodes once each, with every dominator above them; a row's parent
 * is its idom and the row of the parent came earlier at depth - 1; siblings of one set do not
 * reach one another; enter/lead agree with the sets. Returns the number of rows. */
static size_t check_layout(const struct dom_graph *g, const uint32_t *idom, const double *w,
			   const unsigned char *show, uint64_t budget, struct dom_row **out)
{
	uint32_t n = g->n;
	struct dom_row *rows;
	size_t nr = dom_layout(g, idom, w, show, &budget, &rows);
	unsigned *times = calloc(n, sizeof(unsigned));
	uint32_t *rowof = malloc(n * sizeof(uint32_t));
	unsigned char *r = n <= 2000 ? closure(g) : NULL;
	assert_non_null(times);
	assert_non_null(rowof);
	for (size_t i = 0; i < nr; i++) {
		const struct dom_row *x = &rows[i];
		assert_true(x->node > 0 && x->node < n);
		times[x->node]++;
		rowof[x->node] = (uint32_t)i;
		assert_int_equal(x->parent, idom[x->node]);
		if (x->parent == 0) {
			assert_int_equal(x->depth, 0);
		} else {
			assert_int_equal(times[x->parent], 1); /* printed before */
			assert_int_equal(rows[rowof[x->parent]].depth + 1, x->depth);
		}
	}
	for (uint32_t v = 1; v < n; v++) {
		assert_true(times[v] <= 1); /* nothing printed twice */
		if (show[v])                /* and, by the parent check above, every dominator of it */
			assert_int_equal(times[v], 1);
	}
	/* siblings: consecutive rows of one parent and depth (small graphs: this is quadratic) */
	for (size_t i = 0; i < nr && r; i++) {
		size_t next = i + 1;
		while (next < nr && rows[next].depth > rows[i].depth)
			next++;
		int has_next = next < nr && rows[next].depth == rows[i].depth;
		if (has_next) {
			assert_int_equal(rows[next].parent, rows[i].parent);
			assert_int_equal(rows[i].lead, rows[next].set == rows[i].set ? '!' : '.');
			assert_int_equal(rows[next].enter, rows[i].lead);
		} else {
			assert_int_equal(rows[i].lead, ' ');
		}
		for (size_t j = i + 1; j < nr && rows[j].depth >= rows[i].depth; j++)
			if (rows[j].depth == rows[i].depth && rows[j].set == rows[i].set) {
				uint32_t a = rows[i].node, b = rows[j].node;
				if (r[(size_t)a * n + b] || r[(size_t)b * n + a])
					fail_msg("%u and %u share set %u but one reaches the other", a, b,
						 rows[i].set);
			}
	}
	free(r);
	free(times);
	free(rowof);
	if (out)
		*out = rows;
	else
		free(rows);
	return nr;
}

static void all_shown(unsigned char *show, double *w, uint32_t n)
{
	for (uint32_t v = 0; v < n; v++) {
		show[v] = 1;
		w[v] = 1;
	}
}

static const struct dom_row *row_of(const struct dom_row *rows, size_t nr, uint32_t v)
{
	for (size_t i = 0; i < nr; i++)
		if (rows[i].node == v)
			return &rows[i];
	return NULL;
}

/* The seed: A calls B and D, both call C: C sits under A, not under B or D. */
static void test_seed(void **state)
{
	(void)state;
	enum {
		A = 1,
		B,
		C,
		D,
		N
	};
	struct tg t = { N, NULL, 0, 0 };
	edge(&t, A, B);
	edge(&t, B, C);
	edge(&t, A, D);
	edge(&t, D, C);
	struct dom_graph g;
	dom_graph_build(&g, N, t.e, t.ne, NULL);
	uint32_t *idom = dom_idom(&g);
	assert_int_equal(idom[A], 0);
	assert_int_equal(idom[B], A);
	assert_int_equal(idom[D], A);
	assert_int_equal(idom[C], A);
	check_idom_brute(&g, idom);
	double w[N] = { 100, 100, 60, 50, 40 };
	unsigned char show[N] = { 1, 1, 1, 1, 1 };
	struct dom_row *rows;
	size_t nr = check_layout(&g, idom, w, show, 1000, &rows);
	assert_int_equal(nr, 4);
	/* B and D (disjoint) form one set, heaviest first; C, which B reaches, another after them */
	assert_int_equal(rows[0].node, A);
	assert_int_equal(rows[1].node, B);
	assert_int_equal(rows[2].node, D);
	assert_int_equal(rows[3].node, C);
	assert_int_equal(rows[1].set, rows[2].set);
	assert_int_not_equal(rows[2].set, rows[3].set);
	assert_int_equal(rows[1].enter, '.');
	assert_int_equal(rows[1].lead, '!');
	assert_int_equal(rows[2].enter, '!');
	assert_int_equal(rows[2].lead, '.');
	assert_int_equal(rows[3].enter, '.');
	assert_int_equal(rows[3].lead, ' ');
	assert_false(rows[1].indirect);
	assert_true(rows[3].indirect); /* A does not call C itself */
	free(rows);
	/* C called only through B: under B */
	free(idom);
	dom_graph_release(&g);
	t.ne = 2;
	dom_graph_build(&g, N, t.e, t.ne, NULL);
	idom = dom_idom(&g);
	assert_int_equal(idom[C], B);
	assert_int_equal(idom[D], 0); /* no caller left: a root */
	free(idom);
	dom_graph_release(&g);
	free(t.e);
}

/* A utility U called from every level sits directly under the procedure containing all its
 * calls (main), above the callers it serves; with a second thread calling it, under the root. */
static void test_utility(void **state)
{
	(void)state;
	enum {
		MAIN = 1,
		X,
		Y,
		Z,
		U,
		T,
		N
	};
	struct tg t = { N, NULL, 0, 0 };
	edge(&t, MAIN, X);
	edge(&t, MAIN, Y);
	edge(&t, X, Z);
	edge(&t, Y, Z);
	edge(&t, X, U);
	edge(&t, Y, U);
	edge(&t, Z, U);
	edge(&t, MAIN, U);
	struct dom_graph g;
	dom_graph_build(&g, N, t.e, t.ne, NULL);
	uint32_t *idom = dom_idom(&g);
	assert_int_equal(idom[U], MAIN);
	assert_int_equal(idom[Z], MAIN);
	double w[N] = { 100, 100, 30, 30, 40, 90, 1 };
	unsigned char show[N] = { 1, 1, 1, 1, 1, 1, 0 };
	struct dom_row *rows;
	size_t nr = check_layout(&g, idom, w, show, 1000, &rows);
	const struct dom_row *ur = row_of(rows, nr, U);
	assert_non_null(ur);
	assert_int_equal(ur->depth, 1);
	assert_ptr_equal(ur, &rows[1]);   /* the heaviest child of main comes first */
	assert_null(row_of(rows, nr, T)); /* T: not shown, nothing under it */
	free(rows);
	free(idom);
	dom_graph_release(&g);
	edge(&t, T, U); /* a thread start T (no caller) also calls U */
	dom_graph_build(&g, N, t.e, t.ne, NULL);
	idom = dom_idom(&g);
	assert_int_equal(idom[T], 0);
	assert_int_equal(idom[U], 0);
	check_idom_brute(&g, idom);
	free(idom);
	dom_graph_release(&g);
	free(t.e);
}

/* Recursion: a cycle entered from main hangs under its entry; an island nobody calls hangs from
 * the member the caller's order puts first; self loops do not count as callers. */
static void test_cycles(void **state)
{
	(void)state;
	enum {
		MAIN = 1,
		A,
		B,
		C,
		P,
		Q,
		S,
		N
	};
	struct tg t = { N, NULL, 0, 0 };
	edge(&t, MAIN, A);
	edge(&t, A, B);
	edge(&t, B, A);
	edge(&t, B, C);
	edge(&t, C, C);
	edge(&t, P, Q);
	edge(&t, Q, P);
	edge(&t, S, S);
	struct dom_graph g;
	dom_graph_build(&g, N, t.e, t.ne, NULL);
	uint32_t *idom = dom_idom(&g);
	assert_int_equal(idom[A], MAIN);
	assert_int_equal(idom[B], A);
	assert_int_equal(idom[C], B);
	assert_int_equal(idom[P], 0);
	assert_int_equal(idom[Q], P);
	assert_int_equal(idom[S], 0);
	check_idom_brute(&g, idom);
	double w[N];
	unsigned char show[N];
	all_shown(show, w, N);
	check_layout(&g, idom, w, show, 1000, NULL);
	free(idom);
	dom_graph_release(&g);
	uint32_t order[N] = { 0, Q, P, MAIN, A, B, C, S };
	dom_graph_build(&g, N, t.e, t.ne, order);
	idom = dom_idom(&g);
	assert_int_equal(idom[Q], 0);
	assert_int_equal(idom[P], Q);
	free(idom);
	dom_graph_release(&g);
	free(t.e);
}

/* The cutoff: hidden nodes vanish unless something shown hangs below them. */
static void test_cutoff(void **state)
{
	(void)state;
	enum {
		MAIN = 1,
		A,
		B,
		C,
		D,
		N
	};
	struct tg t = { N, NULL, 0, 0 };
	edge(&t, MAIN, A);
	edge(&t, A, B);
	edge(&t, MAIN, C);
	edge(&t, C, D);
	struct dom_graph g;
	dom_graph_build(&g, N, t.e, t.ne, NULL);
	uint32_t *idom = dom_idom(&g);
	double w[N] = { 100, 100, 50, 0.5, 40, 0.2 };
	unsigned char show[N] = { 0, 1, 1, 0, 1, 0 }; /* B and D below the cutoff */
	struct dom_row *rows;
	size_t nr = check_layout(&g, idom, w, show, 1000, &rows);
	assert_int_equal(nr, 3);
	assert_null(row_of(rows, nr, B));
	assert_null(row_of(rows, nr, D));
	free(rows);
	unsigned char show2[N] = { 0, 0, 0, 1, 0, 0 }; /* only B: main and A come along */
	nr = check_layout(&g, idom, w, show2, 1000, &rows);
	assert_int_equal(nr, 3);
	assert_int_equal(rows[0].node, MAIN);
	assert_int_equal(rows[1].node, A);
	assert_int_equal(rows[2].node, B);
	free(rows);
	free(idom);
	dom_graph_release(&g);
	free(t.e);
}

/* 100 000 calls deep, with the deepest calling back to the first: no stack overflow, each node
 * under the previous one. */
static void test_deep_chain(void **state)
{
	(void)state;
	const uint32_t n = 100001;
	struct tg t = { n, NULL, 0, 0 };
	for (uint32_t v = 1; v + 1 < n; v++)
		edge(&t, v, v + 1);
	edge(&t, n - 1, 1);
	struct dom_graph g;
	dom_graph_build(&g, n, t.e, t.ne, NULL);
	uint32_t *idom = dom_idom(&g);
	for (uint32_t v = 2; v < n; v++)
		if (idom[v] != v - 1)
			fail_msg("node %u: idom %u", v, idom[v]);
	assert_int_equal(idom[1], 0);
	double *w = malloc(n * sizeof(double));
	unsigned char *show = malloc(n);
	assert_non_null(w);
	assert_non_null(show);
	all_shown(show, w, n);
	struct dom_row *rows;
	size_t nr = check_layout(&g, idom, w, show, 1000, &rows);
	assert_int_equal(nr, n - 1);
	assert_int_equal(rows[nr - 1].depth, n - 2);
	free(rows);
	free(w);
	free(show);
	free(idom);
	dom_graph_release(&g);
	free(t.e);
}

/* Random graphs: idom equals the brute-force dominators; the layout keeps its promises, also with
 * part of the nodes hidden and with a budget too small to search (every sibling alone). */
static void test_random(void **state)
{
	(void)state;
	srand(12345);
	for (int iter = 0; iter < 300; iter++) {
		uint32_t n = 2 + (uint32_t)(rand() % 40);
		struct tg t = { n, NULL, 0, 0 };
		uint32_t m = (uint32_t)(rand() % (3 * n));
		for (uint32_t i = 0; i < m; i++) {
			uint32_t a = (uint32_t)(rand() % n), b = 1 + (uint32_t)(rand() % (n - 1));
			if (rand() % 4 && a > b) /* mostly downward, some recursion */
				edge(&t, b, a ? a : b);
			else
				edge(&t, a, b);
		}
		struct dom_graph g;
		dom_graph_build(&g, n, t.e, t.ne, NULL);
		uint32_t *idom = dom_idom(&g);
		check_idom_brute(&g, idom);
		double *w = malloc(n * sizeof(double));
		unsigned char *show = malloc(n);
		assert_non_null(w);
		assert_non_null(show);
		for (uint32_t v = 0; v < n; v++) {
			w[v] = rand() % 100;
			show[v] = iter % 3 ? rand() % 2 : 1;
		}
		check_layout(&g, idom, w, show, 1u << 20, NULL);
		check_layout(&g, idom, w, show, 1, NULL);
		free(w);
		free(show);
		free(idom);
		dom_graph_release(&g);
		free(t.e);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_seed),       cmocka_unit_test(test_utility),
		cmocka_unit_test(test_cycles),     cmocka_unit_test(test_cutoff),
		cmocka_unit_test(test_deep_chain), cmocka_unit_test(test_random),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
