/* Dominators (Cooper, Harvey and Kennedy, iterative: a 100 000-deep call chain needs no deep C
 * stack) and the layout of the dominator tree that the Spy report prints. */
#define _GNU_SOURCE /* qsort_r */
#include <stdlib.h>
#include <string.h>

#include "dom.h"
#include "prof.h"

/* Compressed rows of m edges from[i] -> to[i], in the edges' order. */
static void csr(uint32_t n, const uint32_t *from, const uint32_t *to, size_t m, uint32_t **start,
		uint32_t **adj)
{
	uint32_t *s = xcalloc((size_t)n + 2, sizeof(uint32_t));
	uint32_t *a = xmalloc((m + 1) * sizeof(uint32_t));
	for (size_t i = 0; i < m; i++)
		s[from[i] + 2]++;
	for (uint32_t v = 0; v < n; v++)
		s[v + 2] += s[v + 1];
	for (size_t i = 0; i < m; i++)
		a[s[from[i] + 1]++] = to[i];
	*start = s;
	*adj = a;
}

/* Mark what v reaches; stack has room for n nodes. */
static void reach(const uint32_t *s0, const uint32_t *s, uint32_t v, unsigned char *seen, uint32_t *stack)
{
	size_t top = 0;
	if (seen[v])
		return;
	seen[v] = 1;
	stack[top++] = v;
	while (top) {
		uint32_t u = stack[--top];
		for (uint32_t k = s0[u]; k < s0[u + 1]; k++)
			if (!seen[s[k]]) {
				seen[s[k]] = 1;
				stack[top++] = s[k];
			}
	}
}

void dom_graph_build(struct dom_graph *g, uint32_t n, const uint32_t *edges, size_t nedges,
		     const uint32_t *order)
{
	uint32_t *from = xmalloc((nedges + n + 1) * sizeof(uint32_t));
	uint32_t *to = xmalloc((nedges + n + 1) * sizeof(uint32_t));
	uint32_t *indeg = xcalloc((size_t)n + 1, sizeof(uint32_t));
	size_t m = 0;
	for (size_t i = 0; i < nedges; i++) {
		uint32_t a = edges[2 * i], b = edges[2 * i + 1];
		if (a >= n || b >= n || b == 0)
			continue;
		from[m] = a;
		to[m++] = b;
		if (a != b)
			indeg[b]++;
	}
	for (uint32_t v = 1; v < n; v++)
		if (!indeg[v]) {
			from[m] = 0;
			to[m++] = v;
		}
	uint32_t *s0, *s;
	csr(n, from, to, m, &s0, &s);
	unsigned char *seen = xcalloc((size_t)n + 1, 1);
	uint32_t *stack = xmalloc(((size_t)n + 1) * sizeof(uint32_t));
	reach(s0, s, 0, seen, stack);
	for (uint32_t i = 0; i < n; i++) {
		uint32_t v = order ? order[i] : i;
		if (v == 0 || v >= n || seen[v])
			continue;
		from[m] = 0;
		to[m++] = v;
		reach(s0, s, v, seen, stack);
	}
	free(s0);
	free(s);
	free(seen);
	free(stack);
	free(indeg);
	g->n = n;
	csr(n, from, to, m, &g->succ0, &g->succ);
	csr(n, to, from, m, &g->pred0, &g->pred);
	free(from);
	free(to);
}

void dom_graph_release(struct dom_graph *g)
{
	free(g->succ0);
	free(g->succ);
	free(g->pred0);
	free(g->pred);
	memset(g, 0, sizeof(*g));
}

int dom_has_edge(const struct dom_graph *g, uint32_t from, uint32_t to)
{
	if (g->succ0[from + 1] - g->succ0[from] <= g->pred0[to + 1] - g->pred0[to]) {
		for (uint32_t k = g->succ0[from]; k < g->succ0[from + 1]; k++)
			if (g->succ[k] == to)
				return 1;
	} else {
		for (uint32_t k = g->pred0[to]; k < g->pred0[to + 1]; k++)
			if (g->pred[k] == from)
				return 1;
	}
	return 0;
}

