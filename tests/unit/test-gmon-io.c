/* unit: common/gmon-io.c common/gmon-encode.c common/gmon-write.c common/gmon-decode.c common/gmon-read.c common/gmon-dump.c common/esc.c -lz */
/* The profile file: a profile with every kind of record survives encoding and decoding, plain and
 * compressed; every truncation and every damaged byte of a valid file is refused with a message (the
 * run under ASan/UBSan shows none of them reads out of bounds), read from memory and from a file
 * alike (same profile, same message); only regular files are opened; the atomic write (what it
 * replaces, follows or writes into) and the dump. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "gmon-format.h"

static char *sdup(const char *s)
{
	char *c = strdup(s);

	assert_non_null(c);
	return c;
}

/* A profile touching every field; big makes one thread large enough to be compressed. */
static void make_profile(struct gmon_profile *p, int big)
{
	static const uint8_t bid[20] = { 0xde, 0xad, 0xbe, 0xef, 1,  2,  3,  4,  5,  6,
					 7,    8,    9,    10,   11, 12, 13, 14, 15, 16 };
	struct gmon_header *h = &p->hdr;
	uint64_t narcs = big ? 1000 : 3;

	gmon_profile_init(p);
	h->tool = sdup("spy test");
	h->abi = 1;
	h->pid = 1234;
	h->ppid = 1;
	h->mode = 2;
	h->flags = GMON_HDR_FINAL | GMON_HDR_TSC_INVARIANT;
	h->start_ns = 1000;
	h->end_ns = 2000;
	h->tsc_hz = 2500000000u;
	h->hook_out_mcyc = 39601;
	h->hook_in_mcyc = 24762;
	h->tsc_read_mcyc = 24596;
	h->dropped_arcs = 5;
	h->dropped_funcs = 6;
	h->dropped_frames = 7;
	h->abandoned = 8;
	h->unmatched = 9;
	h->slots_lost = 10;
	h->unregistered = 11;
	h->error = sdup("something odd");
	h->argc = 2;
	h->argv = calloc(2, sizeof(char *));
	h->argv[0] = sdup("./prog");
	h->argv[1] = sdup("arg with spaces");

	p->nmodules = 2;
	p->modules = calloc(2, sizeof(*p->modules));
	p->modules[0] = (struct gmon_module){ 0,
					      GMON_MOD_MAIN | GMON_MOD_INSTRUMENTED,
					      0x555500000000,
					      0x555500001000,
					      0x555500002000,
					      sdup("/bin/prog"),
					      20,
					      malloc(20) };
	memcpy(p->modules[0].build_id, bid, 20);
	p->modules[1] = (struct gmon_module){ 7,
					      GMON_MOD_CLOSED,
					      0x7f0000000000,
					      0x7f0000001000,
					      0x7f0000003000,
					      sdup("/lib/plugin.so"),
					      0,
					      NULL };

	p->nfuncsets = 2;
	p->funcsets = calloc(2, sizeof(*p->funcsets));
	p->funcsets[0].module = 0;
	p->funcsets[0].plugin_mode = 2;
	p->funcsets[0].nr = 2;
	p->funcsets[0].funcs = calloc(2, sizeof(struct gmon_func));
	p->funcsets[0].funcs[0] =
		(struct gmon_func){ 0x555500001100, 1, 10, 1, sdup("main"), sdup("prog.c") };
	p->funcsets[0].funcs[1] =
		(struct gmon_func){ 0x555500001200, 42, 20, 3, sdup("_Z1fv"), sdup("prog.c") };
	p->funcsets[1].module = 7;
	p->funcsets[1].plugin_mode = 1;
	p->funcsets[1].nr = 1;
	p->funcsets[1].funcs = calloc(1, sizeof(struct gmon_func));
	p->funcsets[1].funcs[0] =
		(struct gmon_func){ 0x7f0000001100, 3, 5, 1, sdup("plugin_entry"), sdup("plugin.c") };

	p->nthreads = 2;
	p->threads = calloc(2, sizeof(*p->threads));
	for (int t = 0; t < 2; t++) {
		struct gmon_thread *th = &p->threads[t];

		th->tid = 1234 + (uint32_t)t;
		th->flags = t ? GMON_THREAD_EXITED : GMON_THREAD_MAIN;
		th->start_ns = 1100;
		th->end_ns = 1900;
		th->name = sdup(t ? "worker" : "prog");
		th->dropped_arcs = 1;
		th->abandoned = 2;
		th->narcs = t ? 1 : narcs;
		th->arcs = calloc(th->narcs, sizeof(*th->arcs));
		for (uint64_t i = 0; i < th->narcs; i++)
			th->arcs[i] =
				(struct gmon_arc){ 0x555500001150 + i, i ? 0x555500001100 : GMON_CALLER_NONE,
						   0x555500001200,     40 + i,
						   1000 * i,           500 * i };
		th->nfstats = 1;
		th->fstats = calloc(1, sizeof(*th->fstats));
		th->fstats[0].addr = 0x555500001200;
		th->fstats[0].calls = 42;
		th->fstats[0].incl = 5000;
		th->fstats[0].self = 4000;
		th->fstats[0].min = 3;
		th->fstats[0].max = 900;
		/* the buckets live in the thread's one pool: 10 of the function time's, then 12 of the
		 * stopwatch's (their last 2 empty: the encoder leaves them out) */
		th->hist_pool = calloc(22, sizeof(uint64_t));
		th->fstats[0].nhist = 10;
		th->fstats[0].hist = th->hist_pool;
		th->fstats[0].nohist = 12;
		th->fstats[0].outer_hist = (uint64_t *)th->hist_pool + 10;
		th->fstats[0].hist[1] = 2;
		th->fstats[0].hist[9] = 40;
		/* revision 3: the stopwatch of the outermost calls, its sum of squares over 64 bits */
		th->flags |= GMON_THREAD_STOPWATCH;
		th->fstats[0].outer = 41;
		th->fstats[0].outer_sum = 4900;
		th->fstats[0].outer_sq[0] = 0xfedcba9876543210ull;
		th->fstats[0].outer_sq[1] = 7;
		th->fstats[0].outer_min = 5;
		th->fstats[0].outer_hist[1] = 1;
		th->fstats[0].outer_hist[9] = 40;
		th->ncounts = 2;
		th->counts = calloc(2, sizeof(*th->counts));
		th->counts[0] = (struct gmon_count){ 0, 11 };
		th->counts[1] = (struct gmon_count){ 0x555500001200, 42 };
	}
	p->sampling = calloc(1, sizeof(*p->sampling));
	*p->sampling = (struct gmon_sampling){ GMON_WATCH_ALLOCBYTES,
					       GMON_SAMP_THREADS_CUT,
					       1000,
					       3,
					       sdup(""),
					       sdup("main"),
					       sdup("_Z1fv"),
					       1,
					       2,
					       3,
					       4,
					       5,
					       6,
					       7,
					       8,
					       9,
					       10 };
	p->nsamples = 2;
	p->samples = calloc(2, sizeof(*p->samples));
	for (int t = 0; t < 2; t++) {
		struct gmon_samples *ss = &p->samples[t];
		uint64_t nstacks = big ? 300 : 3;

		ss->tid = 1234 + (uint32_t)t;
		ss->nstacks = t ? 1 : nstacks; /* thread 1: one stack of depth 0 */
		ss->stacks = calloc(ss->nstacks, sizeof(*ss->stacks));
		ss->nframes = t ? 0 : nstacks * (nstacks - 1) / 2;
		ss->frames = ss->nframes ? calloc(ss->nframes, sizeof(*ss->frames)) : NULL;
		for (uint64_t i = 0, fi = 0; i < ss->nstacks; i++) {
			struct gmon_stack *k = &ss->stacks[i];

			*k = (struct gmon_stack){ 10 + i,
						  1000 * i,
						  0x555500001210 + i,
						  i == 1 ? GMON_STACK_WAITING | GMON_STACK_CUT : 0,
						  (uint32_t)i,
						  i ? ss->frames + fi : NULL };
			for (uint64_t d = 0; d < i; d++, fi++)
				ss->frames[fi] = (struct gmon_frame){ d ? 0x555500001200 : 0x555500001100,
								      0x555500001150 + d };
		}
	}
	p->ncounters = 2;
	p->counters = calloc(2, sizeof(*p->counters));
	p->counters[0] = (struct gmon_counter){ sdup("threads"), 2 };
	p->counters[1] = (struct gmon_counter){ sdup("open_frames"), 0 };
}

