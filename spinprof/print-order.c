/* gprof's -r: a suggested link order of the functions, from the call arcs, by gprof's heuristics
 * (never-called functions last; the functions many hot arcs call grouped first; then chains grown
 * greedily along the heaviest arcs); and -R: the same placement for the object files a map names.
 * Names are printed as the symbol table spells them (gprof's sym->name), one a line. */
#include <stdlib.h>
#include <string.h>

#include "esc.h"
#include "linkmap.h"
#include "print-order.h"
#include "sorted.h"
#include "symspec.h"

/* The placement's state: per node (p's functions, then gprof's symspec copies) its chain neighbours,
 * whether placed, its uses among the hot arcs; per arc whether placed. Arcs are indices into
 * arcs[]: the copies' arcs of count 0 first (gprof adds them before reading gmon.out), then p's. */
struct order {
	const struct prof *p;
	FILE *f;
	const struct prof_arc *arcs;
	size_t narcs, nnodes, ncopy_arcs;
	struct prof_arc *own; /* arcs when there are copies */
	const uint32_t *copy_sym;
	uint32_t *next, *prev;
	unsigned char *placed, *arc_placed;
	uint64_t *nuses;
};

/* Arc indices by count, most first, in a stable sort (sorted.h: glibc's qsort is a merge sort, ties
 * keep their order, which gprof's output depends on). */
static int arc_count_cmp(const void *a, const void *b, void *arg)
{
	const struct prof_arc *arcs = arg;
	uint64_t x = arcs[*(const uint32_t *)a].count, y = arcs[*(const uint32_t *)b].count;
	return x > y ? -1 : x < y;
}

static void sort_arcs(const struct prof_arc *arcs, uint32_t *a, size_t n)
{
	sort_stable(a, n, sizeof(*a), arc_count_cmp, (void *)arcs);
}

static void put_name(struct order *o, uint32_t fn)
{
	size_t ns = o->p->nsyms;
	fprintf(o->f, "%s\n", esc_text(prof_key(&o->p->items[fn < ns ? fn : o->copy_sym[fn - ns]])));
}

/* The end of fn's chain: its last next when it has one, else its first prev. */
static uint32_t chain_end(const struct order *o, uint32_t fn)
{
	if (o->next[fn] != PROF_NONE) {
		while (o->next[fn] != PROF_NONE)
			fn = o->next[fn];
	} else {
		while (o->prev[fn] != PROF_NONE)
			fn = o->prev[fn];
	}
	return fn;
}

/* gprof's order_and_dump_functions_by_arcs: grow chains along arcs[0..n) (sorted, heaviest first);
 * unless all, only within the top 99 % of their counts. The arcs left go to left[*nleft]. Then
 * print the chains, and with all the arcs' unplaced callers. */
