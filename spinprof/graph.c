/* The call graph's analysis: arc lists, cycles found by an iterative Tarjan SCC (deep graphs
 * cannot overflow the stack), numbered as gprof numbers them, then time: gprof's propagation over
 * the condensed DAG, or the measured cycles of a spy time profile; finally gprof's index order. */
#include <stdlib.h>
#include <string.h>

#include "prof.h"

/* Arc index lists grouped by parent and by child, each in the arcs' first-seen order. */
static void graph_lists(struct prof *p)
{
	size_t n = p->nr;
	for (size_t i = 0; i < n; i++)
		p->items[i].nchild = p->items[i].nparent = 0;
	for (size_t i = 0; i < p->narcs; i++) {
		p->items[p->arcs[i].parent].nchild++;
		p->items[p->arcs[i].child].nparent++;
	}
	uint32_t c = 0, q = 0;
	for (size_t i = 0; i < n; i++) {
		p->items[i].child0 = c;
		p->items[i].parent0 = q;
		c += p->items[i].nchild;
		q += p->items[i].nparent;
		p->items[i].nchild = p->items[i].nparent = 0;
	}
	free(p->child_arcs);
	free(p->parent_arcs);
	p->child_arcs = xmalloc((p->narcs + 1) * sizeof(uint32_t));
	p->parent_arcs = xmalloc((p->narcs + 1) * sizeof(uint32_t));
	for (size_t i = 0; i < p->narcs; i++) {
		struct prof_func *pa = &p->items[p->arcs[i].parent], *ch = &p->items[p->arcs[i].child];
		p->child_arcs[pa->child0 + pa->nchild++] = (uint32_t)i;
		p->parent_arcs[ch->parent0 + ch->nparent++] = (uint32_t)i;
	}
}

/* Tarjan's SCC without recursion. Roots are taken in address order and children in the order
 * gprof's cg_dfn visits them (latest arc first), so each component's root is gprof's cycle head.
 * Components are numbered in the order they complete: callees before callers. Returns, per
 * component, its root in roots[] (caller frees), the count in *nscc. */
static uint32_t *graph_scc(struct prof *p, size_t *nscc)
{
	size_t n = p->nsyms, top = 0, ctop = 0, count = 0;
	uint32_t *idx = xmalloc((n + 1) * sizeof(uint32_t));
	uint32_t *low = xmalloc((n + 1) * sizeof(uint32_t));
	uint32_t *stack = xmalloc((n + 1) * sizeof(uint32_t));
	uint32_t *cnode = xmalloc((n + 1) * sizeof(uint32_t));
	uint32_t *cpos = xmalloc((n + 1) * sizeof(uint32_t));
	uint32_t *roots = xmalloc((n + 1) * sizeof(uint32_t));
	unsigned char *on = xcalloc(n + 1, 1);
	uint32_t next_idx = 1;
	for (size_t i = 0; i < n; i++)
		idx[i] = 0;
	for (size_t r = 0; r < n; r++) {
		if (idx[r])
			continue;
		cnode[0] = (uint32_t)r;
		cpos[0] = p->items[r].nchild;
		ctop = 1;
		idx[r] = low[r] = next_idx++;
		stack[top++] = (uint32_t)r;
		on[r] = 1;
		while (ctop) {
			uint32_t v = cnode[ctop - 1];
			struct prof_func *fv = &p->items[v];
			if (cpos[ctop - 1] > 0) {
				uint32_t a = p->child_arcs[fv->child0 + --cpos[ctop - 1]];
				uint32_t w = p->arcs[a].child;
				if (!idx[w]) {
					idx[w] = low[w] = next_idx++;
					stack[top++] = w;
					on[w] = 1;
					cnode[ctop] = w;
					cpos[ctop] = p->items[w].nchild;
					ctop++;
				} else if (on[w] && idx[w] < low[v]) {
					low[v] = idx[w];
				}
				continue;
			}
			ctop--;
			if (ctop && low[v] < low[cnode[ctop - 1]])
				low[cnode[ctop - 1]] = low[v];
			if (low[v] == idx[v]) {
				uint32_t w;
				do {
					w = stack[--top];
					on[w] = 0;
					p->items[w].scc = (uint32_t)count;
					p->items[w].head = v;
				} while (w != v);
				roots[count++] = v;
			}
		}
	}
	free(idx);
	free(low);
	free(stack);
	free(cnode);
	free(cpos);
	free(on);
	*nscc = count;
	return roots;
}

