/* The decoder of the spy profile file, which trusts nothing: the file header, then record after
 * record up to END, every length checked before use, and any problem one error line naming the
 * record. It reads a record's payload through a cursor whose window gmon-read.c fills (from memory, a
 * file, or zlib). gmon_decode() is here; gmon_read_file() and gmon_read_fd() are in gmon-read.c. */
#include "gmon-private.h"

void gmon_cur_fail(struct cur *c, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	if (c->bad)
		return;
	c->bad = 1;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (c->where)
		snprintf(c->err, c->errsz, "%s: %s", c->where, msg);
	else
		snprintf(c->err, c->errsz, "%s", msg);
}

/* An allocation failed: the message begins "out of memory", as spinprof's own do. */
void gmon_cur_oom(struct cur *c, uint64_t bytes, const char *what)
{
	if (c->bad)
		return;
	c->bad = 1;
	snprintf(c->err, c->errsz, "out of memory (%" PRIu64 " bytes for %s, %s)", bytes, what, c->where);
}

static inline int need(struct cur *c, size_t n, const char *what)
{
	if (c->bad)
		return 0;
	if (c->len - c->off >= n)
		return 1;
	if (rest(c) < n) {
		gmon_cur_fail(c, "truncated %s (%" PRIu64 " bytes left, %zu needed)", what, rest(c), n);
		return 0;
	}
	return gmon_refill(c, n);
}

/* How many of n elements of size bytes each lie whole in the window (at least one), 0 on failure:
 * the decoding loops take them without a check each. */
static size_t batch(struct cur *c, uint64_t n, size_t size, const char *what)
{
	size_t k;

	if (!need(c, size, what))
		return 0;
	k = (c->len - c->off) / size;
	return k < n ? k : (size_t)n;
}

static inline uint64_t get_n(struct cur *c, int n, const char *what)
{
	uint64_t v;

	if (!need(c, (size_t)n, what))
		return 0;
	v = get_le(c->p + c->off, n);
	c->off += (size_t)n;
	return v;
}

static uint32_t get_u32(struct cur *c, const char *what)
{
	return (uint32_t)get_n(c, 4, what);
}

static uint64_t get_u64(struct cur *c, const char *what)
{
	return get_n(c, 8, what);
}

/* A length-prefixed byte string, returned NUL-terminated in new memory. */
static char *get_bytes(struct cur *c, uint32_t *lenp, const char *what)
{
	uint32_t n = get_u32(c, what);
	char *s;

	if (c->bad)
		return NULL;
	if (n > GMON_STR_MAX) {
		gmon_cur_fail(c, "%s of %" PRIu32 " bytes is longer than the limit", what, n);
		return NULL;
	}
	if (!need(c, n, what))
		return NULL;
	s = malloc((size_t)n + 1);
	if (!s) {
		gmon_cur_oom(c, (uint64_t)n + 1, what);
		return NULL;
	}
	memcpy(s, c->p + c->off, n);
	s[n] = 0;
	c->off += n;
	if (lenp)
		*lenp = n;
	return s;
}

static char *get_str(struct cur *c, const char *what)
{
	uint32_t n;
	char *s = get_bytes(c, &n, what);

	if (s && strlen(s) != n) {
		gmon_cur_fail(c, "%s contains a NUL byte", what);
		free(s);
		return NULL;
	}
	return s;
}

/* An array count, checked against the bytes left before anything is allocated. */
static uint64_t get_count(struct cur *c, int width, size_t min_size, const char *what)
{
	uint64_t n = get_n(c, width, what);

	if (!c->bad && min_size && n > rest(c) / min_size) {
		gmon_cur_fail(c, "%" PRIu64 " %s cannot fit in the %" PRIu64 " bytes left", n, what, rest(c));
		return 0;
	}
	return n;
}

/* A big array (a million arcs, the function times' histograms) is written once all over: on
 * transparent huge pages that is a page fault per 2 MiB instead of one per 4 KiB, and the faults
 * were most of what the decoder's arrays cost. Only a hint: where the kernel says no, nothing
 * changes. */
static void huge_pages(void *p, size_t n)
{
	const uintptr_t huge = (uintptr_t)2 << 20;
	uintptr_t lo = ((uintptr_t)p + huge - 1) & ~(huge - 1), hi = ((uintptr_t)p + n) & ~(huge - 1);

	if (n >= 4 * huge && hi > lo)
		madvise((void *)lo, hi - lo, MADV_HUGEPAGE);
}

static void *get_array(struct cur *c, uint64_t n, size_t size, const char *what)
{
	void *p;

	if (c->bad || !n)
		return NULL;
	p = calloc((size_t)n, size);
	if (!p)
		gmon_cur_oom(c, n * size, what);
	else
		huge_pages(p, (size_t)n * size);
	return p;
}

