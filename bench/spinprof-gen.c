/* spinprof-gen: big synthetic profiles for bench/spinprof-bench.sh and the fuzz corpus, made with the one
 * encoder (common/gmon-io.c) for spy profiles and byte by byte for glibc's gmon.out.
 *
 *   spinprof-gen spy OUT NFUNCS NARCS [ZLIB]  a spy time-mode profile of NFUNCS functions (f0, f1, ...) and
 *                                            NARCS distinct arcs; counters equal incoming arcs
 *   spinprof-gen gnu OUT NARCS < SYMS         a glibc gmon.out (histogram and NARCS arcs) for an executable
 *                                            whose functions are SYMS: lines "ADDR SIZE" in hex, from nm
 *   spinprof-gen gnuhist OUT [rev] < SYMS     a glibc gmon.out of one one-bin histogram record per function
 *                                            (its first 4 bytes), in address order (rev: the reverse)
 * The same seed gives the same file. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gmon-format.h"

static uint64_t rng = 88172645463325252ull;

static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static void *must(void *p)
{
	if (!p) {
		fprintf(stderr, "spinprof-gen: out of memory\n");
		exit(1);
	}
	return p;
}

static char *fmt(const char *f, uint64_t n)
{
	char b[64];

	snprintf(b, sizeof(b), f, n);
	return must(strdup(b));
}

/* NARCS distinct (caller, callee) pairs: arc i goes from i % nf to a pseudo-random callee, the call
 * site distinct per arc. */
static int gen_spy(const char *out, uint64_t nf, uint64_t na, int level)
{
	struct gmon_profile p;
	struct gmon_thread *t;
	uint64_t base = 0x400000, *in;
	uint8_t *buf;
	size_t len;
	char err[256];

	gmon_profile_init(&p);
	p.hdr.tool = must(strdup("spy 0.1"));
	p.hdr.abi = 2;
	p.hdr.pid = 1;
	p.hdr.mode = 2; /* time */
	p.hdr.flags = GMON_HDR_FINAL | GMON_HDR_TSC_INVARIANT;
	p.hdr.start_ns = 1000000000ull;
	p.hdr.end_ns = 3000000000ull;
	p.hdr.tsc_hz = 1000000000ull;
	p.hdr.error = must(strdup(""));
	p.hdr.argc = 1;
	p.hdr.argv = must(calloc(1, sizeof(char *)));
	p.hdr.argv[0] = must(strdup("./bench-prog"));

	p.nmodules = 1;
	p.modules = must(calloc(1, sizeof(*p.modules)));
	p.modules[0].flags = GMON_MOD_MAIN | GMON_MOD_INSTRUMENTED;
	p.modules[0].text_lo = base;
	p.modules[0].text_hi = base + 64 * nf;
	p.modules[0].path = must(strdup("/nonexistent/spinprof-bench-prog"));

	p.nfuncsets = 1;
	p.funcsets = must(calloc(1, sizeof(*p.funcsets)));
	p.funcsets[0].plugin_mode = 2;
	p.funcsets[0].nr = (uint32_t)nf;
	p.funcsets[0].funcs = must(calloc(nf, sizeof(struct gmon_func)));

	p.nthreads = 1;
	t = p.threads = must(calloc(1, sizeof(*p.threads)));
	t->tid = 1;
	t->flags = GMON_THREAD_MAIN;
	t->name = must(strdup("bench"));
	t->narcs = na;
	t->arcs = must(calloc(na, sizeof(*t->arcs)));
	in = must(calloc(nf, sizeof(*in)));
	for (uint64_t i = 0; i < na; i++) {
		struct gmon_arc *a = &t->arcs[i];
		uint64_t from = i % nf, to = next() % nf;

		/* callees of one caller distinct: stride by the arc's round */
		to = (from + 1 + (i / nf) + to % 7 * (na / nf + 1)) % nf;
		a->caller = base + 64 * from;
		a->callee = base + 64 * to;
		a->call_site = a->caller + 1 + (i / nf) % 60;
		a->count = 1 + next() % 1000;
		a->self = a->count * (10 + next() % 100);
		a->incl = a->self + next() % 1000;
		in[to] += a->count;
	}
	/* main: called once, spontaneously */
	{
		t->arcs = must(realloc(t->arcs, (na + 1) * sizeof(*t->arcs)));
		memset(&t->arcs[na], 0, sizeof(t->arcs[na]));
		t->arcs[na].caller = GMON_CALLER_NONE;
		t->arcs[na].callee = base;
		t->arcs[na].call_site = 0x7f0000001000ull;
		t->arcs[na].count = 1;
		t->arcs[na].incl = 2000000000ull;
		t->arcs[na].self = 1000;
		in[0] += 1;
		t->narcs = na + 1;
	}
	t->nfstats = nf;
	t->fstats = must(calloc(nf, sizeof(*t->fstats)));
	t->hist_pool = must(calloc(nf, 6 * sizeof(uint64_t))); /* 6 buckets a function */
	t->ncounts = nf;
	t->counts = must(calloc(nf, sizeof(*t->counts)));
	for (uint64_t i = 0; i < nf; i++) {
		struct gmon_func *f = &p.funcsets[0].funcs[i];

		f->addr = base + 64 * i;
		f->count = in[i];
		f->line = (uint32_t)(i + 1);
		f->flags = 1;
		f->name = i ? fmt("f%" PRIu64, i) : must(strdup("main"));
		f->file = must(strdup("bench.c"));
		t->fstats[i].addr = f->addr;
		t->fstats[i].calls = in[i];
		t->fstats[i].self = in[i] * 50;
		t->fstats[i].incl = in[i] * 60;
		t->fstats[i].min = 10;
		t->fstats[i].max = 1000;
		t->fstats[i].nhist = 6;
		t->fstats[i].hist = (uint64_t *)t->hist_pool + 6 * i;
		t->fstats[i].hist[5] = in[i];
		t->counts[i].addr = f->addr;
		t->counts[i].count = in[i];
	}
	free(in);
	if (gmon_encode(&p, level, &buf, &len)) {
		fprintf(stderr, "spinprof-gen: out of memory\n");
		return 1;
	}
	if (gmon_write_file(out, buf, len, GMON_WRITE_NAMED, err, sizeof(err))) {
		fprintf(stderr, "spinprof-gen: %s: %s\n", out, err);
		return 1;
	}
	free(buf);
	gmon_profile_release(&p);
	return 0;
}

