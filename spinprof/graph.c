/* The call graph's analysis: arc lists, cycles found by gprof's depth-first search made an
 * iterative path-based SCC (deep graphs cannot overflow the stack), numbered as gprof numbers them, then time: gprof's propagation over
 * the condensed DAG, or the measured cycles of a spy time profile; finally gprof's index order. */
#define _GNU_SOURCE /* qsort_r */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "prof.h"
#include "symspec.h"

/* Arc index lists grouped by parent and by child, each in the arcs' first-seen order. The counts
 * and cursors are kept in small arrays of their own (a function's struct is big, and the arcs
 * reach the functions at random). Returns, in the order of child_arcs, each arc's child, and in
 * *parent_of in the order of parent_arcs each arc's parent (caller frees both). */
static uint32_t *graph_lists(struct prof *p, uint32_t **parent_of)
{
	size_t n = p->nr;
	uint32_t *cpos = xcalloc(n + 1, sizeof(uint32_t)), *ppos = xcalloc(n + 1, sizeof(uint32_t));
	for (size_t i = 0; i < p->narcs; i++) {
		cpos[p->arcs[i].parent]++;
		ppos[p->arcs[i].child]++;
	}
	uint32_t c = 0, q = 0;
	for (size_t i = 0; i < n; i++) {
		struct prof_func *f = &p->items[i];
		f->nchild = cpos[i];
		f->nparent = ppos[i];
		f->child0 = cpos[i] = c;
		f->parent0 = ppos[i] = q;
		c += f->nchild;
		q += f->nparent;
	}
	free(p->child_arcs);
	free(p->parent_arcs);
	p->child_arcs = xmalloc((p->narcs + 1) * sizeof(uint32_t));
	p->parent_arcs = xmalloc((p->narcs + 1) * sizeof(uint32_t));
	uint32_t *child_of = xmalloc((p->narcs + 1) * sizeof(uint32_t));
	*parent_of = xmalloc((p->narcs + 1) * sizeof(uint32_t));
	for (size_t i = 0; i < p->narcs; i++) {
		uint32_t pa = p->arcs[i].parent, ch = p->arcs[i].child, k = cpos[pa]++, l = ppos[ch]++;
		p->child_arcs[k] = (uint32_t)i;
		child_of[k] = ch;
		p->parent_arcs[l] = (uint32_t)i;
		(*parent_of)[l] = pa;
	}
	free(cpos);
	free(ppos);
	return child_of;
}

/* gprof's cg_dfn, iterative (deep graphs): a depth-first search from each function in address
 * order, children newest arc first (gprof prepends each arc to its parent's list), that gloms the
 * functions above a busy one on its stack into one cycle. This is spinprof's one SCC routine (a
 * path-based one: the cycles, and the functions on none, are the strongly connected components,
 * and top numbers them in the order they complete, callees first, as Tarjan's would); what it
 * adds is which member heads each (head), the members' order (next), which number the cycles and
 * order their members on ties, and gprof's top_order. gprof scans its stack at each cycle found;
 * here the stack's real heads are kept apart (roots) and heads are a union-find, for the same
 * result in linear time. */
struct dfn {
	uint32_t *head;        /* union-find: the real head is the root */
	uint32_t *next, *tail; /* a real head's chain of members, and its last */
	uint32_t *top;         /* gprof's cg.top_order */
	uint32_t *pos;         /* place on the stack, PROF_NONE when off it */
	struct dfn_frame {
		uint32_t f, k, lo; /* the function, and its child arcs not yet followed: [lo, k) */
	} * st;
	uint32_t *roots; /* stack places of the real heads on the stack, increasing */
	size_t depth, nroots;
};

static uint32_t dfn_find(struct dfn *d, uint32_t x)
{
	uint32_t r = x;
	while (d->head[r] != r)
		r = d->head[r];
	while (d->head[x] != r) {
		uint32_t nx = d->head[x];
		d->head[x] = r;
		x = nx;
	}
	return r;
}

