/* Spy profiles: decoded by the one decoder (common/gmon-io.c), summed into one profile, and
 * turned into the model: functions from the plugin's records (checked against the binaries'
 * build-ids), arcs with their measured cycles, hook overhead taken off. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "esc.h"
#include "librows.h"
#include "pcname.h"
#include "read.h"
#include "spy-abi.h"
#include "symtab.h"
#include "u64map.h"

struct func_ref {
	uint64_t module, addr;
	struct gmon_func *f;
};

static int func_ref_cmp(const void *a, const void *b)
{
	const struct func_ref *x = a, *y = b;
	if (x->module != y->module)
		return x->module < y->module ? -1 : 1;
	return (x->addr > y->addr) - (x->addr < y->addr);
}

/* q's function records (already relocated) into p: a function p lists already (same module and
 * address) gets q's count added, the others move over; so a summed profile lists each function
 * once, as a single run's does. */
static void merge_funcs(struct gmon_profile *p, struct gmon_profile *q)
{
	size_t n = 0;
	for (uint32_t i = 0; i < p->nfuncsets; i++)
		n += p->funcsets[i].nr;
	struct func_ref *refs = xmalloc((n + 1) * sizeof(*refs));
	n = 0;
	for (uint32_t i = 0; i < p->nfuncsets; i++)
		for (uint32_t j = 0; j < p->funcsets[i].nr; j++)
			refs[n++] = (struct func_ref){ p->funcsets[i].module, p->funcsets[i].funcs[j].addr,
						       &p->funcsets[i].funcs[j] };
	qsort(refs, n, sizeof(*refs), func_ref_cmp);
	p->funcsets = xrealloc(p->funcsets, (p->nfuncsets + q->nfuncsets + 1) * sizeof(*p->funcsets));
	for (uint32_t i = 0; i < q->nfuncsets; i++) {
		struct gmon_funcs *fs = &q->funcsets[i];
		uint32_t kept = 0;
		for (uint32_t j = 0; j < fs->nr; j++) {
			struct gmon_func *f = &fs->funcs[j];
			struct func_ref key = { fs->module, f->addr, NULL };
			struct func_ref *r = bsearch(&key, refs, n, sizeof(*refs), func_ref_cmp);
			if (r) {
				r->f->count += f->count;
				free(f->name);
				free(f->file);
				continue;
			}
			fs->funcs[kept++] = *f;
		}
		fs->nr = kept;
		if (kept == 0) {
			free(fs->funcs);
			continue;
		}
		p->funcsets[p->nfuncsets++] = *fs;
	}
	q->nfuncsets = 0;
	free(refs);
}

/* What a profile's samples count, for the refusal line: "cpu at 100 Hz", "calls of f, one event
 * in 10 kept, start g": every field same_watch compares that is not its default, so that two
 * profiles refused read differently, and the difference is the reason ("target f" of a watch that
 * names none: a file not of this runtime's making). */
static void watch_desc(char *buf, size_t n, const struct gmon_sampling *s)
{
	size_t at = 0;
#define ADD(...) (at += (size_t)snprintf(buf + at, at < n ? n - at : 0, __VA_ARGS__), at = at < n ? at : n)
	ADD("%s", gmon_watch_name(s->watch));
	if (s->watch == GMON_WATCH_CALLS)
		ADD(" of %s", s->target[0] ? s->target : "(none)");
	if (s->watch == GMON_WATCH_CPU || s->watch == GMON_WATCH_WALL)
		ADD(" at %llu Hz", (unsigned long long)s->hz);
	if (s->watch != GMON_WATCH_CALLS && s->target[0])
		ADD(", target %s", s->target);
	if (s->divisor > 1)
		ADD(", one event in %llu kept", (unsigned long long)s->divisor);
	if (s->start[0])
		ADD(", start %s", s->start);
	if (s->stop[0])
		ADD(", stop %s", s->stop);
#undef ADD
}

/* Samples add up only when they count the same thing in the same unit: the same watch (and
 * calls' function), rate (cpu, wall: one tick's length) and divisor, between the same triggers. */
static int same_watch(const struct gmon_sampling *a, const struct gmon_sampling *b)
{
	int ticks = a->watch == GMON_WATCH_CPU || a->watch == GMON_WATCH_WALL;
	return a->watch == b->watch && (!ticks || a->hz == b->hz) && a->divisor == b->divisor &&
	       strcmp(a->target, b->target) == 0 && strcmp(a->start, b->start) == 0 &&
	       strcmp(a->stop, b->stop) == 0;
}

static uint64_t stack_hash(const struct gmon_stack *k)
{
	uint64_t h = (k->pc ^ ((uint64_t)k->flags << 32 | k->depth)) * 0x9e3779b97f4a7c15ull;
	for (uint32_t d = 0; d < k->depth; d++)
		h = ((h ^ k->frames[d].func) * 0x100000001b3ull ^ k->frames[d].call_site) *
		    0xff51afd7ed558ccdull;
	return h ^ h >> 29;
}

static int stack_eq(const struct gmon_stack *a, const struct gmon_stack *b)
{
	return a->pc == b->pc && a->flags == b->flags && a->depth == b->depth &&
	       (a->depth == 0 || memcmp(a->frames, b->frames, a->depth * sizeof(*a->frames)) == 0);
}

/* One thread's stacks qs (relocated) into ps: a stack ps has already (same PC, flags and frames)
 * gets qs's count and weight added, the others are appended; qs is left empty. */