/* gprof's cycle_link: a header per cycle, numbered in its head's address order. */
static void graph_cycles(struct prof *p)
{
	size_t n = p->nsyms;
	uint32_t *last = xmalloc((n + 1) * sizeof(uint32_t));
	/* members chained from their head, in address order */
	for (size_t i = 0; i < n; i++) {
		p->items[i].next = PROF_NONE;
		last[i] = (uint32_t)i;
	}
	for (size_t i = 0; i < n; i++) {
		uint32_t h = p->items[i].head;
		if (h != i) {
			p->items[last[h]].next = (uint32_t)i;
			last[h] = (uint32_t)i;
		}
	}
	free(last);
	int num = 0;
	for (size_t i = 0; i < n; i++) {
		if (p->items[i].head != i || p->items[i].next == PROF_NONE)
			continue;
		uint32_t c = prof_add_func(p, NULL, 0, 0);
		p->nsyms = n;
		struct prof_func *cyc = &p->items[c];
		cyc->cyc = ++num;
		cyc->next = (uint32_t)i;
		cyc->scc = p->items[i].scc;
		for (uint32_t m = (uint32_t)i; m != PROF_NONE; m = p->items[m].next) {
			p->items[m].cyc = num;
			p->items[m].head = c;
		}
		for (uint32_t m = (uint32_t)i; m != PROF_NONE; m = p->items[m].next) {
			struct prof_func *fm = &p->items[m];
			cyc->ncalls += fm->spont;
			for (uint32_t k = 0; k < fm->nparent; k++) {
				const struct prof_arc *a = &p->arcs[p->parent_arcs[fm->parent0 + k]];
				if (a->parent == m)
					continue;
				if (p->items[a->parent].cyc == num)
					cyc->self_calls += a->count;
				else
					cyc->ncalls += a->count;
			}
		}
	}
	for (size_t i = 0; i < n; i++)
		if (p->items[i].cyc == 0)
			p->items[i].head = (uint32_t)i;
	p->ncycles = p->nr - n;
}

/* gprof's propagate_time for one function (fractions are all 1: no -f/-e options). */
static void propagate(struct prof *p, uint32_t pi)
{
	struct prof_func *parent = &p->items[pi];
	for (uint32_t k = 0; k < parent->nchild; k++) {
		struct prof_arc *a = &p->arcs[p->child_arcs[parent->child0 + k]];
		uint32_t ci = a->child;
		if (a->count == 0 || ci == pi)
			continue;
		struct prof_func *child = &p->items[ci];
		if (child->head != ci) {
			if (parent->cyc == child->cyc)
				continue;
			child = &p->items[child->head];
		}
		if (child->ncalls == 0)
			continue;
		a->time = child->time * ((double)a->count / (double)child->ncalls);
		a->child_time = child->child_time * ((double)a->count / (double)child->ncalls);
		double share = a->time + a->child_time;
		parent->child_time += share;
		parent->prop_child += share;
		if (parent->head != pi) {
			p->items[parent->head].child_time += share;
			p->items[parent->head].prop_child += share;
		}
	}
}

/* Spy time mode: the measured cycles, already corrected by the reader. An arc's self and child
 * are its share (by inclusive time) of its callee's, or of its callee's cycle's. */
static void measured_times(struct prof *p, const uint32_t *order)
{
	/* Hook overhead out of inclusive times: each component (callees first) keeps the share of
	 * its raw cycles that its corrected self and its calls out leave. */
	for (size_t i = 0; i < p->narcs; i++)
		p->arcs[i].m_incl_raw = p->arcs[i].m_incl;
	for (size_t i = 0; i < p->nsyms;) {
		size_t j = i;
		double raw = 0, cor = 0;
		uint32_t scc = p->items[order[i]].scc;
		for (; j < p->nsyms && p->items[order[j]].scc == scc; j++) {
			const struct prof_func *f = &p->items[order[j]];
			raw += f->m_self_raw;
			cor += f->m_self;
			for (uint32_t k = 0; k < f->nchild; k++) {
				const struct prof_arc *a = &p->arcs[p->child_arcs[f->child0 + k]];
				if (p->items[a->child].scc != scc) {
					raw += a->m_incl_raw;
					cor += a->m_incl;
				}
			}
		}
		double ratio = raw > 0 ? cor / raw : 1;
		for (size_t k = i; k < j; k++) {
			struct prof_func *f = &p->items[order[k]];
			f->m_incl *= ratio;
			f->m_spont_incl *= ratio;
			if (f->m_incl < f->m_self)
				f->m_incl = f->m_self;
			for (uint32_t q = 0; q < f->nparent; q++)
				p->arcs[p->parent_arcs[f->parent0 + q]].m_incl *= ratio;
		}
		i = j;
	}
	for (size_t i = 0; i < p->nr; i++) {
		struct prof_func *f = &p->items[i];
		if (i >= p->nsyms)
			continue;
		f->time = f->prop_self = f->m_self;
		f->prop_child = f->m_incl > f->m_self ? f->m_incl - f->m_self : 0;
		f->child_time = f->prop_child;
		if (f->head != i) {
			struct prof_func *h = &p->items[f->head];
			h->time += f->m_self;
			h->prop_self += f->m_self;
		}
	}
	/* a cycle's inclusive time: what enters it from outside */
	for (size_t i = 0; i < p->nsyms; i++) {
		struct prof_func *f = &p->items[i];
		if (f->head == i)
			continue;
		struct prof_func *h = &p->items[f->head];
		h->m_incl += f->m_spont_incl;
		for (uint32_t k = 0; k < f->nparent; k++) {
			const struct prof_arc *a = &p->arcs[p->parent_arcs[f->parent0 + k]];
			if (p->items[a->parent].cyc != f->cyc)
				h->m_incl += a->m_incl;
		}
	}
	for (size_t i = p->nsyms; i < p->nr; i++) {
		struct prof_func *h = &p->items[i];
		h->prop_child = h->m_incl > h->prop_self ? h->m_incl - h->prop_self : 0;
		h->child_time = h->prop_child;
	}
	for (size_t i = 0; i < p->narcs; i++) {
		struct prof_arc *a = &p->arcs[i];
		const struct prof_func *c = &p->items[p->items[a->child].head];
		double incl = c->prop_self + c->prop_child;
		double fs = incl > 0 ? c->prop_self / incl : 0;
		a->time = a->m_incl * fs;
		a->child_time = a->m_incl - a->time;
	}
}

