/* Code without hooks as rows of the model: found in the CPU samples, named as the Spy report names
 * them, their time carved from their instrumented callers' by the samples (librows.h). */
#include <stdlib.h>
#include <string.h>

#include "librows.h"
#include "pcname.h"
#include "spy-abi.h"
#include "symtab.h"

/* Whether the samples are of CPU (or wall) time, which the rows' time comes from. */
static int ticks_watched(const struct gmon_profile *g)
{
	const struct gmon_sampling *sp = g->sampling;
	return sp && (sp->watch == GMON_WATCH_CPU || sp->watch == GMON_WATCH_WALL) && sp->hz;
}

/* Whether pc of module mi is in an instrumented function's code: the binary's function there (a
 * .cold part's owner) is one; without the binary, the function below it in p is one of mi's (as
 * read-spy.c's pc_func). */
static int in_instrumented(const struct prof *p, struct pcname *n, int mi, uint64_t pc)
{
	uint64_t base = p->spy.modules[mi].base;
	const struct symtab *t = pcname_symtab(n, mi);
	if (t) {
		const struct symtab_sym *y = symtab_owner(t, symtab_at(t, pc - base));
		uint32_t k = y ? prof_at(p, y->addr + base) : PROF_NONE;
		return k != PROF_NONE && p->items[k].has_count;
	}
	uint32_t k = prof_lookup(p, pc);
	return k != PROF_NONE && p->items[k].has_count && gmon_module_at(&p->spy, p->items[k].addr) == mi;
}

struct found {
	uint64_t start;
	int mi, named;
};

static int found_cmp(const void *a, const void *b)
{
	const struct found *x = a, *y = b;
	return x->start < y->start ? -1 : x->start > y->start;
}

/* A row's name: the function's, its module's after it ("NAME [MODULE]"), or the module's alone when
 * nothing names its code ("[MODULE]", as the Spy report's procedure). */
static void set_name(struct prof_func *f, const char *fn, const char *mod, int demangle)
{
	char *dm = fn && demangle ? symtab_demangle(fn) : NULL;
	size_t n = (fn ? strlen(fn) : 0) + (dm ? strlen(dm) : 0) + strlen(mod) + 8;
	char *raw = xmalloc(n), *shown = dm ? xmalloc(n) : NULL;
	if (fn)
		snprintf(raw, n, "%s [%s]", fn, mod);
	else
		snprintf(raw, n, "[%s]", mod);
	if (dm)
		snprintf(shown, n, "%s [%s]", dm, mod);
	prof_set_name(f, raw, shown);
	free(raw);
	free(dm);
}

void librows_find(struct prof *p, struct pcname *names, struct librows *r, int demangle)
{
	const struct gmon_profile *g = &p->spy;
	memset(r, 0, sizeof(*r));
	if (!ticks_watched(g))
		return;
	for (uint32_t t = 0; t < g->nsamples; t++)
		r->n += g->samples[t].nstacks;
	r->at = xcalloc(r->n + 1, sizeof(uint64_t));
	struct found *fd = NULL;
	size_t nfd = 0, fd_alloc = 0, k = 0;
	int frameless = g->hdr.mode == SPY_MODE_COUNT; /* mode count keeps no frames: any stack */
	for (uint32_t t = 0; t < g->nsamples; t++)
		for (uint64_t j = 0; j < g->samples[t].nstacks; j++, k++) {
			const struct gmon_stack *st = &g->samples[t].stacks[j];
			if (!st->weight || !st->pc || (st->flags & GMON_STACK_RUNTIME) ||
			    (!st->depth && !frameless))
				continue;
			int mi = gmon_module_at(g, st->pc);
			if (mi < 0 || in_instrumented(p, names, mi, st->pc))
				continue;
			uint64_t start;
			int named = pcname_func(names, mi, st->pc, &start) != NULL;
			if (!named)
				start = g->modules[mi].base; /* the module's unnamed code: one row */
			r->at[k] = start;
			GROW(fd, nfd, fd_alloc);
			fd[nfd++] = (struct found){ start, mi, named };
		}
	if (!nfd) {
		librows_release(r);
		return;
	}
	qsort(fd, nfd, sizeof(*fd), found_cmp);
	for (size_t i = 0; i < nfd; i++) {
		if ((i && fd[i].start == fd[i - 1].start) || prof_at(p, fd[i].start) != PROF_NONE)
			continue;
		uint64_t start;
		const char *fn = fd[i].named ? pcname_func(names, fd[i].mi, fd[i].start, &start) : NULL;
		uint32_t at = prof_add_func(p, NULL, fd[i].start, fd[i].start + 1);
		struct prof_func *f = &p->items[at];
		set_name(f, fn, pcname_module(names, fd[i].mi), demangle);
		f->lib = 1;
	}
	free(fd);
	prof_sort_funcs(p);
	prof_set_ends(p);
}

