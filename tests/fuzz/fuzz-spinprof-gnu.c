/* fuzz: spinprof/*.c !spinprof/main.c spinprof/profile.proto -ldw -lbfd -lelf -lz -lisal -lprotobuf-c */
/* libFuzzer harness for spinprof's GNU mode: glibc's gmon.out (histogram, arc and basic-block records)
 * read for a fixed `gcc -pg` program, fuzz-pgprog beside the harness (tests/fuzz/run.sh builds it from
 * samples/calls.c, -no-pie, so that the addresses of the seeds stay right), summed with itself or not,
 * and reported as options select. An input is one byte of options, then the gmon.out. spinprof must
 * exit 0 or 2, and nothing may trip the sanitizers. The mutator knows the records: it changes one's
 * fields, adds, drops or swaps records, and points arcs at addresses the input already names. */
#include <stdint.h>

#include "spinprof-main.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max);
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max, unsigned int seed);

enum {
	OPT_ZEROS = 1 << 0,   /* -z */
	OPT_BRIEF = 1 << 1,   /* -b */
	OPT_FLAT = 1 << 2,    /* -p */
	OPT_GRAPH = 1 << 3,   /* -q */
	OPT_MANGLED = 1 << 4, /* --no-demangle */
	OPT_TWICE = 1 << 5,   /* the file twice: histograms and arcs summed */
	OPT_NOFLAT = 1 << 6,  /* -P */
	OPT_NOGRAPH = 1 << 7, /* -Q */
};

static char prog[4096];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *env = getenv("SPY_FUZZ_PGPROG");
	char *slash;

	(void)argc;
	if (env)
		snprintf(prog, sizeof(prog), "%s", env);
	else if (!realpath((*argv)[0], prog) || !(slash = strrchr(prog, '/')))
		snprintf(prog, sizeof(prog), "fuzz-pgprog");
	else
		snprintf(slash + 1, sizeof(prog) - (size_t)(slash + 1 - prog), "fuzz-pgprog");
	if (access(prog, R_OK)) {
		fprintf(stderr, "fuzz-spinprof-gnu: no %s (set SPY_FUZZ_PGPROG)\n", prog);
		exit(1);
	}
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *argv[16];
	int argc = 0;
	unsigned opts;

	if (size < 1)
		return 0;
	fz_setup();
	opts = data[0];
	fz_write("gmon.out", data + 1, size - 1);
	argv[argc++] = "spinprof";
	argv[argc++] = "-o";
	argv[argc++] = "/dev/null";
	if (opts & OPT_ZEROS)
		argv[argc++] = "-z";
	if (opts & OPT_BRIEF)
		argv[argc++] = "-b";
	if (opts & OPT_FLAT)
		argv[argc++] = "-p";
	if (opts & OPT_GRAPH)
		argv[argc++] = "-q";
	if (opts & OPT_MANGLED)
		argv[argc++] = "--no-demangle";
	if (opts & OPT_NOFLAT)
		argv[argc++] = "-P";
	if (opts & OPT_NOGRAPH)
		argv[argc++] = "-Q";
	argv[argc++] = prog;
	argv[argc++] = "gmon.out";
	if (opts & OPT_TWICE)
		argv[argc++] = "gmon.out";
	argv[argc] = NULL;
	fz_spinprof(argv);
	return 0;
}

/* ---- the mutator -------------------------------------------------------------------------------- */

struct grec {
	size_t off, len; /* in the input, the tag included */
};

static uint64_t rs;

static size_t below(size_t n)
{
	rs ^= rs << 13;
	rs ^= rs >> 7;
	rs ^= rs << 17;
	return n ? (size_t)(rs % n) : 0;
}

static uint64_t le(const uint8_t *p, int n)
{
	uint64_t v = 0;

	for (int i = n - 1; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static void put(uint8_t *p, uint64_t v, int n)
{
	for (int i = 0; i < n; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/* The records of a gmon.out (after its 20-byte header); how many, at most max. */
static size_t records(const uint8_t *d, size_t n, struct grec *r, size_t max)
{
	size_t pos = 20, k = 0;

	while (pos < n && k < max) {
		size_t len;

		if (d[pos] == 0 && n - pos >= 41)
			len = 41 + 2 * (size_t)le(d + pos + 17, 4);
		else if (d[pos] == 1)
			len = 21;
		else if (d[pos] == 2 && n - pos >= 5)
			len = 5 + 16 * (size_t)le(d + pos + 1, 4);
		else
			break;
		if (len > n - pos)
			break;
		r[k++] = (struct grec){ pos, len };
		pos += len;
	}
	return k;
}

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max, unsigned int seed)
{
	static struct grec r[4096];
	uint8_t *d = data + 1;
	size_t n = size - 1, nr, k;

	rs = seed * 0x9e3779b97f4a7c15ull + 3;
	if (size < 21 || max < 21 || below(8) == 0 || !(nr = records(d, n, r, 4096)))
		return LLVMFuzzerMutate(data, size, max);
	if (below(8) == 0)
		data[0] ^= (uint8_t)(1u << below(8));
	k = below(nr);
	switch (below(6)) {
	case 0: { /* an arc points at addresses the input names: another arc's, or in a histogram */
		struct grec *a = &r[k], *b = &r[below(nr)];
		uint64_t addr;

		if (d[a->off] != 1)
			break;
		if (d[b->off] == 1)
			addr = le(d + b->off + 1 + 8 * below(2), 8) + below(64) - 32;
		else if (d[b->off] == 0)
			addr = le(d + b->off + 1, 8) +
			       below(1 + (size_t)(le(d + b->off + 9, 8) - le(d + b->off + 1, 8)));
		else
			break;
		put(d + a->off + 1 + 8 * below(2), addr, 8);
		return size;
	}
	case 1: /* a copy of a record, somewhere */
		if (size + r[k].len <= max) {
			size_t at = r[below(nr)].off;

			memmove(d + at + r[k].len, d + at, n - at);
			memcpy(d + at, d + (r[k].off >= at ? r[k].off + r[k].len : r[k].off), r[k].len);
			return size + r[k].len;
		}
		break;
	case 2: /* one record fewer */
		memmove(d + r[k].off, d + r[k].off + r[k].len, n - r[k].off - r[k].len);
		return size - r[k].len;
	case 3: { /* a record's fields */
		uint8_t tmp[64];
		size_t len = r[k].len < sizeof(tmp) ? r[k].len : sizeof(tmp);

		memcpy(tmp, d + r[k].off + 1, len - 1);
		LLVMFuzzerMutate(tmp, len - 1, len - 1);
		memcpy(d + r[k].off + 1, tmp, len - 1);
		return size;
	}
	}
	return LLVMFuzzerMutate(data, size, max);
}
