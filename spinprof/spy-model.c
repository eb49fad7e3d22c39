/* The Spy report's numbers: every sampled stack's weight goes to the procedure of its PC as self
 * and once to every procedure on the stack as total; the calls seen on stacks, and the profile's
 * arcs, make the call graph. Without samples, a time-mode profile's exact cycles do the same. */
#include <stdlib.h>
#include <string.h>

#include "modsym.h"
#include "spy-model.h"
#include "sorted.h"

#define SP_NONE UINT32_MAX

/* Keys of the pseudo-procedures; real code lives far above them. */
enum {
	KEY_PROFILER = 1,
	KEY_UNKNOWN = 2,
	KEY_TARGET = 3,     /* calls:FUNC's FUNC, when the profile has no function of that name */
	KEY_MODULE = 0x100, /* + module index */
};

static uint32_t proc_find(const struct sp_model *m, uint64_t key)
{
	return u64map_get(&m->procs_map, key, SP_NONE);
}

static uint32_t proc_add(struct sp_model *m, uint64_t key, const char *name, unsigned kind, int module)
{
	GROW(m->procs, m->nprocs, m->procs_alloc);
	struct sp_proc *pr = &m->procs[m->nprocs];
	memset(pr, 0, sizeof(*pr));
	pr->name = xstrdup(name);
	pr->key = key;
	pr->kind = kind;
	pr->module = module;
	u64map_put(&m->procs_map, key, (uint32_t)m->nprocs);
	return (uint32_t)m->nprocs++;
}

/* The profile's function (real ones, sorted by address) with the largest address <= a. */
static uint32_t prof_floor(const struct prof *p, uint64_t a)
{
	size_t lo = sorted_upper(p->items, p->nsyms, sizeof(*p->items), offsetof(struct prof_func, addr), a);
	return lo ? (uint32_t)(lo - 1) : SP_NONE;
}

static int module_of(const struct sp_model *m, uint64_t a)
{
	return gmon_module_at(&m->p->spy, a);
}

/* The binary of module i, when it is there and is the one that ran (read-spy.c has warned). */
static struct symtab *binary(struct sp_model *m, int i)
{
	return pcname_symtab(&m->names, i);
}

/* libdwfl's view of module i's binary, under the same conditions. */
static struct modsym *names(struct sp_model *m, int i)
{
	return pcname_modsym(&m->names, i);
}

int sp_src(struct sp_model *m, uint64_t addr, const char **file, unsigned *line)
{
	int i = module_of(m, addr);
	if (i < 0)
		return -1;
	uint64_t fa = addr - m->p->spy.modules[i].base;
	struct symtab *t = binary(m, i);
	if (t && symtab_src(t, fa, file, line) == 0)
		return 0;
	struct modsym *s = names(m, i);
	return s ? modsym_src(s, fa, file, line) : -1;
}

int sp_inline(struct sp_model *m, uint64_t addr, const char **name, const char **file, unsigned *line)
{
	int i = module_of(m, addr);
	struct modsym *s = i >= 0 ? names(m, i) : NULL;
	return s ? modsym_inline(s, addr - m->p->spy.modules[i].base, name, file, line) : -1;
}

void sp_addr_text(const struct sp_model *m, uint64_t addr, char *buf, size_t n)
{
	int i = module_of(m, addr);
	if (i < 0)
		snprintf(buf, n, "?");
	else
		snprintf(buf, n, "%s+0x%llx", pcname_module(&m->names, i),
			 (unsigned long long)(addr - m->p->spy.modules[i].base));
}

/* The procedure of the profile's function k. */
static uint32_t proc_of_item(struct sp_model *m, uint32_t k)
{
	const struct prof_func *f = &m->p->items[k];
	uint32_t i = proc_find(m, f->addr);
	if (i != SP_NONE)
		return i;
	i = proc_add(m, f->addr, f->name ? f->name : "?", SP_FUNC, module_of(m, f->addr));
	m->procs[i].file = f->file;
	m->procs[i].line = f->line;
	return i;
}