static void samples_add(struct gmon_samples *ps, struct gmon_samples *qs)
{
	size_t n = (size_t)(ps->nstacks + qs->nstacks), size = 16, ns = (size_t)ps->nstacks;
	while (size < 2 * n)
		size *= 2;
	size_t *slot = xcalloc(size, sizeof(size_t)); /* stack index + 1, 0 empty */
	struct gmon_stack *st = xrealloc(ps->stacks, (n + 1) * sizeof(*st));
	for (size_t i = 0; i < n; i++) {
		const struct gmon_stack *k = i < ns ? &st[i] : &qs->stacks[i - ns];
		size_t s = (size_t)stack_hash(k) & (size - 1);
		while (slot[s] && !stack_eq(&st[slot[s] - 1], k))
			s = (s + 1) & (size - 1);
		if (i < ns) {
			slot[s] = i + 1; /* ps's own stacks are kept as they are, even repeated */
		} else if (slot[s]) {
			st[slot[s] - 1].count += k->count;
			st[slot[s] - 1].weight += k->weight;
		} else {
			st[ps->nstacks] = *k;
			slot[s] = (size_t)++ps->nstacks;
		}
	}
	free(slot);
	/* all frames into one new array, stack after stack, as the decoder lays them out */
	uint64_t nf = 0, at = 0;
	for (uint64_t i = 0; i < ps->nstacks; i++)
		nf += st[i].depth;
	struct gmon_frame *fr = xmalloc((size_t)(nf + 1) * sizeof(*fr));
	for (uint64_t i = 0; i < ps->nstacks; i++) {
		if (st[i].depth)
			memcpy(fr + at, st[i].frames, st[i].depth * sizeof(*fr));
		st[i].frames = st[i].depth ? fr + at : NULL;
		at += st[i].depth;
	}
	free(ps->frames);
	ps->stacks = st;
	ps->frames = fr;
	ps->nframes = nf;
	free(qs->stacks);
	free(qs->frames);
	memset(qs, 0, sizeof(*qs));
}

struct tid_ref {
	uint32_t tid, i;
};

static int tid_ref_cmp(const void *a, const void *b)
{
	const struct tid_ref *x = a, *y = b;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return (x->i > y->i) - (x->i < y->i);
}

/* q's sampling totals and stacks (already relocated) into p. The totals add (same_watch() has
 * been checked); a profile without samples adds none. Stacks stay per thread id: a thread p has
 * already gets q's stacks of that thread (the first of its records, when a tid was reused). */
static void merge_samples(struct gmon_profile *p, struct gmon_profile *q)
{
	struct gmon_sampling *s = p->sampling, *t = q->sampling;
	if (t && !s) {
		p->sampling = t;
		q->sampling = NULL;
	} else if (t) {
		s->flags |= t->flags;
		s->expected += t->expected;
		s->taken += t->taken;
		s->missed += t->missed;
		s->in_runtime += t->in_runtime;
		s->dropped += t->dropped;
		s->cpu_ns += t->cpu_ns;
		s->faults += t->faults;
		s->allocs += t->allocs;
		s->alloc_bytes += t->alloc_bytes;
		s->handler_cycles += t->handler_cycles;
	}
	uint32_t n = p->nsamples;
	struct tid_ref *refs = xmalloc((n + 1) * sizeof(*refs));
	for (uint32_t i = 0; i < n; i++)
		refs[i] = (struct tid_ref){ p->samples[i].tid, i };
	qsort(refs, n, sizeof(*refs), tid_ref_cmp);
	p->samples = xrealloc(p->samples, (p->nsamples + q->nsamples + 1) * sizeof(*p->samples));
	for (uint32_t j = 0; j < q->nsamples; j++) {
		struct gmon_samples *qs = &q->samples[j];
		size_t lo = 0, hi = n;
		while (lo < hi) { /* the first of p's records with qs's tid */
			size_t mid = (lo + hi) / 2;
			if (refs[mid].tid < qs->tid)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo < n && refs[lo].tid == qs->tid) {
			samples_add(&p->samples[refs[lo].i], qs);
		} else {
			p->samples[p->nsamples++] = *qs;
			memset(qs, 0, sizeof(*qs));
		}
	}
	free(refs);
}

static int id_cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return (x > y) - (x < y);
}

/* An id no module of p has, for a module summed in: one above the largest (*maxid); once that is
 * UINT32_MAX (any u32 is a legal id), the lowest free one. */
static uint32_t free_module_id(const struct gmon_profile *p, uint32_t *maxid)
{
	if (*maxid < UINT32_MAX)
		return ++*maxid;
	uint32_t *ids = xmalloc((p->nmodules + 1) * sizeof(*ids)), id = 0;
	for (uint32_t i = 0; i < p->nmodules; i++)
		ids[i] = p->modules[i].id;
	qsort(ids, p->nmodules, sizeof(*ids), id_cmp);
	for (uint32_t i = 0; i < p->nmodules && ids[i] <= id; i++)
		if (ids[i] == id)
			id++;
	free(ids);
	return id;
}

/* Move q's threads, functions, modules and samples into p, addresses relocated to p's load
 * addresses. */
/* The counters that count things of every run add up; the others (how the run ended, what the
 * plugin built) stay the first profile's. A counter only q has is added. */
static void merge_counters(struct gmon_profile *p, const struct gmon_profile *q)
{
	static const char *const summed[] = { "threads",        "threads_folded",
					      "open_frames",    "threads_without_tables",
					      "threads_unheld", "calls_in_flight" };
	for (uint32_t i = 0; i < q->ncounters; i++) {
		const struct gmon_counter *c = &q->counters[i];
		uint32_t j;
		if (!c->name)
			continue;
		for (j = 0; j < p->ncounters; j++)
			if (p->counters[j].name && !strcmp(p->counters[j].name, c->name))
				break;
		if (j == p->ncounters) {
			p->counters = xrealloc(p->counters, (p->ncounters + 1) * sizeof(*p->counters));
			p->counters[p->ncounters].name = xstrdup(c->name);
			p->counters[p->ncounters++].value = c->value;
			continue;
		}
		for (size_t k = 0; k < sizeof(summed) / sizeof(*summed); k++)
			if (!strcmp(c->name, summed[k]))
				p->counters[j].value += c->value;
	}
}

static int u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* q's tail call sites (relocated) into p's, which stay sorted and distinct. */
static void merge_tail_sites(struct gmon_profile *p, const struct gmon_profile *q)
{
	if (!q->ntail_sites)
		return;
	uint64_t n = p->ntail_sites + q->ntail_sites, o = 0;
	p->tail_sites = xrealloc(p->tail_sites, n * sizeof(*p->tail_sites));
	memcpy(p->tail_sites + p->ntail_sites, q->tail_sites, q->ntail_sites * sizeof(*q->tail_sites));
	qsort(p->tail_sites, n, sizeof(*p->tail_sites), u64_cmp);
	for (uint64_t i = 0; i < n; i++)
		if (!o || p->tail_sites[i] != p->tail_sites[o - 1])
			p->tail_sites[o++] = p->tail_sites[i];
	p->ntail_sites = o;
}

/* Whether site is one of g's tail call sites. */
static int is_tail_site(const struct gmon_profile *g, uint64_t site)
{
	return g->ntail_sites &&
	       bsearch(&site, g->tail_sites, g->ntail_sites, sizeof(*g->tail_sites), u64_cmp) != NULL;
}