/* A histogram's bucket k: those past the n held are 0. */
static uint64_t bucket(const uint64_t *h, uint32_t n, int k)
{
	assert_true(n <= GMON_HIST_BUCKETS);
	return (uint32_t)k < n ? h[k] : 0;
}

/* Two function times alike: their fields, and their histograms bucket by bucket (however many
 * buckets each holds). */
static void fstat_equal(const struct gmon_fstat *f, const struct gmon_fstat *g)
{
	assert_int_equal(f->addr, g->addr);
	assert_int_equal(f->calls, g->calls);
	assert_int_equal(f->incl, g->incl);
	assert_int_equal(f->self, g->self);
	assert_int_equal(f->min, g->min);
	assert_int_equal(f->max, g->max);
	assert_int_equal(f->outer, g->outer);
	assert_int_equal(f->outer_sum, g->outer_sum);
	assert_int_equal(f->outer_min, g->outer_min);
	assert_int_equal(f->outer_sq[0], g->outer_sq[0]);
	assert_int_equal(f->outer_sq[1], g->outer_sq[1]);
	for (int k = 0; k < GMON_HIST_BUCKETS; k++) {
		assert_int_equal(bucket(f->hist, f->nhist, k), bucket(g->hist, g->nhist, k));
		assert_int_equal(bucket(f->outer_hist, f->nohist, k), bucket(g->outer_hist, g->nohist, k));
	}
}

