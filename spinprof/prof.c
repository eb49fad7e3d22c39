/* The profile model's small helpers: allocation, functions, arcs merged by (caller, callee). */
#include <stdlib.h>
#include <string.h>

#include "prof.h"

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p) {
		fputs("spinprof: out of memory\n", stderr);
		exit(2);
	}
	return p;
}

void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);
	if (!p) {
		fputs("spinprof: out of memory\n", stderr);
		exit(2);
	}
	return p;
}

void *xrealloc(void *ptr, size_t n)
{
	void *p = realloc(ptr, n ? n : 1);
	if (!p) {
		fputs("spinprof: out of memory\n", stderr);
		exit(2);
	}
	return p;
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
		free(p->items[i].file);
	}
	free(p->items);
	free(p->arcs);
	free(p->arc_hash);
	free(p->child_arcs);
	free(p->parent_arcs);
	free(p->time_order);
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

static int func_cmp(const void *a, const void *b)
{
	const struct prof_func *x = a, *y = b;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

void prof_sort_funcs(struct prof *p)
{
	qsort(p->items, p->nr, sizeof(*p->items), func_cmp);
	for (size_t i = 0; i < p->nr; i++)
		p->items[i].head = (uint32_t)i;
}

uint32_t prof_lookup(const struct prof *p, uint64_t pc)
{
	size_t lo = 0, hi = p->nsyms;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (p->items[mid].addr <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return PROF_NONE;
	const struct prof_func *f = &p->items[lo - 1];
	return pc < f->end || (f->end == f->addr && pc == f->addr) ? (uint32_t)(lo - 1) : PROF_NONE;
}

static size_t arc_slot(uint32_t parent, uint32_t child, size_t size)
{
	uint64_t h = ((uint64_t)parent << 32 | child) * 0x9e3779b97f4a7c15ull;
	return (size_t)(h >> 17) & (size - 1);
}

static void arc_rehash(struct prof *p)
{
	size_t size = p->arc_hash_size ? p->arc_hash_size * 2 : 1024;
	uint32_t *h = xcalloc(size, sizeof(*h));
	for (size_t i = 0; i < p->narcs; i++) {
		size_t s = arc_slot(p->arcs[i].parent, p->arcs[i].child, size);
		while (h[s])
			s = (s + 1) & (size - 1);
		h[s] = (uint32_t)i + 1;
	}
	free(p->arc_hash);
	p->arc_hash = h;
	p->arc_hash_size = size;
}

uint32_t prof_add_arc(struct prof *p, uint32_t parent, uint32_t child, uint64_t count)
{
	if ((p->narcs + 1) * 2 > p->arc_hash_size)
		arc_rehash(p);
	size_t s = arc_slot(parent, child, p->arc_hash_size);
	while (p->arc_hash[s]) {
		struct prof_arc *a = &p->arcs[p->arc_hash[s] - 1];
		if (a->parent == parent && a->child == child) {
			a->count += count;
			return p->arc_hash[s] - 1;
		}
		s = (s + 1) & (p->arc_hash_size - 1);
	}
	GROW(p->arcs, p->narcs, p->arcs_alloc);
	struct prof_arc *a = &p->arcs[p->narcs];
	memset(a, 0, sizeof(*a));
	a->parent = parent;
	a->child = child;
	a->count = count;
	p->arc_hash[s] = (uint32_t)++p->narcs;
	return (uint32_t)(p->narcs - 1);
}