static void spy_merge(struct gmon_profile *p, struct gmon_profile *q)
{
	int64_t *delta = xcalloc(q->nmodules + 1, sizeof(int64_t));
	uint32_t *newid = xcalloc(q->nmodules + 1, sizeof(uint32_t));
	uint32_t maxid = 0;
	for (uint32_t i = 0; i < p->nmodules; i++)
		if (p->modules[i].id > maxid)
			maxid = p->modules[i].id;
	for (uint32_t i = 0; i < q->nmodules; i++) {
		struct gmon_module *m = &q->modules[i];
		uint32_t j;
		for (j = 0; j < p->nmodules; j++)
			if (strcmp(p->modules[j].path, m->path) == 0)
				break;
		if (j < p->nmodules) {
			delta[i] = (int64_t)(p->modules[j].base - m->base);
			newid[i] = p->modules[j].id;
		} else {
			p->modules = xrealloc(p->modules, (p->nmodules + 1) * sizeof(*p->modules));
			p->modules[p->nmodules] = *m;
			p->modules[p->nmodules].id = newid[i] = free_module_id(p, &maxid);
			p->nmodules++;
			memset(m, 0, sizeof(*m));
		}
	}
#define RELOC(a)                                                                             \
	do {                                                                                 \
		for (uint32_t k_ = 0; k_ < q->nmodules; k_++)                                \
			if ((a) >= q->modules[k_].text_lo && (a) < q->modules[k_].text_hi) { \
				(a) += (uint64_t)delta[k_];                                  \
				break;                                                       \
			}                                                                    \
	} while (0)
	for (uint32_t i = 0; i < q->nfuncsets; i++) {
		struct gmon_funcs *fs = &q->funcsets[i];
		for (uint32_t k = 0; k < q->nmodules; k++)
			if (q->modules[k].id == fs->module) {
				for (uint32_t j = 0; j < fs->nr; j++)
					fs->funcs[j].addr += (uint64_t)delta[k];
				fs->module = newid[k];
				break;
			}
	}
	for (uint32_t i = 0; i < q->nthreads; i++) {
		struct gmon_thread *t = &q->threads[i];
		for (uint64_t j = 0; j < t->narcs; j++) {
			RELOC(t->arcs[j].call_site);
			if (t->arcs[j].caller > GMON_CALLER_MANY)
				RELOC(t->arcs[j].caller);
			RELOC(t->arcs[j].callee);
		}
		for (uint64_t j = 0; j < t->nfstats; j++)
			RELOC(t->fstats[j].addr);
		for (uint64_t j = 0; j < t->ncounts; j++)
			if (t->counts[j].addr)
				RELOC(t->counts[j].addr);
		for (uint32_t j = 0; t->waits && j < t->nwaits; j++) {
			if (t->waits[j].pc)
				RELOC(t->waits[j].pc);
			if (t->waits[j].func)
				RELOC(t->waits[j].func);
		}
	}
	for (uint32_t i = 0; i < q->nsamples; i++) {
		struct gmon_samples *ss = &q->samples[i];
		for (uint64_t j = 0; j < ss->nstacks; j++)
			if (ss->stacks[j].pc)
				RELOC(ss->stacks[j].pc);
		for (uint64_t j = 0; j < ss->nframes; j++) {
			RELOC(ss->frames[j].func);
			RELOC(ss->frames[j].call_site);
		}
	}
	for (uint32_t i = 0; i < q->ntraces; i++)
		for (uint64_t j = 0; j < q->traces[i].n; j++) {
			struct gmon_tevent *e = &q->traces[i].ev[j];
			RELOC(e->func);
			if (q->traces[i].kind == GMON_TRACE_CALLS || q->traces[i].kind == GMON_TRACE_SIGNALS)
				RELOC(e->addr); /* a call site, an interrupted PC */
			else
				RELOC(e->value); /* a fault's PC */
		}
	for (uint64_t j = 0; j < q->ntail_sites; j++)
		RELOC(q->tail_sites[j]);
#undef RELOC
	merge_tail_sites(p, q);
	/* the traces are appended, each its own record */
	if (q->ntraces) {
		p->traces = xrealloc(p->traces, (p->ntraces + q->ntraces) * sizeof(*p->traces));
		memcpy(p->traces + p->ntraces, q->traces, q->ntraces * sizeof(*q->traces));
		p->ntraces += q->ntraces;
		free(q->traces);
		q->traces = NULL;
		q->ntraces = 0;
	}
	merge_funcs(p, q);
	merge_samples(p, q);
	p->threads = xrealloc(p->threads, (p->nthreads + q->nthreads + 1) * sizeof(*p->threads));
	if (q->nthreads) /* a profile may have no THREAD record: q->threads is NULL */
		memcpy(p->threads + p->nthreads, q->threads, q->nthreads * sizeof(*q->threads));
	p->nthreads += q->nthreads;
	q->nthreads = 0;
	/* nodes and legs: kept per thread and file, summed by name when printed */
	if (q->nnodesets) {
		p->nodesets = xrealloc(p->nodesets, (p->nnodesets + q->nnodesets) * sizeof(*p->nodesets));
		memcpy(p->nodesets + p->nnodesets, q->nodesets, q->nnodesets * sizeof(*q->nodesets));
		p->nnodesets += q->nnodesets;
		free(q->nodesets);
		q->nodesets = NULL;
		q->nnodesets = 0;
	}
	struct gmon_header *h = &p->hdr, *g = &q->hdr;
	h->dropped_arcs += g->dropped_arcs;
	h->dropped_funcs += g->dropped_funcs;
	h->dropped_frames += g->dropped_frames;
	h->abandoned += g->abandoned;
	h->unmatched += g->unmatched;
	h->slots_lost += g->slots_lost;
	h->unregistered += g->unregistered;
	h->flags |= g->flags & GMON_HDR_WAITS_NONE;
	h->end_ns = h->start_ns + (h->end_ns - h->start_ns) + (g->end_ns - g->start_ns);
	merge_counters(p, q);
	free(delta);
	free(newid);
}

/* The map of function addresses to indices, made anew from p's functions. */
static void funcs_map_build(struct u64map *h, const struct prof *p)
{
	u64map_reset(h, p->nr);
	for (size_t i = 0; i < p->nr; i++)
		u64map_put(h, p->items[i].addr, (uint32_t)i);
}