static void dec_header(struct cur *c, struct gmon_header *h)
{
	h->tool = get_str(c, "tool name");
	h->abi = get_u32(c, "abi");
	h->pid = get_u32(c, "pid");
	h->ppid = get_u32(c, "ppid");
	h->mode = get_u32(c, "mode");
	h->flags = get_u32(c, "flags");
	h->start_ns = get_u64(c, "start time");
	h->end_ns = get_u64(c, "end time");
	h->tsc_hz = get_u64(c, "tsc frequency");
	h->hook_out_mcyc = get_u64(c, "hook cost");
	h->hook_in_mcyc = get_u64(c, "hook cost");
	h->tsc_read_mcyc = get_u64(c, "tsc read cost");
	h->dropped_arcs = get_u64(c, "dropped counts");
	h->dropped_funcs = get_u64(c, "dropped counts");
	h->dropped_frames = get_u64(c, "dropped counts");
	h->abandoned = get_u64(c, "dropped counts");
	h->unmatched = get_u64(c, "dropped counts");
	h->slots_lost = get_u64(c, "dropped counts");
	h->unregistered = get_u64(c, "dropped counts");
	h->error = get_str(c, "error text");
	h->argc = (uint32_t)get_count(c, 4, 4, "arguments");
	h->argv = get_array(c, h->argc, sizeof(char *), "arguments");
	for (uint32_t i = 0; h->argv && i < h->argc && !c->bad; i++)
		h->argv[i] = get_str(c, "argument");
	if (c->minor >= 4) {
		h->hook_tail_in_mcyc = (int64_t)get_u64(c, "tail call cost");
		h->hook_tail_out_mcyc = (int64_t)get_u64(c, "tail call cost");
	}
	if (!c->bad && h->mode > 2)
		gmon_cur_fail(c, "unknown mode %" PRIu32, h->mode);
}

static void dec_module(struct cur *c, struct gmon_module *m)
{
	m->id = get_u32(c, "module id");
	m->flags = get_u32(c, "module flags");
	m->base = get_u64(c, "load address");
	m->text_lo = get_u64(c, "text range");
	m->text_hi = get_u64(c, "text range");
	m->path = get_str(c, "module path");
	m->build_id = (uint8_t *)get_bytes(c, &m->build_id_len, "build-id");
	if (!c->bad && m->text_lo > m->text_hi)
		gmon_cur_fail(c, "text range 0x%" PRIx64 "-0x%" PRIx64 " is reversed", m->text_lo,
			      m->text_hi);
}

static void dec_funcs(struct cur *c, struct gmon_funcs *fs)
{
	fs->module = get_u32(c, "module id");
	fs->plugin_mode = get_u32(c, "plugin mode");
	fs->nr = (uint32_t)get_count(c, 4, 32, "functions");
	fs->funcs = get_array(c, fs->nr, sizeof(*fs->funcs), "functions");
	for (uint32_t i = 0; fs->funcs && i < fs->nr && !c->bad; i++) {
		struct gmon_func *f = &fs->funcs[i];

		f->addr = get_u64(c, "function");
		f->count = get_u64(c, "function");
		f->line = get_u32(c, "function");
		f->flags = get_u32(c, "function");
		f->name = get_str(c, "function name");
		f->file = get_str(c, "file name");
	}
	if (!c->bad && fs->plugin_mode > 2)
		gmon_cur_fail(c, "unknown plugin mode %" PRIu32, fs->plugin_mode);
}

/* A thread's histogram buckets, appended as its record is read (the function times' then the
 * stopwatches', in file order) to one block, t->hist_pool, that grows by doubling: the fstats point
 * into it only once the record is done (pool_point), as it may move until then. */
struct pool {
	size_t n, cap; /* buckets held, room */
};

/* Room for nh (> 0) more buckets in t->hist_pool, where they go: NULL on failure (c is bad). */
static uint64_t *pool_take(struct cur *c, struct gmon_thread *t, struct pool *h, uint32_t nh)
{
	if (h->cap - h->n < nh) {
		size_t cap = h->cap ? 2 * h->cap : 1024;
		uint64_t *b;

		while (cap - h->n < nh)
			cap *= 2;
		b = realloc(t->hist_pool, cap * sizeof(*b));
		if (!b) {
			gmon_cur_oom(c, (uint64_t)cap * sizeof(*b), "histograms");
			return NULL;
		}
		huge_pages(b, cap * sizeof(*b));
		t->hist_pool = b;
		h->cap = cap;
	}
	h->n += nh;
	return (uint64_t *)t->hist_pool + h->n - nh;
}

/* The record is done: the pool loses its spare room and the fstats point into it, in the order
 * pool_take gave the buckets out. */
static void pool_point(struct gmon_thread *t, struct pool *h)
{
	uint64_t *b;
	size_t o = 0;

	if (h->n < h->cap && h->n && (b = realloc(t->hist_pool, h->n * sizeof(*b))))
		t->hist_pool = b;
	b = t->hist_pool;
	for (uint64_t i = 0; t->fstats && i < t->nfstats; i++) {
		t->fstats[i].hist = t->fstats[i].nhist ? b + o : NULL;
		o += t->fstats[i].nhist;
	}
	for (uint64_t i = 0; t->fstats && i < t->nfstats; i++) {
		t->fstats[i].outer_hist = t->fstats[i].nohist ? b + o : NULL;
		o += t->fstats[i].nohist;
	}
}