uint32_t *dom_idom(const struct dom_graph *g)
{
	uint32_t n = g->n;
	uint32_t *po = xmalloc(((size_t)n + 1) * sizeof(uint32_t));   /* postorder number */
	uint32_t *rpo = xmalloc(((size_t)n + 1) * sizeof(uint32_t));  /* nodes, reverse postorder */
	uint32_t *node = xmalloc(((size_t)n + 1) * sizeof(uint32_t)); /* DFS stack: node */
	uint32_t *pos = xmalloc(((size_t)n + 1) * sizeof(uint32_t));  /* and next successor */
	uint32_t *idom = xmalloc(((size_t)n + 1) * sizeof(uint32_t));
	for (uint32_t v = 0; v < n; v++) {
		po[v] = DOM_NONE;
		idom[v] = DOM_NONE;
	}
	/* po doubles as the visited mark: DOM_NONE - 1 while on the stack */
	uint32_t top = 0, next = 0;
	node[top] = 0;
	pos[top++] = g->succ0[0];
	po[0] = DOM_NONE - 1;
	while (top) {
		uint32_t v = node[top - 1];
		if (pos[top - 1] < g->succ0[v + 1]) {
			uint32_t w = g->succ[pos[top - 1]++];
			if (po[w] == DOM_NONE) {
				po[w] = DOM_NONE - 1;
				node[top] = w;
				pos[top++] = g->succ0[w];
			}
			continue;
		}
		top--;
		po[v] = next;
		rpo[n - 1 - next] = v; /* filled from the end; unreachable nodes leave a gap at the front */
		next++;
	}
	uint32_t first = n - next; /* rpo[first] is the root */
	idom[0] = 0;
	for (int changed = 1; changed;) {
		changed = 0;
		for (uint32_t i = first + 1; i < n; i++) {
			uint32_t v = rpo[i], nd = DOM_NONE;
			for (uint32_t k = g->pred0[v]; k < g->pred0[v + 1]; k++) {
				uint32_t p = g->pred[k];
				if (idom[p] == DOM_NONE)
					continue;
				if (nd == DOM_NONE) {
					nd = p;
					continue;
				}
				uint32_t a = p, b = nd;
				while (a != b) {
					while (po[a] < po[b])
						a = idom[a];
					while (po[b] < po[a])
						b = idom[b];
				}
				nd = a;
			}
			if (nd != DOM_NONE && idom[v] != nd) {
				idom[v] = nd;
				changed = 1;
			}
		}
	}
	free(po);
	free(rpo);
	free(node);
	free(pos);
	return idom;
}

/* Strongly connected components (graph.c's one SCC routine): comp[v] for every node. */
static uint32_t *components(const struct dom_graph *g)
{
	uint32_t *count = xmalloc(((size_t)g->n + 1) * sizeof(uint32_t));
	for (uint32_t v = 0; v < g->n; v++)
		count[v] = g->succ0[v + 1] - g->succ0[v];
	uint32_t *comp = graph_components(g->n, g->succ0, count, g->succ);
	free(count);
	return comp;
}

/* by weight (arg), heaviest first, then by index */
static int by_weight(const void *a, const void *b, void *arg)
{
	const double *w = arg;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	if (w[x] != w[y])
		return w[x] > w[y] ? -1 : 1;
	return x < y ? -1 : x > y;
}

/* Up to this many siblings are split into sets; more (an unusual fan-out) each stand alone. */
#define DOM_SET_MAX 4096u

/*
 * Order kids[0..k) (by weight) into disjoint sets, first fit; set[] gets each kid's set number.
 * A path between two siblings can leave their parent x's subtree, [pre[x], pre[x] + size[x]), only
 * to come back through x itself (an edge from outside into the subtree can only enter at x): so a
 * kid on a cycle with x reaches every sibling, and any other kid reaches only what a search
 * inside the subtree finds.
 */