static uint32_t find_exact(const struct u64map *h, uint64_t addr)
{
	return u64map_get(h, addr, PROF_NONE);
}

/* The binary of module m of g, if it is there and is the one that ran (the first missing one said,
 * pcname.c). */
static struct symtab *spy_binary(struct pcname *b, const struct gmon_profile *g, const struct gmon_module *m)
{
	return pcname_symtab(b, (int)(m - g->modules));
}

/* The function of t whose code holds the file address fa (a .cold part's owner), or NULL. */
static const struct symtab_sym *sym_at(const struct symtab *t, uint64_t fa)
{
	return symtab_owner(t, symtab_at(t, fa));
}

/* The index of the function at addr, or PROF_NONE: for no caller, and for a function added
 * here (its index is known once all are in). */
static uint32_t add_unknown(struct prof *p, struct pcname *b, struct u64map *h, uint64_t addr, int demangle)
{
	if (addr <= GMON_CALLER_MANY)
		return PROF_NONE;
	int added;
	struct u64map_slot *slot = u64map_add(h, addr, &added);
	if (!added)
		return slot->val;
	slot->val = PROF_NONE; /* index fixed once all are in: read_spy looks every arc up again */
	const struct gmon_profile *g = &p->spy;
	int mi = gmon_module_at(g, addr);
	const struct gmon_module *m = mi < 0 ? NULL : &g->modules[mi];
	struct symtab *t = m ? spy_binary(b, g, m) : NULL;
	char name[64];
	const char *nm = name;
	snprintf(name, sizeof(name), "0x%llx", (unsigned long long)addr);
	const struct symtab_sym *sym = t ? sym_at(t, addr - m->base) : NULL;
	if (sym)
		nm = sym->name;
	uint32_t k = prof_add_func(p, NULL, addr, addr + 1);
	prof_set_name(&p->items[k], nm, demangle ? symtab_demangle(nm) : NULL);
	return PROF_NONE;
}

/*
 * The self-check of callers (the runtime's word against the binary's): an arc whose call site lies,
 * by the module's symbol table, in an instrumented function must have that function as its recorded
 * caller. Where the symbol is not an instrumented function (code without hooks: a callback's caller
 * comes from the shadow stack; a split .cold part) or the binary is gone, the arc is not checked.
 * ends: caller and callee index per raw arc, as in read_spy.
 */
static void check_callers(struct prof *p, struct pcname *b, const struct u64map *h, const uint32_t *ends)
{
	const struct gmon_profile *g = &p->spy;
	size_t r = 0;

	for (uint32_t i = 0; i < g->nthreads; i++) {
		const struct gmon_thread *t = &g->threads[i];
		for (uint64_t j = 0; j < t->narcs; j++, r++) {
			const struct gmon_arc *a = &t->arcs[j];
			uint32_t cr = ends[2 * r], ce = ends[2 * r + 1];
			if (a->caller <= GMON_CALLER_MANY || cr == PROF_NONE || ce == PROF_NONE)
				continue;
			int mi = gmon_module_at(g, a->call_site);
			const struct gmon_module *m = mi < 0 ? NULL : &g->modules[mi];
			struct symtab *st = m ? spy_binary(b, g, m) : NULL;
			const struct symtab_sym *sym = st ? sym_at(st, a->call_site - m->base) : NULL;
			uint32_t k = sym ? find_exact(h, sym->addr + m->base) : PROF_NONE;
			if (k == PROF_NONE || !p->items[k].has_count)
				continue;
			p->callers_checked++;
			if (k == cr)
				continue;
			if (!p->callers_bad++) {
				size_t n = strlen(p->items[cr].name) + strlen(p->items[ce].name) +
					   strlen(p->items[k].name) + 64;
				p->caller_bad_example = xmalloc(n);
				snprintf(p->caller_bad_example, n, "%s -> %s, called from %s",
					 p->items[cr].name, p->items[ce].name, p->items[k].name);
			}
		}
	}
}

/*
 * The hooks' own cycles off the self times that hold them (the header's calibration): hook_in off each
 * call's callee, hook_out off its caller; and a tail call's beyond a call's: hook_tail_in off the tail
 * caller, hook_tail_out off the tail caller's caller, whose calls of it end in a tail call in the share
 * of the callee's calls that did. What would go below 0 is said in the header (clamped).
 */
static void hook_correction(struct prof *p)
{
	double *tail_share = NULL;
	if (p->hook_tail_in != 0 || p->hook_tail_out != 0) {
		tail_share = xcalloc(p->nr + 1, sizeof(double));
		for (size_t i = 0; i < p->nr; i++) {
			const struct prof_func *f = &p->items[i];
			tail_share[i] = f->arcs_in ? (double)f->tail_calls / (double)f->arcs_in : 0;
		}
	}
	for (size_t i = 0; i < p->nr; i++) {
		struct prof_func *f = &p->items[i];
		double s = f->m_self_raw - (double)f->out_calls * p->hook_out -
			   (double)f->arcs_in * p->hook_in - (double)f->tail_calls * p->hook_tail_in;
		f->m_self = s;
	}
	for (size_t i = 0; tail_share && i < p->narcs; i++) {
		const struct prof_arc *a = &p->arcs[i];
		p->items[a->parent].m_self -= (double)a->count * tail_share[a->child] * p->hook_tail_out;
	}
	for (size_t i = 0; i < p->nr; i++) {
		struct prof_func *f = &p->items[i];
		if (f->m_self < 0) {
			p->clamped_cycles -= f->m_self;
			p->nclamped++;
			f->m_self = 0;
		}
	}
	free(tail_share);
}

/* Which raw arcs (ends: caller and callee index per raw arc, PROF_NONE when unknown or none) are
 * one arc: returns, per raw arc with both ends, the raw index of the first one of its (caller,
 * callee), for the others garbage. Done caller by caller with two small arrays over the callees,
 * which beats a hash of a million pairs probed at random. */