static void dec_thread_parts(struct cur *c, struct gmon_thread *t, struct pool *h)
{
	t->tid = get_u32(c, "thread id");
	t->flags = get_u32(c, "thread flags");
	/* a flag that announces data only revision 3 has: an older file with it is damaged */
	if (!c->bad && c->minor < 3 && (t->flags & GMON_THREAD_COUNTERS))
		gmon_cur_fail(c, "thread flag counters (revision 3) in a revision %" PRIu32 " file",
			      c->minor);
	t->start_ns = get_u64(c, "thread times");
	t->end_ns = get_u64(c, "thread times");
	t->name = get_str(c, "thread name");
	t->dropped_arcs = get_u64(c, "thread counts");
	t->dropped_funcs = get_u64(c, "thread counts");
	t->dropped_frames = get_u64(c, "thread counts");
	t->abandoned = get_u64(c, "thread counts");
	t->unmatched = get_u64(c, "thread counts");
	t->narcs = get_count(c, 8, 48, "arcs");
	t->arcs = get_array(c, t->narcs, sizeof(*t->arcs), "arcs");
	for (uint64_t i = 0; t->arcs && i < t->narcs;) {
		size_t k = batch(c, t->narcs - i, 48, "arc");
		const uint8_t *q = c->p + c->off;

		if (!k)
			break;
		c->off += k * 48;
		for (; k; k--, i++, q += 48) {
			struct gmon_arc *a = &t->arcs[i];

			a->call_site = ld64(q);
			a->caller = ld64(q + 8);
			a->callee = ld64(q + 16);
			a->count = ld64(q + 24);
			a->incl = ld64(q + 32);
			a->self = ld64(q + 40);
		}
	}
	t->nfstats = get_count(c, 8, 52, "function times");
	t->fstats = get_array(c, t->nfstats, sizeof(*t->fstats), "function times");
	for (uint64_t i = 0; t->fstats && i < t->nfstats && need(c, 52, "function time"); i++) {
		struct gmon_fstat *f = &t->fstats[i];
		const uint8_t *q = c->p + c->off;
		uint32_t nh = ld32(q + 48);
		uint64_t *b = NULL;

		f->addr = ld64(q);
		f->calls = ld64(q + 8);
		f->incl = ld64(q + 16);
		f->self = ld64(q + 24);
		f->min = ld64(q + 32);
		f->max = ld64(q + 40);
		c->off += 52;
		if (nh > GMON_HIST_BUCKETS) {
			gmon_cur_fail(c, "histogram of %" PRIu32 " buckets (at most %d)", nh,
				      GMON_HIST_BUCKETS);
			break;
		}
		if (!need(c, 8 * (size_t)nh, "histogram") || (nh && !(b = pool_take(c, t, h, nh))))
			break;
		for (uint32_t j = 0; j < nh; j++)
			b[j] = ld64(c->p + c->off + 8 * j);
		f->nhist = nh;
		c->off += 8 * (size_t)nh;
	}
	t->ncounts = get_count(c, 8, 16, "thread counts");
	t->counts = get_array(c, t->ncounts, sizeof(*t->counts), "thread counts");
	for (uint64_t i = 0; t->counts && i < t->ncounts;) {
		size_t k = batch(c, t->ncounts - i, 16, "count");
		const uint8_t *q = c->p + c->off;

		if (!k)
			break;
		c->off += k * 16;
		for (; k; k--, i++, q += 16) {
			t->counts[i].addr = ld64(q);
			t->counts[i].count = ld64(q + 8);
		}
	}
	if (c->minor < 2)
		return;
	/* revision 2: the thread's off-CPU totals, then three words for each of its arcs */
	t->off_blocked = get_u64(c, "off-CPU totals");
	t->off_preempted = get_u64(c, "off-CPU totals");
	t->off_switches = get_u64(c, "off-CPU totals");
	t->off_lost = get_u64(c, "off-CPU totals");
	if (!c->bad && t->narcs > rest(c) / 24)
		gmon_cur_fail(c, "%" PRIu64 " arc off-CPU times cannot fit in the %" PRIu64 " bytes left",
			      t->narcs, rest(c));
	/* kept only for a thread whose off-CPU time was measured: others cost no memory */
	if (!c->bad && (t->flags & GMON_THREAD_OFFCPU) && t->narcs)
		t->arcoffs = get_array(c, t->narcs, sizeof(*t->arcoffs), "arc off-CPU times");
	for (uint64_t i = 0; t->arcs && i < t->narcs && need(c, 24, "arc off-CPU times"); i++) {
		const uint8_t *q = c->p + c->off;

		if (t->arcoffs) {
			t->arcoffs[i].incl = ld64(q);
			t->arcoffs[i].self = ld64(q + 8);
			t->arcoffs[i].self_pre = ld64(q + 16);
		}
		c->off += 24;
	}
	if (c->minor < 3)
		return;
	/* revision 3: each function time's stopwatch (outermost calls), at least 44 bytes */
	if (!c->bad && t->nfstats > rest(c) / 44)
		gmon_cur_fail(c, "%" PRIu64 " stopwatches cannot fit in the %" PRIu64 " bytes left",
			      t->nfstats, rest(c));
	for (uint64_t i = 0; t->fstats && i < t->nfstats && need(c, 44, "stopwatch"); i++) {
		struct gmon_fstat *f = &t->fstats[i];
		const uint8_t *q = c->p + c->off;
		uint32_t nh = ld32(q + 40);
		uint64_t *b = NULL;

		f->outer = ld64(q);
		f->outer_sum = ld64(q + 8);
		f->outer_sq[0] = ld64(q + 16);
		f->outer_sq[1] = ld64(q + 24);
		f->outer_min = ld64(q + 32);
		c->off += 44;
		if (nh > GMON_HIST_BUCKETS) {
			gmon_cur_fail(c, "stopwatch histogram of %" PRIu32 " buckets (at most %d)", nh,
				      GMON_HIST_BUCKETS);
			break;
		}
		if (!need(c, 8 * (size_t)nh, "stopwatch histogram") || (nh && !(b = pool_take(c, t, h, nh))))
			break;
		for (uint32_t j = 0; j < nh; j++)
			b[j] = ld64(c->p + c->off + 8 * j);
		f->nohist = nh;
		c->off += 8 * (size_t)nh;
	}
	if (c->bad || !(t->flags & GMON_THREAD_COUNTERS))
		return;
	/* revision 3, GMON_THREAD_COUNTERS: the counters' names, then two words a counter for each arc */
	t->nctrs = get_u32(c, "counter names");
	if (!c->bad && (t->nctrs == 0 || t->nctrs > GMON_CTR_MAX)) {
		gmon_cur_fail(c, "%" PRIu32 " counters (1 to %d)", t->nctrs, GMON_CTR_MAX);
		t->nctrs = 0;
		return;
	}
	for (uint32_t k = 0; k < t->nctrs && !c->bad; k++)
		t->ctr_names[k] = get_str(c, "counter name");
	if (!c->bad && t->narcs > rest(c) / (16 * (uint64_t)t->nctrs))
		gmon_cur_fail(c, "%" PRIu64 " arc counter totals cannot fit in the %" PRIu64 " bytes left",
			      t->narcs, rest(c));
	if (!c->bad && t->narcs)
		t->arcctrs = get_array(c, t->narcs, sizeof(*t->arcctrs), "arc counter totals");
	for (uint64_t i = 0; t->arcctrs && i < t->narcs && need(c, 16 * (size_t)t->nctrs, "arc counters");
	     i++) {
		const uint8_t *q = c->p + c->off;

		memset(&t->arcctrs[i], 0, sizeof(t->arcctrs[i]));
		for (uint32_t k = 0; k < t->nctrs; k++) {
			t->arcctrs[i].incl[k] = ld64(q + 16 * k);
			t->arcctrs[i].self[k] = ld64(q + 16 * k + 8);
		}
		c->off += 16 * (size_t)t->nctrs;
	}
}