/* gprof's find_cycle: child is busy (on the stack, or glommed into a cycle whose head is). */
static void dfn_cycle(struct dfn *d, uint32_t child)
{
	uint32_t top = d->pos[child] != PROF_NONE ? d->pos[child] : d->pos[dfn_find(d, child)];
	if (top == PROF_NONE || top + 1 >= d->depth) /* not found, or it calls itself */
		return;
	uint32_t head = dfn_find(d, d->st[top].f);
	size_t k = d->nroots;
	while (k > 0 && d->roots[k - 1] > top)
		k--;
	uint32_t tail = d->tail[head];
	for (size_t i = k; i < d->nroots; i++) { /* in stack order, each bringing its own chain */
		uint32_t c = d->st[d->roots[i]].f;
		d->next[tail] = c;
		tail = d->tail[c];
		d->head[c] = head;
	}
	d->tail[head] = tail;
	d->nroots = k;
}

static void dfn_push(struct dfn *d, unsigned char *state, uint32_t f, const uint32_t *c0, const uint32_t *nc)
{
	state[f] = 1;
	d->pos[f] = (uint32_t)d->depth;
	d->roots[d->nroots++] = (uint32_t)d->depth;
	d->st[d->depth++] = (struct dfn_frame){ f, c0[f] + nc[f], c0[f] };
}

/* The search; child_of: graph_lists' children in child_arcs' order. The functions' lists are
 * read from small arrays of their own (the functions' structs are big, the arcs reach them at
 * random). Returns the number of cycles and functions off any cycle (the components), numbered
 * in top from 1 in the order they complete: callees before callers. */
static uint32_t dfn_search(size_t n, const uint32_t *c0, const uint32_t *nc, const uint32_t *child_of,
			   struct dfn *d)
{
	unsigned char *state = xcalloc(n + 1, 1); /* 0 not seen, 1 busy, 2 numbered */
	d->head = xmalloc((n + 1) * sizeof(uint32_t));
	d->next = xmalloc((n + 1) * sizeof(uint32_t));
	d->tail = xmalloc((n + 1) * sizeof(uint32_t));
	d->top = xmalloc((n + 1) * sizeof(uint32_t));
	d->pos = xmalloc((n + 1) * sizeof(uint32_t));
	d->st = xmalloc((n + 1) * sizeof(*d->st));
	d->roots = xmalloc((n + 1) * sizeof(uint32_t));
	d->depth = d->nroots = 0;
	uint32_t counter = 0;
	for (size_t i = 0; i < n; i++) {
		d->head[i] = d->tail[i] = (uint32_t)i;
		d->next[i] = d->pos[i] = PROF_NONE;
	}
	for (size_t root = 0; root < n; root++) {
		if (state[root])
			continue;
		dfn_push(d, state, (uint32_t)root, c0, nc);
		while (d->depth > 0) {
			struct dfn_frame *fr = &d->st[d->depth - 1];
			if (fr->k == fr->lo) { /* post_visit */
				uint32_t f = fr->f;
				if (d->head[f] == f) {
					counter++;
					for (uint32_t m = f; m != PROF_NONE; m = d->next[m]) {
						state[m] = 2;
						d->top[m] = counter;
					}
					d->nroots--;
				}
				d->pos[f] = PROF_NONE;
				d->depth--;
				continue;
			}
			uint32_t c = child_of[--fr->k];
			if (state[c] == 2)
				continue;
			if (state[c] == 1)
				dfn_cycle(d, c);
			else
				dfn_push(d, state, c, c0, nc);
		}
	}
	for (size_t i = 0; i < n; i++)
		d->head[i] = dfn_find(d, (uint32_t)i);
	free(state);
	free(d->tail);
	free(d->pos);
	free(d->st);
	free(d->roots);
	return counter;
}

static uint32_t graph_dfn(const struct prof *p, const uint32_t *child_of, struct dfn *d)
{
	size_t n = p->nsyms;
	uint32_t *c0 = xmalloc((n + 1) * sizeof(uint32_t)), *nc = xmalloc((n + 1) * sizeof(uint32_t));
	for (size_t i = 0; i < n; i++) {
		c0[i] = p->items[i].child0;
		nc[i] = p->items[i].nchild;
	}
	uint32_t count = dfn_search(n, c0, nc, child_of, d);
	free(c0);
	free(nc);
	return count;
}

