/* Writing the profile: gather every thread's data (live threads copied as they run, exited ones from
 * what they left), merge records of the same thread id, describe the modules and functions, and hand
 * the whole to the shared encoder; the file is replaced atomically. Errors are one line on stderr. */
#include "spyrt.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

_Static_assert(SPY_HIST_BUCKETS == GMON_HIST_BUCKETS, "histogram sizes differ");

/* argv from /proc/self/cmdline (NUL-separated), its first 64 KiB, read into the heap: no buffer of
 * that size on the stack, whichever stack the writer runs on. */
static void read_cmdline(struct gmon_header *h)
{
	const size_t max = 65536;
	size_t cap = 4096;
	ssize_t n = 0, r;
	char *buf = malloc(cap), *more;
	int fd = buf ? open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC) : -1;

	if (fd < 0) {
		free(buf);
		return;
	}
	for (;;) {
		if ((size_t)n == cap - 1) {
			if (cap == max || !(more = realloc(buf, cap * 2)))
				break;
			buf = more;
			cap *= 2;
		}
		r = read(fd, buf + n, cap - 1 - (size_t)n);
		if (r <= 0)
			break;
		n += r;
	}
	close(fd);
	buf[n] = 0;
	for (ssize_t i = 0; i < n; i += (ssize_t)strlen(buf + i) + 1)
		h->argc++;
	h->argv = calloc(h->argc ? h->argc : 1, sizeof(char *));
	if (!h->argv) {
		h->argc = 0;
		free(buf);
		return;
	}
	for (ssize_t i = 0, k = 0; i < n; i += (ssize_t)strlen(buf + i) + 1)
		h->argv[k++] = strdup(buf + i);
	for (uint32_t i = 0; i < h->argc; i++)
		if (!h->argv[i])
			h->argv[i] = calloc(1, 1);
	free(buf);
}

