/* fuzz: spinprof/*.c !spinprof/main.c common/*.c -DGMON_ISAL tests/fuzz/spy-mutate.c spinprof/profile.proto -ldw -lbfd -lelf -lz -lisal -lprotobuf-c */
/* libFuzzer harness for spinprof as a whole on spy profiles: reading (decode, symbols), summing several
 * profiles, -s (the summed profile written, which must read back), the analysis, and every report
 * (header, flat profile, call graph, index, the Spy report), as options select. An input is one byte of
 * options, then one to three profiles back to back (each ends at its END record). spinprof must exit 0
 * or 2 (one line), and nothing may trip the sanitizers. The mutator knows the records (spy-mutate.c). */
#include <stdint.h>

#include "spinprof-main.h"
#include "spy-mutate.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max);
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max, unsigned int seed);
size_t LLVMFuzzerCustomCrossOver(const uint8_t *d1, size_t s1, const uint8_t *d2, size_t s2, uint8_t *out,
				 size_t max, unsigned int seed);

enum {
	OPT_SUM = 1 << 0,     /* -s */
	OPT_SPY = 1 << 1,     /* --spy */
	OPT_THREADS = 1 << 2, /* --threads */
	OPT_ZEROS = 1 << 3,   /* -z */
	OPT_BRIEF = 1 << 4,   /* -b */
	OPT_CUTOFF0 = 1 << 5, /* --cutoff=0: the Spy report shows everything */
	OPT_GRAPH = 1 << 6,   /* -q */
	OPT_MANGLED = 1 << 7, /* --no-demangle */
};

/* Where the next profile begins: after the END record, or where the records stop making sense. */
static size_t profile_end(const uint8_t *d, size_t n)
{
	size_t pos = GMON_FILE_HEADER_SIZE;

	if (n < pos || memcmp(d, GMON_MAGIC, 4))
		return n;
	while (pos + GMON_RECORD_HEADER_SIZE <= n) {
		unsigned tag = d[pos] | d[pos + 1] << 8;
		uint64_t plen = 0;

		for (int i = 7; i >= 0; i--)
			plen = plen << 8 | d[pos + 8 + i];
		if (plen > n - pos - GMON_RECORD_HEADER_SIZE)
			return n;
		pos += GMON_RECORD_HEADER_SIZE + (size_t)plen;
		if (tag == GMON_TAG_END)
			return pos;
	}
	return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char *names[] = { "p0.out", "p1.out", "p2.out" };
	char *argv[16];
	int argc = 0, nfiles;
	unsigned opts;

	if (size < 1)
		return 0;
	fz_setup();
	opts = data[0];
	nfiles = fz_split(data + 1, size - 1, 3);
	argv[argc++] = "spinprof";
	argv[argc++] = "-o";
	argv[argc++] = "/dev/null";
	if (opts & OPT_SUM)
		argv[argc++] = "-s";
	if (opts & OPT_SPY)
		argv[argc++] = "--spy";
	if (opts & OPT_THREADS)
		argv[argc++] = "--threads";
	if (opts & OPT_ZEROS)
		argv[argc++] = "-z";
	if (opts & OPT_BRIEF)
		argv[argc++] = "-b";
	if (opts & OPT_CUTOFF0)
		argv[argc++] = "--cutoff=0";
	if (opts & OPT_GRAPH)
		argv[argc++] = "-q";
	if (opts & OPT_MANGLED)
		argv[argc++] = "--no-demangle";
	for (int i = 0; i < nfiles; i++)
		argv[argc++] = names[i];
	argv[argc] = NULL;
	unlink("gmon.sum");
	if (fz_spinprof(argv) == 0 && (opts & OPT_SUM)) {
		/* what spinprof summed and wrote, it must read back */
		struct gmon_profile p;
		char err[256];

		if (gmon_read_file("gmon.sum", &p, err, sizeof(err))) {
			fprintf(stderr, "the summed profile does not read back: %s\n", err);
			abort();
		}
		gmon_profile_release(&p);
	}
	return 0;
}

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max, unsigned int seed)
{
	return spy_mutate(data, size, max, seed, LLVMFuzzerMutate, 1);
}

size_t LLVMFuzzerCustomCrossOver(const uint8_t *d1, size_t s1, const uint8_t *d2, size_t s2, uint8_t *out,
				 size_t max, unsigned int seed)
{
	return spy_cross(d1, s1, d2, s2, out, max, seed, 1);
}