uint32_t *graph_components(uint32_t n, const uint32_t *first, const uint32_t *count, const uint32_t *succ)
{
	struct dfn d;
	dfn_search(n, first, count, succ, &d);
	free(d.head);
	free(d.next);
	for (uint32_t v = 0; v < n; v++)
		d.top[v]--;
	return d.top;
}

/* gprof's cycle_link: a header per cycle, numbered in its head's address order, its members in
 * the search's order. */
static uint32_t *graph_cycles(struct prof *p, const uint32_t *child_of, size_t *nscc)
{
	size_t n = p->nsyms;
	struct dfn d;
	*nscc = graph_dfn(p, child_of, &d);
	for (size_t i = 0; i < n; i++) {
		p->items[i].next = d.next[i];
		p->items[i].head = d.head[i];
		p->items[i].scc = d.top[i] - 1;
	}
	free(d.head);
	uint32_t *top = d.top;
	int num = 0;
	size_t base = p->nr; /* the first cycle header's index */
	for (size_t i = 0; i < n; i++) {
		if (p->items[i].head != i || p->items[i].next == PROF_NONE)
			continue;
		uint32_t c = prof_add_func(p, NULL, 0, 0);
		p->nsyms = n;
		struct prof_func *cyc = &p->items[c];
		cyc->cyc = ++num;
		cyc->next = (uint32_t)i;
		cyc->scc = p->items[i].scc;
		/* the chain followed in d.next: the members' structs are then loaded side by side,
		 * not each after the one before (a big cycle's are all over a big array) */
		for (uint32_t m = (uint32_t)i; m != PROF_NONE; m = d.next[m]) {
			p->items[m].cyc = num;
			p->items[m].head = c;
			cyc->ncalls += p->items[m].spont;
		}
	}
	free(d.next);
	/* calls into each cycle from outside, and among its members: one pass over the arcs, with
	 * the cycles in an array of their own */
	if (num > 0) {
		int *cycof = xmalloc((n + 1) * sizeof(int));
		for (size_t i = 0; i < n; i++)
			cycof[i] = p->items[i].cyc;
		for (size_t i = 0; i < p->narcs; i++) {
			const struct prof_arc *a = &p->arcs[i];
			int cc = cycof[a->child];
			if (cc == 0 || a->parent == a->child)
				continue;
			struct prof_func *h = &p->items[base + (size_t)cc - 1];
			if (cycof[a->parent] == cc)
				h->self_calls += a->count;
			else
				h->ncalls += a->count;
		}
		free(cycof);
	}
	for (size_t i = 0; i < n; i++)
		if (p->items[i].cyc == 0)
			p->items[i].head = (uint32_t)i;
	p->ncycles = p->nr - n;
	return top;
}

/* gprof's print_time, summed in its propagate_flags order (top_order descending; the members of a
 * cycle, which share one, in reverse address order): the same sum to the last bit. */
static double print_time_sum(const struct prof *p, const uint32_t *top)
{
	size_t n = p->nsyms;
	uint32_t *start = xcalloc(n + 2, sizeof(uint32_t)), *idx = xmalloc((n + 1) * sizeof(uint32_t));
	for (size_t i = 0; i < n; i++)
		start[top[i]]++;
	for (size_t t = 1; t <= n + 1; t++)
		start[t] += start[t - 1];
	for (size_t i = 0; i < n; i++)
		idx[start[top[i] - 1]++] = (uint32_t)i;
	double sum = 0.0;
	for (size_t k = n; k-- > 0;) {
		const struct prof_func *f = &p->items[idx[k]];
		sum += p->measured ? f->time : f->prop_self;
	}
	free(start);
	free(idx);
	return sum;
}

/* gprof's propagate_time for one function: a child's time is shared among its callers by calls,
 * and the part a caller's own callers see is its prop_fract (1 unless -n/-N/-E/-F say otherwise). */
