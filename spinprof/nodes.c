/* The NODES records of a profile summed: nodes by name, legs by their two nodes' names. */
#include <stdlib.h>
#include <string.h>

#include "nodes.h"

static size_t node_index(struct nodes_model *m, const struct gmon_node *d)
{
	for (size_t i = 0; i < m->nnodes; i++)
		if (!strcmp(m->nodes[i].name, d->name))
			return i;
	m->nodes = xrealloc(m->nodes, (m->nnodes + 1) * sizeof(*m->nodes));
	memset(&m->nodes[m->nnodes], 0, sizeof(*m->nodes));
	m->nodes[m->nnodes].name = d->name;
	m->nodes[m->nnodes].file = d->file;
	m->nodes[m->nnodes].line = d->line;
	return m->nnodes++;
}

/* Add g into h; a histogram of another shape is left out and said. */
static void hist_add(struct nm_hist *h, const struct gmon_nhist *g)
{
	if (!g->kind || !g->buckets)
		return;
	if (!h->h.kind) {
		h->h = *g; /* its under and over, and its shape */
		h->h.buckets = xcalloc(g->nbuckets, sizeof(*g->buckets));
	} else if (h->h.kind != g->kind || h->h.nbuckets != g->nbuckets || h->h.base != g->base ||
		   h->h.scale != g->scale) {
		h->mixed = 1;
		return;
	} else {
		h->h.under += g->under;
		h->h.over += g->over;
	}
	for (uint32_t i = 0; i < g->nbuckets; i++)
		h->h.buckets[i] += g->buckets[i];
}

int nodes_model_build(struct nodes_model *m, const struct prof *p)
{
	const struct gmon_profile *g = &p->spy;

	memset(m, 0, sizeof(*m));
	if (p->kind != PROF_SPY || !g->nnodesets)
		return -1;
	m->track = g->nodesets[0].track;
	m->add = g->nodesets[0].add;
	for (uint32_t r = 0; r < g->nnodesets; r++) {
		const struct gmon_nodes *n = &g->nodesets[r];
		size_t *map = xcalloc(n->nnodes + 1, sizeof(*map));

		m->thread_only |= (n->flags & GMON_NODES_THREAD_ONLY) != 0;
		m->dropped += n->dropped;
		for (uint32_t i = 0; i < n->nnodes; i++) {
			const struct gmon_node *d = &n->nodes[i];
			struct nm_node *x;

			map[i] = node_index(m, d);
			x = &m->nodes[map[i]];
			x->hits += d->hits;
			if (d->nvalues) {
				if (!x->nvalues || d->value_min < x->min)
					x->min = d->value_min;
				if (d->value_max > x->max)
					x->max = d->value_max;
			}
			x->nvalues += d->nvalues;
			x->sum += d->value_sum;
			hist_add(&x->hist, &d->hist);
		}
		for (uint32_t i = 0; i < n->nlegs; i++) {
			const struct gmon_leg *l = &n->legs[i];
			uint32_t a = (uint32_t)map[l->from], b = (uint32_t)map[l->to];
			struct nm_leg *x = NULL;

			for (size_t k = 0; k < m->nlegs && !x; k++)
				if (m->legs[k].from == a && m->legs[k].to == b)
					x = &m->legs[k];
			if (!x) {
				m->legs = xrealloc(m->legs, (m->nlegs + 1) * sizeof(*m->legs));
				x = &m->legs[m->nlegs++];
				memset(x, 0, sizeof(*x));
				x->from = a;
				x->to = b;
			}
			if (l->count) {
				if (!x->count || l->min_ns < x->min_ns)
					x->min_ns = l->min_ns;
				if (l->max_ns > x->max_ns)
					x->max_ns = l->max_ns;
				x->nthreads++;
			}
			x->count += l->count;
			x->total_ns += l->total_ns;
			x->ignored += l->ignored;
			x->open += l->open;
			hist_add(&x->hist, &l->hist);
		}
		free(map);
	}
	return 0;
}

void nodes_model_release(struct nodes_model *m)
{
	for (size_t i = 0; i < m->nnodes; i++)
		free(m->nodes[i].hist.h.buckets);
	for (size_t i = 0; i < m->nlegs; i++)
		free(m->legs[i].hist.h.buckets);
	free(m->nodes);
	free(m->legs);
	memset(m, 0, sizeof(*m));
}
