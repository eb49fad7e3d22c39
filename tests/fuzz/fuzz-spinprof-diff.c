/* fuzz: spinprof/*.c !spinprof/main.c common/*.c -DGMON_ISAL tests/fuzz/spy-mutate.c tests/fuzz/check-output.c spinprof/profile.proto -ldw -lbfd -lelf -lz -lisal -lprotobuf-c */
/* libFuzzer harness for spinprof --diff OLD NEW on two spy profiles: both read and analysed, matched by
 * name, the table written and checked by check-output.c (UTF-8, no control byte from a name). An input is
 * one byte of options, then the two profiles back to back (the second may be missing: spinprof must
 * say so). spinprof must exit 0 or 2 (one line), and nothing may trip the sanitizers. The mutator knows
 * the records (spy-mutate.c). */
#include <stdint.h>

#include "check-output.h"
#include "spinprof-main.h"
#include "spy-mutate.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max);
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max, unsigned int seed);
size_t LLVMFuzzerCustomCrossOver(const uint8_t *d1, size_t s1, const uint8_t *d2, size_t s2, uint8_t *out,
				 size_t max, unsigned int seed);

enum {
	OPT_ZEROS = 1 << 0,   /* -z */
	OPT_MANGLED = 1 << 1, /* --no-demangle */
	OPT_SWAP = 1 << 2,    /* NEW OLD */
	OPT_SAME = 1 << 3,    /* the first against itself */
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *argv[16];
	int argc = 0, nfiles;
	unsigned opts;

	if (size < 1)
		return 0;
	fz_setup();
	opts = data[0];
	nfiles = fz_split(data + 1, size - 1, 2);
	argv[argc++] = "spinprof";
	argv[argc++] = "--diff";
	argv[argc++] = "-o";
	argv[argc++] = "out";
	if (opts & OPT_ZEROS)
		argv[argc++] = "-z";
	if (opts & OPT_MANGLED)
		argv[argc++] = "--no-demangle";
	if (opts & OPT_SAME) {
		argv[argc++] = "p0.out";
		argv[argc++] = "p0.out";
	} else {
		argv[argc++] = opts & OPT_SWAP && nfiles > 1 ? "p1.out" : "p0.out";
		if (nfiles > 1)
			argv[argc++] = opts & OPT_SWAP ? "p0.out" : "p1.out";
	}
	argv[argc] = NULL;
	unlink("out");
	if (fz_spinprof(argv) == 0)
		fz_check_file("out", FZ_TEXT, 0);
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
