/* The profile model's small helpers: allocation, functions, arcs merged by (caller, callee). */
#define _GNU_SOURCE /* qsort_r */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "esc.h"
#include "prof.h"
#include "sorted.h"

/* Big arrays (arcs, their hash and lists) are touched all over: on transparent huge pages they
 * take a fault per 2 MiB instead of one per 4 KiB, and fewer TLB misses. Only a hint: where the
 * kernel says no, nothing changes. */
static void *huge_hint(void *p, size_t n)
{
	const uintptr_t huge = 2u << 20;
	if (p && n >= 2 * huge) {
		uintptr_t lo = ((uintptr_t)p + huge - 1) & ~(huge - 1);
		uintptr_t hi = ((uintptr_t)p + n) & ~(huge - 1);
		if (hi > lo)
			madvise((void *)lo, hi - lo, MADV_HUGEPAGE);
	}
	return p;
}

static const char *reading;

void prof_reading(const char *path)
{
	reading = path;
}

static void oom(size_t n) __attribute__((noreturn));

static void oom(size_t n)
{
	/* no allocation here: the name escaped as it is written */
	fputs("spinprof: ", stderr);
	if (reading) {
		esc_put(stderr, reading, ESC_TEXT);
		fputs(": ", stderr);
	}
	fprintf(stderr, "out of memory (%zu bytes)\n", n);
	exit(2);
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		oom(n);
	return huge_hint(p, n);
}

void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);
	if (!p)
		oom(n * size);
	return huge_hint(p, n * size);
}

void *xrealloc(void *ptr, size_t n)
{
	void *p = realloc(ptr, n ? n : 1);
	if (!p)
		oom(n);
	return huge_hint(p, n);
}

char *xstrdup(const char *s)
{
	size_t n = strlen(s) + 1;
	return memcpy(xmalloc(n), s, n);
}

void prof_init(struct prof *p)
{
	memset(p, 0, sizeof(*p));
	gmon_profile_init(&p->spy);
}

void prof_release(struct prof *p)
{
	for (size_t i = 0; i < p->nr; i++) {
		free(p->items[i].name);
		free(p->items[i].key);
		free(p->items[i].file);
		free(p->items[i].src);
	}
	free(p->items);
	free(p->arcs);
	free(p->func_off);
	free(p->watch);
	free(p->tev);
	free(p->arc_off);
	free(p->func_ctr);
	free(p->arc_ctr);
	free(p->caller_bad_example);
	for (uint32_t k = 0; k < p->nctr; k++)
		free(p->ctr_names[k]);
	u64map_release(&p->arc_map);
	free(p->child_arcs);
	free(p->parent_arcs);
	free(p->time_order);
	free(p->stacks);
	free(p->frames);
	for (size_t i = 0; i < p->nshared; i++)
		free(p->shared[i]);
	free(p->shared);
	gmon_profile_release(&p->spy);
	memset(p, 0, sizeof(*p));
}

uint32_t prof_add_func(struct prof *p, const char *name, uint64_t addr, uint64_t end)
{
	GROW(p->items, p->nr, p->alloc);
	struct prof_func *f = &p->items[p->nr];
	memset(f, 0, sizeof(*f));
	f->name = name ? xstrdup(name) : NULL;
	f->addr = addr;
	f->end = end;
	f->is_func = 1;
	f->head = (uint32_t)p->nr;
	f->next = PROF_NONE;
	p->nsyms = ++p->nr;
	return (uint32_t)(p->nr - 1);
}

void prof_set_name(struct prof_func *f, const char *raw, char *dm)
{
	free(f->name);
	free(f->key);
	f->key = NULL;
	if (dm && strcmp(dm, raw) != 0) {
		f->name = dm;
		f->key = xstrdup(raw);
	} else {
		free(dm);
		f->name = xstrdup(raw);
	}
}