static void place(struct order *o, const uint32_t *arcs, size_t n, int all, uint32_t *left, size_t *nleft)
{
	unsigned long long total = 0, sofar = 0;
	if (!all)
		for (size_t i = 0; i < n; i++)
			total += o->arcs[arcs[i]].count;
	for (size_t i = 0; i < n; i++) {
		const struct prof_arc *a = &o->arcs[arcs[i]];
		sofar += a->count;
		if (o->arc_placed[arcs[i]])
			continue;
		uint32_t child = a->child, parent = a->parent;
		if ((!all && (double)sofar / (double)total > 0.99) || o->placed[child] || o->placed[parent]) {
			left[(*nleft)++] = arcs[i];
			continue;
		}
		if (o->next[parent] != PROF_NONE && o->prev[parent] != PROF_NONE &&
		    o->next[child] != PROF_NONE && o->prev[child] != PROF_NONE) {
			left[(*nleft)++] = arcs[i];
			continue;
		}
		/* a lone end joins the nearer end of the other's chain */
		if (o->next[parent] == PROF_NONE && o->prev[parent] == PROF_NONE) {
			uint32_t nx = child, pv = child;
			int nn = 0, np = 0;
			for (; o->next[nx] != PROF_NONE; nn++)
				nx = o->next[nx];
			for (; o->prev[pv] != PROF_NONE; np++)
				pv = o->prev[pv];
			child = nn < np ? nx : pv;
		} else if (o->next[child] == PROF_NONE && o->prev[child] == PROF_NONE) {
			uint32_t nx = parent, pv = parent;
			int nn = 0, np = 0;
			for (; o->next[nx] != PROF_NONE; nn++)
				nx = o->next[nx];
			for (; o->prev[pv] != PROF_NONE; np++)
				pv = o->prev[pv];
			parent = np < nn ? pv : nx;
		} else {
			left[(*nleft)++] = arcs[i];
			continue;
		}
		/* never close a chain into a ring */
		if (chain_end(o, parent) == child && chain_end(o, child) == parent) {
			left[(*nleft)++] = arcs[i];
			continue;
		}
		int before; /* child goes before parent (else after) */
		if (o->next[parent] != PROF_NONE) {
			if (o->next[child] != PROF_NONE)
				continue;
			before = 1;
		} else if (o->prev[parent] != PROF_NONE) {
			if (o->prev[child] != PROF_NONE)
				continue;
			before = 0;
		} else {
			before = o->prev[child] != PROF_NONE;
		}
		if (before) {
			o->prev[parent] = child;
			o->next[child] = parent;
		} else {
			o->next[parent] = child;
			o->prev[child] = parent;
		}
		o->arc_placed[arcs[i]] = 1;
	}
	for (size_t i = 0; i < n; i++) {
		const struct prof_arc *a = &o->arcs[arcs[i]];
		if (o->placed[a->parent] || o->placed[a->child])
			continue;
		uint32_t fn = a->parent;
		if (o->next[fn] == PROF_NONE && o->prev[fn] == PROF_NONE)
			continue;
		while (o->prev[fn] != PROF_NONE)
			fn = o->prev[fn];
		for (; fn != PROF_NONE; fn = o->next[fn]) {
			o->placed[fn] = 1;
			put_name(o, fn);
		}
	}
	for (size_t i = 0; all && i < n; i++) {
		const struct prof_arc *a = &o->arcs[arcs[i]];
		if (o->placed[a->parent] || o->placed[a->child])
			continue;
		o->placed[a->parent] = 1;
		put_name(o, a->parent);
	}
}

/* copies: gprof's symspec copies (NULL: none) */
static void order_init(struct order *o, FILE *f, const struct prof *p, const struct symspec_copies *copies)
{
	size_t nc = copies ? copies->n : 0, nca = copies ? copies->narcs : 0;
	size_t n = p->nsyms + nc + 1;
	o->p = p;
	o->f = f;
	o->own = NULL;
	o->arcs = p->arcs;
	o->narcs = p->narcs;
	o->ncopy_arcs = nca;
	o->nnodes = p->nsyms + nc;
	o->copy_sym = copies ? copies->sym : NULL;
	if (nca) {
		o->own = xmalloc((nca + p->narcs) * sizeof(*o->own));
		for (size_t i = 0; i < nca; i++)
			o->own[i] = (struct prof_arc){ .parent = (uint32_t)(p->nsyms + copies->from[i]),
						       .child = (uint32_t)(p->nsyms + copies->to[i]) };
		if (p->narcs)
			memcpy(o->own + nca, p->arcs, p->narcs * sizeof(*o->own));
		o->arcs = o->own;
		o->narcs = nca + p->narcs;
	}
	o->next = xmalloc(n * sizeof(uint32_t));
	o->prev = xmalloc(n * sizeof(uint32_t));
	for (size_t i = 0; i < n; i++)
		o->next[i] = o->prev[i] = PROF_NONE;
	/* a copy's next is its side's chain (gprof's Sym.next serves both) */
	for (size_t i = 0; i < nc; i++)
		if (copies->next[i] != PROF_NONE)
			o->next[p->nsyms + i] = (uint32_t)(p->nsyms + copies->next[i]);
	o->placed = xcalloc(n, 1);
	o->nuses = xcalloc(n, sizeof(uint64_t));
	o->arc_placed = xcalloc(o->narcs + 1, 1);
}

static void order_release(struct order *o)
{
	free(o->next);
	free(o->prev);
	free(o->placed);
	free(o->nuses);
	free(o->arc_placed);
	free(o->own);
}

