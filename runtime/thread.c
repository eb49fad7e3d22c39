/* Per-thread records: made on a thread's first count or hook (lock-free, since that may happen inside
 * a hook or a signal handler), given tables on its first hook, and retired when the thread exits: the
 * data is compacted into malloc'ed arrays and the tables' memory returned; past the busiest exited
 * threads the data is folded into one record and the record reused (fold.c), so a program that runs
 * thousands of short threads keeps neither their address space nor their records. */
#include "spyrt.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stddef.h>
#include <linux/futex.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

struct spy_thread *spy_threads;
struct spy_thread spy_idle_thread = { .busy = 1 };
static SPY_TLS struct spy_thread *tls_rec;
static pthread_key_t spy_key;
static int spy_key_ok;

/* ---- records come from a push-only arena: never freed, so the list never dangles ---- */

struct arena {
	struct arena *prev;
	size_t used, size;
};

static struct arena *arena_top;

static void *arena_alloc(size_t sz)
{
	const size_t chunk = 256 << 10;

	sz = (sz + 63) & ~(size_t)63;
	for (;;) {
		struct arena *a = __atomic_load_n(&arena_top, __ATOMIC_ACQUIRE), *n;

		if (a) {
			size_t old = __atomic_load_n(&a->used, __ATOMIC_RELAXED);

			if (old + sz <= a->size) {
				if (__atomic_compare_exchange_n(&a->used, &old, old + sz, 0, __ATOMIC_ACQ_REL,
								__ATOMIC_RELAXED))
					return (char *)a + old;
				continue;
			}
		}
		n = spy_map(chunk);
		if (!n)
			return NULL;
		n->prev = a;
		n->used = 64;
		n->size = chunk;
		if (!__atomic_compare_exchange_n(&arena_top, &a, n, 0, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
			spy_unmap(n, chunk);
	}
}

/* This thread is making its record: code that the set-up runs (a sanitizer's callback reached from
 * spy_init, say) must not start over, or it recurses until the stack overflows. */
static SPY_TLS int tls_making;

static struct spy_thread *thread_make(void);

struct spy_thread *spy_thread_self(void)
{
	struct spy_thread *t = tls_rec;

	if (likely(t))
		return t;
	if (tls_making)
		return NULL;
	tls_making = 1;
	t = thread_make();
	tls_making = 0;
	return t;
}

/* A folded thread's record made new: every field but the list's link, which readers may be
 * following, and the state, which says gone until the record is listed as live again. */
static void record_clear(struct spy_thread *t)
{
	const size_t next = offsetof(struct spy_thread, next), state = offsetof(struct spy_thread, state);

	_Static_assert(offsetof(struct spy_thread, next) < offsetof(struct spy_thread, state),
		       "the link before the state");
	memset(t, 0, next);
	memset((char *)t + next + sizeof(t->next), 0, state - next - sizeof(t->next));
	memset((char *)t + state + sizeof(t->state), 0, sizeof(*t) - state - sizeof(t->state));
}

/* Records made or reused: a write's freeze sees a new thread by it (spy_frozen_still). */
static uint64_t threads_made;

static struct spy_thread *thread_make(void)
{
	SPY_KEEP_ERRNO; /* from a count, a hook, a malloc, a signal */
	struct spy_thread *t;
	int reused;

	if (!spy_try_init())
		return NULL;
	t = spy_spare_pop();
	reused = t != NULL;
	if (reused)
		record_clear(t);
	else
		t = arena_alloc(sizeof(*t));
	if (!t)
		return NULL;
	if (!reused)
		memset(t, 0, sizeof(*t));
	t->tid = gettid();
	t->main = t->tid == getpid();
	t->start_ns = spy_now_ns(CLOCK_REALTIME);
	t->sw_head = &spy_offcpu_none;
	t->stale = 1; /* its first hook reads the control word */
	t->epoch = SPY_CTL_EPOCH(__atomic_load_n(&spy_ctl, __ATOMIC_ACQUIRE));
	t->samp.perf_fd = -1; /* no event, before spy_samp_stop can see the record live */
	/* nothing recorded yet: no move before now is its (a later one marks it stale, or finds it so) */
	t->loads_at = t->samp.loads_at = __atomic_load_n(&spy_loads_tail, __ATOMIC_SEQ_CST);
	if (reused) {
		__atomic_store_n(&t->state, SPY_THREAD_LIVE, __ATOMIC_SEQ_CST);
	} else {
		t->state = SPY_THREAD_LIVE;
		t->next = __atomic_load_n(&spy_threads, __ATOMIC_RELAXED);
		while (!__atomic_compare_exchange_n(&spy_threads, &t->next, t, 0, __ATOMIC_RELEASE,
						    __ATOMIC_RELAXED))
			;
	}
	/* listed (or live again): as a new head of the list, a freeze sees it (spy_frozen_still) */
	__atomic_fetch_add(&threads_made, 1, __ATOMIC_SEQ_CST);
	tls_rec = t;
	/* its timer or event, on its own thread */
	spy_samp_thread_start(t);
	/* where a stack overflow's SIGSEGV is handled */
	spy_altstack_thread();
	/* the key's destructor retires the record when the thread ends */
	if (spy_key_ok)
		pthread_setspecific(spy_key, t);
	return t;
}

/* A shadow stack of max frames, with the sentinel frame below it: no function, the highest
 * stack pointer, so the hooks need no test for an empty stack. */
struct spy_frame *spy_stack_new(uint32_t max)
{
	struct spy_frame *f = spy_map((size_t)(max + 1) * sizeof(*f));

	if (!f)
		return NULL;
	f[0].self = GMON_CALLER_NONE;
	f[0].sp = UINT64_MAX;
	return f + 1;
}

void spy_stack_free(struct spy_frame *stack, uint32_t max)
{
	if (stack)
		spy_unmap(stack - 1, (size_t)(max + 1) * sizeof(*stack));
}

static int setup_tables(struct spy_thread *t)
{
	uint32_t max = spy_cfg.arcs > SPY_ARCS_HARD ? spy_cfg.arcs : SPY_ARCS_HARD;

	t->timed = spy_mode == SPY_MODE_TIME;
	if (spy_arcs_init(&t->arcs, spy_cfg.arcs, max, t->timed))
		return -1;
	t->stack = spy_stack_new(SPY_STACK_MAX);
	/* mode arcs' inline cache: a reservation for every slot, as the counts' slab is */
	t->acache = t->stack ? spy_acache_new() : NULL;
	if (!t->acache) {
		spy_stack_free(t->stack, SPY_STACK_MAX);
		t->stack = NULL;
		spy_arcs_release(&t->arcs);
		return -1;
	}
	t->stack_max = SPY_STACK_MAX;
	if (t->timed) {
		spy_offcpu_open(t);
		spy_ctr_open(t); /* SPYRT_COUNTERS: sets SPY_TIMED_CTRS in timed */
	}
	spy_trace_thread_start(t);
	__atomic_store_n(&t->tables, 1, __ATOMIC_RELEASE);
	return 0;
}

struct spy_thread *spy_thread_attach(void)
{
	SPY_KEEP_ERRNO;
	struct spy_thread *t;

	/* too early: not recorded, and the thread stays unattached, so its next hook tries again */
	if (!spy_try_init())
		return &spy_idle_thread;
	if (spy_mode == SPY_MODE_COUNT)
		goto idle;
	t = spy_thread_self();
	if (!t || t->state != SPY_THREAD_LIVE)
		goto idle;
	/* the first tables of the process fix its mode (units.c may lower it to count until then) */
	if (!t->tables && spy_mode_fix())
		goto idle;
	if (!t->tables && setup_tables(t)) {
		__atomic_fetch_add(&spy_idle_thread.dropped_frames, 1, __ATOMIC_RELAXED);
		goto idle;
	}
	spy_tls_set(t);
	return t;
idle:
	spy_tls_set(&spy_idle_thread);
	return &spy_idle_thread;
}

void spy_thread_close_frames(struct spy_thread *t, uint64_t now)
{
	/* its own thread: what it spent off the CPU first, up to now, when every frame ends: a switch
	 * since the caller read the time is none of theirs (it was charged to them, more time off the
	 * CPU than their wall time) */
	t->off.ending = t->depth ? t->depth : 1;
	spy_offcpu_drain(t, now);
	t->off.ending = 1;
	while (t->depth)
		spy_hooks_pop(t, now, 1);
	spy_offcpu_settle(t); /* and the ended frames' arcs get what they held */
	t->overflow = 0;
}

/* Empty the tables. Frames still on the stack stay, charged from now on, so the functions active
 * across a flush or a fork record their time after it (their call counts stay 0). */
void spy_thread_reset(struct spy_thread *t)
{
	uint64_t now;

	t->dropped_frames = t->abandoned = t->unmatched = 0;
	if (!t->tables)
		return;
	/* what it spent off the CPU so far is not the new epoch's */
	spy_offcpu_drain(t, UINT64_MAX);
	spy_offcpu_reset(t);
	t->off.blocked = t->off.preempted = t->off.switches = t->off.lost = 0;
	spy_arcs_reset(&t->arcs);
	spy_acache_clear(t); /* its counters' pointers were into the tables just emptied */
	spy_trace_reset(t);
	for (uint32_t i = 0; i < t->depth; i++) {
		struct spy_frame *f = &t->stack[i];
		uint32_t ai = spy_arcs_find(&t->arcs, f->call_site, f->self);
		struct spy_arc *a = &t->arcs.arc[ai];

		a->caller = i ? t->stack[i - 1].self : GMON_CALLER_NONE;
		SPY_SET(f->arc, ai);
		SPY_SET(f->func, SPY_ARC_FUNC(a->func));
		SPY_SET(f->children, 0);
		/* not a frame of __spy_arc (key bit 0, or a pending tail call's mark): it ends without
		 * an exit, and untimed */
		if (t->timed && !spy_key_lazy(f->sp) && !(f->tail & SPY_TAIL_LAZY))
			t->arcs.fstat[f->func].depth++;
	}
	/* the open frames start again now, after the tables were emptied: clearing them (256 KiB,
	 * faulted in) took a tenth of a millisecond that the top frame had not spent */
	now = spy_cycles();
	spy_thread_restart(t, now);
	spy_ctr_reset(t);
}

/* t's open frames start at now (a flush's: its hook's own work after the emptying is not theirs). */
void spy_thread_restart(struct spy_thread *t, uint64_t now)
{
	for (uint32_t i = 0; i < t->depth; i++)
		SPY_SET(t->stack[i].entry, now);
}

static int owed_cmp(const void *a, const void *b)
{
	const struct spy_offowed *x = a, *y = b;

	return x->arc < y->arc ? -1 : x->arc > y->arc;
}

/* The off-CPU time t's open frames are owed (offcpu.c), by arc, sorted and one per arc: *owed
 * (malloc'ed, NULL when none) of *n. 0, or -1 without memory. */
static int owed_get(const struct spy_thread *t, struct spy_offowed **owed, uint32_t *n)
{
	uint32_t k = t->off.side ? __atomic_load_n(&t->off.nside, __ATOMIC_ACQUIRE) : 0, o = 0;

	*owed = NULL;
	*n = 0;
	if (!k)
		return 0;
	*owed = malloc((size_t)k * sizeof(**owed));
	if (!*owed)
		return -1;
	k = spy_offcpu_owed(t, *owed, k);
	qsort(*owed, k, sizeof(**owed), owed_cmp);
	for (uint32_t i = 0; i < k; i++)
		if (o && (*owed)[o - 1].arc == (*owed)[i].arc)
			(*owed)[o - 1].incl += (*owed)[i].incl;
		else
			(*owed)[o++] = (*owed)[i];
	*n = o;
	return 0;
}

static uint64_t owed_of(const struct spy_offowed *owed, uint32_t n, uint32_t arc)
{
	struct spy_offowed key = { arc, 0 };
	const struct spy_offowed *e = n ? bsearch(&key, owed, n, sizeof(*owed), owed_cmp) : NULL;

	return e ? e->incl : 0;
}

/* What an open frame's arc would gain were the frame to end at the snapshot (open_get). */
struct spy_openx {
	uint32_t arc;
	uint32_t depth, outer;       /* its frame's depth; no frame of its function below it */
	uint64_t incl, self;         /* wall cycles */
	uint64_t oincl, oself, opre; /* of them off the CPU, not charged by a drain yet */
};

static int openx_cmp(const void *a, const void *b)
{
	const struct spy_openx *x = a, *y = b;

	return x->arc < y->arc ? -1 : x->arc > y->arc;
}

/*
 * Mode time: the calls still open on t's stack (a thread inside its root function when the file is
 * written, a call around spy_dump) count up to now, as the pops would count them had they all ended
 * now (hooks.c: pop_frame_as), and the time off the CPU the ring holds uncharged (spy_offcpu_peek)
 * goes to them as a drain would give it: to the top frame's self, to each function's outermost
 * frame's inclusive time. Nothing of t changes: its own pops count the whole calls later, and the
 * next snapshot counts them again up to its own time. *ox (malloc'ed, NULL when none) of *n, one per
 * arc, sorted; 0, or -1 without memory. t may be running (not held by a freeze): the depth is read
 * once, and a time from a frame changing under the read is at worst off by that call.
 */
static int open_get(const struct spy_thread *t, uint32_t nf, struct spy_openx **ox, uint32_t *n,
		    struct spy_offpeek *pkp)
{
	uint32_t depth = SPY_GET(t->depth), k = 0, top = 1;
	uint64_t now, child = 0;
	struct spy_offpeek pk;
	uint8_t *seen;

	*ox = NULL;
	*n = 0;
	memset(&pk, 0, sizeof(pk));
	*pkp = pk;
	if (!t->timed)
		return 0;
	if (t->off.on)
		spy_offcpu_peek(t, spy_now_ns(CLOCK_MONOTONIC), &pk);
	*pkp = pk; /* the thread's totals have it, whatever its stack */
	if (depth > t->stack_max)
		depth = t->stack_max;
	if (!depth)
		return 0;
	now = spy_cycles();
	*ox = malloc((size_t)depth * sizeof(**ox));
	seen = calloc(nf / 8 + 1, 1);
	if (!*ox || !seen) {
		free(*ox);
		free(seen);
		*ox = NULL;
		return -1;
	}
	/* bottom up: each function's outermost open frame takes the inclusive time (its depth count) */
	for (uint32_t i = 0; i < depth; i++) {
		const struct spy_frame *f = &t->stack[i];
		uint32_t fi = SPY_GET(f->func);

		if (spy_key_lazy(SPY_GET(f->sp)) || (SPY_GET(f->tail) & SPY_TAIL_LAZY))
			continue;
		(*ox)[k].arc = SPY_GET(f->arc);
		(*ox)[k].outer = fi < nf && !(seen[fi / 8] & (1u << (fi % 8)));
		if (fi < nf)
			seen[fi / 8] |= (uint8_t)(1u << (fi % 8));
		(*ox)[k].depth = i;
		k++;
	}
	free(seen);
	/* where it blocks now, if it does: in the innermost timed frame */
	if (k) {
		uint32_t fi = SPY_GET(t->stack[(*ox)[k - 1].depth].func);

		pkp->func = fi < nf ? t->arcs.fstat[fi].addr : 0;
	}
	/* top down: a frame's self is its time less its ended callees' and the open callee's above it;
	 * one of __spy_arc's between keeps its callees' time (its pop passes none down) */
	for (uint32_t j = k, i = depth; j-- > 0;) {
		struct spy_openx *x = &(*ox)[j];
		uint32_t d = x->depth;
		const struct spy_frame *f = &t->stack[d];
		uint64_t entry = SPY_GET(f->entry), ch, incl;
		int outer = (int)x->outer;

		if (d + 1 != i)
			child = 0; /* a frame of __spy_arc's above it */
		i = d;
		incl = now > entry ? now - entry : 0;
		ch = SPY_GET(f->children) + child;
		x->incl = outer ? incl : 0;
		x->self = incl > ch ? incl - ch : 0;
		x->oincl = outer ? pk.off : 0;
		x->oself = top ? pk.off : 0;
		x->opre = top ? pk.preempted : 0;
		top = 0;
		child = incl;
	}
	qsort(*ox, k, sizeof(**ox), openx_cmp);
	for (uint32_t i = 0; i < k; i++)
		if (*n && (*ox)[*n - 1].arc == (*ox)[i].arc) {
			struct spy_openx *a = &(*ox)[*n - 1];
			const struct spy_openx *b = &(*ox)[i];

			a->incl += b->incl;
			a->self += b->self;
			a->oincl += b->oincl;
			a->oself += b->oself;
			a->opre += b->opre;
		} else {
			(*ox)[(*n)++] = (*ox)[i];
		}
	return 0;
}

static const struct spy_openx *openx_of(const struct spy_openx *ox, uint32_t n, uint32_t arc)
{
	struct spy_openx key = { .arc = arc };

	return n ? bsearch(&key, ox, n, sizeof(*ox), openx_cmp) : NULL;
}

/* Copy t's data into d (malloc'ed). The owner may be running: sizes are read once, chains are walked
 * no further than the pool, and an entry is linked only after it is filled (arcs.c). A function's
 * calls, inclusive and self cycles are the sums of its arcs'. */
int spy_thread_snapshot(struct spy_thread *t, struct spy_tdata *d)
{
	struct spy_arcs *a = &t->arcs;
	uint32_t nslots = spy_nslots, nowed = 0, nopen = 0;
	struct spy_offowed *owed = NULL;
	struct spy_openx *open = NULL;

	memset(d, 0, sizeof(*d));
	if (__atomic_load_n(&t->tables, __ATOMIC_ACQUIRE) && t->epoch == SPY_CTL_EPOCH(spy_ctl)) {
		uint32_t nsite = __atomic_load_n(&a->nsite, __ATOMIC_ACQUIRE);
		uint32_t narc = __atomic_load_n(&a->narc, __ATOMIC_ACQUIRE);
		uint32_t nf = a->fstat ? __atomic_load_n(&a->nfstat, __ATOMIC_ACQUIRE) : 0;

		d->arcs = malloc((size_t)narc * sizeof(*d->arcs));
		if (t->off.on)
			d->arcoffs = malloc((size_t)narc * sizeof(*d->arcoffs));
		if (t->ctr.on)
			d->arcctrs = malloc((size_t)(narc ? narc : 1) * sizeof(*d->arcctrs));
		if (nf)
			d->fstats = calloc(nf, sizeof(*d->fstats));
		if (!d->arcs || (nf && !d->fstats) || (t->off.on && !d->arcoffs) ||
		    (t->ctr.on && !d->arcctrs) || owed_get(t, &owed, &nowed) ||
		    open_get(t, nf, &open, &nopen, &d->off_open))
			goto oom;
		uint32_t nctr = t->ctr.arcs ? __atomic_load_n(&t->ctr.narcs, __ATOMIC_ACQUIRE) : 0;
		/* with off-CPU time measured, incl and self are what is left of the wall time: CPU time */
		int cpu = t->off.on;
		uint32_t noff = t->off.arcs ? __atomic_load_n(&t->off.narcs, __ATOMIC_ACQUIRE) : 0;
		static const struct spy_arcoff none;
		for (uint32_t s = 1; s < nsite; s++) {
			uint32_t i = __atomic_load_n(&a->site[s].arcs, __ATOMIC_ACQUIRE);

			for (uint32_t k = 0; i && i < narc && k < narc && d->narcs < narc;
			     k++, i = a->arc[i].next) {
				const struct spy_arc *e = &a->arc[i];
				const struct spy_arcoff *o = i < noff ? &t->off.arcs[i] : &none;
				uint64_t incl = SPY_GET(e->incl), self = SPY_GET(e->self),
					 count = SPY_GET(e->count);

				const struct spy_openx *x = openx_of(open, nopen, i);
				static const struct spy_openx nox;

				x = x ? x : &nox;
				incl += x->incl; /* its calls still open, up to now */
				self += x->self;
				if (!count && !incl && !self)
					continue;
				/* with what its open frames hold of the intervals so far */
				uint64_t oincl = SPY_GET(o->incl) + owed_of(owed, nowed, i) + x->oincl,
					 oself = SPY_GET(o->self) + x->oself, wincl = incl;

				if (cpu) {
					incl = incl > oincl ? incl - oincl : 0;
					self = self > oself ? self - oself : 0;
				}
				if (d->arcoffs)
					d->arcoffs[d->narcs] =
						(struct gmon_arcoff){ oincl, oself,
								      SPY_GET(o->self_pre) + x->opre };
				if (d->arcctrs) {
					struct gmon_arcctr *c = &d->arcctrs[d->narcs];

					memset(c, 0, sizeof(*c));
					for (uint32_t j = 0; i < nctr && j < GMON_CTR_MAX; j++) {
						c->incl[j] = SPY_GET(t->ctr.arcs[i].incl[j]);
						c->self[j] = SPY_GET(t->ctr.arcs[i].self[j]);
					}
				}
				d->arcs[d->narcs++] = (struct gmon_arc){ a->site[s].pc, SPY_GET(e->caller),
									 e->callee,     count,
									 incl,          self };
				if (SPY_ARC_FUNC(e->func) && SPY_ARC_FUNC(e->func) < nf) {
					struct gmon_fstat *g = &d->fstats[SPY_ARC_FUNC(e->func)].f;

					g->calls += count;
					g->incl += incl;
					g->self += self;
					g->outer_sum += wincl; /* wall cycles, as the stopwatch's */
				}
			}
		}
		/* the last call's histogram count, which the owner adds only at its next pop (hooks.c) */
		const uint64_t *pending = nf ? __atomic_load_n(&a->hist_pending, __ATOMIC_RELAXED) : NULL;

		/* entry i of the table lands at d->fstats[i], then the list closes up */
		uint32_t ninner = __atomic_load_n(&a->ninner, __ATOMIC_ACQUIRE);

		for (uint32_t i = 1; i < nf; i++) {
			const struct spy_fstat *f = &a->fstat[i];
			const uint64_t *hin = i < ninner ? a->inner[i].hist : NULL;
			struct spy_tfstat *v = &d->fstats[i];
			struct gmon_fstat *g = &v->f;

			if (!g->calls && !g->self && !g->incl)
				continue;
			uint64_t min = SPY_GET(f->min);

			g->addr = f->addr;
			g->min = SPY_GET(f->min_inner) < min ? SPY_GET(f->min_inner) : min;
			g->min = g->min == UINT64_MAX ? 0 : g->min;
			g->max = SPY_GET(f->max);
			g->outer_min = min == UINT64_MAX ? 0 : min;
			g->outer_sq[0] = SPY_GET(f->sq_lo);
			g->outer_sq[1] = SPY_GET(f->sq_hi);
			/* the outermost calls' histogram: every call's less the inner ones' (the owner
			 * may be running: never below 0) */
			for (int k = 0; k < SPY_HIST_BUCKETS; k++) {
				uint64_t all = SPY_GET(f->hist[k]) + (&f->hist[k] == pending),
					 in = hin ? SPY_GET(hin[k]) : 0;

				v->hist[k] = all;
				v->outer_hist[k] = all > in ? all - in : 0;
				g->outer += v->outer_hist[k];
			}
			d->fstats[d->nfstats++] = *v;
		}
	}
	/* set by the owner's first count (counts.c), which may be now */
	const uint64_t *c = __atomic_load_n(&t->counts, __ATOMIC_ACQUIRE);

	if (c) {
		uint32_t n = 0;

		for (uint32_t i = 0; i < nslots; i++)
			n += c[i] != 0;
		d->counts = malloc((n ? n : 1) * sizeof(*d->counts));
		if (!d->counts)
			goto oom;
		for (uint32_t i = 0; i < nslots && d->ncounts < n; i++) {
			uint64_t v = c[i];

			if (v)
				d->counts[d->ncounts++] = (struct spy_tcount){ i, v };
		}
	}
	free(owed);
	free(open);
	return 0;
oom:
	free(owed);
	free(open);
	spy_tdata_free(d);
	return -1;
}

void spy_tdata_free(struct spy_tdata *d)
{
	free(d->arcs);
	free(d->arcoffs);
	free(d->arcctrs);
	free(d->fstats);
	free(d->counts);
	memset(d, 0, sizeof(*d));
}

static void release_tables(struct spy_thread *t)
{
	__atomic_store_n(&t->tables, 0, __ATOMIC_RELEASE);
	spy_offcpu_close(t);
	spy_ctr_close(t);
	spy_arcs_release(&t->arcs);
	spy_stack_free(t->stack, SPY_STACK_MAX);
	t->stack = NULL;
	t->depth = t->stack_max = 0;
	spy_acache_free(t->acache);
	t->acache = NULL;
	spy_slab_free(t->counts);
	t->counts = NULL;
}

/* What a retired thread's late destructors find as their record: not live, so they count nowhere. */
static struct spy_thread retired = { .state = SPY_THREAD_EXITED };

/* The thread is ending: what it still has open ends now (pthread_exit), its data is compacted, and
 * past SPY_KEEP_THREADS exited threads the least busy one is folded (fold.c). */
static void thread_retire(struct spy_thread *t)
{
	spy_tls_set(&spy_idle_thread);
	pthread_mutex_lock(&spy_lock);
	if (t->state == SPY_THREAD_LIVE) {
		/* first: the wall sampler must not read a stack about to be unmapped */
		spy_samp_thread_retire(t);
		if (t->tables)
			spy_thread_close_frames(t, spy_cycles());
		if (spy_thread_snapshot(t, &t->data))
			spy_note_error("out of memory keeping the data of thread %d", (int)t->tid);
		spy_loads_exited(t); /* moves it had not applied yet, to its data and its samples */
		prctl(PR_GET_NAME, t->name);
		t->end_ns = spy_now_ns(CLOCK_REALTIME);
		release_tables(t);
		__atomic_store_n(&t->state, SPY_THREAD_EXITED, __ATOMIC_RELEASE);
		/* its record may be folded and reused from now on */
		tls_rec = &retired;
		spy_fold_exited();
	}
	pthread_mutex_unlock(&spy_lock);
	spy_altstack_thread_end();
	/* counts made by destructors that run after this one land here, not in freed memory */
	spy_counts_set(spy_graveyard);
}

static void thread_dtor(void *p)
{
	SPY_KEEP_ERRNO; /* the program's own destructors run after this one */
	struct spy_thread *t = p;

	/* come back in the last round, after other keys' destructors (which may call
	 * instrumented code) have run; under ThreadSanitizer one round earlier, since its own
	 * destructor tears the thread's sanitizer state down in the last round (before ours) */
	if (++t->dtor_rounds < PTHREAD_DESTRUCTOR_ITERATIONS - SPY_TSAN) {
		pthread_setspecific(spy_key, t);
		return;
	}
	thread_retire(t);
}

void spy_thread_init(void)
{
	spy_key_ok = pthread_key_create(&spy_key, thread_dtor) == 0;
	if (!spy_key_ok)
		spy_note_error("pthread_key_create: %s: data of exited threads stays mapped",
			       strerror(errno));
}

/* In a fork()ed child only the forking thread exists: forget the others, empty the rest. */
void spy_thread_atfork_child(void)
{
	struct spy_thread *self = tls_rec;

	for (struct spy_thread *t = spy_threads; t; t = t->next) {
		if (t == self)
			continue;
		if (t->state == SPY_THREAD_LIVE)
			release_tables(t);
		spy_tdata_free(&t->data);
		spy_samp_forget(t);
		t->state = SPY_THREAD_GONE;
	}
	spy_fold_forget();
	if (self) {
		self->tid = gettid();
		self->main = 1;
		self->start_ns = spy_now_ns(CLOCK_REALTIME);
		if (self->counts)
			memset(self->counts, 0, (size_t)spy_nslots * sizeof(uint64_t));
		/* the ring was the parent's thread's: the child's own, for the reset's drain */
		if (self->tables && self->timed) {
			spy_offcpu_close(self);
			spy_offcpu_open(self);
			/* the counters were of the parent's thread too */
			if (self->ctr.on) {
				spy_ctr_close(self);
				spy_ctr_open(self);
			}
		}
		spy_thread_reset(self);
		self->epoch = SPY_CTL_EPOCH(spy_ctl);
	}
	spy_samp_atfork_child(self);
}

/* ---- freezing the threads for a consistent read ---- */

uint32_t spy_frozen;                   /* futex word: 1 while a write holds the threads */
static struct spy_thread *freeze_head; /* the newest record when the threads were held */
static uint64_t freeze_made;           /* records made or reused by then */

/* Longest a thread stays held: a write that takes longer (or a program whose held thread keeps a lock
 * the writer needs, such as an instrumented malloc's) costs consistency, never a hang. */
#define SPY_PARK_MAX_NS (10ull * 1000000000u)
/* Longest a write waits for a thread that runs without reaching a hook (uninstrumented work), in the
 * thread's CPU time: a thread that waits for a CPU on a busy machine is not working, and may be
 * between a count and its hook (issue 24: 50 ms of wall time was too short at load 10). */
#define SPY_FREEZE_WORK_NS (50ull * 1000000u)
/* Longest a write waits for any thread, in wall time (one that waits for a CPU, one in a page fault or
 * a disk read, a handler that sleeps). */
#define SPY_FREEZE_WAIT_NS (2000ull * 1000000u)

static void futex_wait(uint32_t *w, uint32_t v, long ns)
{
	struct timespec ts = { 0, ns };

	syscall(SYS_futex, w, FUTEX_WAIT_PRIVATE, v, &ts, NULL, 0);
}

/*
 * The thread runs a program's handler that interrupted code which may lie between a function's add-one
 * count and its entry hook (sig-nest.c): held here, it would be read with that count and not its arc.
 * The handler's mark on the shadow stack says it still runs; without one (left by siglongjmp, its mark
 * ended by a later hook) the thread is whole again.
 */
static int in_split_handler(struct spy_thread *t)
{
	if (!__atomic_load_n(&t->sig_split, __ATOMIC_SEQ_CST))
		return 0;
	for (uint32_t i = t->tables ? t->depth : 0; i > 0; i--) {
		const struct spy_frame *f = &t->stack[i - 1];

		if (f->self == GMON_CALLER_NONE && spy_key_lazy(f->sp) && f->tail_site == SPY_MARK_SPLIT)
			return 1;
	}
	__atomic_store_n(&t->sig_split, 0, __ATOMIC_SEQ_CST);
	return 0;
}

void spy_park(struct spy_thread *t)
{
	int saved = errno;
	uint64_t t0;
	sigset_t all, old;
	uint32_t v;

	if (in_split_handler(t)) {
		/* held at the next hook after the handler instead (the interrupted one's or a later) */
		__atomic_store_n(&t->stale, 1, __ATOMIC_SEQ_CST);
		return;
	}
	if (__atomic_load_n(&spy_frozen, __ATOMIC_SEQ_CST) & 2)
		spy_sig_deferred(); /* returns unless this thread was left a signal */
	/* no handler of the program runs while the thread is held, counting calls while it is read */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	t0 = spy_now_ns(CLOCK_MONOTONIC);
	__atomic_store_n(&t->parked, 1, __ATOMIC_SEQ_CST);
	while (((v = __atomic_load_n(&spy_frozen, __ATOMIC_SEQ_CST)) & 1) &&
	       spy_now_ns(CLOCK_MONOTONIC) - t0 < SPY_PARK_MAX_NS)
		futex_wait(&spy_frozen, v, 50 * 1000000L);
	__atomic_store_n(&t->parked, 0, __ATOMIC_SEQ_CST);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	errno = saved;
}

/* The thread sleeps in the kernel (S, or stopped, or gone): it runs no hook and counts nothing. */
static int thread_asleep(pid_t tid)
{
	char path[64], buf[512], *p;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", (int)tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = 0;
	p = strrchr(buf, ')');
	return p && p[1] == ' ' && strchr("StTZXx", p[2]);
}

/* A record a freeze looks into: live. A folded thread's record (gone) may be being made new by a thread
 * that takes it (thread_make clears it, lock-free): only once it is live again are its fields readable,
 * and a live record stays live while the writer holds spy_lock (a thread retires under it). */
static int freeze_live(struct spy_thread *t, struct spy_thread *self)
{
	return t != self && __atomic_load_n(&t->state, __ATOMIC_ACQUIRE) == SPY_THREAD_LIVE;
}

/* The writer itself is known by its thread id too: in a program whose code has no hooks (a mode=count
 * build) its hooks' thread is never attached, while the counts made its record. */
static int freeze_quiet(struct spy_thread *t)
{
	return t->tid == gettid() || __atomic_load_n(&t->parked, __ATOMIC_SEQ_CST);
}

/* t has run SPY_FREEZE_WORK_NS of CPU time since the freeze began without reaching a hook. */
static int freeze_working(struct spy_thread *t)
{
	uint64_t cpu = spy_thread_cpu_ns(t->tid) + 1;

	if (!t->freeze_cpu0) {
		t->freeze_cpu0 = cpu;
		return 0;
	}
	return cpu - t->freeze_cpu0 >= SPY_FREEZE_WORK_NS;
}

uint32_t spy_freeze(struct spy_thread *self, uint32_t *in_flight)
{
	uint64_t t0 = spy_now_ns(CLOCK_MONOTONIC);
	/* code with hooks registered: a thread's first count is followed by its first hook */
	int hooked = (spy_plugin_modes & ~(1u << SPY_MODE_COUNT)) != 0;

	*in_flight = 0;
	if (spy_mode == SPY_MODE_COUNT) /* no hooks run: nothing to hold */
		return 0;
	__atomic_or_fetch(&spy_frozen, 1u, __ATOMIC_SEQ_CST);
	/* every thread's next hook takes the slow path, which holds it (see spy_ctl_sync's order) */
	for (struct spy_thread *t = __atomic_load_n(&spy_threads, __ATOMIC_ACQUIRE); t; t = t->next)
		if (freeze_live(t, NULL)) { /* a record made live later is made stale (thread_make) */
			__atomic_store_n(&t->stale, 1, __ATOMIC_SEQ_CST);
			t->freeze_cpu0 = 0;
		}
	for (;;) {
		uint32_t waiting = 0, working = 0, flight = 0, wait_flight = 0, nested;
		int late = spy_now_ns(CLOCK_MONOTONIC) - t0 > SPY_FREEZE_WAIT_NS;

		for (struct spy_thread *t = __atomic_load_n(&spy_threads, __ATOMIC_ACQUIRE); t; t = t->next) {
			if (!freeze_live(t, self))
				continue;
			t->freeze_cpu = 0;
			if (freeze_quiet(t))
				continue;
			/* counted, and not yet at the end of its first hook (setting up its tables, which
			 * may sleep in a system call): its call is not recorded yet, so it is waited for */
			if (hooked && !__atomic_load_n(&t->tables, __ATOMIC_ACQUIRE)) {
				waiting++;
				continue;
			}
			/* asleep, and not in a handler that interrupted a call half recorded (sig_split,
			 * read again after the state: it may have gone to sleep in one meanwhile) */
			if (!__atomic_load_n(&t->sig_split, __ATOMIC_SEQ_CST) && thread_asleep(t->tid) &&
			    !__atomic_load_n(&t->sig_split, __ATOMIC_SEQ_CST)) {
				t->freeze_cpu = spy_thread_cpu_ns(t->tid) + 1; /* 0: not asleep */
				continue;
			}
			/* a thread not held may be between a count and its hook at each level it runs
			 * at: its own code, and each handler of the program's nested on it */
			nested = __atomic_load_n(&t->sig_nested, __ATOMIC_RELAXED);
			if (freeze_working(t))
				working++, flight += 1 + nested; /* not waited for */
			else
				waiting++, wait_flight += 1 + nested;
		}
		if (!waiting || late) {
			freeze_head = __atomic_load_n(&spy_threads, __ATOMIC_SEQ_CST);
			freeze_made = __atomic_load_n(&threads_made, __ATOMIC_SEQ_CST);
			*in_flight = flight + wait_flight;
			return waiting + working;
		}
		sched_yield();
	}
}

uint32_t spy_frozen_moved(struct spy_thread *self)
{
	uint32_t moved = 0;
	uint64_t made;

	if (!(__atomic_load_n(&spy_frozen, __ATOMIC_SEQ_CST) & 1))
		return 0;
	/* a thread that made its record since (its first count) may have counted before it was held */
	made = __atomic_load_n(&threads_made, __ATOMIC_SEQ_CST) - freeze_made;
	if (made)
		moved += (uint32_t)made;
	else if (__atomic_load_n(&spy_threads, __ATOMIC_SEQ_CST) != freeze_head)
		moved++;
	/* one that was asleep and has run since: a call at each level it ran at (as spy_freeze's) */
	for (struct spy_thread *t = __atomic_load_n(&spy_threads, __ATOMIC_ACQUIRE); t; t = t->next)
		if (freeze_live(t, self) && t->freeze_cpu && t->tid != gettid() &&
		    spy_thread_cpu_ns(t->tid) + 1 != t->freeze_cpu)
			moved += 1 + __atomic_load_n(&t->sig_nested, __ATOMIC_RELAXED);
	return moved;
}

void spy_thaw(void)
{
	if (!(__atomic_fetch_and(&spy_frozen, ~1u, __ATOMIC_SEQ_CST) & 1))
		return;
	syscall(SYS_futex, &spy_frozen, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
}