static void split_sets(const struct dom_graph *g, uint32_t x, uint32_t *kids, uint32_t k, const uint32_t *pre,
		       const uint32_t *size, const uint32_t *comp, uint32_t *set, uint64_t *budget,
		       uint32_t *mark, uint32_t *stamp, uint32_t *sib, uint32_t *stack)
{
	if (k > DOM_SET_MAX || *budget == 0) {
		for (uint32_t i = 0; i < k; i++)
			set[kids[i]] = i;
		return;
	}
	unsigned char *r = xcalloc((size_t)k * k, 1); /* r[i * k + j]: kid i reaches kid j */
	for (uint32_t i = 0; i < k; i++)
		sib[kids[i]] = i + 1;
	int exhausted = 0;
	for (uint32_t i = 0; i < k && !exhausted; i++) {
		size_t top = 0;
		if (comp[kids[i]] == comp[x]) {
			memset(r + (size_t)i * k, 1, k);
			continue;
		}
		++*stamp;
		mark[kids[i]] = *stamp;
		stack[top++] = kids[i];
		while (top && !exhausted) {
			uint32_t u = stack[--top];
			for (uint32_t e = g->succ0[u]; e < g->succ0[u + 1]; e++) {
				uint32_t w = g->succ[e];
				if (*budget == 0) {
					exhausted = 1;
					break;
				}
				--*budget;
				if (sib[w])
					r[(size_t)i * k + sib[w] - 1] = 1;
				if (mark[w] == *stamp || pre[w] < pre[x] || pre[w] >= pre[x] + size[x])
					continue;
				mark[w] = *stamp;
				stack[top++] = w;
			}
		}
	}
	for (uint32_t i = 0; i < k; i++)
		sib[kids[i]] = 0;
	if (exhausted) {
		for (uint32_t i = 0; i < k; i++)
			set[kids[i]] = i;
		free(r);
		return;
	}
	uint32_t *first = xmalloc(((size_t)k + 1) * sizeof(uint32_t)); /* first kid of each set */
	uint32_t *setno = xmalloc(((size_t)k + 1) * sizeof(uint32_t));
	uint32_t nsets = 0;
	uint32_t *blocked =
		xcalloc((size_t)k + 1, sizeof(uint32_t)); /* set -> the last kid it conflicted with + 1 */
	for (uint32_t i = 0; i < k; i++) {
		uint32_t s;
		for (uint32_t j = 0; j < i; j++)
			if (r[(size_t)i * k + j] || r[(size_t)j * k + i])
				blocked[setno[j]] = i + 1;
		for (s = 0; s < nsets && blocked[s] == i + 1; s++)
			;
		if (s == nsets)
			first[nsets++] = i;
		setno[i] = s;
	}
	free(blocked);
	/* sets in order of their heaviest member, members by weight */
	uint32_t *out = xmalloc(((size_t)k + 1) * sizeof(uint32_t)), o = 0;
	for (uint32_t s = 0; s < nsets; s++)
		for (uint32_t i = first[s]; i < k; i++)
			if (setno[i] == s) {
				out[o++] = kids[i];
				set[kids[i]] = s;
			}
	memcpy(kids, out, k * sizeof(uint32_t));
	free(out);
	free(first);
	free(setno);
	free(r);
}