/* The arcs gprof keeps in its arcs[] (not a function's calls to itself), in the order first seen. */
static uint32_t *real_arcs(const struct order *o, size_t *n)
{
	uint32_t *a = xmalloc((o->narcs + 1) * sizeof(uint32_t));
	*n = 0;
	for (size_t i = 0; i < o->narcs; i++)
		if (o->arcs[i].parent != o->arcs[i].child && o->arcs[i].parent < o->nnodes &&
		    o->arcs[i].child < o->nnodes)
			a[(*n)++] = (uint32_t)i;
	return a;
}

void print_function_order(FILE *f, const struct prof *p, const struct symspec_copies *copies)
{
	struct order o;
	order_init(&o, f, p, copies);
	size_t n = p->nsyms, nused = 0, nunused = 0, narcs, nhigh = 0, nscratch = 0, nleft = 0, nleft2 = 0;
	uint32_t *used = xmalloc((n + 1) * sizeof(uint32_t)), *unused = xmalloc((n + 1) * sizeof(uint32_t));
	uint32_t *byuse = xmalloc((n + 1) * sizeof(uint32_t));
	/* the never-called functions, placed as a group at the end */
	for (size_t i = 0; i < n; i++) {
		if (p->items[i].ncalls == 0) {
			unused[nunused++] = (uint32_t)i;
			o.placed[i] = 1;
		} else {
			used[nused++] = (uint32_t)i;
		}
	}
	uint32_t *arcs = real_arcs(&o, &narcs);
	/* an arc can be left over by each of the first two placements, and met from both its ends */
	uint32_t *high = xmalloc((narcs + 1) * sizeof(uint32_t)),
		 *scratch = xmalloc((2 * narcs + 1) * sizeof(uint32_t));
	uint32_t *left = xmalloc((2 * narcs + 1) * sizeof(uint32_t));
	sort_arcs(o.arcs, arcs, narcs);
	unsigned long long total = 0, sofar = 0;
	for (size_t i = 0; i < narcs; i++)
		total += o.arcs[arcs[i]].count;
	/* how often each function is called by the arcs of the top 90 % */
	for (size_t i = 0; i < narcs; i++) {
		sofar += o.arcs[arcs[i]].count;
		if ((double)sofar / (double)total > 0.90)
			break;
		o.nuses[o.arcs[arcs[i]].child]++;
	}
	/* by uses, most first, stable */
	memcpy(byuse, used, nused * sizeof(uint32_t));
	for (size_t i = 1; i < nused; i++) {
		uint32_t v = byuse[i];
		size_t j = i;
		for (; j > 0 && o.nuses[byuse[j - 1]] < o.nuses[v]; j--)
			byuse[j] = byuse[j - 1];
		byuse[j] = v;
	}
	/* up to 1.25 % of the called functions, while called from more than five hot arcs (gprof
	 * stops at exactly five): their arcs, children then parents, latest first */
	size_t nhot = 0;
	for (size_t i = 0; i < nused / 80; i++) {
		uint32_t fn = byuse[i];
		if (o.nuses[fn] == 5)
			break;
		for (size_t k = o.narcs; k-- > 0;)
			if (o.arcs[k].parent == fn) {
				if (o.arcs[k].child != fn)
					scratch[nscratch++] = (uint32_t)k;
				o.arc_placed[k] = 1;
			}
		for (size_t k = o.narcs; k-- > 0;)
			if (o.arcs[k].child == fn) {
				if (o.arcs[k].parent != fn)
					scratch[nscratch++] = (uint32_t)k;
				o.arc_placed[k] = 1;
			}
		nhot = i;
		o.placed[fn] = 1;
	}
	for (size_t i = 0; i < nscratch; i++) {
		const struct prof_arc *a = &o.arcs[scratch[i]];
		if (o.placed[a->child] && o.placed[a->parent]) {
			high[nhigh++] = scratch[i];
			o.placed[a->child] = o.placed[a->parent] = 0;
		}
	}
	for (size_t i = 0; i < nhot; i++)
		if (o.placed[byuse[i]])
			put_name(&o, byuse[i]);
	sort_arcs(o.arcs, high, nhigh);
	place(&o, high, nhigh, 1, left, &nleft);
	place(&o, arcs, narcs, 0, left, &nleft);
	place(&o, left, nleft, 1, scratch, &nleft2);
	for (size_t i = 0; i < nused; i++)
		if (!o.placed[used[i]])
			put_name(&o, used[i]);
	for (size_t i = 0; i < nunused; i++)
		put_name(&o, unused[i]);
	free(used);
	free(unused);
	free(byuse);
	free(arcs);
	free(high);
	free(scratch);
	free(left);
	order_release(&o);
}