/* revision 5: where the thread blocked, 36 bytes each */
static void dec_waits(struct cur *c, struct gmon_thread *t)
{
	uint32_t n = get_u32(c, "waits");

	if (c->bad || !n)
		return;
	if (n > rest(c) / 36)
		return gmon_cur_fail(c, "%" PRIu32 " waits cannot fit in the %" PRIu64 " bytes left", n,
				     rest(c));
	t->waits = get_array(c, n, sizeof(*t->waits), "waits");
	for (uint32_t i = 0; t->waits && i < n && need(c, 36, "wait"); i++) {
		const uint8_t *q = c->p + c->off;
		struct gmon_wait *w = &t->waits[i];

		w->pc = ld64(q);
		w->func = ld64(q + 8);
		w->kind = ld32(q + 16);
		w->count = ld64(q + 20);
		w->cycles = ld64(q + 28);
		c->off += 36;
		if (w->kind > GMON_WAIT_LAST)
			return gmon_cur_fail(c, "wait of unknown kind %" PRIu32, w->kind);
		t->nwaits = i + 1;
	}
}

static void dec_thread(struct cur *c, struct gmon_thread *t)
{
	struct pool h = { 0, 0 };

	dec_thread_parts(c, t, &h);
	pool_point(t, &h);
	if (!c->bad && c->minor >= 5)
		dec_waits(c, t);
	if (!c->bad && c->minor < 5 && (t->flags & GMON_THREAD_WAITS))
		gmon_cur_fail(c, "thread flag waits (revision 5) in a revision %" PRIu32 " file", c->minor);
}

static void dec_counters(struct cur *c, struct gmon_profile *p)
{
	p->ncounters = (uint32_t)get_count(c, 4, 12, "counters");
	p->counters = get_array(c, p->ncounters, sizeof(*p->counters), "counters");
	for (uint32_t i = 0; p->counters && i < p->ncounters && !c->bad; i++) {
		p->counters[i].name = get_str(c, "counter name");
		p->counters[i].value = get_u64(c, "counter value");
	}
}

static void dec_sampling(struct cur *c, struct gmon_sampling *s)
{
	s->watch = get_u32(c, "watch");
	s->flags = get_u32(c, "sampling flags");
	s->hz = get_u64(c, "rate");
	s->divisor = get_u64(c, "divisor");
	s->target = get_str(c, "watched function");
	s->start = get_str(c, "start trigger");
	s->stop = get_str(c, "stop trigger");
	s->expected = get_u64(c, "sampling totals");
	s->taken = get_u64(c, "sampling totals");
	s->missed = get_u64(c, "sampling totals");
	s->in_runtime = get_u64(c, "sampling totals");
	s->dropped = get_u64(c, "sampling totals");
	s->cpu_ns = get_u64(c, "sampling totals");
	s->faults = get_u64(c, "sampling totals");
	s->allocs = get_u64(c, "sampling totals");
	s->alloc_bytes = get_u64(c, "sampling totals");
	s->handler_cycles = get_u64(c, "sampling totals");
	if (!c->bad && s->watch > GMON_WATCH_LAST)
		gmon_cur_fail(c, "unknown watch %" PRIu32, s->watch);
	if (!c->bad &&
	    (s->flags & ~(uint32_t)(GMON_SAMP_FOREIGN | GMON_SAMP_NOSOURCE | GMON_SAMP_THREADS_CUT)))
		gmon_cur_fail(c, "unknown sampling flags 0x%" PRIx32, s->flags);
	if (!c->bad && !s->divisor)
		gmon_cur_fail(c, "divisor 0");
}

/* A thread's stacks. The frames of all stacks go into one array, grown as stacks come, each depth
 * checked against the bytes left first; the stacks point into it once all are in. */