static void same_profile(const struct gmon_profile *a, const struct gmon_profile *b)
{
	const struct gmon_header *x = &a->hdr, *y = &b->hdr;

	assert_string_equal(x->tool, y->tool);
	assert_int_equal(x->abi, y->abi);
	assert_int_equal(x->pid, y->pid);
	assert_int_equal(x->ppid, y->ppid);
	assert_int_equal(x->mode, y->mode);
	assert_int_equal(x->flags, y->flags);
	assert_int_equal(x->start_ns, y->start_ns);
	assert_int_equal(x->end_ns, y->end_ns);
	assert_int_equal(x->tsc_hz, y->tsc_hz);
	assert_int_equal(x->hook_out_mcyc, y->hook_out_mcyc);
	assert_int_equal(x->hook_in_mcyc, y->hook_in_mcyc);
	assert_int_equal(x->tsc_read_mcyc, y->tsc_read_mcyc);
	assert_int_equal(x->dropped_arcs, y->dropped_arcs);
	assert_int_equal(x->dropped_funcs, y->dropped_funcs);
	assert_int_equal(x->dropped_frames, y->dropped_frames);
	assert_int_equal(x->abandoned, y->abandoned);
	assert_int_equal(x->unmatched, y->unmatched);
	assert_int_equal(x->slots_lost, y->slots_lost);
	assert_int_equal(x->unregistered, y->unregistered);
	assert_string_equal(x->error, y->error);
	assert_int_equal(x->argc, y->argc);
	for (uint32_t i = 0; i < x->argc; i++)
		assert_string_equal(x->argv[i], y->argv[i]);

	assert_int_equal(a->nmodules, b->nmodules);
	for (uint32_t i = 0; i < a->nmodules; i++) {
		const struct gmon_module *m = &a->modules[i], *n = &b->modules[i];

		assert_int_equal(m->id, n->id);
		assert_int_equal(m->flags, n->flags);
		assert_int_equal(m->base, n->base);
		assert_int_equal(m->text_lo, n->text_lo);
		assert_int_equal(m->text_hi, n->text_hi);
		assert_string_equal(m->path, n->path);
		assert_int_equal(m->build_id_len, n->build_id_len);
		if (m->build_id_len)
			assert_memory_equal(m->build_id, n->build_id, m->build_id_len);
	}
	assert_int_equal(a->nfuncsets, b->nfuncsets);
	for (uint32_t i = 0; i < a->nfuncsets; i++) {
		assert_int_equal(a->funcsets[i].module, b->funcsets[i].module);
		assert_int_equal(a->funcsets[i].plugin_mode, b->funcsets[i].plugin_mode);
		assert_int_equal(a->funcsets[i].nr, b->funcsets[i].nr);
		for (uint32_t j = 0; j < a->funcsets[i].nr; j++) {
			const struct gmon_func *f = &a->funcsets[i].funcs[j], *g = &b->funcsets[i].funcs[j];

			assert_int_equal(f->addr, g->addr);
			assert_int_equal(f->count, g->count);
			assert_int_equal(f->line, g->line);
			assert_int_equal(f->flags, g->flags);
			assert_string_equal(f->name, g->name);
			assert_string_equal(f->file, g->file);
		}
	}
	assert_int_equal(a->nthreads, b->nthreads);
	for (uint32_t i = 0; i < a->nthreads; i++) {
		const struct gmon_thread *s = &a->threads[i], *t = &b->threads[i];

		assert_int_equal(s->tid, t->tid);
		assert_int_equal(s->flags, t->flags);
		assert_int_equal(s->start_ns, t->start_ns);
		assert_int_equal(s->end_ns, t->end_ns);
		assert_string_equal(s->name, t->name);
		assert_int_equal(s->dropped_arcs, t->dropped_arcs);
		assert_int_equal(s->abandoned, t->abandoned);
		assert_int_equal(s->narcs, t->narcs);
		assert_memory_equal(s->arcs, t->arcs, s->narcs * sizeof(*s->arcs));
		assert_int_equal(s->nfstats, t->nfstats);
		for (uint64_t j = 0; j < s->nfstats; j++)
			fstat_equal(&s->fstats[j], &t->fstats[j]);
		assert_int_equal(s->ncounts, t->ncounts);
		assert_memory_equal(s->counts, t->counts, s->ncounts * sizeof(*s->counts));
	}
	assert_int_equal(!a->sampling, !b->sampling);
	if (a->sampling) {
		const struct gmon_sampling *s = a->sampling, *t = b->sampling;

		assert_int_equal(s->watch, t->watch);
		assert_int_equal(s->flags, t->flags);
		assert_int_equal(s->hz, t->hz);
		assert_int_equal(s->divisor, t->divisor);
		assert_string_equal(s->target, t->target);
		assert_string_equal(s->start, t->start);
		assert_string_equal(s->stop, t->stop);
		assert_int_equal(s->expected, t->expected);
		assert_int_equal(s->taken, t->taken);
		assert_int_equal(s->missed, t->missed);
		assert_int_equal(s->in_runtime, t->in_runtime);
		assert_int_equal(s->dropped, t->dropped);
		assert_int_equal(s->cpu_ns, t->cpu_ns);
		assert_int_equal(s->faults, t->faults);
		assert_int_equal(s->allocs, t->allocs);
		assert_int_equal(s->alloc_bytes, t->alloc_bytes);
		assert_int_equal(s->handler_cycles, t->handler_cycles);
	}
	assert_int_equal(a->nsamples, b->nsamples);
	for (uint32_t i = 0; i < a->nsamples; i++) {
		const struct gmon_samples *s = &a->samples[i], *t = &b->samples[i];

		assert_int_equal(s->tid, t->tid);
		assert_int_equal(s->nstacks, t->nstacks);
		assert_int_equal(s->nframes, t->nframes);
		for (uint64_t j = 0; j < s->nstacks; j++) {
			const struct gmon_stack *u = &s->stacks[j], *v = &t->stacks[j];

			assert_int_equal(u->count, v->count);
			assert_int_equal(u->weight, v->weight);
			assert_int_equal(u->pc, v->pc);
			assert_int_equal(u->flags, v->flags);
			assert_int_equal(u->depth, v->depth);
			if (u->depth)
				assert_memory_equal(u->frames, v->frames, u->depth * sizeof(*u->frames));
		}
	}
	assert_int_equal(a->ncounters, b->ncounters);
	for (uint32_t i = 0; i < a->ncounters; i++) {
		assert_string_equal(a->counters[i].name, b->counters[i].name);
		assert_int_equal(a->counters[i].value, b->counters[i].value);
	}
}