static uint32_t *merge_arcs(const struct prof *p, const uint32_t *ends, size_t nraw)
{
	size_t n = p->nr;
	uint32_t *first = xmalloc((nraw + 1) * sizeof(uint32_t));
	uint32_t *start = xcalloc(n + 2, sizeof(uint32_t));
	uint32_t *byc = xmalloc((nraw + 1) * sizeof(uint32_t));
	for (size_t r = 0; r < nraw; r++)
		if (ends[2 * r] != PROF_NONE && ends[2 * r + 1] != PROF_NONE)
			start[ends[2 * r] + 2]++;
	for (size_t i = 0; i < n; i++)
		start[i + 2] += start[i + 1];
	/* the raw arcs by caller, in raw order: start[c + 1] is caller c's cursor */
	for (size_t r = 0; r < nraw; r++)
		if (ends[2 * r] != PROF_NONE && ends[2 * r + 1] != PROF_NONE)
			byc[start[ends[2 * r] + 1]++] = (uint32_t)r;
	uint32_t *mark = xmalloc((n + 1) * sizeof(uint32_t)), *pos = xmalloc((n + 1) * sizeof(uint32_t));
	for (size_t i = 0; i < n; i++)
		mark[i] = PROF_NONE;
	for (size_t c = 0; c < n; c++) {
		for (uint32_t k = start[c]; k < start[c + 1]; k++) {
			uint32_t r = byc[k], ce = ends[2 * (size_t)r + 1];
			if (mark[ce] != c) {
				mark[ce] = (uint32_t)c;
				pos[ce] = r;
			}
			first[r] = pos[ce];
		}
	}
	free(mark);
	free(pos);
	free(byc);
	free(start);
	return first;
}

/* The function holding pc: the binary's symbol there, when it is one of p's functions; without
 * the binary, the function below pc in pc's module. PROF_NONE for code of no instrumented one. */
static uint32_t pc_func(struct prof *p, struct pcname *b, const struct u64map *h, uint64_t pc)
{
	const struct gmon_profile *g = &p->spy;
	int mi = gmon_module_at(g, pc);
	if (mi < 0)
		return PROF_NONE;
	const struct gmon_module *m = &g->modules[mi];
	struct symtab *t = spy_binary(b, g, m);
	uint32_t k;
	if (t) {
		const struct symtab_sym *s = sym_at(t, pc - m->base);
		k = s ? find_exact(h, s->addr + m->base) : PROF_NONE;
	} else {
		k = prof_lookup(p, pc);
		k = k != PROF_NONE && gmon_module_at(g, p->items[k].addr) == mi ? k : PROF_NONE;
	}
	return k != PROF_NONE && !p->items[k].lib ? k : PROF_NONE; /* a row of code without hooks is none */
}