static void propagate(struct prof *p, uint32_t pi)
{
	struct prof_func *parent = &p->items[pi];
	if (parent->prop_fract == 0.0)
		return;
	for (uint32_t k = parent->nchild; k-- > 0;) { /* gprof's list: newest arc first */
		struct prof_arc *a = &p->arcs[p->child_arcs[parent->child0 + k]];
		uint32_t ci = a->child;
		struct prof_func *child = &p->items[ci];
		if (a->count == 0 || ci == pi || child->prop_fract == 0.0)
			continue;
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
		double prop_share = parent->prop_fract * share;
		parent->child_time += share;
		parent->prop_child += prop_share;
		/* printed: the part the caller's own callers see */
		a->time *= parent->prop_fract;
		a->child_time *= parent->prop_fract;
		if (parent->head != pi) {
			p->items[parent->head].child_time += share;
			p->items[parent->head].prop_child += prop_share;
		}
	}
}

static int spec_in(const struct prof_func *f, enum symspec_table t)
{
	return (f->spec >> t) & 1;
}

/* gprof's inherit_flags: a function is printed when a caller is, and sees the callers' fractions
 * weighted by their calls; a cycle's members, what calls come into the cycle from outside. */
static void inherit_flags(struct prof *p, uint32_t ci, const uint32_t *parent_of, const uint32_t *head_of,
			  const uint32_t *next_of)
{
	struct prof_func *child = &p->items[ci];
	if (child->head == ci) {
		child->print_flag = 0;
		child->prop_fract = 0.0;
		for (uint32_t k = child->nparent; k-- > 0;) { /* gprof's list: newest arc first */
			if (parent_of[child->parent0 + k] == ci)
				continue;
			const struct prof_arc *a = &p->arcs[p->parent_arcs[child->parent0 + k]];
			const struct prof_func *parent = &p->items[a->parent];
			child->print_flag |= parent->print_flag;
			if (child->ncalls != 0)
				child->prop_fract +=
					parent->prop_fract * ((double)a->count / (double)child->ncalls);
		}
		return;
	}
	struct prof_func *head = &p->items[child->head];
	head->print_flag = 0;
	head->prop_fract = 0.0;
	for (uint32_t m = head->next; m != PROF_NONE; m = next_of[m]) {
		const struct prof_func *fm = &p->items[m];
		for (uint32_t k = fm->nparent; k-- > 0;) {
			/* most callers of a big cycle's member are members: told by small arrays */
			if (head_of[parent_of[fm->parent0 + k]] == child->head)
				continue;
			const struct prof_arc *a = &p->arcs[p->parent_arcs[fm->parent0 + k]];
			const struct prof_func *parent = &p->items[a->parent];
			head->print_flag |= parent->print_flag;
			if (head->ncalls != 0)
				head->prop_fract +=
					parent->prop_fract * ((double)a->count / (double)head->ncalls);
		}
	}
	for (uint32_t m = head->next; m != PROF_NONE; m = next_of[m]) {
		p->items[m].print_flag = head->print_flag;
		p->items[m].prop_fract = head->prop_fract;
	}
}

/* gprof's propagate_flags, callers before callees (order is bottom up): what the call graph
 * prints (-q/-Q NAME, -e, -f) and whose time reaches its callers (-n/-N, -E, -F). Sets prop_self. */
static void propagate_flags(struct prof *p, const uint32_t *order, const uint32_t *parent_of)
{
	int incl_graph = (p->spec_used >> SYMSPEC_INCL_GRAPH) & 1;
	int incl_time = (p->spec_used >> SYMSPEC_INCL_TIME) & 1;
	uint32_t old_head = PROF_NONE;
	uint32_t *head_of = xmalloc((p->nsyms + 1) * sizeof(uint32_t));
	uint32_t *next_of = xmalloc((p->nsyms + 1) * sizeof(uint32_t));
	for (size_t i = 0; i < p->nsyms; i++) {
		head_of[i] = p->items[i].head;
		next_of[i] = p->items[i].next;
	}
	for (size_t k = p->nsyms; k-- > 0;) {
		uint32_t ci = order[k];
		struct prof_func *child = &p->items[ci];
		if (child->head != old_head) {
			old_head = child->head;
			inherit_flags(p, ci, parent_of, head_of, next_of);
		}
		if (!child->print_flag) {
			if (spec_in(child, SYMSPEC_INCL_GRAPH) ||
			    (!incl_graph && !spec_in(child, SYMSPEC_EXCL_GRAPH)))
				child->print_flag = 1;
		} else if (!spec_in(child, SYMSPEC_INCL_GRAPH) && spec_in(child, SYMSPEC_EXCL_GRAPH)) {
			child->print_flag = 0;
		}
		if (child->prop_fract == 0.0) {
			if (spec_in(child, SYMSPEC_INCL_TIME) ||
			    (!incl_time && !spec_in(child, SYMSPEC_EXCL_TIME)))
				child->prop_fract = 1.0;
		} else if (!spec_in(child, SYMSPEC_INCL_TIME) && spec_in(child, SYMSPEC_EXCL_TIME)) {
			child->prop_fract = 0.0;
		}
		child->prop_self = child->time * child->prop_fract;
	}
	free(head_of);
	free(next_of);
}