static int func_cmp(const void *a, const void *b)
{
	const struct prof_func *x = a, *y = b;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

void prof_sort_funcs(struct prof *p)
{
	/* a profile may list no function at all (a program linked with libspyrt, built without the
	 * plugin); then items is NULL, which qsort may not be given even for no element */
	if (p->nr)
		qsort(p->items, p->nr, sizeof(*p->items), func_cmp);
	for (size_t i = 0; i < p->nr; i++)
		p->items[i].head = (uint32_t)i;
}

uint64_t prof_key_up(double v)
{
	uint64_t u;
	if (v == 0.0)
		v = 0.0; /* -0.0 sorts as 0.0, as the comparisons see them */
	memcpy(&u, &v, sizeof(u));
	return u >> 63 ? ~u : u | (uint64_t)1 << 63;
}

uint64_t prof_key_str(const char *s)
{
	uint64_t k = 0;
	int i = 0;
	for (; i < 8 && s[i]; i++)
		k = k << 8 | (unsigned char)s[i];
	for (; i < 8; i++) /* past the NUL: 0, below every byte, as strcmp sees it */
		k <<= 8;
	return k;
}

/* prof_sort_keyed_r's radix sort: idx and keys in increasing key order (ties in no given order) */
static void radix_pairs(uint32_t *idx, uint64_t *keys, size_t n)
{
	/* a least significant digit radix sort of (key, index) pairs, a byte a pass; the passes in
	 * which every key has the same byte are skipped */
	struct kv {
		uint64_t k;
		uint32_t i;
	} *a = xmalloc((n + 1) * sizeof(*a)), *b = xmalloc((n + 1) * sizeof(*b));
	for (size_t j = 0; j < n; j++)
		a[j] = (struct kv){ keys[j], idx[j] };
	for (int shift = 0; shift < 64; shift += 8) {
		size_t count[256] = { 0 };
		for (size_t j = 0; j < n; j++)
			count[(a[j].k >> shift) & 0xff]++;
		if (n == 0 || count[(a[0].k >> shift) & 0xff] == n)
			continue;
		size_t pos = 0;
		for (int d = 0; d < 256; d++) {
			size_t c = count[d];
			count[d] = pos;
			pos += c;
		}
		for (size_t j = 0; j < n; j++)
			b[count[(a[j].k >> shift) & 0xff]++] = a[j];
		struct kv *t = a;
		a = b;
		b = t;
	}
	for (size_t j = 0; j < n; j++) {
		idx[j] = a[j].i;
		keys[j] = a[j].k;
	}
	free(a);
	free(b);
}

/* The end of the run of keys equal to keys[j]. */
static size_t key_run(const uint64_t *keys, size_t n, size_t j)
{
	size_t e = j + 1;
	while (e < n && keys[e] == keys[j])
		e++;
	return e;
}

void prof_sort_keyed_r(uint32_t *idx, uint64_t *keys, size_t n,
		       int (*cmp)(const void *, const void *, void *), void *arg)
{
	radix_pairs(idx, keys, n);
	/* the ties in the comparison's own order */
	for (size_t j = 0, e; j < n; j = e) {
		e = key_run(keys, n, j);
		if (e - j > 1)
			qsort_r(idx + j, e - j, sizeof(uint32_t), cmp, arg);
	}
}

uint32_t prof_at(const struct prof *p, uint64_t a)
{
	size_t lo = sorted_lower(p->items, p->nsyms, sizeof(*p->items), offsetof(struct prof_func, addr), a);
	return lo < p->nsyms && p->items[lo].addr == a ? (uint32_t)lo : PROF_NONE;
}

void prof_set_ends(struct prof *p)
{
	const struct gmon_profile *g = &p->spy;
	uint32_t nm = g->nmodules, *order = xmalloc((nm + 1) * sizeof(uint32_t)), k = 0;

	/* the modules by their text's start (a few), walked along with the functions */
	for (uint32_t m = 0; m < nm; m++) {
		uint32_t j = m;
		while (j > 0 && g->modules[order[j - 1]].text_lo > g->modules[m].text_lo) {
			order[j] = order[j - 1];
			j--;
		}
		order[j] = m;
	}
	for (size_t i = 0; i < p->nr; i++) {
		struct prof_func *f = &p->items[i];

		f->end = i + 1 < p->nr ? p->items[i + 1].addr : f->addr + 1;
		while (k < nm && g->modules[order[k]].text_hi <= f->addr)
			k++;
		/* modules' texts do not overlap: the one starting at or below addr is the only candidate */
		for (uint32_t j = k; j < nm && g->modules[order[j]].text_lo <= f->addr; j++)
			if (f->addr < g->modules[order[j]].text_hi && f->end > g->modules[order[j]].text_hi)
				f->end = g->modules[order[j]].text_hi;
	}
	free(order);
}

uint32_t prof_lookup(const struct prof *p, uint64_t pc)
{
	size_t lo = sorted_upper(p->items, p->nsyms, sizeof(*p->items), offsetof(struct prof_func, addr), pc);
	if (lo == 0)
		return PROF_NONE;
	const struct prof_func *f = &p->items[lo - 1];
	return pc < f->end || (f->end == f->addr && pc == f->addr) ? (uint32_t)(lo - 1) : PROF_NONE;
}

/* The arc map's key of (parent, child). */
static uint64_t arc_key(uint32_t parent, uint32_t child)
{
	return (uint64_t)parent << 32 | child;
}

/* Build the arc map from the arcs, with room for want of them; of two arcs of one pair (arcs
 * merged after the map was dropped), the first is the one found. */
static void arc_map_build(struct prof *p, size_t want)
{
	u64map_reset(&p->arc_map, want > p->narcs ? want : p->narcs);
	for (size_t i = 0; i < p->narcs; i++) {
		int added;
		struct u64map_slot *s =
			u64map_add(&p->arc_map, arc_key(p->arcs[i].parent, p->arcs[i].child), &added);
		if (added)
			s->val = (uint32_t)i;
	}
}

void prof_reserve_arcs(struct prof *p, size_t n, int hash)
{
	if (n > p->arcs_alloc) {
		p->arcs_alloc = n;
		p->arcs = xrealloc(p->arcs, n * sizeof(*p->arcs));
	}
	if (hash) {
		if (p->arc_map.size)
			u64map_reserve(&p->arc_map, n);
		else
			arc_map_build(p, n);
	}
}

void prof_drop_arc_hash(struct prof *p)
{
	u64map_release(&p->arc_map);
}

void prof_arc_prefetch(const struct prof *p, uint32_t parent, uint32_t child)
{
	u64map_prefetch(&p->arc_map, arc_key(parent, child));
}

uint32_t prof_add_arc(struct prof *p, uint32_t parent, uint32_t child, uint64_t count)
{
	if (!p->arc_map.size)
		arc_map_build(p, p->narcs + 1);
	int added;
	struct u64map_slot *s = u64map_add(&p->arc_map, arc_key(parent, child), &added);
	if (!added) {
		p->arcs[s->val].count += count;
		return s->val;
	}
	s->val = (uint32_t)p->narcs;
	GROW(p->arcs, p->narcs, p->arcs_alloc);
	struct prof_arc *a = &p->arcs[p->narcs];
	memset(a, 0, sizeof(*a));
	a->parent = parent;
	a->child = child;
	a->count = count;
	return (uint32_t)p->narcs++;
}

int prof_ctr_col(const struct prof *p, const char *name)
{
	for (uint32_t k = 0; k < p->nctr; k++)
		if (!strcmp(p->ctr_names[k], name))
			return (int)k;
	return -1;
}

double prof_ctr_cpi(const struct prof *p, const struct prof_ctr *c)
{
	int ki = prof_ctr_col(p, "instructions"), kc = prof_ctr_col(p, "cycles");

	if (ki < 0 || kc < 0 || !c || c->self[ki] <= 0)
		return -1;
	return c->self[kc] / c->self[ki];
}

void prof_cost(const struct prof *p, struct prof_cost *c)
{
	memset(c, 0, sizeof(*c));
	c->share = -1;
	if (p->kind != PROF_SPY)
		return;
	const struct gmon_profile *g = &p->spy;
	const struct gmon_sampling *sp = g->sampling;
	if (sp && (sp->watch == GMON_WATCH_CPU || sp->watch == GMON_WATCH_WALL) && sp->hz) {
		/* the ticks on the CPU: a waiting sample (wall) is time off it */
		double period_ns = 1e9 / (double)sp->hz;
		for (uint32_t t = 0; t < g->nsamples; t++)
			for (uint64_t k = 0; k < g->samples[t].nstacks; k++) {
				const struct gmon_stack *st = &g->samples[t].stacks[k];
				if (st->flags & GMON_STACK_WAITING)
					continue;
				double v = (double)st->weight / period_ns;
				c->all += v;
				if (st->flags & GMON_STACK_RUNTIME)
					c->part += v;
			}
		if (c->all > 0) {
			c->from_samples = 1;
			c->share = c->part / c->all;
			return;
		}
		c->part = c->all = 0;
	}
	if (!p->measured)
		return;
	/* all the cycles measured (every function's raw self) and what the correction took off */
	double raw, taken = prof_taken_off(p, &raw);
	if (raw > 0) {
		c->part = taken;
		c->all = raw;
		c->share = c->part / c->all;
	}
}

double prof_taken_off(const struct prof *p, double *raw)
{
	double r = 0, prog = 0;
	for (size_t i = 0; i < p->nsyms; i++) {
		r += p->items[i].m_self_raw;
		prog += p->items[i].m_self;
	}
	*raw = r;
	return r > prog ? r - prog : 0;
}