static void dec_samples(struct cur *c, struct gmon_samples *s)
{
	uint64_t cap = 0;

	s->tid = get_u32(c, "sample thread id");
	s->nstacks = get_count(c, 8, 32, "stacks");
	s->stacks = get_array(c, s->nstacks, sizeof(*s->stacks), "stacks");
	for (uint64_t i = 0; s->stacks && i < s->nstacks && need(c, 32, "stack"); i++) {
		struct gmon_stack *k = &s->stacks[i];
		const uint8_t *q = c->p + c->off;

		k->count = ld64(q);
		k->weight = ld64(q + 8);
		k->pc = ld64(q + 16);
		k->flags = ld32(q + 24);
		k->depth = ld32(q + 28);
		c->off += 32;
		if (k->depth > rest(c) / 16) {
			gmon_cur_fail(
				c, "a stack of %" PRIu32 " frames cannot fit in the %" PRIu64 " bytes left",
				k->depth, rest(c));
			break;
		}
		if (s->nframes + k->depth > cap) {
			uint64_t want = 2 * cap > s->nframes + k->depth ? 2 * cap : s->nframes + k->depth;
			void *f = realloc(s->frames, (size_t)want * sizeof(*s->frames));

			if (!f) {
				gmon_cur_oom(c, want * sizeof(*s->frames), "stack frames");
				break;
			}
			s->frames = f;
			cap = want;
		}
		for (uint32_t j = 0; j < k->depth;) {
			size_t n = batch(c, k->depth - j, 16, "frame");
			const uint8_t *r = c->p + c->off;

			if (!n)
				break;
			c->off += n * 16;
			for (; n; n--, j++, r += 16) {
				s->frames[s->nframes + j].func = ld64(r);
				s->frames[s->nframes + j].call_site = ld64(r + 8);
			}
		}
		s->nframes += k->depth;
		if (!c->bad &&
		    (k->flags & ~(uint32_t)(GMON_STACK_WAITING | GMON_STACK_RUNTIME | GMON_STACK_CUT)))
			gmon_cur_fail(c, "unknown stack flags 0x%" PRIx32, k->flags);
	}
	for (uint64_t i = 0, at = 0; s->stacks && !c->bad && i < s->nstacks; i++) {
		s->stacks[i].frames = s->stacks[i].depth ? s->frames + at : NULL;
		at += s->stacks[i].depth;
	}
}

static void dec_nhist(struct cur *c, struct gmon_nhist *h, const char *what)
{
	h->kind = get_u32(c, what);
	h->nbuckets = get_u32(c, what);
	if (c->bad)
		return;
	if (h->kind > GMON_NHIST_LOG)
		return gmon_cur_fail(c, "%s: unknown histogram kind %" PRIu32, what, h->kind);
	if (!h->kind) {
		if (h->nbuckets)
			gmon_cur_fail(c, "%s: %" PRIu32 " buckets without a histogram", what, h->nbuckets);
		return;
	}
	if (!h->nbuckets || h->nbuckets > GMON_NHIST_MAX)
		return gmon_cur_fail(c, "%s: %" PRIu32 " histogram buckets, not 1 to %u", what, h->nbuckets,
				     GMON_NHIST_MAX);
	h->base = get_u64(c, what);
	h->scale = get_u64(c, what);
	h->under = get_u64(c, what);
	h->over = get_u64(c, what);
	if (!c->bad && h->kind == GMON_NHIST_LINEAR && !h->scale)
		return gmon_cur_fail(c, "%s: a linear histogram of scale 0", what);
	if (!c->bad && h->kind == GMON_NHIST_LOG && h->scale > 63)
		return gmon_cur_fail(c, "%s: a logarithmic histogram shifted by %" PRIu64, what, h->scale);
	if (need(c, (size_t)h->nbuckets * 8, what)) {
		h->buckets = get_array(c, h->nbuckets, sizeof(*h->buckets), what);
		for (uint32_t i = 0; h->buckets && i < h->nbuckets; i++)
			h->buckets[i] = get_u64(c, what);
	}
	/* a value shifted right by scale has at most 64 - scale bits: a bucket past that counts a
	 * value no 64-bit word holds (its lower bound, 2^(i - 1 + scale), is not one) */
	for (uint32_t i = 65 - (uint32_t)h->scale;
	     !c->bad && h->kind == GMON_NHIST_LOG && h->buckets && i < h->nbuckets; i++)
		if (h->buckets[i])
			return gmon_cur_fail(
				c, "%s: bucket %" PRIu32 " of a logarithmic histogram shifted by %" PRIu64,
				what, i, h->scale);
}