/* The record flags of the encoding, ORed. */
static unsigned record_flags(const uint8_t *buf, size_t len)
{
	unsigned flags = 0;

	for (size_t off = GMON_FILE_HEADER_SIZE; off + GMON_RECORD_HEADER_SIZE <= len;) {
		uint64_t plen = 0;

		flags |= buf[off + 2];
		for (int i = 7; i >= 0; i--)
			plen = plen << 8 | buf[off + 8 + i];
		off += GMON_RECORD_HEADER_SIZE + plen;
	}
	return flags;
}

/* gmon_decode, and gmon_read_file on the same bytes in a file: the same outcome, the same message.
 * Returns gmon_decode's result, its profile in q, its message in err. */
static int decode_both(const uint8_t *buf, size_t len, struct gmon_profile *q, char *err, size_t errsz)
{
	char path[] = "/tmp/test-gmon-io-read.XXXXXX", ferr[256] = "";
	struct gmon_profile r;
	int fd = mkstemp(path), rc, frc;

	assert_true(fd >= 0);
	assert_int_equal(write(fd, buf, len), (ssize_t)len);
	close(fd);
	rc = gmon_decode(buf, len, q, err, errsz);
	frc = gmon_read_file(path, &r, ferr, sizeof(ferr));
	unlink(path);
	if (rc != frc)
		fail_msg("from memory %d ('%s'), from a file %d ('%s')", rc, rc ? err : "", frc,
			 frc ? ferr : "");
	/* an empty file is said to be one, where the bytes in memory only lack the magic */
	if (rc && strcmp(err, ferr) && !(len == 0 && !strcmp(ferr, "empty file")))
		fail_msg("from memory '%s', from a file '%s'", err, ferr);
	if (!rc) {
		uint8_t *a, *b;
		size_t alen, blen;

		/* the same profile: its encodings are equal */
		assert_int_equal(gmon_encode(q, 0, &a, &alen), 0);
		assert_int_equal(gmon_encode(&r, 0, &b, &blen), 0);
		assert_int_equal(alen, blen);
		assert_memory_equal(a, b, alen);
		free(a);
		free(b);
		gmon_profile_release(&r);
	}
	return rc;
}

static void round_trip(int big, int level, int want_zlib)
{
	struct gmon_profile p, q;
	uint8_t *buf;
	size_t len;
	char err[256] = "";

	make_profile(&p, big);
	assert_int_equal(gmon_encode(&p, level, &buf, &len), 0);
	assert_memory_equal(buf, "gmonSPY\x01", 8);
	assert_int_equal(!!(record_flags(buf, len) & GMON_REC_ZLIB), want_zlib);
	if (decode_both(buf, len, &q, err, sizeof(err)))
		fail_msg("decode: %s", err);
	same_profile(&p, &q);
	/* what the file held: the stopwatch's 2 empty buckets past its last were left out */
	assert_int_equal(q.threads[0].fstats[0].nhist, 10);
	assert_int_equal(q.threads[0].fstats[0].nohist, 10);
	gmon_profile_release(&q);
	gmon_profile_release(&p);
	free(buf);
}

static void test_round_trip_plain(void **state)
{
	(void)state;
	round_trip(0, 0, 0);
	round_trip(1, 0, 0);
}

static void test_round_trip_zlib(void **state)
{
	(void)state;
	round_trip(0, 6, 0); /* all records small: nothing worth compressing */
	round_trip(1, 6, 1);
}

/* A held histogram's length once written: its trailing empty buckets are left out. */
static uint32_t trimmed(const uint64_t *h, uint32_t n)
{
	while (n && !h[n - 1])
		n--;
	return n;
}

/* Many function times of every histogram length (0 to 40 buckets, some ending empty), their
 * buckets in one pool: the decoder's pool grows over several blocks, and from a file its window
 * is refilled mid-record; each decoded histogram holds the buckets written, nothing after them. */