uint32_t librows_row(const struct prof *p, const struct librows *r, size_t k)
{
	return k < r->n && r->at[k] ? prof_at(p, r->at[k]) : PROF_NONE;
}

/* Room in the arrays kept by arc index for the arcs from n0 on (zero). */
static void arcs_grown(struct prof *p, size_t n0)
{
	if (p->arc_off) {
		p->arc_off = xrealloc(p->arc_off, (p->narcs + 1) * sizeof(*p->arc_off));
		memset(p->arc_off + n0, 0, (p->narcs + 1 - n0) * sizeof(*p->arc_off));
	}
	if (p->arc_ctr) {
		p->arc_ctr = xrealloc(p->arc_ctr, (p->narcs + 1) * sizeof(*p->arc_ctr));
		memset(p->arc_ctr + n0, 0, (p->narcs + 1 - n0) * sizeof(*p->arc_ctr));
	}
}

/* One sampled stack's caller (its innermost frame's function) and row, and its weight in ticks. */
struct hit {
	uint32_t caller, row;
	double w;
};

static int hit_cmp(const void *a, const void *b)
{
	const struct hit *x = a, *y = b;
	if (x->caller != y->caller)
		return x->caller < y->caller ? -1 : 1;
	return x->row < y->row ? -1 : x->row > y->row;
}

/* The stacks with a frame, as hits (row PROF_NONE: the PC in instrumented code), but for waiting
 * ones when waiting is 0. Returns how many; *out is malloc()ed. */
static size_t hits(const struct prof *p, const struct librows *r, int waiting, struct hit **out)
{
	const struct gmon_profile *g = &p->spy;
	double period_ns = 1e9 / (double)g->sampling->hz;
	struct hit *h = xmalloc((r->n + 1) * sizeof(*h));
	size_t n = 0, k = 0;
	for (uint32_t t = 0; t < g->nsamples; t++)
		for (uint64_t j = 0; j < g->samples[t].nstacks; j++, k++) {
			const struct gmon_stack *st = &g->samples[t].stacks[j];
			if (!st->weight || !st->depth || (st->flags & GMON_STACK_RUNTIME) ||
			    (!waiting && (st->flags & GMON_STACK_WAITING)))
				continue;
			uint32_t f = prof_at(p, st->frames[0].func);
			if (f == PROF_NONE || !p->items[f].has_count)
				continue;
			h[n++] = (struct hit){ f, librows_row(p, r, k), (double)st->weight / period_ns };
		}
	*out = h;
	return n;
}

void librows_carve(struct prof *p, const struct librows *r)
{
	if (!r->at)
		return;
	struct hit *h;
	/* CPU time is split by CPU samples: a waiting sample (wall) is not of it when the time off the
	 * CPU was measured apart */
	size_t n = hits(p, r, !p->offcpu, &h), n0 = p->narcs;
	qsort(h, n, sizeof(*h), hit_cmp);
	for (size_t i = 0, e; i < n; i = e) {
		double all = 0;
		for (e = i; e < n && h[e].caller == h[i].caller; e++)
			all += h[e].w;
		struct prof_func *f = &p->items[h[i].caller];
		double self = f->m_self, own = 0; /* the measured self time the caller's samples split */
		for (size_t j = i; j < e;) {
			size_t q = j;
			double w = 0;
			for (; q < e && h[q].row == h[j].row; q++)
				w += h[q].w;
			double c = all > 0 ? self * w / all : 0;
			uint32_t row = h[j].row;
			j = q;
			if (row == PROF_NONE)
				own += w;
			if (row == PROF_NONE || c <= 0)
				continue;
			uint32_t ai = prof_add_arc(p, h[i].caller, row, 0); /* may move p->arcs */
			struct prof_arc *a = &p->arcs[ai];
			struct prof_func *l = &p->items[row];
			a->m_incl += c;
			a->m_self += c;
			l->m_self += c;
			l->m_self_raw += c;
			l->m_incl += c;
		}
		/* what its own code keeps, as a share (not a difference: 0 when no sample was in it) */
		f = &p->items[h[i].caller];
		double kept = all > 0 ? self * own / all : self;
		f->m_self_raw -= self - kept;
		f->m_self = kept;
	}
	free(h);
	prof_drop_arc_hash(p);
	arcs_grown(p, n0);
}

void librows_arcs(struct prof *p, const struct librows *r)
{
	if (!r->at)
		return;
	struct hit *h;
	size_t n = hits(p, r, 1, &h), n0 = p->narcs;
	for (size_t i = 0; i < n; i++)
		if (h[i].row != PROF_NONE)
			prof_add_arc(p, h[i].caller, h[i].row, 0);
	free(h);
	prof_drop_arc_hash(p);
	arcs_grown(p, n0);
}

void librows_release(struct librows *r)
{
	free(r->at);
	memset(r, 0, sizeof(*r));
}