/* One thread's nodes and legs (revision 3). */
static void dec_nodes(struct cur *c, struct gmon_nodes *n)
{
	n->tid = get_u32(c, "nodes thread id");
	n->track = get_u32(c, "leg tracking");
	n->add = get_u32(c, "leg adding");
	n->flags = get_u32(c, "nodes flags");
	n->dropped = get_u64(c, "nodes dropped");
	n->nnodes = (uint32_t)get_count(c, 4, 60, "nodes");
	n->nlegs = (uint32_t)get_count(c, 4, 64, "legs");
	if (c->bad)
		return;
	if (n->track > GMON_TRACK_ALL)
		return gmon_cur_fail(c, "unknown leg tracking %" PRIu32, n->track);
	if (n->add > GMON_ADD_SUCCESSOR)
		return gmon_cur_fail(c, "unknown leg adding %" PRIu32, n->add);
	if (n->flags & ~(uint32_t)GMON_NODES_THREAD_ONLY)
		return gmon_cur_fail(c, "unknown nodes flags 0x%" PRIx32, n->flags);
	n->nodes = get_array(c, n->nnodes, sizeof(*n->nodes), "nodes");
	for (uint32_t i = 0; n->nodes && !c->bad && i < n->nnodes; i++) {
		struct gmon_node *d = &n->nodes[i];

		d->name = get_str(c, "node name");
		d->file = get_str(c, "node file");
		d->line = get_u32(c, "node line");
		d->hits = get_u64(c, "node hits");
		d->nvalues = get_u64(c, "node values");
		d->value_sum = get_u64(c, "node value sum");
		d->value_min = get_u64(c, "node value min");
		d->value_max = get_u64(c, "node value max");
		dec_nhist(c, &d->hist, "node histogram");
	}
	n->legs = get_array(c, n->nlegs, sizeof(*n->legs), "legs");
	for (uint32_t i = 0; n->legs && !c->bad && i < n->nlegs; i++) {
		struct gmon_leg *l = &n->legs[i];

		l->from = get_u32(c, "leg from");
		l->to = get_u32(c, "leg to");
		l->count = get_u64(c, "leg count");
		l->total_ns = get_u64(c, "leg total");
		l->min_ns = get_u64(c, "leg min");
		l->max_ns = get_u64(c, "leg max");
		l->ignored = get_u64(c, "leg ignored");
		l->open = get_u64(c, "leg open");
		if (!c->bad && (l->from >= n->nnodes || l->to >= n->nnodes))
			return gmon_cur_fail(c, "a leg from node %" PRIu32 " to node %" PRIu32 " of %" PRIu32,
					     l->from, l->to, n->nnodes);
		dec_nhist(c, &l->hist, "leg histogram");
	}
}

/* A thread's trace: its events, 36 bytes each. */
static void dec_trace(struct cur *c, struct gmon_trace *t)
{
	t->kind = get_u32(c, "trace kind");
	t->tid = get_u32(c, "trace thread id");
	t->dropped = get_u64(c, "trace dropped");
	t->n = get_count(c, 8, 36, "trace events");
	if (!c->bad && t->kind > GMON_TRACE_KIND_LAST)
		return gmon_cur_fail(c, "unknown trace kind %" PRIu32, t->kind);
	t->ev = get_array(c, t->n, sizeof(*t->ev), "trace events");
	for (uint64_t i = 0; t->ev && i < t->n && need(c, 36, "trace event"); i++) {
		struct gmon_tevent *e = &t->ev[i];
		const uint8_t *q = c->p + c->off;

		e->time = ld64(q);
		e->func = ld64(q + 8);
		e->addr = ld64(q + 16);
		e->value = ld64(q + 24);
		e->what = ld32(q + 32);
		c->off += 36;
		if (t->kind == GMON_TRACE_CALLS && e->what > GMON_TEV_EXIT)
			return gmon_cur_fail(c, "unknown call event %" PRIu32, e->what);
	}
}

/* Append one zeroed element to a profile array; NULL when memory ran out. */
static void *grow1(void **items, uint32_t *nr, size_t size)
{
	uint32_t n = *nr;
	void *p;

	if (n == UINT32_MAX)
		return NULL;
	/* capacity doubles at powers of two; no separate alloc field needed */
	if ((n & (n - 1)) == 0) {
		p = realloc(*items, (n ? 2 * (size_t)n : 4) * size);
		if (!p)
			return NULL;
		*items = p;
	}
	p = (char *)*items + n * size;
	memset(p, 0, size);
	*nr = n + 1;
	return p;
}

/* Revision 4: the tail calls' sites, strictly increasing (readers search them). */
static void dec_tails(struct cur *c, struct gmon_profile *p)
{
	uint64_t n = get_count(c, 8, 8, "tail call sites");

	p->tail_sites = get_array(c, n, sizeof(*p->tail_sites), "tail call sites");
	for (uint64_t i = 0; p->tail_sites && i < n && !c->bad; i++) {
		p->tail_sites[i] = get_u64(c, "tail call site");
		if (!c->bad && i && p->tail_sites[i] <= p->tail_sites[i - 1])
			gmon_cur_fail(c, "tail call sites out of order at 0x%" PRIx64, p->tail_sites[i]);
	}
	if (!c->bad)
		p->ntail_sites = n;
}