static void test_histograms_round_trip(void **state)
{
	const uint64_t n = 5000;

	(void)state;
	for (int level = 0; level <= 6; level += 6) {
		struct gmon_profile p, q;
		struct gmon_thread *a;
		uint64_t *b, nb = 0;
		uint8_t *buf;
		size_t len;
		char err[256] = "";

		make_profile(&p, 0);
		a = &p.threads[0];
		free(a->fstats);
		free(a->hist_pool);
		a->nfstats = n;
		a->fstats = calloc(n, sizeof(*a->fstats));
		a->hist_pool = b = calloc(n, 2 * GMON_HIST_BUCKETS * sizeof(uint64_t));
		assert_non_null(a->fstats);
		assert_non_null(b);
		for (uint64_t i = 0; i < n; i++) {
			struct gmon_fstat *f = &a->fstats[i];

			f->addr = 0x555500001200 + 16 * i;
			f->calls = i;
			f->outer = i / 2;
			f->nhist = (uint32_t)(i % (GMON_HIST_BUCKETS + 1));
			f->nohist = (uint32_t)(3 * i % (GMON_HIST_BUCKETS + 1));
			f->hist = f->nhist ? b + nb : NULL;
			for (uint32_t k = 0; k < f->nhist; k++)
				b[nb++] = (i + k) % 5; /* some histograms end empty */
			f->outer_hist = f->nohist ? b + nb : NULL;
			for (uint32_t k = 0; k < f->nohist; k++)
				b[nb++] = (i + 2 * k) % 3 ? i + k : 0;
		}
		assert_int_equal(gmon_encode(&p, level, &buf, &len), 0);
		if (decode_both(buf, len, &q, err, sizeof(err)))
			fail_msg("decode: %s", err);
		same_profile(&p, &q);
		for (uint64_t i = 0; i < n; i++) {
			const struct gmon_fstat *f = &a->fstats[i], *g = &q.threads[0].fstats[i];

			assert_int_equal(g->nhist, trimmed(f->hist, f->nhist));
			assert_int_equal(g->nohist, trimmed(f->outer_hist, f->nohist));
			assert_int_equal(!g->hist, !g->nhist);
			assert_int_equal(!g->outer_hist, !g->nohist);
		}
		gmon_profile_release(&q);
		gmon_profile_release(&p);
		free(buf);
	}
}

/* Revision 2: a thread flagged OFFCPU keeps its totals and its arcs' off-CPU times; one without
 * the flag keeps its totals but no off-CPU times (nothing allocated for them). */
static void test_offcpu_round_trip(void **state)
{
	struct gmon_profile p, q;
	struct gmon_thread *a, *b;
	uint8_t *buf;
	size_t len;
	char err[256] = "";

	(void)state;
	make_profile(&p, 1);
	a = &p.threads[0];
	a->flags |= GMON_THREAD_OFFCPU;
	a->off_blocked = 11;
	a->off_preempted = 12;
	a->off_switches = 13;
	a->off_lost = 14;
	a->arcoffs = calloc(a->narcs, sizeof(*a->arcoffs));
	for (uint64_t i = 0; i < a->narcs; i++)
		a->arcoffs[i] = (struct gmon_arcoff){ 7 * i, 5 * i, 3 * i };
	p.threads[1].off_switches = 2;
	assert_int_equal(gmon_encode(&p, 6, &buf, &len), 0);
	assert_int_equal(buf[8], GMON_SPY_MINOR);
	if (decode_both(buf, len, &q, err, sizeof(err)))
		fail_msg("decode: %s", err);
	same_profile(&p, &q);
	a = &q.threads[0];
	b = &q.threads[1];
	assert_true(a->flags & GMON_THREAD_OFFCPU);
	assert_int_equal(a->off_blocked, 11);
	assert_int_equal(a->off_preempted, 12);
	assert_int_equal(a->off_switches, 13);
	assert_int_equal(a->off_lost, 14);
	assert_non_null(a->arcoffs);
	for (uint64_t i = 0; i < a->narcs; i++) {
		assert_int_equal(a->arcoffs[i].incl, 7 * i);
		assert_int_equal(a->arcoffs[i].self, 5 * i);
		assert_int_equal(a->arcoffs[i].self_pre, 3 * i);
	}
	assert_false(b->flags & GMON_THREAD_OFFCPU);
	assert_int_equal(b->off_switches, 2);
	assert_null(b->arcoffs);
	gmon_profile_release(&q);
	gmon_profile_release(&p);
	free(buf);
}

/* Revision 3: a thread flagged COUNTERS keeps its counters' names and its arcs' totals; one without
 * the flag has none; a thread of counters with none is refused. */
