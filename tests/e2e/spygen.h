/* spygen.h: the synthetic sampled profiles of t206 and t215, built in memory and written through
 * gmon_encode, whose numbers are known by construction. One executable (its binary gone: the plugin's
 * names and lines are used) with main A B C D U T, defined in syn.c at lines 5, 15, ... 65; libc and
 * the runtime as modules without symbols; threads 100 (the main thread, "syn"), 101 ("worker") and 102
 * ("other"); main called once from libc. The load addresses are variables: a profile of the same
 * program loaded elsewhere moves them before syn_profile(). */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gmon-format.h"

#define EXE 0x401000ull
#define LIBC 0x7f0000000000ull
#define SPYRT 0x7f1000000000ull
enum { MAIN, A, B, C, D, U, T, NF };
static const char *names[NF] = { "main", "A", "B", "C", "D", "U", "T" };
static uint64_t exe = EXE, libc = LIBC, spyrt = SPYRT;
/* a function's address: main exe, A exe + 0x100, ... */
static uint64_t fa(int f) { return exe + 0x100 * (uint64_t)f; }

static struct gmon_samples *cur;

/* one stack of the current thread: count, weight, pc, flags, depth, then depth pairs (function, call
 * site), innermost first */
static void stack(uint64_t count, uint64_t weight, uint64_t pc, uint32_t flags, int depth, ...)
{
	struct gmon_stack *k;
	va_list ap;
	cur->stacks = realloc(cur->stacks, (cur->nstacks + 1) * sizeof(*cur->stacks));
	k = &cur->stacks[cur->nstacks++];
	memset(k, 0, sizeof(*k));
	k->count = count;
	k->weight = weight;
	k->pc = pc;
	k->flags = flags;
	k->depth = (uint32_t)depth;
	k->frames = calloc(depth + 1, sizeof(struct gmon_frame));
	va_start(ap, depth);
	for (int i = 0; i < depth; i++) {
		int f = va_arg(ap, int);
		k->frames[i].func = fa(f);
		k->frames[i].call_site = va_arg(ap, uint64_t);
	}
	va_end(ap);
}

/* the samples of thread TID come next (0: no more): the previous thread's frames are packed into one
 * array, as the decoder gives them */
static void thread(struct gmon_profile *p, uint32_t tid)
{
	if (cur) {
		uint64_t n = 0, at = 0;
		for (uint64_t i = 0; i < cur->nstacks; i++)
			n += cur->stacks[i].depth;
		cur->nframes = n;
		cur->frames = calloc(n + 1, sizeof(struct gmon_frame));
		for (uint64_t i = 0; i < cur->nstacks; i++) {
			struct gmon_stack *k = &cur->stacks[i];
			memcpy(cur->frames + at, k->frames, k->depth * sizeof(struct gmon_frame));
			free(k->frames);
			k->frames = k->depth ? cur->frames + at : NULL;
			at += k->depth;
		}
	}
	cur = NULL;
	if (!tid)
		return;
	p->samples = realloc(p->samples, (p->nsamples + 1) * sizeof(*p->samples));
	cur = &p->samples[p->nsamples++];
	memset(cur, 0, sizeof(*cur));
	cur->tid = tid;
}

static void sampling(struct gmon_profile *p, uint32_t watch, uint64_t hz, uint64_t divisor, const char *target)
{
	p->sampling = calloc(1, sizeof(*p->sampling));
	p->sampling->watch = watch;
	p->sampling->hz = hz;
	p->sampling->divisor = divisor;
	p->sampling->target = strdup(target);
	p->sampling->start = strdup("");
	p->sampling->stop = strdup("");
}

/* the profile without samples: two seconds of mode arcs, the modules, the functions, NTHREADS of the
 * threads (2 or 3), main's arc from libc (call site MS) */
static void syn_profile(struct gmon_profile *p, int nthreads, uint64_t ms)
{
	gmon_profile_init(p);
	p->hdr.tool = strdup("spygen");
	p->hdr.abi = 2;
	p->hdr.pid = 100;
	p->hdr.mode = 1; /* arcs: no measured times, the samples weigh */
	p->hdr.start_ns = 1000000000ull;
	p->hdr.end_ns = 3000000000ull; /* two seconds */
	p->hdr.tsc_hz = 1000000000ull;
	p->hdr.error = strdup("");
	p->hdr.argc = 1;
	p->hdr.argv = calloc(1, sizeof(char *));
	p->hdr.argv[0] = strdup("./syn");
	p->nmodules = 3;
	p->modules = calloc(3, sizeof(*p->modules));
	p->modules[0] = (struct gmon_module){ 1, GMON_MOD_MAIN | GMON_MOD_INSTRUMENTED, exe - EXE, exe, exe + 0x10000,
					      strdup("/nonexistent/spy-synthetic"), 0, NULL };
	p->modules[1] = (struct gmon_module){ 2, 0, libc, libc, libc + 0x100000, strdup("/nonexistent/libc.so.6"), 0, NULL };
	p->modules[2] = (struct gmon_module){ 3, 0, spyrt, spyrt, spyrt + 0x10000, strdup("/nonexistent/libspyrt.so"), 0, NULL };
	p->nfuncsets = 1;
	p->funcsets = calloc(1, sizeof(*p->funcsets));
	p->funcsets[0].module = 1;
	p->funcsets[0].plugin_mode = 1;
	p->funcsets[0].nr = NF;
	p->funcsets[0].funcs = calloc(NF, sizeof(struct gmon_func));
	for (int f = 0; f < NF; f++)
		p->funcsets[0].funcs[f] = (struct gmon_func){ fa(f), 0, 5 + 10 * (uint32_t)f, 1, strdup(names[f]), strdup("syn.c") };
	p->nthreads = (uint32_t)nthreads;
	p->threads = calloc(3, sizeof(*p->threads));
	p->threads[0] = (struct gmon_thread){ .tid = 100, .flags = GMON_THREAD_MAIN, .name = strdup("syn") };
	p->threads[1] = (struct gmon_thread){ .tid = 101, .name = strdup("worker") };
	if (nthreads > 2)
		p->threads[2] = (struct gmon_thread){ .tid = 102, .name = strdup("other") };
	p->threads[0].narcs = 1;
	p->threads[0].arcs = calloc(1, sizeof(struct gmon_arc));
	p->threads[0].arcs[0] = (struct gmon_arc){ ms, GMON_CALLER_NONE, fa(MAIN), 1, 0, 0 };
}

/* write P to PATH and release it; 0, or 1 and a line on stderr */
static int syn_write(struct gmon_profile *p, const char *path)
{
	char err[256] = "out of memory";
	uint8_t *buf;
	size_t len;

	if (gmon_encode(p, 0, &buf, &len) < 0 ||
	    gmon_write_file(path, buf, len, GMON_WRITE_NAMED, err, sizeof(err)) < 0) {
		fprintf(stderr, "spygen: %s\n", err);
		return 1;
	}
	free(buf);
	gmon_profile_release(p);
	return 0;
}
