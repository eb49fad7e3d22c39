/* Exited threads beyond a bounded number are folded into one aggregate record, so a program that runs
 * thousands of short threads keeps memory for its live threads and its distinct arcs, not for every
 * thread it ever ran: the busiest exited threads (most calls, then longest-lived) keep their own
 * record, the others' arcs, times, counts, samples and totals are summed into spy_folded, and their
 * records are reused by threads made later. All under spy_lock, from a retiring thread. */
#include "spyrt.h"

#include <stdlib.h>
#include <string.h>

struct spy_thread spy_folded = { .state = SPY_THREAD_EXITED };
uint64_t spy_folded_threads;
uint64_t spy_folded_ticks; /* sampling: the folded threads' expected ticks, each counted as its own */

/* Records of folded threads, for thread_make: pushed here under spy_lock, popped by one thread at a
 * time (spare_lock), so a record cannot leave and come back during a pop. */
static struct spy_thread *spare;
static uint32_t spare_lock;
/* The aggregate's sizes after its last compaction: it is compacted again once it doubles. */
static uint64_t compact_arcs, compact_fstats, compact_counts, compact_stacks;

struct spy_thread *spy_spare_pop(void)
{
	struct spy_thread *t;

	if (__atomic_exchange_n(&spare_lock, 1, __ATOMIC_ACQUIRE))
		return NULL;
	t = __atomic_load_n(&spare, __ATOMIC_ACQUIRE);
	while (t &&
	       !__atomic_compare_exchange_n(&spare, &t, t->spare_next, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
		;
	__atomic_store_n(&spare_lock, 0, __ATOMIC_RELEASE);
	return t;
}

static void spare_push(struct spy_thread *t)
{
	struct spy_thread *h = __atomic_load_n(&spare, __ATOMIC_ACQUIRE);

	do
		t->spare_next = h;
	while (!__atomic_compare_exchange_n(&spare, &h, t, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE));
}

static int count_cmp(const void *a, const void *b)
{
	const struct spy_tcount *x = a, *y = b;

	return x->slot < y->slot ? -1 : x->slot > y->slot;
}

/* Stacks of equal pc, flags and frames are one: sorted, then merged. */
static int stack_cmp(const void *a, const void *b)
{
	const struct gmon_stack *x = a, *y = b;

	if (x->pc != y->pc)
		return x->pc < y->pc ? -1 : 1;
	if (x->flags != y->flags)
		return x->flags < y->flags ? -1 : 1;
	if (x->depth != y->depth)
		return x->depth < y->depth ? -1 : 1;
	/* stacks of no frames may have no array: memcmp is not given NULL even for 0 bytes */
	return x->depth ? memcmp(x->frames, y->frames, (size_t)x->depth * sizeof(*x->frames)) : 0;
}

/* Merge the aggregate's equal entries (write.c's merge for arcs and function times). */
static void compact(struct spy_thread *f)
{
	struct spy_tdata *d = &f->data;
	struct gmon_thread g;
	uint64_t o = 0;

	memset(&g, 0, sizeof(g));
	g.arcs = d->arcs;
	g.arcoffs = d->arcoffs;
	g.arcctrs = d->arcctrs;
	g.narcs = d->narcs;
	spy_merge_thread(&g);
	d->arcs = g.arcs;
	d->arcoffs = g.arcoffs;
	d->arcctrs = g.arcctrs;
	d->narcs = g.narcs;
	d->nfstats = spy_merge_fstats(d->fstats, d->nfstats);
	if (d->ncounts > 1)
		qsort(d->counts, d->ncounts, sizeof(*d->counts), count_cmp);
	for (uint64_t i = 0; i < d->ncounts; i++)
		if (o && d->counts[o - 1].slot == d->counts[i].slot)
			d->counts[o - 1].count += d->counts[i].count;
		else
			d->counts[o++] = d->counts[i];
	d->ncounts = o;
	compact_arcs = d->narcs;
	compact_fstats = d->nfstats;
	compact_counts = d->ncounts;
}

/* The stacks, merged into new arrays (their frames are pointers into the old ones). */
static void compact_samples(struct spy_samp *s)
{
	struct gmon_stack *st;
	struct gmon_frame *fr;
	uint64_t o = 0, nf = 0;

	if (s->nkept > 1)
		qsort(s->kept, s->nkept, sizeof(*s->kept), stack_cmp);
	for (uint64_t i = 0; i < s->nkept; i++)
		if (o && !stack_cmp(&s->kept[o - 1], &s->kept[i])) {
			s->kept[o - 1].count += s->kept[i].count;
			s->kept[o - 1].weight += s->kept[i].weight;
		} else {
			s->kept[o++] = s->kept[i];
		}
	s->nkept = o;
	for (uint64_t i = 0; i < o; i++)
		nf += s->kept[i].depth;
	st = malloc((o ? o : 1) * sizeof(*st));
	fr = malloc((nf ? nf : 1) * sizeof(*fr));
	if (st && fr) {
		nf = 0;
		for (uint64_t i = 0; i < o; i++) {
			st[i] = s->kept[i];
			st[i].frames = s->kept[i].depth ? fr + nf : NULL;
			if (s->kept[i].depth)
				memcpy(fr + nf, s->kept[i].frames, s->kept[i].depth * sizeof(*fr));
			nf += s->kept[i].depth;
		}
		free(s->kept);
		free(s->kept_frames);
		s->kept = st;
		s->kept_frames = fr;
		s->nkept_frames = nf;
	} else {
		free(st);
		free(fr);
	}
	compact_stacks = s->nkept;
}

/* Add the stacks of t to the aggregate's: appended, frames copied and their pointers moved. */
static int fold_samples(struct spy_samp *s, const struct spy_samp *v)
{
	uint64_t n0 = s->nkept, f0 = s->nkept_frames, nf = f0 + v->nkept_frames;
	struct gmon_frame *fr;

	if (!v->nkept)
		return 0;
	/* a new frame array, so the old one is still there to move the pointers from */
	fr = malloc((nf ? nf : 1) * sizeof(*fr));
	if (!fr)
		return -1;
	if (f0)
		memcpy(fr, s->kept_frames, f0 * sizeof(*fr));
	if (v->nkept_frames)
		memcpy(fr + f0, v->kept_frames, v->nkept_frames * sizeof(*fr));
	for (uint64_t i = 0; i < n0; i++)
		if (s->kept[i].frames)
			s->kept[i].frames = fr + (s->kept[i].frames - s->kept_frames);
	free(s->kept_frames);
	s->kept_frames = fr;
	s->nkept_frames = nf;
	if (spy_append((void **)&s->kept, &s->nkept, v->kept, v->nkept, sizeof(*v->kept)))
		return -1;
	for (uint64_t i = n0; i < s->nkept; i++)
		if (s->kept[i].frames)
			s->kept[i].frames = fr + f0 + (v->kept[i - n0].frames - v->kept_frames);
	if (s->nkept > 2 * compact_stacks + 64)
		compact_samples(s);
	return 0;
}

static void fold_one(struct spy_thread *v)
{
	struct spy_thread *f = &spy_folded;
	struct spy_tdata *d = &f->data, *s = &v->data;
	struct spy_samp *fs = &f->samp, *vs = &v->samp;
	int bad = 0;

	/* off-CPU times and counter totals beside the arcs: zero for a thread without them */
	bad |= spy_append_beside((void **)&d->arcoffs, d->narcs, s->arcoffs, s->narcs, sizeof(*s->arcoffs));
	if (!bad)
		bad |= spy_append_beside((void **)&d->arcctrs, d->narcs, s->arcctrs, s->narcs,
					 sizeof(*s->arcctrs));
	if (!bad) {
		uint64_t na = d->narcs;

		bad |= spy_append((void **)&d->arcs, &na, s->arcs, s->narcs, sizeof(*s->arcs));
		d->narcs = na;
	}
	bad |= spy_append((void **)&d->fstats, &d->nfstats, s->fstats, s->nfstats, sizeof(*s->fstats));
	bad |= spy_append((void **)&d->counts, &d->ncounts, s->counts, s->ncounts, sizeof(*s->counts));
	bad |= fold_samples(fs, vs);
	if (bad)
		spy_note_error("out of memory folding the data of thread %d", (int)v->tid);
	if (d->narcs > 2 * compact_arcs + 1024 || d->nfstats > 2 * compact_fstats + 1024 ||
	    d->ncounts > 2 * compact_counts + 1024)
		compact(f);

	if (!spy_folded_threads || v->start_ns < f->start_ns)
		f->start_ns = v->start_ns;
	if (v->end_ns > f->end_ns)
		f->end_ns = v->end_ns;
	f->arcs.dropped_arcs += v->arcs.dropped_arcs;
	f->arcs.dropped_funcs += v->arcs.dropped_funcs;
	f->dropped_frames += v->dropped_frames;
	f->abandoned += v->abandoned;
	f->unmatched += v->unmatched;
	f->off.on |= v->off.on;
	f->off.blocked += v->off.blocked;
	f->off.preempted += v->off.preempted;
	f->off.switches += v->off.switches;
	f->off.lost += v->off.lost;
	spy_offcpu_fold(f, v);
	if (vs->sampled) {
		uint64_t ticks = (spy_cfg.watch == GMON_WATCH_WALL ? vs->wall_ns : vs->cpu_ns) /
				 (spy_samp_period ? spy_samp_period : 1);

		spy_folded_ticks += ticks - (vs->skipped < ticks ? vs->skipped : ticks);
	}
	fs->taken += vs->taken;
	fs->missed += vs->missed;
	fs->in_runtime += vs->in_runtime;
	fs->dropped += vs->dropped;
	fs->allocs += vs->allocs;
	fs->alloc_bytes += vs->alloc_bytes;
	fs->handler_cycles += vs->handler_cycles;
	memcpy(f->name, "folded", sizeof("folded"));
	spy_folded_threads++;
}

/* What a thread is worth keeping apart: its calls, then its life. */
static uint64_t calls_of(const struct spy_thread *t)
{
	uint64_t n = 0;

	for (uint64_t i = 0; i < t->data.ncounts; i++)
		n += t->data.counts[i].count;
	return n;
}

static int less_worth(const struct spy_thread *a, uint64_t ca, const struct spy_thread *b, uint64_t cb)
{
	if (ca != cb)
		return ca < cb;
	return a->end_ns - a->start_ns < b->end_ns - b->start_ns;
}

void spy_fold_exited(void)
{
	struct spy_thread *v = NULL;
	uint64_t kept = 0, cv = 0;

	for (struct spy_thread *t = __atomic_load_n(&spy_threads, __ATOMIC_ACQUIRE); t; t = t->next) {
		uint64_t c;

		if (__atomic_load_n(&t->state, __ATOMIC_ACQUIRE) != SPY_THREAD_EXITED || t->main)
			continue;
		kept++;
		c = calls_of(t);
		if (!v || less_worth(t, c, v, cv)) {
			v = t;
			cv = c;
		}
	}
	if (kept <= SPY_KEEP_THREADS || !v)
		return;
	fold_one(v);
	__atomic_store_n(&v->state, SPY_THREAD_GONE, __ATOMIC_RELEASE);
	spy_tdata_free(&v->data);
	spy_samp_forget(v);
	spare_push(v);
}

/* spy_flush, or a fork child: the folded data goes (the count of threads folded too). */
void spy_fold_forget(void)
{
	spy_tdata_free(&spy_folded.data);
	free(spy_folded.samp.kept);
	free(spy_folded.samp.kept_frames);
	memset(&spy_folded, 0, sizeof(spy_folded));
	spy_folded.state = SPY_THREAD_EXITED;
	spy_folded_threads = spy_folded_ticks = 0;
	compact_arcs = compact_fstats = compact_counts = compact_stacks = 0;
}

void spy_fold_compact(void)
{
	if (spy_folded_threads) {
		compact(&spy_folded);
		compact_samples(&spy_folded.samp);
	}
}