static void test_counters_round_trip(void **state)
{
	struct gmon_profile p, q;
	struct gmon_thread *a;
	uint8_t *buf;
	size_t len;
	char err[256] = "";

	(void)state;
	make_profile(&p, 1);
	a = &p.threads[0];
	a->flags |= GMON_THREAD_COUNTERS;
	a->nctrs = 2;
	a->ctr_names[0] = strdup("page-faults");
	a->ctr_names[1] = strdup("task-clock");
	a->arcctrs = calloc(a->narcs, sizeof(*a->arcctrs));
	for (uint64_t i = 0; i < a->narcs; i++)
		a->arcctrs[i] = (struct gmon_arcctr){ { 9 * i, 8 * i, 0 }, { 4 * i, 3 * i, 0 } };
	assert_int_equal(gmon_encode(&p, 6, &buf, &len), 0);
	if (decode_both(buf, len, &q, err, sizeof(err)))
		fail_msg("decode: %s", err);
	same_profile(&p, &q);
	a = &q.threads[0];
	assert_true(a->flags & GMON_THREAD_COUNTERS);
	assert_int_equal(a->nctrs, 2);
	assert_string_equal(a->ctr_names[0], "page-faults");
	assert_string_equal(a->ctr_names[1], "task-clock");
	assert_non_null(a->arcctrs);
	for (uint64_t i = 0; i < a->narcs; i++) {
		assert_int_equal(a->arcctrs[i].incl[0], 9 * i);
		assert_int_equal(a->arcctrs[i].incl[1], 8 * i);
		assert_int_equal(a->arcctrs[i].self[0], 4 * i);
		assert_int_equal(a->arcctrs[i].self[1], 3 * i);
	}
	assert_false(q.threads[1].flags & GMON_THREAD_COUNTERS);
	assert_null(q.threads[1].arcctrs);
	assert_int_equal(q.threads[1].nctrs, 0);
	gmon_profile_release(&q);
	free(buf);
	/* the flag with no counter: refused */
	a = &p.threads[0];
	for (uint32_t k = 0; k < a->nctrs; k++)
		free(a->ctr_names[k]);
	a->nctrs = 0;
	assert_int_equal(gmon_encode(&p, 0, &buf, &len), 0);
	assert_int_equal(gmon_decode(buf, len, &q, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "0 counters (1 to 3)"));
	gmon_profile_release(&p);
	free(buf);
}

static void test_empty_profile(void **state)
{
	struct gmon_profile p, q;
	uint8_t *buf;
	size_t len;
	char err[256];

	(void)state;
	gmon_profile_init(&p);
	assert_int_equal(gmon_encode(&p, 1, &buf, &len), 0);
	assert_int_equal(gmon_decode(buf, len, &q, err, sizeof(err)), 0);
	assert_string_equal(q.hdr.tool, "");
	assert_int_equal(q.nthreads, 0);
	gmon_profile_release(&q);
	free(buf);
}

/* Every prefix of a valid file is refused with a message. */
static void truncations(int big, int level)
{
	struct gmon_profile p, q;
	uint8_t *buf, *cut;
	size_t len;

	make_profile(&p, big);
	assert_int_equal(gmon_encode(&p, level, &buf, &len), 0);
	gmon_profile_release(&p);
	for (size_t n = 0; n < len; n++) {
		char err[256] = "";
		/* from a file too, at every length of the small profile and some of the big one's */
		int both = !big || n % 97 == 0 || n + 64 > len;

		/* an exact-size copy, so ASan sees any read past the end */
		cut = malloc(n ? n : 1);
		memcpy(cut, buf, n);
		if ((both ? decode_both : gmon_decode)(cut, n, &q, err, sizeof(err)) != -1)
			fail_msg("a file cut to %zu of %zu bytes was accepted", n, len);
		if (!err[0])
			fail_msg("no message for a file cut to %zu bytes", n);
		assert_int_equal(q.nthreads, 0); /* released */
		free(cut);
	}
	free(buf);
}

static void test_truncations(void **state)
{
	(void)state;
	truncations(0, 0);
	truncations(1, 1);
}

/* Every byte of a valid file, changed in two ways, makes it refused with a message. */
static void corruptions(int big, int level)
{
	static const uint8_t flips[] = { 0x01, 0xff };
	struct gmon_profile p, q;
	uint8_t *buf, *bad;
	size_t len;

	make_profile(&p, big);
	assert_int_equal(gmon_encode(&p, level, &buf, &len), 0);
	gmon_profile_release(&p);
	bad = malloc(len);
	for (size_t i = 0; i < len; i++) {
		for (size_t k = 0; k < sizeof(flips); k++) {
			char err[256] = "";

			int both = !big || i % 97 == 0;

			memcpy(bad, buf, len);
			bad[i] ^= flips[k];
			if ((both ? decode_both : gmon_decode)(bad, len, &q, err, sizeof(err)) != -1)
				fail_msg("byte %zu ^ 0x%02x of %zu was accepted", i, flips[k], len);
			if (!err[0])
				fail_msg("no message for byte %zu ^ 0x%02x", i, flips[k]);
		}
	}
	free(bad);
	free(buf);
}

static void test_corruptions(void **state)
{
	(void)state;
	corruptions(0, 0);
	corruptions(1, 1);
}

static void expect_error(const uint8_t *buf, size_t len, const char *want)
{
	struct gmon_profile q;
	char err[256] = "";

	assert_int_equal(gmon_decode(buf, len, &q, err, sizeof(err)), -1);
	if (!strstr(err, want))
		fail_msg("error '%s' does not say '%s'", err, want);
}

static void put32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static void put64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/* Re-seal a record after editing its payload: recompute its CRC, as a lying writer would. */
static void reseal(uint8_t *rec)
{
	uint64_t plen = 0;
	uint32_t crc;

	for (int i = 7; i >= 0; i--)
		plen = plen << 8 | rec[8 + i];
	put32(rec + 4, 0);
	crc = gmon_crc32(0, rec, GMON_RECORD_HEADER_SIZE);
	crc = gmon_crc32(crc, rec + GMON_RECORD_HEADER_SIZE, (size_t)plen);
	put32(rec + 4, crc);
}