/* Decode one record's payload (already checked and inflated). */
static void dec_record(struct cur *c, uint16_t tag, struct gmon_profile *p)
{
	void *e;

	switch (tag) {
	case GMON_TAG_MODULE:
		e = grow1((void **)&p->modules, &p->nmodules, sizeof(*p->modules));
		if (!e)
			return gmon_cur_oom(c, ((uint64_t)p->nmodules + 1) * sizeof(*p->modules), "modules");
		dec_module(c, e);
		for (uint32_t i = 0; !c->bad && i + 1 < p->nmodules; i++)
			if (p->modules[i].id == p->modules[p->nmodules - 1].id)
				gmon_cur_fail(c, "module id %" PRIu32 " appears twice", p->modules[i].id);
		break;
	case GMON_TAG_FUNCS: {
		struct gmon_funcs *fs;
		uint32_t i;

		e = grow1((void **)&p->funcsets, &p->nfuncsets, sizeof(*p->funcsets));
		if (!e)
			return gmon_cur_oom(c, ((uint64_t)p->nfuncsets + 1) * sizeof(*p->funcsets),
					    "functions");
		fs = e;
		dec_funcs(c, fs);
		for (i = 0; !c->bad && i < p->nmodules; i++)
			if (p->modules[i].id == fs->module)
				break;
		if (!c->bad && i == p->nmodules)
			gmon_cur_fail(c,
				      "functions of module %" PRIu32 ", which no earlier MODULE record names",
				      fs->module);
		break;
	}
	case GMON_TAG_THREAD:
		e = grow1((void **)&p->threads, &p->nthreads, sizeof(*p->threads));
		if (!e)
			return gmon_cur_oom(c, ((uint64_t)p->nthreads + 1) * sizeof(*p->threads), "threads");
		dec_thread(c, e);
		break;
	case GMON_TAG_COUNTERS:
		if (p->counters || p->ncounters)
			return gmon_cur_fail(c, "a second COUNTERS record");
		dec_counters(c, p);
		break;
	case GMON_TAG_SAMPLING:
		if (p->sampling)
			return gmon_cur_fail(c, "a second SAMPLING record");
		p->sampling = calloc(1, sizeof(*p->sampling));
		if (!p->sampling)
			return gmon_cur_oom(c, sizeof(*p->sampling), "sampling");
		dec_sampling(c, p->sampling);
		break;
	case GMON_TAG_SAMPLES:
		e = grow1((void **)&p->samples, &p->nsamples, sizeof(*p->samples));
		if (!e)
			return gmon_cur_oom(c, ((uint64_t)p->nsamples + 1) * sizeof(*p->samples), "samples");
		dec_samples(c, e);
		break;
	case GMON_TAG_NODES:
		e = grow1((void **)&p->nodesets, &p->nnodesets, sizeof(*p->nodesets));
		if (!e)
			return gmon_cur_oom(c, ((uint64_t)p->nnodesets + 1) * sizeof(*p->nodesets), "nodes");
		dec_nodes(c, e);
		break;
	case GMON_TAG_TRACE:
		e = grow1((void **)&p->traces, &p->ntraces, sizeof(*p->traces));
		if (!e)
			return gmon_cur_oom(c, ((uint64_t)p->ntraces + 1) * sizeof(*p->traces), "traces");
		dec_trace(c, e);
		break;
	case GMON_TAG_TAILS:
		if (c->minor < 4)
			return gmon_cur_fail(c, "a TAILS record (revision 4) in a revision %" PRIu32 " file",
					     c->minor);
		if (p->tail_sites || p->ntail_sites)
			return gmon_cur_fail(c, "a second TAILS record");
		dec_tails(c, p);
		break;
	}
}

/* Decode the record whose header is at off: check, decode, and (read from a descriptor) check its CRC
 * after, whatever the decoding said: a damaged record is said to be damaged. 0 or -1 with err. */
static int dec_one(struct in *in, uint64_t off, uint32_t nrec, int *seen_end, struct gmon_profile *p,
		   char *err, size_t errsz)
{
	uint8_t h[GMON_RECORD_HEADER_SIZE];
	uint16_t tag, flags;
	uint64_t plen;
	uint32_t crc;
	char where[96];
	struct cur c = { .in = in, .err = err, .errsz = errsz, .where = where, .minor = in->minor };

	if (in->size - off < GMON_RECORD_HEADER_SIZE) {
		snprintf(err, errsz, "record %" PRIu32 " at offset %" PRIu64 ": truncated record header",
			 nrec, off);
		return -1;
	}
	if (gmon_in_pread(in, off, h, sizeof(h))) {
		snprintf(err, errsz, "record %" PRIu32 " at offset %" PRIu64 ": %s", nrec, off,
			 gmon_in_error(in));
		return -1;
	}
	tag = (uint16_t)get_le(h, 2);
	flags = (uint16_t)get_le(h + 2, 2);
	crc = ld32(h + 4);
	plen = ld64(h + 8);
	snprintf(where, sizeof(where), "record %" PRIu32 " (%s) at offset %" PRIu64, nrec, gmon_tag_name(tag),
		 off);
	if (plen > in->size - off - GMON_RECORD_HEADER_SIZE) {
		snprintf(err, errsz, "%s: truncated payload (%" PRIu64 " bytes, %" PRIu64 " left)", where,
			 plen, in->size - off - GMON_RECORD_HEADER_SIZE);
		return -1;
	}
	put_le(h + 4, 0, 4);
	in->crc = gmon_crc32(0, h, sizeof(h));
	in->pos = off + GMON_RECORD_HEADER_SIZE;
	in->left = plen;
	if (in->mem) {
		/* all there: checked before anything is decoded */
		in->crc = gmon_crc32(in->crc, in->mem + in->pos, (size_t)plen);
		if (in->crc != crc) {
			snprintf(err, errsz, "%s: checksum mismatch (damaged file)", where);
			return -1;
		}
		c.p = in->mem + in->pos;
		c.len = (size_t)plen;
	} else {
		c.more = plen;
	}
	if (flags & ~(uint16_t)GMON_REC_ZLIB) {
		gmon_cur_fail(&c, "unknown flags 0x%x", flags);
	} else if (nrec == 0 && tag != GMON_TAG_HEADER) {
		gmon_cur_fail(&c, "the first record must be HEADER");
	} else if (flags & GMON_REC_ZLIB) {
		uint8_t rl[8];
		uint64_t rawlen = 0;

		if (plen < 8)
			gmon_cur_fail(&c, "compressed payload without its length");
		else if (gmon_in_read(in, rl, 8))
			gmon_cur_fail(&c, "%s", gmon_in_error(in));
		else
			rawlen = ld64(rl);
		/* deflate cannot do better than about 1032:1; anything beyond is a lie */
		if (!c.bad && (rawlen > GMON_RAW_MAX || rawlen / 1100 > plen))
			gmon_cur_fail(&c, "implausible uncompressed length %" PRIu64, rawlen);
		if (!c.bad && !z_load())
			gmon_cur_fail(&c, "compressed, and no zlib to read it");
		gmon_in_zstart(&c, rawlen);
	} else if (in->mem) {
		in->pos += plen;
		in->left = 0;
	}
	if (!c.bad) {
		switch (tag) {
		case GMON_TAG_HEADER:
			if (nrec != 0)
				gmon_cur_fail(&c, "a second HEADER record");
			else
				dec_header(&c, &p->hdr);
			break;
		case GMON_TAG_MODULE:
		case GMON_TAG_FUNCS:
		case GMON_TAG_THREAD:
		case GMON_TAG_COUNTERS:
		case GMON_TAG_SAMPLING:
		case GMON_TAG_SAMPLES:
		case GMON_TAG_NODES:
		case GMON_TAG_TRACE:
		case GMON_TAG_TAILS:
			dec_record(&c, tag, p);
			break;
		case GMON_TAG_END: {
			uint32_t n = get_u32(&c, "record count");
			uint64_t flen = get_u64(&c, "file length");

			if (!c.bad && n != nrec)
				gmon_cur_fail(&c, "%" PRIu32 " records announced, %" PRIu32 " read", n, nrec);
			if (!c.bad && flen != in->size)
				gmon_cur_fail(&c, "file length %" PRIu64 ", %" PRIu64 " announced", in->size,
					      flen);
			*seen_end = 1;
			break;
		}
		default:
			gmon_cur_fail(&c, "unknown record tag %u", tag);
		}
	}
	if (!c.bad && rest(&c))
		gmon_cur_fail(&c, "%" PRIu64 " bytes left over at the end of the record", rest(&c));
	if (c.zlib)
		gmon_in_zend(&c);
	if (!in->mem) {
		/* the rest of the stored bytes through the CRC, which has the last word */
		while (in->left && !in->ioerr) {
			if (!in->zin) {
				in->zin = malloc(GMON_WINDOW);
				in->zincap = GMON_WINDOW;
				if (!in->zin) {
					gmon_cur_oom(&c, GMON_WINDOW, "reading");
					return -1;
				}
			}
			gmon_in_read(in, in->zin, in->left < in->zincap ? (size_t)in->left : in->zincap);
		}
		if (in->ioerr) {
			snprintf(err, errsz, "%s: %s", where, gmon_in_error(in));
			return -1;
		}
		if (in->crc != crc) {
			snprintf(err, errsz, "%s: checksum mismatch (damaged file)", where);
			return -1;
		}
	}
	return c.bad ? -1 : 0;
}