/* by time, then thread, then the order within the thread's trace */
static int tev_cmp(const void *a, const void *b)
{
	const struct prof_tevent *x = a, *y = b;
	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Every TRACE record's events in one array in time order across threads (p->tev), their functions
 * as indices. */
static void trace_events(struct prof *p, struct pcname *b, const struct u64map *h)
{
	const struct gmon_profile *g = &p->spy;
	size_t n = 0;
	for (uint32_t i = 0; i < g->ntraces; i++)
		n += g->traces[i].n;
	if (!n)
		return;
	p->tev = xmalloc(n * sizeof(*p->tev));
	for (uint32_t i = 0; i < g->ntraces; i++) {
		const struct gmon_trace *t = &g->traces[i];
		for (uint64_t j = 0; j < t->n; j++) {
			const struct gmon_tevent *e = &t->ev[j];
			struct prof_tevent *v = &p->tev[p->ntev++];
			v->time = e->time;
			v->tid = t->tid;
			v->kind = t->kind;
			v->what = e->what;
			v->seq = p->ntev;
			v->func = e->func > GMON_CALLER_MANY ? find_exact(h, e->func) : PROF_NONE;
			if (v->func == PROF_NONE && e->func > GMON_CALLER_MANY)
				v->func = prof_lookup(p, e->func);
			v->addr = e->addr;
			v->value = e->value;
			/* the function holding the call site or the interrupted PC; a fault's PC */
			uint64_t pc = t->kind == GMON_TRACE_FAULTS ? e->value : e->addr;
			v->at = pc ? pc_func(p, b, h, pc) : PROF_NONE;
		}
	}
	qsort(p->tev, p->ntev, sizeof(*p->tev), tev_cmp);
}

/* The function times' stopwatches (revision 3, threads with GMON_THREAD_STOPWATCH) summed by
 * function over threads and profiles: p->watch, left NULL when no thread has them. */
static void stopwatches(struct prof *p, const struct u64map *h)
{
	const struct gmon_profile *g = &p->spy;
	for (uint32_t i = 0; i < g->nthreads; i++) {
		const struct gmon_thread *t = &g->threads[i];
		if (!(t->flags & GMON_THREAD_STOPWATCH))
			continue;
		if (!p->watch) {
			p->nwatch = p->nr + 1;
			p->watch = xcalloc(p->nwatch, sizeof(*p->watch));
		}
		for (uint64_t j = 0; j < t->nfstats; j++) {
			const struct gmon_fstat *s = &t->fstats[j];
			uint32_t k = find_exact(h, s->addr);
			if (k == PROF_NONE || !s->outer)
				continue;
			struct prof_watch *w = &p->watch[k];
			if (!w->n || s->outer_min < w->min)
				w->min = s->outer_min;
			if (s->max > w->max)
				w->max = s->max;
			w->n += s->outer;
			w->sum += s->outer_sum;
			w->sq += (long double)s->outer_sq[1] * 18446744073709551616.0L +
				 (long double)s->outer_sq[0];
			for (uint32_t b = 0; b < s->nohist && b < GMON_HIST_BUCKETS; b++)
				w->hist[b] += s->outer_hist[b];
		}
	}
}

/* Without measured times, cpu or wall samples give them, as gprof's PC histogram does: each
 * stack's weight in ticks is self time of its innermost instrumented frame (of the function
 * holding its PC when it has no frames: mode count keeps no stacks), and the stacks are kept as
 * functions for graph.c to weigh the arcs. Ticks in the profiler, and in no instrumented
 * function, are counted apart and left out. */
static void sampled_stacks(struct prof *p, struct pcname *b, const struct u64map *h, const struct librows *lr)
{
	const struct gmon_profile *g = &p->spy;
	const struct gmon_sampling *sp = g->sampling;
	if (!sp || (sp->watch != GMON_WATCH_CPU && sp->watch != GMON_WATCH_WALL) || !sp->hz)
		return;
	double period_ns = 1e9 / (double)sp->hz;
	size_t ord = 0; /* the stack's place in the profile, librows' index */
	for (uint32_t t = 0; t < g->nsamples; t++) {
		const struct gmon_samples *ss = &g->samples[t];
		for (uint64_t k = 0; k < ss->nstacks; k++, ord++) {
			const struct gmon_stack *st = &ss->stacks[k];
			double v = (double)st->weight / period_ns;
			if (v <= 0)
				continue;
			p->sampled = 1;
			if (st->flags & GMON_STACK_RUNTIME) {
				p->profiler_ticks += v;
				continue;
			}
			GROW(p->stacks, p->nstacks, p->stacks_alloc);
			struct prof_stack *ps = &p->stacks[p->nstacks++];
			/* a PC in code without hooks: its row (librows.c), innermost, called from the
			 * instrumented frame below it */
			uint32_t row = librows_row(p, lr, ord);
			ps->w = v;
			ps->depth = st->depth + (row != PROF_NONE && st->depth);
			ps->frame0 = p->nframes;
			if (row != PROF_NONE && st->depth) {
				GROW(p->frames, p->nframes, p->frames_alloc);
				p->frames[p->nframes++] = row;
			}
			for (uint32_t d = 0; d < st->depth; d++) {
				GROW(p->frames, p->nframes, p->frames_alloc);
				p->frames[p->nframes++] = find_exact(h, st->frames[d].func);
			}
			ps->self = row != PROF_NONE ? row :
				   st->depth        ? p->frames[ps->frame0] :
				   st->pc           ? pc_func(p, b, h, st->pc) :
						      PROF_NONE;
			if (ps->self == PROF_NONE)
				p->outside_ticks += v;
			else
				p->items[ps->self].time += v;
		}
	}
	if (p->sampled)
		p->hz = (double)sp->hz;
}

/* One arc's counter totals added to c, its thread's counter k going to column col[k]. */
static void ctr_add(struct prof_ctr *c, const struct gmon_arcctr *a, const int *col)
{
	for (uint32_t k = 0; k < GMON_CTR_MAX; k++)
		if (col[k] >= 0) {
			c->incl[col[k]] += (double)a->incl[k];
			c->self[col[k]] += (double)a->self[k];
		}
}

static void build_model(struct prof *p, const struct read_opts *o)
{
	struct gmon_profile *g = &p->spy;
	struct pcname b;
	pcname_init(&b, g, 1);
	for (uint32_t i = 0; i < g->nmodules; i++)
		if (g->modules[i].flags & GMON_MOD_INSTRUMENTED)
			spy_binary(&b, g, &g->modules[i]);
	/* room for them all at once: one big array, on huge pages, instead of a doubling one */
	size_t nfuncs = p->nr;
	for (uint32_t i = 0; i < g->nfuncsets; i++)
		nfuncs += g->funcsets[i].nr;
	if (nfuncs > p->alloc) {
		p->alloc = nfuncs + 1;
		p->items = xrealloc(p->items, p->alloc * sizeof(*p->items));
	}
	for (uint32_t i = 0; i < g->nfuncsets; i++) {
		const struct gmon_funcs *fs = &g->funcsets[i];
		for (uint32_t j = 0; j < fs->nr; j++) {
			const struct gmon_func *gf = &fs->funcs[j];
			uint32_t k = prof_add_func(p, NULL, gf->addr, gf->addr + 1);
			struct prof_func *f = &p->items[k];
			prof_set_name(f, gf->name, o->demangle ? symtab_demangle(gf->name) : NULL);
			f->file = gf->file[0] ? xstrdup(gf->file) : NULL;
			f->line = gf->line;
			f->count = gf->count;
			f->has_count = 1;
		}
	}
	prof_sort_funcs(p);
	/* one function per address: a unit registered twice (or summed profiles) adds up; another
	 * name there is another module's function, merged with it by a runtime that kept no load
	 * apart from the next at its address: the self-check says so */
	size_t dst = 0;
	for (size_t i = 0; i < p->nr; i++) {
		if (dst > 0 && p->items[dst - 1].addr == p->items[i].addr) {
			if (strcmp(prof_key(&p->items[dst - 1]), prof_key(&p->items[i])) != 0) {
				size_t n = strlen(p->items[dst - 1].name) + strlen(p->items[i].name) + 6;
				GROW(p->shared, p->nshared, p->shared_alloc);
				p->shared[p->nshared] = xmalloc(n);
				snprintf(p->shared[p->nshared++], n, "%s and %s", p->items[dst - 1].name,
					 p->items[i].name);
			}
			p->items[dst - 1].count += p->items[i].count;
			free(p->items[i].name);
			free(p->items[i].key);
			free(p->items[i].file);
			continue;
		}
		p->items[dst++] = p->items[i];
	}
	p->nr = p->nsyms = dst;
	for (size_t i = 0; o->sources && i < p->nr; i++)
		if (p->items[i].file) { /* -A, -C: the plugin's file and line of each definition */
			p->items[i].src = xstrdup(p->items[i].file);
			p->items[i].src_line = p->items[i].line;
			p->items[i].src_order = (uint32_t)i;
		}
	prof_set_ends(p);
	/* code without hooks that the samples caught: rows of its own, before the indices are used */
	struct librows lr;
	librows_find(p, &b, &lr, o->demangle);
	struct u64map h = U64MAP_INIT;
	funcs_map_build(&h, p);
	/* the functions' times serve the stopwatch only, unless they are to be summed into a file (-s):
	 * gone before the arcs are, they never add to the peak */
	stopwatches(p, &h);
	for (uint32_t i = 0; !o->sum_path && i < g->nthreads; i++) {
		free(g->threads[i].fstats);
		free(g->threads[i].hist_pool);
		g->threads[i].fstats = NULL;
		g->threads[i].hist_pool = NULL;
		g->threads[i].nfstats = 0;
	}
	size_t known = p->nr, nraw = 0;
	for (uint32_t i = 0; i < g->nthreads; i++)
		nraw += g->threads[i].narcs;
	/* Each arc's caller and callee as function indices, found once: the second pass reuses them
	 * unless unknown functions were added (and the indices moved). */
	uint32_t *ends = xmalloc((2 * nraw + 1) * sizeof(uint32_t));
	size_t r = 0;
	for (uint32_t i = 0; i < g->nthreads; i++) {
		const struct gmon_thread *t = &g->threads[i];
		for (uint64_t j = 0; j < t->narcs; j++, r++) {
			if (j + 16 < t->narcs) {
				u64map_prefetch(&h, t->arcs[j + 16].caller);
				u64map_prefetch(&h, t->arcs[j + 16].callee);
			}
			ends[2 * r] = add_unknown(p, &b, &h, t->arcs[j].caller, o->demangle);
			uint64_t ce = t->arcs[j].callee;
			ends[2 * r + 1] = ce > GMON_CALLER_MANY ? add_unknown(p, &b, &h, ce, o->demangle) :
								  find_exact(&h, ce);
		}
	}
	if (p->nr != known) {
		/* functions were added: indices moved, look them all up again */
		prof_sort_funcs(p);
		funcs_map_build(&h, p);
		r = 0;
		for (uint32_t i = 0; i < g->nthreads; i++) {
			const struct gmon_thread *t = &g->threads[i];
			for (uint64_t j = 0; j < t->narcs; j++, r++) {
				const struct gmon_arc *a = &t->arcs[j];
				ends[2 * r] =
					a->caller > GMON_CALLER_MANY ? find_exact(&h, a->caller) : PROF_NONE;
				ends[2 * r + 1] = find_exact(&h, a->callee);
			}
		}
	}
	prof_set_ends(p);
	uint32_t *arc_of = merge_arcs(p, ends, nraw);
	prof_reserve_arcs(p, p->narcs + nraw, 0);
	if (p->offcpu) {
		p->func_off = xcalloc(p->nr + 1, sizeof(*p->func_off));
		p->arc_off = xcalloc(p->narcs + nraw + 1, sizeof(*p->arc_off));
	}
	/* SPYRT_COUNTERS: a column for each counter some thread had, by name */
	for (uint32_t i = 0; i < g->nthreads; i++)
		for (uint32_t k = 0; g->threads[i].arcctrs && k < g->threads[i].nctrs; k++) {
			const char *n = g->threads[i].ctr_names[k];
			if (n && prof_ctr_col(p, n) < 0 && p->nctr < PROF_CTR_MAX)
				p->ctr_names[p->nctr++] = xstrdup(n);
		}
	if (p->nctr) {
		p->func_ctr = xcalloc(p->nr + 1, sizeof(*p->func_ctr));
		p->arc_ctr = xcalloc(p->narcs + nraw + 1, sizeof(*p->arc_ctr));
	}
	r = 0;
	for (uint32_t i = 0; i < g->nthreads; i++) {
		const struct gmon_thread *t = &g->threads[i];
		int col[GMON_CTR_MAX];
		for (uint32_t k = 0; k < GMON_CTR_MAX; k++)
			col[k] = t->arcctrs && k < t->nctrs && t->ctr_names[k] ?
					 prof_ctr_col(p, t->ctr_names[k]) :
					 -1;
		for (uint64_t j = 0; j < t->narcs; j++, r++) {
			const struct gmon_arc *a = &t->arcs[j];
			uint32_t cr = ends[2 * r], ce = ends[2 * r + 1];
			/* the functions of an arc a little ahead */
			if (r + 8 < nraw && ends[2 * r + 17] != PROF_NONE) {
				__builtin_prefetch(&p->items[ends[2 * r + 17]]);
				if (ends[2 * r + 16] != PROF_NONE)
					__builtin_prefetch(&p->items[ends[2 * r + 16]].out_calls);
			}
			if (ce == PROF_NONE)
				continue;
			struct prof_func *f = &p->items[ce];
			f->arcs_in += a->count;
			f->ncalls += a->count;
			f->m_incl += (double)a->incl;
			f->m_self_raw += (double)a->self;
			if (t->arcctrs && p->func_ctr)
				ctr_add(&p->func_ctr[ce], &t->arcctrs[j], col);
			if (t->arcoffs && p->func_off) {
				struct prof_off *fo = &p->func_off[ce];

				fo->incl += (double)t->arcoffs[j].incl;
				fo->self += (double)t->arcoffs[j].self;
				fo->pre += (double)t->arcoffs[j].self_pre;
			}
			if (cr == PROF_NONE) {
				f->spont += a->count;
				f->m_spont_incl += (double)a->incl;
				continue;
			}
			p->items[cr].out_calls += a->count;
			if (is_tail_site(g, a->call_site))
				p->items[cr].tail_calls += a->count;
			struct prof_arc *pa;
			if (arc_of[r] == r) {
				/* the first of its (caller, callee): a new arc */
				GROW(p->arcs, p->narcs, p->arcs_alloc);
				pa = &p->arcs[p->narcs];
				memset(pa, 0, sizeof(*pa));
				pa->parent = cr;
				pa->child = ce;
				arc_of[r] = (uint32_t)p->narcs++;
			} else {
				arc_of[r] = arc_of[arc_of[r]];
				pa = &p->arcs[arc_of[r]];
			}
			pa->count += a->count;
			pa->m_incl += (double)a->incl;
			pa->m_self += (double)a->self;
			if (t->arcoffs && p->arc_off)
				p->arc_off[arc_of[r]] += (double)t->arcoffs[j].incl;
			if (t->arcctrs && p->arc_ctr)
				ctr_add(&p->arc_ctr[arc_of[r]], &t->arcctrs[j], col);
		}
	}
	free(arc_of);
	check_callers(p, &b, &h, ends);
	free(ends);
	hook_correction(p);
	if (p->measured)
		librows_carve(p, &lr);
	else if (g->hdr.mode != SPY_MODE_COUNT)
		librows_arcs(p, &lr);
	if (g->hdr.mode == SPY_MODE_COUNT) {
		/* the add-one counters are the calls; who made them is not recorded */
		p->no_arcs = 1;
		for (size_t i = 0; i < p->nr; i++)
			p->items[i].ncalls = p->items[i].count;
	}
	if (!p->measured)
		sampled_stacks(p, &b, &h, &lr);
	librows_release(&lr);
	trace_events(p, &b, &h);
	u64map_release(&h);
	pcname_release(&b);
}

/* gprof's -i for a spy profile: what it holds, in gprof's words where they fit. */
static void spy_file_info(const char *path, const struct gmon_profile *q)
{
	uint64_t nfuncs = 0, narcs = 0;
	for (uint32_t i = 0; i < q->nfuncsets; i++)
		nfuncs += q->funcsets[i].nr;
	for (uint32_t i = 0; i < q->nthreads; i++)
		narcs += q->threads[i].narcs;
	printf("File `%s' (spy, mode %s) contains:\n", esc_text(path), gmon_mode_name(q->hdr.mode));
	printf("\t%u module%s\n", q->nmodules, q->nmodules == 1 ? "" : "s");
	printf("\t%" PRIu64 " function%s\n", nfuncs, nfuncs == 1 ? "" : "s");
	printf("\t%u thread%s\n", q->nthreads, q->nthreads == 1 ? "" : "s");
	printf("\t%" PRIu64 " call-graph arc%s\n", narcs, narcs == 1 ? "" : "s");
	printf("\t%u sample record%s\n", q->nsamples, q->nsamples == 1 ? "" : "s");
}

/* `spinprof PROG gmon.out` with a spy profile: PROG must be the executable that ran (the build-id
 * the profile recorded); its symbols are then read from PROG, wherever the run's binary was. */
static int spy_use_prog(struct gmon_profile *g, const char *prog, const char *path)
{
	struct symtab t = { 0 };
	for (uint32_t i = 0; i < g->nmodules; i++) {
		struct gmon_module *m = &g->modules[i];
		if (!(m->flags & GMON_MOD_MAIN))
			continue;
		int rc = symtab_load_build_id(&t, prog);
		if (rc == 0 && m->build_id_len &&
		    (t.build_id_len != m->build_id_len || memcmp(t.build_id, m->build_id, m->build_id_len))) {
			esc_msg("spinprof: %s: not the program that wrote %s (build-id differs)\n", prog,
				path);
			rc = -1;
		} else if (rc < 0) {
			esc_msg("spinprof: %s: cannot read its build-id\n", prog);
		} else {
			free(m->path);
			m->path = xstrdup(prog);
		}
		symtab_release(&t);
		return rc;
	}
	esc_msg("spinprof: %s: names no executable: %s cannot stand for it\n", path, prog);
	return -1;
}

int read_spy(struct prof *p, char **paths, int n, const struct read_opts *o)
{
	char err[512];
	int sampled = 0; /* the first file with samples: the watch the others must share */
	for (int i = 0; i < n; i++) {
		struct gmon_profile q;
		uint8_t magic[8];
		int fd = gmon_open_regular(paths[i], err, sizeof(err)), rc = -1;
		if (fd >= 0 && pread(fd, magic, 8, 0) == 8 && memcmp(magic, "gmon", 4) == 0 &&
		    (magic[4] | magic[5] << 8 | magic[6] << 16) == 1 && magic[7] == 0) {
			close(fd);
			esc_msg("spinprof: %s: a GNU gmon.out (gcc -pg): give the program first\n", paths[i]);
			return -1;
		}
		/* read record by record: a file that is no profile costs its header, not its size */
		prof_reading(paths[i]);
		if (fd >= 0) {
			rc = gmon_read_fd(fd, &q, err, sizeof(err));
			close(fd);
		}
		if (rc < 0) {
			esc_msg("spinprof: %s: %s\n", paths[i], err);
			return -1;
		}
		if (o->file_info)
			spy_file_info(paths[i], &q);
		if (q.hdr.end_ns < q.hdr.start_ns) {
			/* written so, or damaged: no duration (else it wraps to 584 years), and the report
			 * says so */
			q.hdr.end_ns = q.hdr.start_ns;
			p->duration_bad = 1;
		}
		if (q.sampling && !p->spy.sampling)
			sampled = i;
		if (i == 0) {
			p->spy = q;
		} else if (q.hdr.mode != p->spy.hdr.mode) {
			/* a time profile's cycles and an arcs profile's counts cannot make one call graph */
			esc_msg("spinprof: %s: recorded in mode %s, %s in mode %s: cannot sum\n", paths[i],
				gmon_mode_name(q.hdr.mode), paths[0], gmon_mode_name(p->spy.hdr.mode));
			gmon_profile_release(&q);
			return -1;
		} else if (q.sampling && p->spy.sampling && !same_watch(q.sampling, p->spy.sampling)) {
			char w[256], v[256];
			watch_desc(w, sizeof(w), q.sampling);
			watch_desc(v, sizeof(v), p->spy.sampling);
			esc_msg("spinprof: %s: watches %s, %s watches %s: cannot sum\n", paths[i], w,
				paths[sampled], v);
			gmon_profile_release(&q);
			return -1;
		} else {
			spy_merge(&p->spy, &q);
			gmon_profile_release(&q);
		}
	}
	if (o->prog && spy_use_prog(&p->spy, o->prog, paths[0]) < 0)
		return -1;
	/* the model is built from them all: one file's name only when there is one */
	prof_reading(n == 1 ? paths[0] : NULL);
	p->nprofiles = n;
	struct gmon_header *h = &p->spy.hdr;
	p->kind = PROF_SPY;
	p->duration_s = (double)(h->end_ns - h->start_ns) / 1e9;
	p->measured = h->mode == SPY_MODE_TIME && h->tsc_hz > 0;
	p->hz = p->measured ? (double)h->tsc_hz : 100.0;
	p->hook_out = (double)h->hook_out_mcyc / 1000.0;
	p->hook_in = (double)h->hook_in_mcyc / 1000.0;
	p->hook_tail_in = (double)h->hook_tail_in_mcyc / 1000.0;
	p->hook_tail_out = (double)h->hook_tail_out_mcyc / 1000.0;
	for (uint32_t i = 0; p->measured && i < p->spy.nthreads; i++)
		if (p->spy.threads[i].flags & GMON_THREAD_OFFCPU)
			p->offcpu = 1;
	build_model(p, o);
	prof_reading(NULL);
	for (size_t i = 0; i < p->nsyms; i++)
		p->total_time += p->measured ? p->items[i].m_self : p->items[i].time;
	if (o->sum_path) {
		uint8_t *out;
		size_t len;
		if (gmon_encode(&p->spy, 6, &out, &len) < 0) {
			esc_msg("spinprof: %s: out of memory\n", o->sum_path);
			return -1;
		}
		/* gmon.sum, a fixed name: whatever is there is replaced, never written into (flags 0) */
		int rc = gmon_write_file(o->sum_path, out, len, 0, err, sizeof(err));
		free(out);
		if (rc < 0) {
			esc_msg("spinprof: %s: %s\n", o->sum_path, err);
			return -1;
		}
	}
	return 0;
}
