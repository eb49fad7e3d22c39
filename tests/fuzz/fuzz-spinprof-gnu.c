/* fuzz: spinprof/*.c !spinprof/main.c common/*.c -DGMON_ISAL tests/fuzz/gnu-mutate.c spinprof/profile.proto -ldw -lbfd -lelf -lz -lisal -lprotobuf-c */
/* libFuzzer harness for spinprof's GNU mode: glibc's gmon.out (histogram, arc and basic-block records)
 * read for a fixed `gcc -pg` program, fuzz-pgprog beside the harness (tests/fuzz/run.sh builds it from
 * samples/calls.c, -no-pie, so that the addresses of the seeds stay right), summed with itself or not,
 * and reported as options select. An input is one byte of options, then the gmon.out. spinprof must
 * exit 0 or 2, and nothing may trip the sanitizers. The mutator knows the records (gnu-mutate.c). */
#include <stdint.h>

#include "gnu-mutate.h"
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

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max, unsigned int seed)
{
	return gnu_mutate(data, size, max, seed, LLVMFuzzerMutate, 1);
}