static void thread_name(struct spy_thread *t, char *buf, size_t sz)
{
	char path[64];
	ssize_t n;
	int fd;

	snprintf(buf, sz, "%s", t->name);
	if (t->state != SPY_THREAD_LIVE)
		return;
	snprintf(path, sizeof(path), "/proc/self/task/%d/comm", (int)t->tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	n = read(fd, buf, sz - 1);
	close(fd);
	if (n < 0)
		n = 0;
	buf[n] = 0;
	buf[strcspn(buf, "\n")] = 0;
}

static int arc_cmp(const void *a, const void *b)
{
	const struct gmon_arc *x = a, *y = b;

	if (x->call_site != y->call_site)
		return x->call_site < y->call_site ? -1 : 1;
	return x->callee < y->callee ? -1 : x->callee > y->callee;
}

static int fstat_cmp(const void *a, const void *b)
{
	const struct spy_tfstat *x = a, *y = b;

	return x->f.addr < y->f.addr ? -1 : x->f.addr > y->f.addr;
}

static int count_cmp(const void *a, const void *b)
{
	const struct gmon_count *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* An arc and its off-CPU times and counter totals, sorted together (arc first: arc_cmp reads it). */
struct arc_pair {
	struct gmon_arc a;
	struct gmon_arcoff o;
	struct gmon_arcctr c;
};

/* merge_thread's arcs when they have off-CPU times or counter totals beside them. 0 or -1 (no
 * memory). */
static int merge_arcs_off(struct gmon_thread *t)
{
	struct arc_pair *v = malloc((size_t)t->narcs * sizeof(*v));
	static const struct gmon_arcoff no_off;
	static const struct gmon_arcctr no_ctr;
	uint64_t o = 0;

	if (!v)
		return -1;
	for (uint64_t i = 0; i < t->narcs; i++)
		v[i] = (struct arc_pair){ t->arcs[i], t->arcoffs ? t->arcoffs[i] : no_off,
					  t->arcctrs ? t->arcctrs[i] : no_ctr };
	qsort(v, t->narcs, sizeof(*v), arc_cmp);
	for (uint64_t i = 0; i < t->narcs; i++) {
		struct arc_pair *d = o ? &v[o - 1] : NULL, *s = &v[i];

		if (d && !arc_cmp(d, s)) {
			if (d->a.caller != s->a.caller)
				d->a.caller = GMON_CALLER_MANY;
			d->a.count += s->a.count;
			d->a.incl += s->a.incl;
			d->a.self += s->a.self;
			d->o.incl += s->o.incl;
			d->o.self += s->o.self;
			d->o.self_pre += s->o.self_pre;
			for (int k = 0; k < GMON_CTR_MAX; k++) {
				d->c.incl[k] += s->c.incl[k];
				d->c.self[k] += s->c.self[k];
			}
		} else {
			v[o++] = *s;
		}
	}
	for (uint64_t i = 0; i < o; i++) {
		t->arcs[i] = v[i].a;
		if (t->arcoffs)
			t->arcoffs[i] = v[i].o;
		if (t->arcctrs)
			t->arcctrs[i] = v[i].c;
	}
	t->narcs = o;
	free(v);
	return 0;
}

/* Beside arcs: *dst (dn entries, NULL when none had them) grows by sn entries of src, zero when src
 * is NULL. 0 or -1 (no memory). */
int spy_append_beside(void **dst, uint64_t dn, const void *src, uint64_t sn, size_t size)
{
	char *o;

	if (!*dst && !src)
		return 0;
	o = realloc(*dst, (size_t)(dn + sn + 1) * size);
	if (!o)
		return -1;
	if (!*dst)
		memset(o, 0, (size_t)dn * size);
	if (src)
		memcpy(o + dn * size, src, (size_t)sn * size);
	else
		memset(o + dn * size, 0, (size_t)sn * size);
	*dst = o;
	return 0;
}

/* Sort and merge entries with equal keys (records of one thread id: a recycled tid). */
void spy_merge_thread(struct gmon_thread *t)
{
	uint64_t o = 0;

	if ((t->arcoffs || t->arcctrs) && t->narcs > 1 && merge_arcs_off(t)) {
		spy_note_error(
			"out of memory while writing: off-CPU times and counters of thread %u left out",
			t->tid);
		free(t->arcoffs);
		t->arcoffs = NULL;
		free(t->arcctrs);
		t->arcctrs = NULL;
	}
	/* (already sorted and merged with their off-CPU times: nothing left to merge below) */
	if (t->narcs > 1 && !t->arcoffs && !t->arcctrs)
		qsort(t->arcs, t->narcs, sizeof(*t->arcs), arc_cmp);
	for (uint64_t i = 0; i < t->narcs; i++) {
		struct gmon_arc *d = o ? &t->arcs[o - 1] : NULL, *s = &t->arcs[i];

		if (d && !arc_cmp(d, s)) {
			if (d->caller != s->caller)
				d->caller = GMON_CALLER_MANY;
			d->count += s->count;
			d->incl += s->incl;
			d->self += s->self;
		} else {
			t->arcs[o++] = *s;
		}
	}
	t->narcs = o;
	o = 0;
	if (t->ncounts > 1)
		qsort(t->counts, t->ncounts, sizeof(*t->counts), count_cmp);
	for (uint64_t i = 0; i < t->ncounts; i++) {
		if (o && t->counts[o - 1].addr == t->counts[i].addr)
			t->counts[o - 1].count += t->counts[i].count;
		else
			t->counts[o++] = t->counts[i];
	}
	t->ncounts = o;
}

uint64_t spy_merge_fstats(struct spy_tfstat *v, uint64_t n)
{
	uint64_t o = 0;

	if (n > 1)
		qsort(v, n, sizeof(*v), fstat_cmp);
	for (uint64_t i = 0; i < n; i++) {
		struct spy_tfstat *dv = o ? &v[o - 1] : NULL;
		struct gmon_fstat *d = dv ? &dv->f : NULL, *s = &v[i].f;

		if (d && d->addr == s->addr) {
			d->calls += s->calls;
			d->incl += s->incl;
			d->self += s->self;
			d->min = s->min < d->min ? s->min : d->min;
			d->max = s->max > d->max ? s->max : d->max;
			for (int k = 0; k < SPY_HIST_BUCKETS; k++)
				dv->hist[k] += v[i].hist[k];
			if (s->outer && (!d->outer || s->outer_min < d->outer_min))
				d->outer_min = s->outer_min;
			d->outer += s->outer;
			d->outer_sum += s->outer_sum;
			d->outer_sq[1] += s->outer_sq[1] + (d->outer_sq[0] + s->outer_sq[0] < d->outer_sq[0]);
			d->outer_sq[0] += s->outer_sq[0];
			for (int k = 0; k < SPY_HIST_BUCKETS; k++)
				dv->outer_hist[k] += v[i].outer_hist[k];
		} else {
			v[o++] = v[i];
		}
	}
	return o;
}

/* A thread's function times, gathered by add_thread in its hist_pool (nfstats of them, fstats
 * still NULL), merged and made its fstats: each with its whole histograms, which stay in the pool.
 * 0, or -1 (no memory: the thread has no function times). */
static int fstats_out(struct gmon_thread *g)
{
	struct spy_tfstat *v = g->hist_pool;
	uint64_t n = spy_merge_fstats(v, g->nfstats);

	g->nfstats = 0;
	if (!n)
		return 0;
	g->fstats = malloc((size_t)n * sizeof(*g->fstats));
	if (!g->fstats)
		return -1;
	for (uint64_t i = 0; i < n; i++) {
		g->fstats[i] = v[i].f;
		g->fstats[i].nhist = g->fstats[i].nohist = SPY_HIST_BUCKETS;
		g->fstats[i].hist = v[i].hist;
		g->fstats[i].outer_hist = v[i].outer_hist;
	}
	g->nfstats = n;
	return 0;
}

int spy_append(void **dst, uint64_t *dn, const void *src, uint64_t sn, size_t size)
{
	void *p;

	if (!sn)
		return 0;
	p = realloc(*dst, (size_t)(*dn + sn) * size);
	if (!p)
		return -1;
	memcpy((char *)p + *dn * size, src, (size_t)sn * size);
	*dst = p;
	*dn += sn;
	return 0;
}

/* One spy_thread into the gmon_thread of its tid (made when new). slot_addr maps slots. */
/* Where t blocked, to g's waits: its table's, then what its ring holds that no drain read (a live
 * thread's; in its innermost timed frame). */
static int add_waits(struct gmon_thread *g, const struct spy_thread *t, const struct spy_offpeek *pk)
{
	uint32_t n = __atomic_load_n(&t->off.nwait, __ATOMIC_ACQUIRE);
	struct gmon_wait *w;

	g->flags |= GMON_THREAD_WAITS;
	w = realloc(g->waits, ((size_t)g->nwaits + n + pk->nwait + 1) * sizeof(*w));
	if (!w)
		return -1;
	g->waits = w;
	w += g->nwaits;
	for (uint32_t i = 0; i < n; i++) {
		const struct spy_wait *s = &t->off.wait[i];

		*w++ = (struct gmon_wait){ SPY_GET(s->pc), SPY_GET(s->func), SPY_GET(s->kind),
					   SPY_GET(s->count), SPY_GET(s->cyc) };
	}
	for (uint32_t i = 0; i < pk->nwait; i++) {
		const struct spy_peekwait *s = &pk->wait[i];
		int other = s->pc == UINT64_MAX;

		*w++ = (struct gmon_wait){ other ? 0 : s->pc, other ? 0 : pk->func,
					   other ? GMON_WAIT_OTHER :
					   s->pc ? spy_wait_kind(s->pc) :
						   GMON_WAIT_UNREAD,
					   s->count, s->cyc };
	}
	g->nwaits = (uint32_t)(w - g->waits);
	return 0;
}

static int add_thread(struct gmon_profile *p, struct spy_thread *t, const struct spy_tdata *d,
		      const uint64_t *slot_addr, uint32_t nslots, int with_counts)
{
	struct gmon_thread *g = NULL, one;
	char name[32];
	int rc = 0;

	for (uint32_t i = 0; i < p->nthreads; i++)
		if (p->threads[i].tid == (uint32_t)t->tid)
			g = &p->threads[i];
	if (!g) {
		g = &p->threads[p->nthreads++];
		memset(g, 0, sizeof(*g));
		g->tid = (uint32_t)t->tid;
		g->start_ns = t->start_ns;
		thread_name(t, name, sizeof(name));
		g->name = strdup(name);
	}
	g->flags |= (t->main ? GMON_THREAD_MAIN : 0) |
		    (t->state == SPY_THREAD_EXITED ? GMON_THREAD_EXITED : 0) |
		    (t == &spy_folded ? GMON_THREAD_FOLDED : 0);
	if (t->end_ns > g->end_ns)
		g->end_ns = t->end_ns;
	if (t->state == SPY_THREAD_LIVE)
		g->end_ns = spy_now_ns(CLOCK_REALTIME); /* still running: until now */
	/* a live thread may still be running (a write does not wait for it forever) */
	g->dropped_arcs += SPY_GET(t->arcs.dropped_arcs);
	g->dropped_funcs += SPY_GET(t->arcs.dropped_funcs);
	g->dropped_frames += SPY_GET(t->dropped_frames);
	g->abandoned += SPY_GET(t->abandoned);
	g->unmatched += SPY_GET(t->unmatched);
	if (spy_written_mode() == SPY_MODE_TIME)
		g->flags |= GMON_THREAD_STOPWATCH;
	if (t->off.on && spy_written_mode() == SPY_MODE_TIME) {
		g->flags |= GMON_THREAD_OFFCPU;
		g->off_blocked += SPY_GET(t->off.blocked) + d->off_open.off - d->off_open.preempted;
		g->off_preempted += SPY_GET(t->off.preempted) + d->off_open.preempted;
		g->off_switches += SPY_GET(t->off.switches) + d->off_open.switches;
		g->off_lost += SPY_GET(t->off.lost);
		if (t->off.waits && add_waits(g, t, &d->off_open))
			rc = -1;
	}

	memset(&one, 0, sizeof(one));
	one.counts = calloc(d->ncounts ? d->ncounts : 1, sizeof(*one.counts));
	if (!one.counts) {
		rc = -1;
		goto out;
	}
	for (uint64_t i = 0; with_counts && i < d->ncounts; i++) {
		uint32_t slot = d->counts[i].slot;

		one.counts[one.ncounts++] =
			(struct gmon_count){ slot < nslots ? slot_addr[slot] : 0, d->counts[i].count };
	}
	/* off-CPU times and counter totals beside the arcs, zero for those of a record without (a
	 * recycled tid) */
	if (spy_append_beside((void **)&g->arcoffs, g->narcs, d->arcoffs, d->narcs, sizeof(*g->arcoffs)) ||
	    spy_append_beside((void **)&g->arcctrs, g->narcs, d->arcctrs, d->narcs, sizeof(*g->arcctrs))) {
		rc = -1;
		goto out;
	}
	/* SPYRT_COUNTERS: the run's counters, the same in every thread that had them */
	if (g->arcctrs && !(g->flags & GMON_THREAD_COUNTERS) && spy_written_mode() == SPY_MODE_TIME) {
		g->flags |= GMON_THREAD_COUNTERS;
		g->nctrs = spy_ctr_n;
		for (uint32_t k = 0; k < spy_ctr_n; k++)
			if (!(g->ctr_names[k] = strdup(spy_ctr_name(k))))
				rc = -1;
	}
	/* the function times wait in hist_pool, nfstats of them, until fstats_out makes the fstats */
	if (spy_append((void **)&g->arcs, &g->narcs, d->arcs, d->narcs, sizeof(*d->arcs)) ||
	    spy_append(&g->hist_pool, &g->nfstats, d->fstats,
		       spy_written_mode() == SPY_MODE_TIME ? d->nfstats : 0, sizeof(*d->fstats)) ||
	    spy_append((void **)&g->counts, &g->ncounts, one.counts, one.ncounts, sizeof(*one.counts)))
		rc = -1;
out:
	free(one.counts);
	return rc;
}

int spy_arc_hooks_only(void)
{
	return !spy_timed_units && (spy_plugin_modes & 1u << SPY_MODE_ARCS);
}

uint32_t spy_written_mode(void)
{
	/* every unit built with mode=count: counters are all any mode can have recorded */
	if (spy_plugin_modes == 1u << SPY_MODE_COUNT)
		return SPY_MODE_COUNT;
	/* code with __spy_arc alone (no exit hooks), alone or beside code with them (units.c) */
	if (spy_mode == SPY_MODE_TIME && spy_arc_units)
		return SPY_MODE_ARCS;
	return spy_mode;
}

/* One thread's stacks into the profile's samples of its tid (a recycled tid appends to the first). */
static int add_samples(struct gmon_profile *p, struct spy_thread *t)
{
	struct gmon_stack *k;
	struct gmon_frame *f;
	uint64_t nk, nf;
	struct gmon_samples *g = NULL;

	if (spy_samp_collect(t, &k, &nk, &f, &nf))
		return -1;
	if (!nk) {
		free(k);
		free(f);
		return 0;
	}
	for (uint32_t i = 0; i < p->nsamples; i++)
		if (p->samples[i].tid == (uint32_t)t->tid)
			g = &p->samples[i];
	if (!g) {
		g = &p->samples[p->nsamples++];
		*g = (struct gmon_samples){ (uint32_t)t->tid, nk, nf, k, f };
		return 0;
	} else {
		struct gmon_stack *ks = realloc(g->stacks, (size_t)(g->nstacks + nk) * sizeof(*ks));
		struct gmon_frame *fs = ks ? malloc((size_t)(g->nframes + nf + 1) * sizeof(*fs)) : NULL;
		uint64_t o = 0;

		if (ks)
			g->stacks = ks;
		if (!fs) {
			free(k);
			free(f);
			return -1;
		}
		memcpy(ks + g->nstacks, k, (size_t)nk * sizeof(*k));
		g->nstacks += nk;
		/* the frames move: every stack's pointer is made again */
		for (uint64_t i = 0; i < g->nstacks; i++) {
			const struct gmon_frame *src = ks[i].frames;

			if (ks[i].depth)
				memcpy(fs + o, src, (size_t)ks[i].depth * sizeof(*fs));
			ks[i].frames = ks[i].depth ? fs + o : NULL;
			o += ks[i].depth;
		}
		free(g->frames);
		g->frames = fs;
		g->nframes = o;
		free(k);
		free(f);
	}
	return 0;
}

static void add_counter(struct gmon_profile *p, const char *name, uint64_t v)
{
	p->counters[p->ncounters].name = strdup(name);
	p->counters[p->ncounters++].value = v;
}

/* Fill p from the runtime's state (tsc_hz and how it was obtained, tsc_flags: found before the
 * threads were held). Called with
 * spy_lock held and the threads frozen. */
static int build(struct gmon_profile *p, int final, uint64_t *open_frames, uint64_t tsc_hz,
		 uint32_t tsc_flags)
{
	struct gmon_header *h = &p->hdr;
	uint32_t nslots = spy_nslots, nthreads = 0, nunits = 0, nfuncs = 0, unknown_module = 0;
	uint64_t *counts = calloc(nslots, sizeof(*counts)), *slot_addr = calloc(nslots, sizeof(*slot_addr));
	int with_counts, rc = 0;

	if (!counts || !slot_addr) {
		rc = -1;
		goto out;
	}
	with_counts = !spy_counts_recorded(counts, nslots);

	h->tool = strdup(SPY_VERSION);
	h->abi = SPY_ABI_VERSION;
	h->pid = (uint32_t)getpid();
	h->ppid = (uint32_t)getppid();
	h->mode = spy_written_mode();
	h->flags = (spy_tsc_invariant() ? GMON_HDR_TSC_INVARIANT : 0) | (final ? GMON_HDR_FINAL : 0) |
		   (spy_forked ? GMON_HDR_FORKED : 0);
	if (spy_offcpu_failed && spy_written_mode() == SPY_MODE_TIME)
		h->flags |= GMON_HDR_OFFCPU_NONE;
	if (spy_offcpu_nowaits && spy_written_mode() == SPY_MODE_TIME)
		h->flags |= GMON_HDR_WAITS_NONE;
	if (final && spy_end_signal) /* signals.c: the run ends by a signal */
		h->flags |= GMON_HDR_SIGNAL | (spy_end_crash ? GMON_HDR_INCOMPLETE : 0);
	if (spy_no_hwcount)
		h->flags |= GMON_HDR_NO_HWCOUNT;
	if (spy_no_hwctr)
		h->flags |= GMON_HDR_NO_HWCTR;
	h->flags |= tsc_flags;
	h->start_ns = spy_start_ns;
	h->end_ns = spy_now_ns(CLOCK_REALTIME);
	h->tsc_hz = tsc_hz;
	h->hook_out_mcyc = spy_hook_out_mcyc;
	h->hook_in_mcyc = spy_hook_in_mcyc;
	if (spy_arc_hooks_only()) {
		/* only __spy_arc ran: its cost, all in the caller's time */
		h->hook_out_mcyc = spy_hook_arc_mcyc;
		h->hook_in_mcyc = 0;
	}
	h->tsc_read_mcyc = spy_tsc_read_mcyc;
	if (h->mode == SPY_MODE_TIME) {
		h->hook_tail_in_mcyc = spy_hook_tail_in_mcyc;
		h->hook_tail_out_mcyc = spy_hook_tail_out_mcyc;
	}
	h->slots_lost = spy_slots_lost;
	h->unregistered = counts[0];
	h->error = strdup(spy_first_error);
	read_cmdline(h);

	/* modules: those loaded now, and the instrumented ones met before; the ones dlclose'd since the
	 * last registration move apart now (loads.c) */
	spy_modules_scan();
	spy_loads_settle(1);
	for (struct spy_unit *u = spy_units; u; u = u->next) {
		nunits++;
		nfuncs += u->nfuncs;
		unknown_module |= u->module == UINT32_MAX;
	}
	p->modules = calloc(spy_nmodules + 1, sizeof(*p->modules));
	p->funcsets = calloc(nunits ? nunits : 1, sizeof(*p->funcsets));
	if (!p->modules || !p->funcsets) {
		rc = -1;
		goto out;
	}
	for (uint32_t i = 0; i < spy_nmodules; i++) {
		const struct spy_module *m = &spy_modules[i];
		struct gmon_module *g = &p->modules[p->nmodules++];

		g->id = i;
		g->flags = m->flags & ~(uint32_t)SPY_MOD_CLOSING;
		/* dlclose'd: at its range of its own, where what it recorded was moved (loads.c) */
		if (m->shift)
			g->flags |= GMON_MOD_MOVED;
		g->base = m->base + m->shift;
		g->text_lo = m->text_lo + m->shift;
		g->text_hi = m->text_hi + m->shift;
		g->path = strdup(spy_module_path(m));
		g->build_id_len = m->build_id_len;
		g->build_id = malloc(m->build_id_len ? m->build_id_len : 1);
		if (g->build_id)
			memcpy(g->build_id, m->build_id, m->build_id_len);
		else
			g->build_id_len = 0;
	}
	if (unknown_module) {
		/* a unit whose module dl_iterate_phdr did not show: keep its functions anyway */
		struct gmon_module *g = &p->modules[p->nmodules++];

		g->id = spy_nmodules;
		g->path = strdup("");
		g->flags = GMON_MOD_INSTRUMENTED;
	}
	for (struct spy_unit *u = spy_units; u; u = u->next) {
		struct gmon_funcs *fs = &p->funcsets[p->nfuncsets++];
		uint64_t shift = u->module < spy_nmodules ? spy_modules[u->module].shift : 0;

		fs->module = u->module == UINT32_MAX ? spy_nmodules : u->module;
		fs->plugin_mode = SPY_UNIT_TAG_MODE(u->tag);
		fs->funcs = calloc(u->nfuncs ? u->nfuncs : 1, sizeof(*fs->funcs));
		if (!fs->funcs) {
			rc = -1;
			goto out;
		}
		fs->nr = u->nfuncs;
		for (uint32_t i = 0; i < u->nfuncs; i++) {
			const struct spy_ufunc *f = &u->funcs[i];
			struct gmon_func *g = &fs->funcs[i];

			g->addr = f->addr + shift;
			g->count = f->slot ? counts[f->slot] : 0;
			g->line = f->line;
			g->flags = f->flags;
			g->name = strdup(f->name);
			g->file = strdup(f->file);
			if (f->slot && f->slot < nslots)
				slot_addr[f->slot] = g->addr;
		}
	}

	/* threads */
	/* the list grows at its head while the write runs (a new thread's first count): read once */
	struct spy_thread *head = __atomic_load_n(&spy_threads, __ATOMIC_ACQUIRE);

	for (struct spy_thread *t = head; t; t = t->next)
		nthreads++;
	nthreads++; /* the folded threads' */
	p->threads = calloc(nthreads ? nthreads : 1, sizeof(*p->threads));
	p->samples = calloc(nthreads ? nthreads : 1, sizeof(*p->samples));
	/* a trace of calls, one of faults and one of signals per thread at most */
	p->traces = calloc(3 * (nthreads ? nthreads : 1), sizeof(*p->traces));
	if (!p->threads || !p->samples || !p->traces) {
		rc = -1;
		goto out;
	}
	for (struct spy_thread *t = head; t; t = t->next) {
		struct spy_tdata live;
		const struct spy_tdata *d = &t->data;
		int state = __atomic_load_n(&t->state, __ATOMIC_ACQUIRE); /* gone: may be made new */

		if (state == SPY_THREAD_GONE)
			continue;
		if (state == SPY_THREAD_LIVE) {
			const struct spy_load_end *at = __atomic_load_n(&t->loads_at, __ATOMIC_ACQUIRE);

			*open_frames += __atomic_load_n(&t->tables, __ATOMIC_ACQUIRE) ? SPY_GET(t->depth) : 0;
			if (spy_thread_snapshot(t, &live)) {
				rc = -1;
				continue;
			}
			/* a module dlclose'd since its last slow path: its tables move then, the copy now */
			spy_loads_tdata(&live, at, __atomic_load_n(&spy_loads_tail, __ATOMIC_ACQUIRE));
			d = &live;
		}
		if (add_thread(p, t, d, slot_addr, nslots, with_counts))
			rc = -1;
		if (add_samples(p, t))
			rc = -1;
		if (p->traces && (t->trace.ev || t->trace.lost)) {
			if (spy_trace_collect(t, GMON_TRACE_CALLS, &p->traces[p->ntraces]))
				rc = -1;
			else
				p->ntraces++;
		}
		if (p->traces && (t->ftrace.ev || t->ftrace.lost)) {
			if (spy_trace_collect(t, GMON_TRACE_FAULTS, &p->traces[p->ntraces]))
				rc = -1;
			else
				p->ntraces++;
		}
		if (p->traces && (t->strace.ev || t->strace.lost)) {
			if (spy_trace_collect(t, GMON_TRACE_SIGNALS, &p->traces[p->ntraces]))
				rc = -1;
			else
				p->ntraces++;
		}
		if (d == &live)
			spy_tdata_free(&live);
	}
	/* the exited threads folded together: one record, tid 0 (fold.c) */
	if (spy_folded_threads) {
		spy_fold_compact();
		if (add_thread(p, &spy_folded, &spy_folded.data, slot_addr, nslots, with_counts) ||
		    add_samples(p, &spy_folded))
			rc = -1;
	}
	for (uint32_t i = 0; i < p->nthreads; i++) {
		struct gmon_thread *g = &p->threads[i];

		if (fstats_out(g))
			rc = -1;
		spy_merge_thread(g);
		h->dropped_arcs += g->dropped_arcs;
		h->dropped_funcs += g->dropped_funcs;
		h->dropped_frames += g->dropped_frames;
		h->abandoned += g->abandoned;
		h->unmatched += g->unmatched;
	}
	h->dropped_frames += spy_idle_thread.dropped_frames; /* threads that got no tables */
	if (spy_nodes_collect(p))
		rc = -1;
	p->sampling = spy_samp_totals();

	/* the tail calls' sites, but the calibration's own (in the runtime) */
	if (spy_tail_sites(&p->tail_sites, &p->ntail_sites)) {
		rc = -1;
	} else {
		uint64_t o = 0;

		for (uint64_t i = 0; i < p->ntail_sites; i++)
			if (!spy_in_runtime(p->tail_sites[i]))
				p->tail_sites[o++] = p->tail_sites[i];
		p->ntail_sites = o;
	}
	/* and threads_unheld, calls_in_flight (write_profile) */
	p->counters = calloc(15, sizeof(*p->counters));
	if (p->counters) {
		add_counter(p, "threads", p->nthreads);
		add_counter(p, "units", nunits);
		add_counter(p, "functions", nfuncs);
		add_counter(p, "slots", nslots);
		add_counter(p, "open_frames", *open_frames);
		add_counter(p, "plugin_modes", spy_plugin_modes);
		add_counter(p, "thread_counts_omitted", !with_counts);
		add_counter(p, "threads_without_tables", spy_idle_thread.dropped_frames);
		add_counter(p, "threads_folded", spy_folded_threads);
		if (spy_tail_sites_lost)
			add_counter(p, "tail_sites_lost", spy_tail_sites_lost);
		if (h->flags & GMON_HDR_SIGNAL) {
			add_counter(p, "signal", spy_end_signal);
			add_counter(p, "signal_pc", spy_end_pc);
			add_counter(p, "signal_func", spy_end_func);
		}
	}
out:
	free(counts);
	free(slot_addr);
	return rc;
}

/* At the end, what was lost is said once on stderr (it is in the file header too). */
static void report_losses(const struct gmon_profile *p)
{
	const struct gmon_header *h = &p->hdr;
	const struct gmon_sampling *g = p->sampling;

	if (h->error && *h->error && !spy_first_error_said)
		spy_warn("spy: %s", h->error);
	if (h->dropped_arcs || h->dropped_funcs)
		spy_warn(
			"spy: %llu arc and %llu function-time updates dropped: tables full (a thread holds at most "
			"%u arcs and %u functions)",
			(unsigned long long)h->dropped_arcs, (unsigned long long)h->dropped_funcs,
			spy_cfg.arcs > SPY_ARCS_HARD ? spy_cfg.arcs : SPY_ARCS_HARD, SPY_FUNCS_HARD);
	if (h->dropped_frames)
		spy_warn("spy: %llu calls not recorded: shadow stack deeper than %u frames, or no memory",
			 (unsigned long long)h->dropped_frames, SPY_STACK_MAX);
	{
		uint64_t lost = 0;

		for (uint32_t i = 0; i < p->nthreads; i++)
			lost += p->threads[i].off_lost;
		if (lost)
			spy_warn(
				"spy: %llu context-switch records lost: off-CPU time is short by what they held",
				(unsigned long long)lost);
	}
	if (g && g->dropped)
		spy_warn("spy: %llu of %llu samples dropped (%.0f %%): stack tables full or busy (a thread "
			 "keeps at most %u distinct stacks and %u frames)",
			 (unsigned long long)g->dropped, (unsigned long long)(g->taken + g->dropped),
			 100.0 * (double)g->dropped / (double)(g->taken + g->dropped), SPY_SAMP_STACKS,
			 SPY_SAMP_FRAMES);
	if (h->slots_lost)
		spy_warn("spy: %llu functions share the unregistered counter: more than %u functions",
			 (unsigned long long)h->slots_lost, SPY_SLOTS_MAX);
}

/*
 * The file, with SIGXFSZ blocked on this thread (the kernel sends it to the writing thread): past a
 * file-size limit the write fails with EFBIG, one line and no file left, instead of killing the
 * program. A SIGXFSZ this write raised is taken off again; one the program already had stays.
 * A setuid program's is written with its caller's rights (secure.c), with every signal blocked
 * meanwhile, so that no handler of the program runs with those rights.
 */
static int write_quietly(const char *path, const void *buf, size_t len, unsigned flags, char *err,
			 size_t errsz)
{
	sigset_t xfsz, block, old, pending;
	struct spy_rights rights;
	int had = 0, rc;

	sigemptyset(&xfsz);
	sigaddset(&xfsz, SIGXFSZ);
	block = xfsz;
	if (spy_caller.secure)
		sigfillset(&block);
	pthread_sigmask(SIG_BLOCK, &block, &old);
	if (!sigpending(&pending))
		had = sigismember(&pending, SIGXFSZ);
	if (spy_as_caller(&rights)) {
		snprintf(err, errsz, "cannot take the rights of uid %u to write it: %s",
			 (unsigned)spy_caller.uid, strerror(errno));
		rc = -1;
	} else {
		rc = gmon_write_file(path, buf, len, flags, err, errsz);
		spy_as_self(&rights);
	}
	if (!had && !sigpending(&pending) && sigismember(&pending, SIGXFSZ)) {
		struct timespec zero = { 0, 0 };

		sigtimedwait(&xfsz, NULL, &zero);
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return rc;
}

static int write_profile(const char *path, int final);

/* Every add-one count of every thread, summed (CALLS_UNKNOWN when out of memory). */
#define CALLS_UNKNOWN (UINT64_MAX / 2)
static uint64_t calls_total(void)
{
	uint32_t n = spy_nslots;
	uint64_t *c = calloc(n ? n : 1, sizeof(*c)), sum = 0;

	if (!c)
		return CALLS_UNKNOWN;
	spy_counts_total(c, n);
	for (uint32_t i = 0; i < n; i++)
		sum += c[i];
	free(c);
	return sum;
}

/* The program's errno when this thread's write began: what a handler of the program's that landed in
 * the write finds when it runs (spy_sig_nest_release). */
static SPY_TLS int write_errno;

/*
 * Descriptors the write may need at once beyond the program's (the file, its directory, one of
 * /proc's, with room to spare): RLIMIT_NOFILE's soft limit is raised by this many for the time of the
 * write, up to the hard limit, so that a program that has used every descriptor it may (EMFILE) still
 * gets its profile. Returns 1 when raised (old: the program's limit, set: the write's), 0 when left.
 */
#define SPY_WRITE_FDS 16

static int nofile_raise(struct rlimit *old, struct rlimit *set)
{
	if (getrlimit(RLIMIT_NOFILE, old) || old->rlim_cur == RLIM_INFINITY || old->rlim_cur >= old->rlim_max)
		return 0;
	*set = *old;
	set->rlim_cur =
		old->rlim_max - old->rlim_cur > SPY_WRITE_FDS ? old->rlim_cur + SPY_WRITE_FDS : old->rlim_max;
	return !setrlimit(RLIMIT_NOFILE, set);
}

/* Back as the program had it, unless it changed it during the write (another thread). */
static void nofile_restore(const struct rlimit *old, const struct rlimit *set)
{
	struct rlimit now;

	if (!getrlimit(RLIMIT_NOFILE, &now) && now.rlim_cur == set->rlim_cur && now.rlim_max == set->rlim_max)
		setrlimit(RLIMIT_NOFILE, old);
}

/* Not one descriptor free, and the limit at its hard limit: the write cannot open its file. */
static int nofile_none(void)
{
	struct rlimit l;
	int fd = open("/", O_PATH | O_CLOEXEC);

	if (fd >= 0) {
		close(fd);
		return 0;
	}
	if (errno != EMFILE || getrlimit(RLIMIT_NOFILE, &l))
		return 0;
	spy_warn(
		"spy: cannot write profile: no file descriptor left (RLIMIT_NOFILE's hard limit, %llu, in use)",
		(unsigned long long)l.rlim_max);
	return 1;
}

struct write_call {
	const char *path;
	int final, rc;
};

static void write_on_stack(void *arg)
{
	struct write_call *w = arg;

	w->rc = write_profile(w->path, w->final);
}

/* The write runs on the runtime's own stack (stacks.c): exit() may be called from a thread's small
 * stack or a handler's alternate signal stack. */
int spy_write(const char *path, int final)
{
	SPY_KEEP_ERRNO;
	struct write_call w = { path, final, -1 };
	struct rlimit nofile, raised;
	int outer_errno = write_errno, more;

	write_errno = SPY_ERRNO_KEPT;
	spy_in_write++;
	spy_sig_write_begin();
	more = nofile_raise(&nofile, &raised);
	if (more || !nofile_none())
		spy_on_stack(write_on_stack, &w);
	if (more)
		nofile_restore(&nofile, &raised);
	spy_in_write--;
	spy_sig_write_end();
	write_errno = outer_errno;
	return w.rc;
}

static int write_profile(const char *path, int final)
{
	struct spy_thread *me = spy_tls_thread;
	struct gmon_profile p;
	int real = me != &spy_idle_thread && me != &spy_unattached;
	/* spy_dump(path) and SPYRT_OUT name the path: what the user put there may be written into */
	unsigned flags = path || spy_cfg.out_named ? GMON_WRITE_NAMED : 0;
	char pbuf[PATH_MAX], err[512];
	uint64_t open_frames = 0, hz;
	uint32_t tsc_flags = 0, unheld = 0, in_flight = 0, moved = 0;
	uint64_t ran = 0;
	uint8_t *buf = NULL;
	size_t len = 0;
	int rc, busy = 0;

	if (!path) {
		if (spy_out_path(&spy_cfg, pbuf, sizeof(pbuf), getpid(), spy_forked)) {
			spy_warn("spy: cannot write profile: SPYRT_OUT expands to a path too long");
			return -1;
		}
		path = pbuf;
	}
	/* hooks run by a signal handler during the write must not touch the tables being read */
	if (real) {
		busy = me->busy;
		SPY_SET(me->busy, 1);
	}
	gmon_profile_init(&p);
	spy_samp_quiet++; /* the writer's allocations are the profiler's */
	/* only time mode has cycles to convert */
	hz = spy_written_mode() == SPY_MODE_TIME ? spy_tsc_hz(&tsc_flags) : 0;
	pthread_mutex_lock(&spy_lock);
	/* at exit the sources stop first, so the totals written are the totals; a call of FUNC
	 * (calls:FUNC) still waiting for its next hook is recorded while its frame is there */
	if (final) {
		spy_samp_stop();
		spy_samp_call_flush();
	}
	/* at exit, what the exiting thread still has open ends now (exit() called from inside) */
	if (final && real && me->tables && me->depth) {
		uint64_t now = spy_cycles();
		uint64_t ab = me->abandoned;

		open_frames = me->depth;
		spy_thread_close_frames(me, now);
		me->abandoned = ab; /* open at exit is not abandoned */
	}
	/*
	 * Every other thread is held at its next hook (or found asleep) before anything is read, so the
	 * add-one counts and the arcs are of the same moment; a sleeping thread that woke during the
	 * read makes it start over (twice at most). The threads the freeze could not hold are said in the
	 * file (threads_unheld), with how many calls may be counted without their arc or the other way
	 * round (calls_in_flight, at most): one at each level a thread not held ran at when the freeze
	 * gave up on it, every call counted from the freeze's start to the read's end (they ran on
	 * through it), one at each level of a thread that was asleep or new and ran during the read.
	 */
	for (int tries = 0;; tries++) {
		uint64_t of = open_frames, c0 = calls_total();

		ran = 0;
		unheld = spy_freeze(me, &in_flight);
		rc = build(&p, final, &of, hz, tsc_flags);
		moved = spy_frozen_moved(me);
		if (unheld) {
			uint64_t c1 = calls_total();

			ran = c0 == CALLS_UNKNOWN || c1 == CALLS_UNKNOWN || c1 < c0 ? CALLS_UNKNOWN : c1 - c0;
		}
		if (tries == 2 || !moved) {
			open_frames = of;
			break;
		}
		gmon_profile_release(&p);
		gmon_profile_init(&p);
	}
	spy_thaw();
	if ((unheld || moved) && p.counters) {
		add_counter(&p, "threads_unheld", unheld);
		add_counter(&p, "calls_in_flight", (uint64_t)in_flight + moved + ran);
	}
	pthread_mutex_unlock(&spy_lock);
	spy_samp_quiet--;
	if (real)
		SPY_SET(me->busy, busy);
	if (!busy && unlikely(spy_nest_deferred)) /* a handler that landed in the write (sig-nest.c) */
		spy_sig_nest_release(write_errno);
	if (rc)
		spy_note_error("out of memory while writing: the profile is incomplete");
	if (final)
		report_losses(&p);
	if (gmon_encode(&p, 1, &buf, &len)) {
		spy_warn("spy: cannot write profile '%s': out of memory", path);
		gmon_profile_release(&p);
		return -1;
	}
	gmon_profile_release(&p);
	rc = write_quietly(path, buf, len, flags, err, sizeof(err));
	free(buf);
	if (rc)
		spy_warn("spy: cannot write profile '%s': %s", path, err);
	return rc;
}