/* The procedure of the function at runtime address key, called sym in module mi's symbols. */
static uint32_t proc_at(struct sp_model *m, uint64_t key, const char *sym, int mi)
{
	uint32_t i = proc_find(m, key);
	if (i != SP_NONE)
		return i;
	/* code without hooks keeps its symbol's name here (the flat profile's row adds the module) */
	uint32_t k = prof_floor(m->p, key);
	if (k != SP_NONE && m->p->items[k].addr == key && !m->p->items[k].lib)
		return proc_of_item(m, k);
	char *dm = m->demangle ? symtab_demangle(sym) : NULL;
	i = proc_add(m, key, dm ? dm : sym, SP_FUNC, mi);
	free(dm);
	return i;
}

/* The procedure holding address a: the binary's symbols, else libdwfl's names, else the profile's functions of its
 * module, else the module itself, else <unknown>. */
static uint32_t proc_of_pc(struct sp_model *m, uint64_t a)
{
	const struct prof *p = m->p;
	int mi = module_of(m, a);
	if (mi < 0) {
		uint32_t i = proc_find(m, KEY_UNKNOWN);
		return i != SP_NONE ? i : proc_add(m, KEY_UNKNOWN, "<unknown>", SP_UNKNOWN, -1);
	}
	if (!binary(m, mi)) {
		uint32_t k = prof_floor(p, a);
		if (k != SP_NONE && p->items[k].addr >= p->spy.modules[mi].text_lo && !p->items[k].lib)
			return proc_of_item(m, k);
	}
	/* the binary's symbols (a .cold part's function), else libc and the like: .dynsym, or the
	 * symbols of a separate debug file */
	uint64_t start;
	const char *nm = pcname_func(&m->names, mi, a, &start);
	if (nm)
		return proc_at(m, start, nm, mi);
	uint32_t i = proc_find(m, KEY_MODULE + (uint64_t)mi);
	if (i != SP_NONE)
		return i;
	char name[256];
	snprintf(name, sizeof(name), "[%s]", pcname_module(&m->names, mi));
	return proc_add(m, KEY_MODULE + (uint64_t)mi, name, SP_MODULE, mi);
}

/* The procedure of a frame's function (an entry address). */
static uint32_t proc_of_func(struct sp_model *m, uint64_t a)
{
	uint32_t i = proc_find(m, a);
	if (i != SP_NONE)
		return i;
	uint32_t k = prof_floor(m->p, a);
	if (k != SP_NONE && m->p->items[k].addr == a)
		return proc_of_item(m, k);
	return proc_of_pc(m, a);
}

/* The procedure of the profile's function called name (calls:FUNC's target), or a new one. */
static uint32_t proc_named(struct sp_model *m, const char *name)
{
	const struct prof *p = m->p;
	for (size_t k = 0; k < p->nsyms; k++)
		if (p->items[k].name && strcmp(p->items[k].name, name) == 0)
			return proc_of_item(m, (uint32_t)k);
	uint32_t i = proc_find(m, KEY_TARGET);
	return i != SP_NONE ? i : proc_add(m, KEY_TARGET, name, SP_UNKNOWN, -1);
}

static uint32_t profiler(struct sp_model *m)
{
	uint32_t i = proc_find(m, KEY_PROFILER);
	return i != SP_NONE ? i : proc_add(m, KEY_PROFILER, "<profiler>", SP_PROFILER, -1);
}

static uint32_t edge_add(struct sp_model *m, uint32_t from, uint32_t to, uint64_t site)
{
	uint64_t key = ((uint64_t)from * 0x100000001b3ull ^ to) * 0xff51afd7ed558ccdull ^ site;
	struct u64map *h = &m->edge_map;
	u64map_reserve(h, m->nedges + 1);
	size_t s = u64map_first(h, key);
	for (; h->slots[s].used; s = u64map_step(h, s)) {
		struct sp_edge *e = &m->edges[h->slots[s].val];
		if (h->slots[s].key == key && e->from == from && e->to == to && e->site == site)
			return h->slots[s].val;
	}
	GROW(m->edges, m->nedges, m->edges_alloc);
	struct sp_edge *e = &m->edges[m->nedges];
	memset(e, 0, sizeof(*e));
	e->from = from;
	e->to = to;
	e->site = site;
	u64map_claim(h, s, key, (uint32_t)m->nedges);
	return (uint32_t)m->nedges++;
}