static void test_bad_inputs(void **state)
{
	uint8_t gnu[20] = "gmon";
	uint8_t hdr[16] = "gmonSPY\x01";
	struct gmon_profile p;
	uint8_t *buf;
	size_t len;

	(void)state;
	expect_error((const uint8_t *)"", 0, "bad magic");
	expect_error((const uint8_t *)"GMON", 4, "bad magic");
	put32(gnu + 4, 1);
	expect_error(gnu, sizeof(gnu), "GNU gmon.out");
	put32(hdr + 8, 0);
	put32(hdr + 12, gmon_crc32(0, hdr, 12));
	expect_error(hdr, sizeof(hdr), "no END record");
	put32(hdr + 8, 99);
	put32(hdr + 12, gmon_crc32(0, hdr, 12));
	expect_error(hdr, sizeof(hdr), "newer");

	/* a well-sealed record whose inner count lies: too many arcs for the bytes */
	make_profile(&p, 0);
	assert_int_equal(gmon_encode(&p, 0, &buf, &len), 0);
	gmon_profile_release(&p);
	{
		size_t off = GMON_FILE_HEADER_SIZE;

		/* walk to the first THREAD record */
		while (buf[off] != GMON_TAG_THREAD) {
			uint64_t plen = 0;

			for (int i = 7; i >= 0; i--)
				plen = plen << 8 | buf[off + 8 + i];
			off += GMON_RECORD_HEADER_SIZE + plen;
		}
		/* tid, flags, start, end, name "prog", 5 counters, then narcs */
		put64(buf + off + 16 + 4 + 4 + 8 + 8 + 4 + 4 + 40, UINT64_MAX / 2);
		reseal(buf + off);
		expect_error(buf, len, "cannot fit");
	}
	free(buf);
}

static void test_write_file(void **state)
{
	char dir[] = "/tmp/test-gmon-io.XXXXXX", path[256], link[256], victim[256], fifo[256], err[256];
	const char data[] = "gmonSPY\x01 some bytes";
	char got[64] = "";
	struct stat st;
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/gmon.out", dir);
	assert_int_equal(gmon_write_file(path, data, sizeof(data), 0, err, sizeof(err)), 0);
	f = fopen(path, "rb");
	assert_non_null(f);
	assert_int_equal(fread(got, 1, sizeof(got), f), sizeof(data));
	fclose(f);
	assert_memory_equal(got, data, sizeof(data));
	/* a symlink in the way is replaced, never followed */
	snprintf(victim, sizeof(victim), "%s/victim", dir);
	snprintf(link, sizeof(link), "%s/link.out", dir);
	f = fopen(victim, "w");
	fputs("keep", f);
	fclose(f);
	assert_int_equal(symlink(victim, link), 0);
	assert_int_equal(gmon_write_file(link, data, sizeof(data), GMON_WRITE_NAMED, err, sizeof(err)), 0);
	assert_int_equal(lstat(link, &st), 0);
	assert_true(S_ISREG(st.st_mode));
	assert_int_equal(stat(victim, &st), 0);
	assert_int_equal(st.st_size, 4);
	/* a FIFO: written into only when named (then, without a reader, an error and no wait); under a
	 * name nobody gave, or as a symlink's target when not named, replaced or left alone */
	snprintf(fifo, sizeof(fifo), "%s/fifo", dir);
	assert_int_equal(mkfifo(fifo, 0600), 0);
	assert_int_equal(gmon_write_file(fifo, data, sizeof(data), GMON_WRITE_NAMED, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "no reader"));
	assert_int_equal(unlink(link), 0);
	assert_int_equal(symlink(fifo, link), 0);
	assert_int_equal(gmon_write_file(link, data, sizeof(data), GMON_WRITE_NAMED, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "no reader")); /* followed, as /dev/stdout */
	assert_int_equal(gmon_write_file(link, data, sizeof(data), 0, err, sizeof(err)), 0);
	assert_int_equal(lstat(link, &st), 0);
	assert_true(S_ISREG(st.st_mode) && st.st_size == sizeof(data));
	assert_int_equal(lstat(fifo, &st), 0);
	assert_true(S_ISFIFO(st.st_mode));
	assert_int_equal(gmon_write_file(fifo, data, sizeof(data), 0, err, sizeof(err)), 0);
	assert_int_equal(lstat(fifo, &st), 0);
	assert_true(S_ISREG(st.st_mode) && st.st_size == sizeof(data));
	/* a dangling symlink, named: replaced */
	assert_int_equal(unlink(link), 0);
	assert_int_equal(symlink("nowhere", link), 0);
	assert_int_equal(gmon_write_file(link, data, sizeof(data), GMON_WRITE_NAMED, err, sizeof(err)), 0);
	assert_int_equal(lstat(link, &st), 0);
	assert_true(S_ISREG(st.st_mode));
	/* a directory: left alone */
	assert_int_equal(gmon_write_file(dir, data, sizeof(data), GMON_WRITE_NAMED, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "is a directory"));
	/* no temporary file is left behind */
	assert_int_equal(unlink(path), 0);
	assert_int_equal(unlink(link), 0);
	assert_int_equal(unlink(victim), 0);
	assert_int_equal(unlink(fifo), 0);
	assert_int_equal(rmdir(dir), 0);
	/* a missing directory: an error with the reason */
	snprintf(path, sizeof(path), "%s/gmon.out", dir);
	assert_int_equal(gmon_write_file(path, data, sizeof(data), 0, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "No such file or directory"));
}