/* The arc from parent to child, or PROF_NONE: the shorter of the two lists is searched. */
static uint32_t arc_between(const struct prof *p, uint32_t parent, uint32_t child)
{
	const struct prof_func *a = &p->items[parent], *b = &p->items[child];
	if (a->nchild <= b->nparent) {
		for (uint32_t k = 0; k < a->nchild; k++)
			if (p->arcs[p->child_arcs[a->child0 + k]].child == child)
				return p->child_arcs[a->child0 + k];
	} else {
		for (uint32_t k = 0; k < b->nparent; k++)
			if (p->arcs[p->parent_arcs[b->parent0 + k]].parent == parent)
				return p->parent_arcs[b->parent0 + k];
	}
	return PROF_NONE;
}

/* Spy count and arcs modes with cpu or wall samples: no propagation by call counts (gprof's
 * trap: a callee's time split among its callers by their calls), the stacks say where time went.
 * A function's (or cycle's) children time is the weight of the stacks it is on, less its self; an
 * arc's is the weight of the stacks it is on, as self when its callee (or the callee's cycle) is
 * charged with the stack's self time, else as children. Each once per stack, for recursion. */
static void sampled_times(struct prof *p)
{
	size_t n = p->nr;
	uint32_t *fstamp = xcalloc(n + 1, sizeof(uint32_t));
	uint32_t *astamp = xcalloc(p->narcs + 1, sizeof(uint32_t));
	double *on = xcalloc(n + 1, sizeof(double));
	for (size_t s = 0; s < p->nstacks; s++) {
		const struct prof_stack *st = &p->stacks[s];
		const uint32_t *fr = p->frames + st->frame0;
		uint32_t stamp = (uint32_t)s + 1;
		for (uint32_t d = 0; d <= st->depth; d++) {
			uint32_t k = d < st->depth ? fr[d] : st->self;
			if (k == PROF_NONE)
				continue;
			uint32_t h = p->items[k].head;
			if (fstamp[k] != stamp) {
				fstamp[k] = stamp;
				on[k] += st->w;
			}
			if (fstamp[h] != stamp) {
				fstamp[h] = stamp;
				on[h] += st->w;
			}
		}
		uint32_t self_head = st->self != PROF_NONE ? p->items[st->self].head : PROF_NONE;
		for (uint32_t d = 0; d + 1 < st->depth; d++) {
			uint32_t ce = fr[d], cr = fr[d + 1];
			if (ce == PROF_NONE || cr == PROF_NONE || ce == cr)
				continue;
			uint32_t a = arc_between(p, cr, ce);
			if (a == PROF_NONE || astamp[a] == stamp)
				continue;
			astamp[a] = stamp;
			if (p->items[ce].head == self_head)
				p->arcs[a].time += st->w;
			else
				p->arcs[a].child_time += st->w;
		}
	}
	for (size_t i = 0; i < n; i++) {
		struct prof_func *f = &p->items[i];
		f->prop_child = f->child_time = on[i] > f->prop_self ? on[i] - f->prop_self : 0;
	}
	free(fstamp);
	free(astamp);
	free(on);
}