/* The file's count of exited threads folded into one record (revision 3). */
static uint64_t threads_folded(const struct gmon_profile *g)
{
	for (uint32_t i = 0; i < g->ncounters; i++)
		if (g->counters[i].name && !strcmp(g->counters[i].name, "threads_folded"))
			return g->counters[i].value;
	return 0;
}

int sp_has_samples(const struct prof *p)
{
	const struct gmon_profile *g = &p->spy;
	if (p->kind != PROF_SPY || !g->sampling)
		return 0;
	for (uint32_t t = 0; t < g->nsamples; t++)
		if (g->samples[t].nstacks)
			return 1;
	return 0;
}

static const struct gmon_thread *thread_of(const struct gmon_profile *g, uint32_t tid)
{
	for (uint32_t i = 0; i < g->nthreads; i++)
		if (g->threads[i].tid == tid)
			return &g->threads[i];
	return NULL;
}

/* A thread's heaviest procedures from (proc, weight) pairs, summed per procedure. */
static int pair_cmp(const void *a, const void *b)
{
	const struct sp_pc *x = a, *y = b;
	return x->proc < y->proc ? -1 : x->proc > y->proc;
}

static void thread_top(struct sp_thread *th, struct sp_pc *pairs, size_t n)
{
	qsort(pairs, n, sizeof(*pairs), pair_cmp);
	th->ntop = 0;
	for (size_t i = 0; i < n;) {
		size_t j = i;
		double w = 0;
		for (; j < n && pairs[j].proc == pairs[i].proc; j++)
			w += pairs[j].w;
		/* insert into the sorted top list */
		uint32_t at = th->ntop;
		while (at > 0 &&
		       (th->topw[at - 1] < w || (th->topw[at - 1] == w && th->top[at - 1] > pairs[i].proc)))
			at--;
		if (at < 8) {
			uint32_t last = th->ntop < 8 ? th->ntop : 7;
			for (uint32_t q = last; q > at; q--) {
				th->top[q] = th->top[q - 1];
				th->topw[q] = th->topw[q - 1];
			}
			th->top[at] = pairs[i].proc;
			th->topw[at] = w;
			if (th->ntop < 8)
				th->ntop++;
		}
		i = j;
	}
}

/* Keep a stack (frames fp, innermost first, and the procedure of its PC) as a path, root first. */
static void path_add(struct sp_model *m, const uint32_t *fp, uint32_t depth, uint32_t pc, double v,
		     uint32_t thread)
{
	GROW(m->paths, m->npaths, m->paths_alloc);
	struct sp_path *pa = &m->paths[m->npaths++];
	pa->w = v;
	pa->thread = thread;
	pa->at = m->npath_procs;
	pa->depth = depth + (depth == 0 || fp[0] != pc);
	while (m->npath_procs + pa->depth > m->path_procs_alloc) {
		m->path_procs_alloc = m->path_procs_alloc ? m->path_procs_alloc * 2 : 256;
		m->path_procs = xrealloc(m->path_procs, m->path_procs_alloc * sizeof(uint32_t));
	}
	uint32_t *q = m->path_procs + m->npath_procs;
	for (uint32_t d = depth; d > 0; d--)
		*q++ = fp[d - 1];
	if (depth == 0 || fp[0] != pc)
		*q++ = pc;
	m->npath_procs += pa->depth;
}

