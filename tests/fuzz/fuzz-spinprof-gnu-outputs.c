/* fuzz: spinprof/*.c !spinprof/main.c common/*.c -DGMON_ISAL tests/fuzz/gnu-mutate.c tests/fuzz/check-output.c spinprof/profile.proto -ldw -lbfd -lelf -lz -lisal -lprotobuf-c */
/* libFuzzer harness for spinprof's outputs in GNU mode: glibc's gmon.out read for the fixed `gcc -pg`
 * program fuzz-pgprog (as fuzz-spinprof-gnu reads it), then every --format, the text report's layouts
 * (-T, -l, -r, -C, -p, -q) and --diff against itself, each output checked by check-output.c. An input is
 * two bytes, the output (byte 0) and options (byte 1), then the gmon.out. spinprof must exit 0 or 2,
 * nothing may trip the sanitizers, and an output written must pass its check. The mutator knows the
 * records (gnu-mutate.c). */
#include <stdint.h>

#include "check-output.h"
#include "gnu-mutate.h"
#include "spinprof-main.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max);
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max, unsigned int seed);

#define PREFIX 2

static const struct {
	const char *arg, *arg2;
	enum fz_kind kind;
	int scripts;
} outs[] = {
	{ "--format=callgrind", NULL, FZ_TEXT, 0 },
	{ "--format=dot", NULL, FZ_TEXT, 0 },
	{ "--format=json", NULL, FZ_JSON, 0 },
	{ "--format=pprof", NULL, FZ_PPROF, 0 },
	{ "--format=chrome", NULL, FZ_JSON, 0 },
	{ "--format=folded", NULL, FZ_TEXT, 0 },
	{ "--format=svg", NULL, FZ_SVG, 1 },
	{ "--format=html", NULL, FZ_HTML, 2 },
	{ "--diff", NULL, FZ_TEXT, 0 },
	{ "-T", NULL, FZ_TEXT, 0 },
	{ "-l", NULL, FZ_TEXT, 0 },
	{ "-r", NULL, FZ_TEXT, 0 },
	{ "-C", NULL, FZ_TEXT, 0 },
	{ "-p", "-d", FZ_TEXT, 0 },
	{ "-q", NULL, FZ_TEXT, 0 },
	{ NULL, NULL, FZ_TEXT, 0 }, /* the whole report */
};
#define NOUTS (sizeof(outs) / sizeof(*outs))

enum {
	OPT_ZEROS = 1 << 0,   /* -z */
	OPT_MANGLED = 1 << 1, /* --no-demangle */
	OPT_BRIEF = 1 << 2,   /* -b */
	OPT_CUTOFF0 = 1 << 3, /* --cutoff=0 */
	OPT_TWICE = 1 << 4,   /* the file twice: summed */
	OPT_INLINE = 1 << 5,  /* --inline-file-names */
	OPT_STATIC = 1 << 6,  /* -c: the calls the code makes */
	OPT_NOSTATIC = 1 << 7 /* -a */
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
		fprintf(stderr, "fuzz-spinprof-gnu-outputs: no %s (set SPY_FUZZ_PGPROG)\n", prog);
		exit(1);
	}
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *argv[24];
	int argc = 0, diff;
	unsigned out, opts;

	if (size < PREFIX)
		return 0;
	fz_setup();
	out = data[0] % NOUTS;
	opts = data[1];
	fz_write("gmon.out", data + PREFIX, size - PREFIX);
	diff = outs[out].arg && !strcmp(outs[out].arg, "--diff");
	argv[argc++] = "spinprof";
	argv[argc++] = "-o";
	argv[argc++] = "out";
	if (outs[out].arg)
		argv[argc++] = (char *)outs[out].arg;
	if (outs[out].arg2)
		argv[argc++] = (char *)outs[out].arg2;
	if (opts & OPT_ZEROS)
		argv[argc++] = "-z";
	if (opts & OPT_MANGLED)
		argv[argc++] = "--no-demangle";
	if (!diff) { /* --diff takes only -z and --[no-]demangle */
		if (opts & OPT_BRIEF)
			argv[argc++] = "-b";
		if (opts & OPT_CUTOFF0)
			argv[argc++] = "--cutoff=0";
		if (opts & OPT_INLINE)
			argv[argc++] = "--inline-file-names";
		if (opts & OPT_STATIC)
			argv[argc++] = "-c";
		if (opts & OPT_NOSTATIC)
			argv[argc++] = "-a";
	}
	argv[argc++] = prog;
	argv[argc++] = "gmon.out";
	if (diff) {
		argv[argc++] = prog;
		argv[argc++] = "gmon.out";
	} else if (opts & OPT_TWICE) {
		argv[argc++] = "gmon.out";
	}
	argv[argc] = NULL;
	unlink("out");
	if (fz_spinprof(argv) == 0)
		fz_check_file("out", outs[out].kind, outs[out].scripts);
	return 0;
}

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max, unsigned int seed)
{
	return gnu_mutate(data, size, max, seed, LLVMFuzzerMutate, PREFIX);
}