static void put(FILE *f, uint64_t v, int n)
{
	for (int i = 0; i < n; i++)
		putc((int)(v >> (8 * i)) & 0xff, f);
}

/* glibc's layout (gmon_out.h): "gmon", version 1, 12 spare bytes; a histogram record (tag 0: low and
 * high pc, bin count, rate, "seconds", 's', u16 bins), then one tag-1 record per arc (from, self, count). */
static int gen_gnu(const char *out, uint64_t na)
{
	uint64_t *addr = NULL, *size = NULL, n = 0, alloc = 0, lo, hi, nbins;
	unsigned long long a, s;
	FILE *f;

	while (scanf("%llx %llx", &a, &s) == 2) {
		if (n == alloc) {
			alloc = alloc ? 2 * alloc : 1024;
			addr = must(realloc(addr, alloc * sizeof(*addr)));
			size = must(realloc(size, alloc * sizeof(*size)));
		}
		addr[n] = a;
		size[n++] = s ? s : 1;
	}
	if (n < 2) {
		fprintf(stderr, "spinprof-gen: no symbols on stdin\n");
		return 1;
	}
	lo = addr[0];
	hi = addr[n - 1] + size[n - 1];
	nbins = (hi - lo + 3) / 4;
	if (!(f = fopen(out, "wb"))) {
		perror(out);
		return 1;
	}
	fwrite("gmon", 1, 4, f);
	put(f, 1, 4);
	put(f, 0, 12);
	putc(0, f);
	put(f, lo, 8);
	put(f, lo + 4 * nbins, 8);
	put(f, nbins, 4);
	put(f, 100, 4);
	fwrite("seconds\0\0\0\0\0\0\0\0", 1, 15, f);
	putc('s', f);
	for (uint64_t i = 0; i < nbins; i++)
		put(f, next() % 8 == 0 ? next() % 5 : 0, 2);
	for (uint64_t i = 0; i < na; i++) {
		uint64_t from = i % n, to = (from + 1 + i / n + next() % 7 * (na / n + 1)) % n;

		putc(1, f);
		put(f, addr[from] + (size[from] > 1 ? 1 + (i / n) % (size[from] - 1) : 0), 8);
		put(f, addr[to], 8);
		put(f, 1 + next() % 1000, 4);
	}
	free(addr);
	free(size);
	return fclose(f) ? 1 : 0;
}

/* One histogram record of one bin per symbol, as a program whose histogram came in pieces leaves
 * them: N records cost gprof (and spinprof before) N^2. */
static int gen_gnuhist(const char *out, int rev)
{
	uint64_t *addr = NULL, n = 0, alloc = 0;
	unsigned long long a, s;
	FILE *f;

	while (scanf("%llx %llx", &a, &s) == 2) {
		if (n == alloc) {
			alloc = alloc ? 2 * alloc : 1024;
			addr = must(realloc(addr, alloc * sizeof(*addr)));
		}
		addr[n++] = a;
	}
	if (!n) {
		fprintf(stderr, "spinprof-gen: no symbols on stdin\n");
		return 1;
	}
	if (!(f = fopen(out, "wb"))) {
		perror(out);
		return 1;
	}
	fwrite("gmon", 1, 4, f);
	put(f, 1, 4);
	put(f, 0, 12);
	for (uint64_t k = 0; k < n; k++) {
		uint64_t i = rev ? n - 1 - k : k;

		putc(0, f);
		put(f, addr[i], 8);
		put(f, addr[i] + 4, 8);
		put(f, 1, 4);
		put(f, 100, 4);
		fwrite("seconds\0\0\0\0\0\0\0\0", 1, 15, f);
		putc('s', f);
		put(f, 1 + next() % 5, 2);
	}
	free(addr);
	return fclose(f) ? 1 : 0;
}

int main(int argc, char **argv)
{
	if ((argc == 3 || argc == 4) && !strcmp(argv[1], "gnuhist"))
		return gen_gnuhist(argv[2], argc == 4 && !strcmp(argv[3], "rev"));
	if (argc >= 5 && !strcmp(argv[1], "spy"))
		return gen_spy(argv[2], strtoull(argv[3], NULL, 0), strtoull(argv[4], NULL, 0),
			       argc > 5 ? atoi(argv[5]) : 0);
	if (argc == 4 && !strcmp(argv[1], "gnu"))
		return gen_gnu(argv[2], strtoull(argv[3], NULL, 0));
	fprintf(stderr,
		"usage: spinprof-gen spy OUT NFUNCS NARCS [ZLIB] | gnu OUT NARCS < SYMS | gnuhist OUT "
		"[rev] < SYMS\n");
	return 2;
}