static void from_samples(struct sp_model *m)
{
	const struct gmon_profile *g = &m->p->spy;
	const struct gmon_sampling *sp = g->sampling;
	int ticks = sp->watch == GMON_WATCH_CPU || sp->watch == GMON_WATCH_WALL;
	double period_ns = sp->hz ? 1e9 / (double)sp->hz : 0;
	m->pc_is_ret = sp->watch == GMON_WATCH_ALLOC || sp->watch == GMON_WATCH_ALLOCBYTES ||
		       sp->watch == GMON_WATCH_CALLS;
	m->unit = ticks                              ? "ticks" :
		  sp->watch == GMON_WATCH_ALLOC      ? "allocations" :
		  sp->watch == GMON_WATCH_ALLOCBYTES ? "bytes" :
		  sp->watch == GMON_WATCH_FAULTS     ? "faults" :
		  sp->watch == GMON_WATCH_CALLS      ? "calls" :
						       "samples";
	uint32_t *pstamp = NULL, stamp = 0;
	size_t pstamp_n = 0;
	uint32_t *fp = NULL; /* frame procedures of one stack */
	uint64_t *site = NULL;
	size_t fp_alloc = 0;
	uint32_t target = SP_NONE;
	if (sp->watch == GMON_WATCH_CALLS && sp->target && sp->target[0])
		target = proc_named(m, sp->target);
	m->target = target;
	m->threads = xcalloc(g->nsamples + 1, sizeof(*m->threads));
	for (uint32_t t = 0; t < g->nsamples; t++) {
		const struct gmon_samples *ss = &g->samples[t];
		struct sp_thread *th = &m->threads[m->nthreads++];
		const struct gmon_thread *gt = thread_of(g, ss->tid);
		th->tid = ss->tid;
		th->name = gt && gt->name ? gt->name : "";
		th->flags = gt ? gt->flags : 0;
		th->folded = th->flags & GMON_THREAD_FOLDED ? threads_folded(g) : 0;
		struct sp_pc *pairs = xmalloc((ss->nstacks + 1) * sizeof(*pairs));
		size_t npairs = 0;
		for (uint64_t k = 0; k < ss->nstacks; k++) {
			const struct gmon_stack *st = &ss->stacks[k];
			/* cpu, wall: the time a stack stands for, in ticks of the asked rate; a signal
			 * may stand for several ticks (the kernel checks CPU timers at its own tick),
			 * and a waiting stack for however long the thread was off the CPU */
			double v = ticks && period_ns > 0 ?
					   (double)st->weight / period_ns :
					   (double)(ticks || sp->watch == GMON_WATCH_NONE ? st->count :
											    st->weight);
			if (v <= 0)
				continue;
			m->all += v;
			m->nstacks++;
			m->ncut += (st->flags & GMON_STACK_CUT) != 0;
			if (fp_alloc < (size_t)st->depth + 2) {
				fp_alloc = (size_t)st->depth + 2;
				fp = xrealloc(fp, fp_alloc * sizeof(uint32_t));
				site = xrealloc(site, fp_alloc * sizeof(uint64_t));
			}
			/* the stack as procedures and the call sites they were called from */
			uint32_t depth = 0;
			if (target != SP_NONE &&
			    (!st->depth || proc_of_func(m, st->frames[0].func) != target)) {
				/* calls:FUNC: the runtime records FUNC's callers, FUNC's call site as the PC */
				fp[depth] = target;
				site[depth++] = st->pc;
			}
			for (uint32_t d = 0; d < st->depth; d++, depth++) {
				fp[depth] = proc_of_func(m, st->frames[d].func);
				site[depth] = st->frames[d].call_site;
			}
			int mi = module_of(m, st->pc ? st->pc : st->depth ? st->frames[0].func : 0);
			m->module_w[mi < 0 ? g->nmodules : (uint32_t)mi] += v;
			if (st->flags & GMON_STACK_RUNTIME) {
				/* the profiler's own: apart (Mesa's overhead correction), charged to the
				 * instrumented function running for SPIN's listing of them */
				uint32_t at = depth ? fp[0] : profiler(m); /* may move m->procs */
				m->in_runtime += v;
				m->procs[at].rt += v;
				/* the stack formats show it, as <profiler> on top of the stack it interrupted:
				 * its share there is the header's (prof_cost) */
				if (m->keep_paths)
					path_add(m, fp, depth, profiler(m), v, (uint32_t)(m->nthreads - 1));
				continue;
			}
			m->grand += v;
			th->w += v;
			uint32_t pc;
			if ((sp->watch == GMON_WATCH_CALLS || st->pc == 0) && depth)
				pc = fp[0];
			else if (st->pc == 0)
				pc = proc_of_pc(m, 0);
			else
				pc = proc_of_pc(m, m->pc_is_ret ? st->pc - 1 : st->pc);
			if (pstamp_n < m->nprocs) {
				pstamp = xrealloc(pstamp, m->procs_alloc * sizeof(uint32_t));
				memset(pstamp + pstamp_n, 0, (m->procs_alloc - pstamp_n) * sizeof(uint32_t));
				pstamp_n = m->procs_alloc;
			}
			struct sp_proc *pp = &m->procs[pc];
			pp->self += v;
			if (st->flags & GMON_STACK_WAITING) {
				pp->wait += v;
				th->wait += v;
				m->waiting += v;
			}
			pp->prog += v;
			if (st->pc && sp->watch != GMON_WATCH_CALLS) {
				GROW(m->pcs, m->npcs, m->pcs_alloc);
				m->pcs[m->npcs++] =
					(struct sp_pc){ pc, m->pc_is_ret ? st->pc - 1 : st->pc, v };
			}
			pairs[npairs++] = (struct sp_pc){ pc, 0, v };
			if (m->keep_paths)
				path_add(m, fp, depth, pc, v, (uint32_t)(m->nthreads - 1));
			/* total: once per distinct procedure on the stack */
			++stamp;
			for (uint32_t d = 0; d < depth; d++)
				if (pstamp[fp[d]] != stamp) {
					pstamp[fp[d]] = stamp;
					m->procs[fp[d]].total += v;
				}
			int pc_on_stack = pstamp[pc] == stamp;
			if (!pc_on_stack) {
				pstamp[pc] = stamp;
				pp->total += v;
			}
			/* calls: once per distinct (caller, callee, site) on the stack */
			for (uint32_t d = 0; d <= depth; d++) {
				uint32_t e;
				if (d == depth && d > 0)
					e = edge_add(m, SP_ROOT, fp[d - 1], site[d - 1]);
				else if (d == depth)
					e = edge_add(m, SP_ROOT, pc, 0);
				else if (d + 1 < depth)
					e = edge_add(m, fp[d + 1], fp[d], site[d]);
				else
					continue;
				if (m->edges[e].stamp != stamp) {
					m->edges[e].stamp = stamp;
					m->edges[e].w += v;
				}
			}
			if (depth && !pc_on_stack) {
				uint32_t e = edge_add(m, fp[0], pc, 0);
				if (m->edges[e].stamp != stamp) {
					m->edges[e].stamp = stamp;
					m->edges[e].w += v;
				}
			}
		}
		thread_top(th, pairs, npairs);
		free(pairs);
	}
	free(pstamp);
	free(fp);
	free(site);
}