static int cmp_total(const struct prof_func *l, const struct prof_func *r)
{
	double diff = (l->prop_self + l->prop_child) - (r->prop_self + r->prop_child);
	if (diff < 0.0)
		return 1;
	if (diff > 0.0)
		return -1;
	if (!l->name && l->cyc != 0)
		return -1;
	if (!r->name && r->cyc != 0)
		return 1;
	if (!l->name)
		return -1;
	if (!r->name)
		return 1;
	if (l->name[0] != '_' && r->name[0] == '_')
		return -1;
	if (l->name[0] == '_' && r->name[0] != '_')
		return 1;
	if (l->ncalls > r->ncalls)
		return -1;
	if (l->ncalls < r->ncalls)
		return 1;
	return strcmp(l->name, r->name);
}

static const struct prof *sort_prof;

static int cmp_total_idx(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	int c = cmp_total(&sort_prof->items[x], &sort_prof->items[y]);
	if (c)
		return c;
	if (!sort_prof->items[x].name && !sort_prof->items[y].name)
		return sort_prof->items[x].cyc - sort_prof->items[y].cyc;
	return x < y ? -1 : x > y;
}

void graph_analyse(struct prof *p)
{
	graph_lists(p);
	for (size_t i = 0; i < p->nsyms; i++) {
		struct prof_func *f = &p->items[i];
		f->print_flag = 1;
		f->self_calls = 0;
		for (uint32_t k = 0; k < f->nchild; k++) {
			const struct prof_arc *a = &p->arcs[p->child_arcs[f->child0 + k]];
			if (a->child == i) {
				f->ncalls -= a->count < f->ncalls ? a->count : f->ncalls;
				f->self_calls = a->count;
			}
		}
	}
	size_t nscc;
	uint32_t *roots = graph_scc(p, &nscc);
	graph_cycles(p);
	for (size_t i = p->nsyms; i < p->nr; i++)
		p->items[i].print_flag = 1;
	/* bottom up: components complete callees first; all members of one before the next */
	uint32_t *order = xmalloc((p->nsyms + 1) * sizeof(uint32_t));
	uint32_t *start = xcalloc(nscc + 2, sizeof(uint32_t));
	for (size_t i = 0; i < p->nsyms; i++)
		start[p->items[i].scc + 1]++;
	for (size_t s = 0; s < nscc; s++)
		start[s + 1] += start[s];
	for (size_t i = 0; i < p->nsyms; i++)
		order[start[p->items[i].scc]++] = (uint32_t)i;
	if (p->measured) {
		measured_times(p, order);
	} else {
		for (size_t i = 0; i < p->nsyms; i++) {
			struct prof_func *f = &p->items[i];
			f->prop_self = f->time;
			if (f->head != i)
				p->items[f->head].time += f->time;
		}
		for (size_t i = p->nsyms; i < p->nr; i++)
			p->items[i].prop_self = p->items[i].time;
		for (size_t i = 0; i < p->nsyms; i++)
			propagate(p, order[i]);
	}
	free(order);
	free(start);
	free(roots);
	free(p->time_order);
	p->time_order = xmalloc((p->nr + 1) * sizeof(uint32_t));
	for (size_t i = 0; i < p->nr; i++)
		p->time_order[i] = (uint32_t)i;
	sort_prof = p;
	qsort(p->time_order, p->nr, sizeof(uint32_t), cmp_total_idx);
	for (size_t i = 0; i < p->nr; i++)
		p->items[p->time_order[i]].index = (uint32_t)i + 1;
}