size_t dom_layout(const struct dom_graph *g, const uint32_t *idom, const double *weight,
		  const unsigned char *show, uint64_t *budget, struct dom_row **rows)
{
	uint32_t n = g->n;
	size_t nn = (size_t)n + 1;
	/* the dominator tree's children, by node number */
	uint32_t *c0 = xcalloc(nn + 1, sizeof(uint32_t)), *kid = xmalloc(nn * sizeof(uint32_t));
	for (uint32_t v = 1; v < n; v++)
		if (idom[v] != DOM_NONE)
			c0[idom[v] + 2]++;
	for (uint32_t v = 0; v < n; v++)
		c0[v + 2] += c0[v + 1];
	for (uint32_t v = 1; v < n; v++)
		if (idom[v] != DOM_NONE)
			kid[c0[idom[v] + 1]++] = v;
	/* preorder numbers and subtree sizes; need[v]: v or something under it is shown */
	uint32_t *pre = xmalloc(nn * sizeof(uint32_t)), *size = xmalloc(nn * sizeof(uint32_t));
	uint32_t *order = xmalloc(nn * sizeof(uint32_t)), *stack = xmalloc(nn * sizeof(uint32_t));
	unsigned char *need = xcalloc(nn, 1);
	uint32_t top = 0, cnt = 0;
	for (uint32_t v = 0; v < n; v++)
		pre[v] = DOM_NONE;
	stack[top++] = 0;
	while (top) {
		uint32_t v = stack[--top];
		pre[v] = cnt;
		order[cnt++] = v;
		for (uint32_t k = c0[v]; k < c0[v + 1]; k++)
			stack[top++] = kid[k];
	}
	for (uint32_t i = cnt; i-- > 0;) {
		uint32_t v = order[i];
		size[v] = 1;
		need[v] |= v != 0 && show[v];
		for (uint32_t k = c0[v]; k < c0[v + 1]; k++) {
			size[v] += size[kid[k]];
			need[v] |= need[kid[k]];
		}
	}
	/* each needed node's needed children, by set then weight */
	uint32_t *set = xcalloc(nn, sizeof(uint32_t)), *mark = xcalloc(nn, sizeof(uint32_t));
	uint32_t *sib = xcalloc(nn, sizeof(uint32_t)), *bfs = xmalloc((g->succ0[n] + nn) * sizeof(uint32_t));
	uint32_t *comp = components(g);
	uint32_t *nk = xcalloc(nn, sizeof(uint32_t)), *posn = xcalloc(nn, sizeof(uint32_t)), stamp = 0;
	for (uint32_t i = 0; i < cnt; i++) {
		uint32_t v = order[i];
		if (!need[v])
			continue;
		uint32_t k = c0[v], j = c0[v];
		for (; k < c0[v + 1]; k++)
			if (need[kid[k]])
				kid[j++] = kid[k];
		nk[v] = j - c0[v];
		qsort_r(kid + c0[v], nk[v], sizeof(uint32_t), by_weight, (void *)weight);
		if (nk[v] > 1)
			split_sets(g, v, kid + c0[v], nk[v], pre, size, comp, set, budget, mark, &stamp, sib,
				   bfs);
		for (uint32_t q = 0; q < nk[v]; q++)
			posn[kid[c0[v] + q]] = q;
	}
	/* the rows, in preorder; depth[] kept per node */
	size_t nr = 0, alloc = 0;
	struct dom_row *r = NULL;
	uint32_t *depth = xcalloc(nn, sizeof(uint32_t));
	top = 0;
	for (uint32_t k = nk[0]; k-- > 0;)
		stack[top++] = kid[c0[0] + k];
	while (top) {
		uint32_t v = stack[--top], p = idom[v], at = posn[v];
		GROW(r, nr, alloc);
		struct dom_row *row = &r[nr++];
		memset(row, 0, sizeof(*row));
		row->node = v;
		row->parent = p;
		row->depth = depth[v] = p == 0 ? 0 : depth[p] + 1;
		row->set = set[v];
		row->enter = at > 0 && set[kid[c0[p] + at - 1]] == set[v] ? '!' : '.';
		row->lead = at + 1 == nk[p] ? ' ' : set[kid[c0[p] + at + 1]] == set[v] ? '!' : '.';
		row->indirect = p != 0 && !dom_has_edge(g, p, v);
		for (uint32_t k = nk[v]; k-- > 0;)
			stack[top++] = kid[c0[v] + k];
	}
	free(c0);
	free(kid);
	free(pre);
	free(size);
	free(order);
	free(stack);
	free(need);
	free(set);
	free(mark);
	free(sib);
	free(bfs);
	free(nk);
	free(posn);
	free(comp);
	free(depth);
	*rows = r;
	return nr;
}