/* The arc of the model from prof function a to b, or NULL. */
static const struct prof_arc *prof_arc_of(const struct prof *p, uint32_t a, uint32_t b)
{
	const struct prof_func *f = &p->items[a];
	for (uint32_t k = 0; k < f->nchild; k++) {
		const struct prof_arc *pa = &p->arcs[p->child_arcs[f->child0 + k]];
		if (pa->child == b)
			return pa;
	}
	return NULL;
}

static uint32_t item_exact(const struct prof *p, uint64_t a)
{
	uint32_t k = prof_floor(p, a);
	return k != SP_NONE && p->items[k].addr == a ? k : SP_NONE;
}

/* The profile's arcs, as calls (with their corrected inclusive cycles in time mode). */
static void from_arcs(struct sp_model *m, int timed)
{
	const struct prof *p = m->p;
	const struct gmon_profile *g = &p->spy;
	double *spont_raw = timed ? xcalloc(p->nsyms + 1, sizeof(double)) : NULL;
	for (uint32_t t = 0; timed && t < g->nthreads; t++)
		for (uint64_t j = 0; j < g->threads[t].narcs; j++) {
			const struct gmon_arc *a = &g->threads[t].arcs[j];
			uint32_t ce = item_exact(p, a->callee);
			if (ce != SP_NONE &&
			    (a->caller <= GMON_CALLER_MANY || item_exact(p, a->caller) == SP_NONE))
				spont_raw[ce] += (double)a->incl;
		}
	for (uint32_t t = 0; t < g->nthreads; t++)
		for (uint64_t j = 0; j < g->threads[t].narcs; j++) {
			const struct gmon_arc *a = &g->threads[t].arcs[j];
			uint32_t ce = item_exact(p, a->callee);
			uint32_t cr = a->caller > GMON_CALLER_MANY ? item_exact(p, a->caller) : SP_NONE;
			uint32_t to = ce != SP_NONE ? proc_of_item(m, ce) : proc_of_func(m, a->callee);
			uint32_t from = cr != SP_NONE                ? proc_of_item(m, cr) :
					a->caller > GMON_CALLER_MANY ? proc_of_func(m, a->caller) :
								       SP_ROOT;
			uint32_t e = edge_add(m, from, to, a->call_site);
			if (!timed || ce == SP_NONE)
				continue;
			double ratio = 1;
			if (cr != SP_NONE) {
				const struct prof_arc *pa = prof_arc_of(p, cr, ce);
				if (pa && pa->m_incl_raw > 0)
					ratio = pa->m_incl / pa->m_incl_raw;
			} else if (spont_raw[ce] > 0) {
				ratio = p->items[ce].m_spont_incl / spont_raw[ce];
			}
			m->edges[e].w += (double)a->incl * ratio;
		}
	free(spont_raw);
}