/* The file header, then record after record up to END. */
static int dec_file(struct in *in, struct gmon_profile *p, char *err, size_t errsz)
{
	uint8_t fh[GMON_FILE_HEADER_SIZE];
	size_t n = in->size < sizeof(fh) ? (size_t)in->size : sizeof(fh);
	uint32_t version, minor, nrec = 0;
	uint64_t off = GMON_FILE_HEADER_SIZE;
	int seen_end = 0;

	if (gmon_in_pread(in, 0, fh, n)) {
		snprintf(err, errsz, "%s", gmon_in_error(in));
		return -1;
	}
	if (n < 4 || memcmp(fh, GMON_MAGIC, 4)) {
		snprintf(err, errsz, "not a gmon file (bad magic)");
		return -1;
	}
	if (n < GMON_FILE_HEADER_SIZE) {
		snprintf(err, errsz, "truncated file header (%zu of %u bytes)", n, GMON_FILE_HEADER_SIZE);
		return -1;
	}
	version = ld32(fh + 4);
	minor = ld32(fh + 8);
	if (version == GMON_GNU_VERSION || version == 0) {
		snprintf(err, errsz, "a GNU gmon.out (version %" PRIu32 "), not a spy profile", version);
		return -1;
	}
	if (version != GMON_SPY_VERSION) {
		snprintf(err, errsz, "unsupported version 0x%08" PRIx32, version);
		return -1;
	}
	if (ld32(fh + 12) != gmon_crc32(0, fh, 12)) {
		snprintf(err, errsz, "file header checksum mismatch");
		return -1;
	}
	if (minor > GMON_SPY_MINOR) {
		snprintf(err, errsz, "format revision %" PRIu32 " is newer than this reader's (%u)", minor,
			 GMON_SPY_MINOR);
		return -1;
	}
	in->minor = minor;
	while (off < in->size) {
		if (seen_end) {
			snprintf(err, errsz, "%" PRIu64 " bytes after the END record", in->size - off);
			return -1;
		}
		if (dec_one(in, off, nrec, &seen_end, p, err, errsz))
			return -1;
		off = in->pos;
		nrec++;
	}
	if (!seen_end) {
		snprintf(err, errsz, "truncated: no END record after %" PRIu32 " records", nrec);
		return -1;
	}
	return 0;
}

int gmon_dec_in(struct in *in, struct gmon_profile *p, char *err, size_t errsz)
{
	int rc;

	gmon_profile_init(p);
	rc = dec_file(in, p, err, errsz);
	gmon_in_release(in);
	if (rc)
		gmon_profile_release(p);
	return rc;
}

int gmon_decode(const uint8_t *buf, size_t len, struct gmon_profile *p, char *err, size_t errsz)
{
	struct in in = { .mem = buf, .fd = -1, .size = len };

	return gmon_dec_in(&in, p, err, errsz);
}