static void test_dump(void **state)
{
	struct gmon_profile p;
	char *text = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&text, &size);

	(void)state;
	make_profile(&p, 0);
	gmon_dump(f, &p);
	fclose(f);
	assert_non_null(strstr(text, "header tool=spy test abi=1 pid=1234"));
	assert_non_null(strstr(text, "build_id=deadbeef0102"));
	assert_non_null(strstr(text, "func _Z1fv count=42 module=0 mode=time"));
	assert_non_null(strstr(text, "arc tid=1234 caller=<spontaneous> callee=_Z1fv count=40"));
	assert_non_null(strstr(text, "arc tid=1234 caller=main callee=_Z1fv count=41"));
	assert_non_null(strstr(
		text, "time tid=1234 func=_Z1fv calls=42 incl=5000 self=4000 min=3 max=900 hist=1:2,9:40"));
	assert_non_null(strstr(text, "count tid=1234 func=<unregistered> count=11"));
	assert_non_null(strstr(text, "counter threads=2"));
	assert_non_null(strstr(text, "sampling watch=allocbytes flags=0x4 hz=1000 divisor=3 target=- "
				     "start=main stop=_Z1fv expected=1 taken=2"));
	assert_non_null(strstr(text, "stack tid=1234 count=12 weight=2000 flags= pc=0x555500001212 "
				     "frames=main@0x555500001150,_Z1fv@0x555500001151\n"));
	assert_non_null(strstr(text, "stack tid=1234 count=11 weight=1000 flags=waiting,cut,"));
	assert_non_null(strstr(text, "stack tid=1235 count=10 weight=0 flags= pc=0x555500001210 frames=-"));
	free(text);
	gmon_profile_release(&p);
}

/* Only a regular file is opened: a FIFO (whose open would wait for a writer), a device and a
 * directory are refused by name, at once. */
static void test_open_regular(void **state)
{
	char dir[] = "/tmp/test-gmon-io.XXXXXX", fifo[256], err[256];
	struct gmon_profile p;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(fifo, sizeof(fifo), "%s/fifo", dir);
	assert_int_equal(mkfifo(fifo, 0600), 0);
	assert_int_equal(gmon_open_regular(fifo, err, sizeof(err)), -1);
	assert_string_equal(err, "not a regular file");
	assert_int_equal(gmon_read_file(fifo, &p, err, sizeof(err)), -1);
	assert_string_equal(err, "not a regular file");
	assert_int_equal(gmon_read_file("/dev/null", &p, err, sizeof(err)), -1);
	assert_string_equal(err, "not a regular file");
	assert_int_equal(gmon_read_file(dir, &p, err, sizeof(err)), -1);
	assert_string_equal(err, "is a directory");
	unlink(fifo);
	rmdir(dir);
}

/* A file is read record by record: a huge file is refused by its header alone, and a record that
 * says it is longer than the file is refused before anything is read or allocated for it. */
static void test_read_bounded(void **state)
{
	char path[] = "/tmp/test-gmon-io-big.XXXXXX", err[256];
	uint8_t hdr[16 + 16] = "gmonSPY\x01";
	struct gmon_profile p;
	int fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	/* 4 GiB, sparse: reading it whole would take seconds and as much memory */
	assert_int_equal(ftruncate(fd, (off_t)4 << 30), 0);
	assert_int_equal(pwrite(fd, "xmon", 4, 0), 4);
	assert_int_equal(gmon_read_file(path, &p, err, sizeof(err)), -1);
	assert_string_equal(err, "not a gmon file (bad magic)");
	/* a good header, then a record whose length is the file's rest and more */
	put32(hdr + 8, 1);
	put32(hdr + 12, gmon_crc32(0, hdr, 12));
	hdr[16] = GMON_TAG_HEADER;
	put64(hdr + 24, (uint64_t)4 << 30);
	assert_int_equal(pwrite(fd, hdr, sizeof(hdr), 0), (ssize_t)sizeof(hdr));
	assert_int_equal(gmon_read_file(path, &p, err, sizeof(err)), -1);
	if (!strstr(err, "truncated payload"))
		fail_msg("'%s' does not say 'truncated payload'", err);
	close(fd);
	unlink(path);
}

static void test_crc(void **state)
{
	(void)state;
	/* the check value of CRC-32/ISO-HDLC */
	assert_int_equal(gmon_crc32(0, "123456789", 9), 0xcbf43926u);
	assert_int_equal(gmon_crc32(gmon_crc32(0, "1234", 4), "56789", 5), 0xcbf43926u);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_crc),
		cmocka_unit_test(test_round_trip_plain),
		cmocka_unit_test(test_round_trip_zlib),
		cmocka_unit_test(test_histograms_round_trip),
		cmocka_unit_test(test_offcpu_round_trip),
		cmocka_unit_test(test_counters_round_trip),
		cmocka_unit_test(test_empty_profile),
		cmocka_unit_test(test_truncations),
		cmocka_unit_test(test_corruptions),
		cmocka_unit_test(test_bad_inputs),
		cmocka_unit_test(test_open_regular),
		cmocka_unit_test(test_read_bounded),
		cmocka_unit_test(test_write_file),
		cmocka_unit_test(test_dump),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