static void from_cycles(struct sp_model *m)
{
	const struct prof *p = m->p;
	const struct gmon_profile *g = &p->spy;
	m->unit = "cycles";
	for (size_t i = 0; i < p->nsyms; i++) {
		const struct prof_func *f = &p->items[i];
		if (f->m_incl <= 0 && f->m_self <= 0 && !f->arcs_in)
			continue;
		uint32_t k = proc_of_item(m, (uint32_t)i); /* may move m->procs */
		struct sp_proc *pr = &m->procs[k];
		pr->self += f->m_self;
		pr->prog += f->m_self;
		pr->total += f->m_incl > f->m_self ? f->m_incl : f->m_self;
		m->grand += f->m_self;
		m->all += f->m_self;
		int mi = module_of(m, f->addr);
		m->module_w[mi < 0 ? g->nmodules : (uint32_t)mi] += f->m_self;
	}
	/* threads: their functions' self cycles, less the hooks' cost in the whole run's proportion; a
	 * function's self cycles on a thread are its calls' there, the thread's arcs into it (the
	 * functions' own records, the stopwatch's, are gone once read unless -s keeps them) */
	m->threads = xcalloc(g->nthreads + 1, sizeof(*m->threads));
	for (uint32_t t = 0; t < g->nthreads; t++) {
		const struct gmon_thread *gt = &g->threads[t];
		struct sp_thread *th = &m->threads[m->nthreads++];
		th->tid = gt->tid;
		th->name = gt->name ? gt->name : "";
		th->flags = gt->flags;
		th->folded = th->flags & GMON_THREAD_FOLDED ? threads_folded(g) : 0;
		struct sp_pc *pairs = xmalloc((gt->narcs + 1) * sizeof(*pairs));
		size_t n = 0;
		for (uint64_t j = 0; j < gt->narcs; j++) {
			const struct gmon_arc *a = &gt->arcs[j];
			uint32_t k = item_exact(p, a->callee);
			if (k == SP_NONE || !a->self)
				continue;
			const struct prof_func *f = &p->items[k];
			double w = f->m_self_raw > 0 ? (double)a->self * f->m_self / f->m_self_raw : 0;
			pairs[n++] = (struct sp_pc){ proc_of_item(m, k), 0, w }; /* may move m->procs */
			th->w += w;
		}
		thread_top(th, pairs, n);
		free(pairs);
	}
}