/* Spy time mode: the measured cycles, already corrected by the reader. An arc's self and child
 * are its share (by inclusive time) of its callee's, or of its callee's cycle's. child_of and
 * parent_of: graph_lists' far ends of child_arcs and parent_arcs; with per-function arrays of
 * components, cycles and ratios, most arcs need not be read at all. The sums add in the same
 * order as ever (function by function, each list in its order), so the results are the same. */
static void measured_times(struct prof *p, const uint32_t *order, const uint32_t *child_of,
			   const uint32_t *parent_of)
{
	size_t n = p->nsyms;
	uint32_t *scc_of = xmalloc((n + 1) * sizeof(uint32_t));
	int *cyc_of = xmalloc((n + 1) * sizeof(int));
	double *ratio_of = xmalloc((n + 1) * sizeof(double));
	for (size_t i = 0; i < n; i++) {
		scc_of[i] = p->items[i].scc;
		cyc_of[i] = p->items[i].cyc;
	}
	/* Hook overhead out of inclusive times: each component (callees first) keeps the share of
	 * its raw cycles that its corrected self and its calls out leave. */
	for (size_t i = 0; i < p->narcs; i++)
		p->arcs[i].m_incl_raw = p->arcs[i].m_incl;
	for (size_t i = 0; i < n;) {
		size_t j = i;
		double raw = 0, cor = 0;
		uint32_t scc = scc_of[order[i]];
		for (; j < n && scc_of[order[j]] == scc; j++) {
			const struct prof_func *f = &p->items[order[j]];
			raw += f->m_self_raw;
			cor += f->m_self;
			for (uint32_t k = 0; k < f->nchild; k++) {
				uint32_t w = child_of[f->child0 + k];
				if (scc_of[w] != scc) {
					/* a call out: into a component done before, whose ratio its
					 * arcs get below (the same product as when applied at once) */
					const struct prof_arc *a = &p->arcs[p->child_arcs[f->child0 + k]];
					raw += a->m_incl_raw;
					cor += a->m_incl * ratio_of[w];
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
			ratio_of[order[k]] = ratio;
		}
		i = j;
	}
	/* every arc is on its child's parent list once: scale it by its child's component's ratio */
	for (size_t i = 0; i < p->narcs; i++)
		p->arcs[i].m_incl *= ratio_of[p->arcs[i].child];
	for (size_t i = 0; i < n; i++) {
		struct prof_func *f = &p->items[i];
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
	for (size_t i = 0; i < n; i++) {
		struct prof_func *f = &p->items[i];
		if (f->head == i)
			continue;
		struct prof_func *h = &p->items[f->head];
		h->m_incl += f->m_spont_incl;
		for (uint32_t k = 0; k < f->nparent; k++)
			if (cyc_of[parent_of[f->parent0 + k]] != f->cyc)
				h->m_incl += p->arcs[p->parent_arcs[f->parent0 + k]].m_incl;
	}
	for (size_t i = n; i < p->nr; i++) {
		struct prof_func *h = &p->items[i];
		h->prop_child = h->m_incl > h->prop_self ? h->m_incl - h->prop_self : 0;
		h->child_time = h->prop_child;
	}
	/* the share of self in each function's (or its cycle's) inclusive time */
	for (size_t i = 0; i < n; i++) {
		const struct prof_func *c = &p->items[p->items[i].head];
		double incl = c->prop_self + c->prop_child;
		ratio_of[i] = incl > 0 ? c->prop_self / incl : 0;
	}
	for (size_t i = 0; i < p->narcs; i++) {
		struct prof_arc *a = &p->arcs[i];
		a->time = a->m_incl * ratio_of[a->child];
		a->child_time = a->m_incl - a->time;
	}
	free(scc_of);
	free(cyc_of);
	free(ratio_of);
}

/* The index order's key of each function, packed: the sort reads these instead of the functions'
 * big structs. */
struct tkey {
	double total;
	uint64_t ncalls;
	const char *name;
	int cyc, under;
};

/* gprof's cmp_total, then (our addition) address order */
static int cmp_total_idx(const void *a, const void *b, void *arg)
{
	const struct tkey *keys = arg;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	const struct tkey *l = &keys[x], *r = &keys[y];
	double diff = l->total - r->total;
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
	if (!l->under && r->under)
		return -1;
	if (l->under && !r->under)
		return 1;
	if (l->ncalls > r->ncalls)
		return -1;
	if (l->ncalls < r->ncalls)
		return 1;
	int c = strcmp(l->name, r->name);
	return c ? c : x < y ? -1 : x > y;
}

void graph_analyse(struct prof *p)
{
	uint32_t *parent_of, *child_of = graph_lists(p, &parent_of);
	for (size_t i = 0; i < p->nsyms; i++) {
		struct prof_func *f = &p->items[i];
		f->self_calls = 0;
		for (uint32_t k = 0; k < f->nchild; k++) {
			if (child_of[f->child0 + k] != i)
				continue;
			const struct prof_arc *a = &p->arcs[p->child_arcs[f->child0 + k]];
			f->ncalls -= a->count < f->ncalls ? a->count : f->ncalls;
			f->self_calls = a->count;
		}
	}
	size_t nscc;
	uint32_t *top = graph_cycles(p, child_of, &nscc);
	/* bottom up: components complete callees first; all members of one before the next */
	uint32_t *order = xmalloc((p->nsyms + 1) * sizeof(uint32_t));
	uint32_t *start = xcalloc(nscc + 2, sizeof(uint32_t));
	for (size_t i = 0; i < p->nsyms; i++)
		start[p->items[i].scc + 1]++;
	for (size_t s = 0; s < nscc; s++)
		start[s + 1] += start[s];
	for (size_t i = 0; i < p->nsyms; i++)
		order[start[p->items[i].scc]++] = (uint32_t)i;
	propagate_flags(p, order, parent_of);
	if (p->measured) {
		measured_times(p, order, child_of, parent_of);
	} else if (p->sampled) {
		for (size_t i = 0; i < p->nsyms; i++) {
			struct prof_func *f = &p->items[i];
			f->prop_self = f->time;
			if (f->head != i)
				p->items[f->head].time += f->time;
		}
		for (size_t i = p->nsyms; i < p->nr; i++)
			p->items[i].prop_self = p->items[i].time;
		sampled_times(p);
	} else {
		/* gprof's cycle_time: a cycle's time is its members' (in its chain's order) but those
		 * -E left out */
		for (size_t i = p->nsyms; i < p->nr; i++)
			for (uint32_t m = p->items[i].next; m != PROF_NONE; m = p->items[m].next)
				if (p->items[m].prop_fract != 0.0)
					p->items[i].time += p->items[m].time;
		for (size_t i = p->nsyms; i < p->nr; i++)
			p->items[i].prop_self = p->items[i].prop_fract * p->items[i].time;
		for (size_t i = 0; i < p->nsyms; i++)
			propagate(p, order[i]);
	}
	p->print_time = print_time_sum(p, top);
	free(top);
	free(order);
	free(start);
	free(child_of);
	free(parent_of);
	free(p->time_order);
	p->time_order = xmalloc((p->nr + 1) * sizeof(uint32_t));
	for (size_t i = 0; i < p->nr; i++)
		p->time_order[i] = (uint32_t)i;
	struct tkey *keys = xmalloc((p->nr + 1) * sizeof(*keys));
	uint64_t *rk = xmalloc((p->nr + 1) * sizeof(uint64_t));
	int nan = 0;
	for (size_t i = 0; i < p->nr; i++) {
		const struct prof_func *f = &p->items[i];
		const char *key = f->name ? prof_key(f) : NULL;
		keys[i] = (struct tkey){ f->prop_self + f->prop_child, f->ncalls, key, f->cyc,
					 key && key[0] == '_' };
		nan |= isnan(keys[i].total);
		rk[i] = ~prof_key_up(keys[i].total); /* total time decreasing */
	}
	if (nan)
		qsort_r(p->time_order, p->nr, sizeof(uint32_t), cmp_total_idx, keys);
	else
		prof_sort_keyed_r(p->time_order, rk, p->nr, cmp_total_idx, keys);
	free(rk);
	free(keys);
	for (size_t i = 0; i < p->nr; i++)
		p->items[p->time_order[i]].index = (uint32_t)i + 1;
}