/* A node stands for an object file: the function, or the function a copy is of, is mapped. */
static int node_mapped(const struct order *o, uint32_t fn)
{
	size_t ns = o->p->nsyms;
	return o->p->items[fn < ns ? fn : o->copy_sym[fn - ns]].mapped;
}

static int str_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

void print_file_order(FILE *f, const struct prof *p, const struct linkmap *map,
		      const struct symspec_copies *copies)
{
	struct order o;
	order_init(&o, f, p, copies);
	size_t narcs, nleft = 0;
	/* the arcs as they came (gprof sorts them only for -r); those not between two objects of
	 * the map count as placed */
	uint32_t *arcs = real_arcs(&o, &narcs), *left = xmalloc((narcs + 1) * sizeof(uint32_t));
	for (size_t i = 0; i < narcs; i++) {
		const struct prof_arc *a = &o.arcs[arcs[i]];
		if (!node_mapped(&o, a->parent) || !node_mapped(&o, a->child))
			o.arc_placed[arcs[i]] = 1;
	}
	place(&o, arcs, narcs, 0, left, &nleft);
	for (size_t i = 0; i < p->nsyms; i++)
		if (p->items[i].mapped && !o.placed[i])
			put_name(&o, (uint32_t)i);
	/* then the map's objects that stand for no function (no text, or none of theirs kept), each
	 * once, by name (as gprof 2.40 prints them) */
	const char **files = xmalloc((map->nr + 1) * sizeof(*files));
	for (size_t k = 0; k < map->nr; k++)
		files[k] = map->items[k].file;
	qsort(files, map->nr, sizeof(*files), str_cmp);
	for (size_t k = 0; k < map->nr; k++) {
		if (k > 0 && strcmp(files[k - 1], files[k]) == 0)
			continue;
		size_t i = 0;
		while (i < p->nsyms && !(p->items[i].mapped && strcmp(prof_key(&p->items[i]), files[k]) == 0))
			i++;
		if (i == p->nsyms)
			fprintf(f, "%s\n", esc_text(files[k]));
	}
	free(files);
	free(arcs);
	free(left);
	order_release(&o);
}

void print_file_order_spy(FILE *f, const struct prof *p, const struct linkmap *map)
{
	struct prof q;
	prof_init(&q);
	uint32_t *node = xmalloc((p->nsyms + 1) * sizeof(uint32_t));
	for (size_t i = 0; i < p->nsyms; i++) {
		const struct linkmap_ent *e =
			p->items[i].name ? linkmap_find(map, prof_key(&p->items[i])) : NULL;
		node[i] = PROF_NONE;
		if (!e)
			continue;
		uint32_t k = 0;
		while (k < q.nr && strcmp(q.items[k].name, e->file) != 0)
			k++;
		if (k == q.nr) {
			k = prof_add_func(&q, e->file, 0, 0);
			q.items[k].mapped = 1;
		}
		node[i] = k;
	}
	for (size_t i = 0; i < p->narcs; i++) {
		const struct prof_arc *a = &p->arcs[i];
		if (a->parent >= p->nsyms || a->child >= p->nsyms)
			continue;
		uint32_t from = node[a->parent], to = node[a->child];
		if (from != PROF_NONE && to != PROF_NONE && from != to)
			prof_add_arc(&q, from, to, a->count);
	}
	free(node);
	prof_drop_arc_hash(&q);
	/* the summed arcs by count, most first (a spy profile's come in no order that means anything) */
	uint32_t *idx = xmalloc((q.narcs + 1) * sizeof(uint32_t));
	for (size_t i = 0; i < q.narcs; i++)
		idx[i] = (uint32_t)i;
	sort_arcs(q.arcs, idx, q.narcs);
	struct prof_arc *sorted = xmalloc((q.narcs + 1) * sizeof(*sorted));
	for (size_t i = 0; i < q.narcs; i++)
		sorted[i] = q.arcs[idx[i]];
	free(idx);
	free(q.arcs);
	q.arcs = sorted;
	q.arcs_alloc = q.narcs + 1;
	print_file_order(f, &q, map, NULL);
	prof_release(&q);
}