/* Call paths from the exact cycles (time mode without samples): each function entered with no
 * known caller starts a path with its measured inclusive cycles; a function's cycles on a path go
 * to its own self and to its callees in the measured proportions of its self and its arcs'
 * inclusive cycles to its own inclusive ones (two-frame paths are thus exactly as measured; a deeper
 * path shares a callee's cycles from one caller among that caller's own paths). A call into a
 * function already on the path (recursion) ends the path with all its cycles, and so does a path
 * weighing less than a millionth of all, or any once four million have been expanded. */
struct arcwalk {
	struct sp_model *m;
	uint32_t *path; /* prof function indices */
	uint8_t *on;    /* by function: on the path */
	double tiny;    /* below this, a path's cycles stay with its last frame */
	size_t budget;  /* paths left to expand: a graph of many diamonds has exponentially many */
};

static void path_of(struct arcwalk *aw, uint32_t depth, double v)
{
	struct sp_model *m = aw->m;
	uint32_t *fp = xmalloc((depth + 1) * sizeof(uint32_t));
	for (uint32_t d = 0; d < depth; d++) /* path_add takes the innermost first */
		fp[d] = proc_of_item(m, aw->path[depth - 1 - d]);
	path_add(m, fp, depth, fp[0], v, UINT32_MAX); /* no thread: the arcs are all threads' */
	free(fp);
}

static void walk(struct arcwalk *aw, uint32_t depth, double amount)
{
	const struct prof *p = aw->m->p;
	uint32_t k = aw->path[depth - 1];
	const struct prof_func *f = &p->items[k];
	double incl = f->m_incl > 0 ? f->m_incl : 0, rest = amount;
	if (incl <= 0 || aw->on[k] || amount < aw->tiny || !aw->budget) {
		path_of(aw, depth, amount);
		return;
	}
	aw->on[k] = 1;
	aw->budget--;
	for (uint32_t j = 0; j < f->nchild; j++) {
		const struct prof_arc *a = &p->arcs[p->child_arcs[f->child0 + j]];
		if (a->child >= p->nsyms || a->m_incl <= 0 || a->child == k)
			continue;
		double v = amount * a->m_incl / incl;
		if (v <= 0)
			continue;
		aw->path[depth] = a->child;
		walk(aw, depth + 1, v);
		rest -= v;
	}
	aw->on[k] = 0;
	if (rest > amount * 1e-12)
		path_of(aw, depth, rest);
}

static void paths_from_arcs(struct sp_model *m)
{
	const struct prof *p = m->p;
	struct arcwalk aw = { m, xmalloc((p->nsyms + 2) * sizeof(uint32_t)), xcalloc(p->nsyms + 1, 1),
			      m->grand * 1e-6, 4000000 };
	for (uint32_t k = 0; k < p->nsyms; k++)
		if (p->items[k].m_spont_incl > 0) {
			aw.path[0] = k;
			walk(&aw, 1, p->items[k].m_spont_incl);
		}
	free(aw.path);
	free(aw.on);
	/* the hooks' calibrated cost, taken off every function's time, as a path of its own: the
	 * profiler's share of the stacks is the header's (prof_cost) */
	struct prof_cost c;
	prof_cost(p, &c);
	if (!c.from_samples && c.part > 0) {
		uint32_t pr = profiler(m);
		path_add(m, &pr, 1, pr, c.part, UINT32_MAX);
	}
}

static int ref_cmp(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;
	if (x[0] != y[0])
		return x[0] < y[0] ? -1 : 1;
	return x[1] < y[1] ? -1 : x[1] > y[1];
}

static int build(struct sp_model *m, const struct prof *p, int demangle, int keep_paths)
{
	memset(m, 0, sizeof(*m));
	m->p = p;
	m->keep_paths = keep_paths;
	m->demangle = demangle;
	m->target = SP_NONE;
	if (p->kind != PROF_SPY)
		return -1;
	m->sampled = sp_has_samples(p);
	if (!m->sampled && !p->measured)
		return -1;
	const struct gmon_profile *g = &p->spy;
	pcname_init(&m->names, g, 0);
	m->module_w = xcalloc(g->nmodules + 1, sizeof(double));
	if (m->sampled)
		from_samples(m);
	else
		from_cycles(m);
	from_arcs(m, !m->sampled);
	if (m->keep_paths && !m->sampled)
		paths_from_arcs(m);
	for (size_t i = 0; i < m->nprocs; i++)
		if (m->procs[i].kind == SP_FUNC && strcmp(m->procs[i].name, "main") == 0)
			edge_add(m, SP_ROOT, (uint32_t)i, 0);
	/* refs: distinct call sites per callee */
	uint64_t *pairs = xmalloc((m->nedges + 1) * 2 * sizeof(uint64_t));
	size_t n = 0;
	for (size_t i = 0; i < m->nedges; i++)
		if (m->edges[i].site) {
			pairs[2 * n] = m->edges[i].to;
			pairs[2 * n + 1] = m->edges[i].site;
			n++;
		}
	qsort(pairs, n, 2 * sizeof(uint64_t), ref_cmp);
	for (size_t i = 0; i < n; i++)
		if (i == 0 || pairs[2 * i] != pairs[2 * i - 2] || pairs[2 * i + 1] != pairs[2 * i - 1])
			m->procs[pairs[2 * i]].refs++;
	free(pairs);
	return 0;
}

size_t sp_stack_frames(struct sp_model *m, const struct gmon_stack *st, struct sp_frame *fr)
{
	const struct gmon_sampling *sp = m->p->spy.sampling;
	int calls = sp && sp->watch == GMON_WATCH_CALLS;
	size_t n = 0;
	if (st->flags & GMON_STACK_RUNTIME)
		fr[n++] = (struct sp_frame){ profiler(m), 0 };
	else if (calls && m->target != SP_NONE &&
		 (!st->depth || proc_of_func(m, st->frames[0].func) != m->target))
		fr[n++] = (struct sp_frame){ m->target, 0 }; /* FUNC, called from its call site st->pc */
	else if (st->pc && !calls) {
		uint64_t a = m->pc_is_ret ? st->pc - 1 : st->pc;
		fr[n++] = (struct sp_frame){ proc_of_pc(m, a), a };
	} else if (!st->depth) {
		fr[n++] = (struct sp_frame){ proc_of_pc(m, 0), 0 };
	}
	for (uint32_t d = 0; d < st->depth; d++) {
		uint32_t i = proc_of_func(m, st->frames[d].func);
		if (d == 0 && n && fr[n - 1].proc == i)
			continue; /* the PC is in the innermost frame's function */
		uint64_t cs = d > 0 ? st->frames[d - 1].call_site : calls ? st->pc : 0;
		uint64_t a = cs ? cs - 1 : 0;
		if (a && proc_of_pc(m, a) != i)
			a = 0; /* called from code without hooks in between */
		fr[n++] = (struct sp_frame){ i, a };
	}
	return n;
}

int sp_model_build(struct sp_model *m, const struct prof *p, int demangle)
{
	return build(m, p, demangle, 0);
}

int sp_model_build_paths(struct sp_model *m, const struct prof *p, int demangle)
{
	return build(m, p, demangle, 1);
}

void sp_model_release(struct sp_model *m)
{
	free(m->paths);
	free(m->path_procs);
	for (size_t i = 0; i < m->nprocs; i++)
		free(m->procs[i].name);
	free(m->procs);
	free(m->edges);
	free(m->pcs);
	free(m->threads);
	free(m->module_w);
	if (m->names.mods)
		pcname_release(&m->names);
	u64map_release(&m->procs_map);
	u64map_release(&m->edge_map);
	memset(m, 0, sizeof(*m));
}
