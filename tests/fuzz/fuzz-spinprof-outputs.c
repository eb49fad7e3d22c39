/* fuzz: spinprof/*.c !spinprof/main.c common/*.c -DGMON_ISAL tests/fuzz/spy-mutate.c tests/fuzz/check-output.c spinprof/profile.proto -ldw -lbfd -lelf -lz -lisal -lprotobuf-c */
/* libFuzzer harness for spinprof's outputs of spy profiles: every --format, the text report's layouts
 * and sections, --trace, --stopwatch and --dump, and what each wrote checked by check-output.c (the
 * escaping of every name, each format's syntax). An input is two bytes, the output (byte 0) and
 * options (byte 1), then one or two profiles back to back (two: summed, or --dump'ed one after the
 * other). spinprof must exit 0 or 2, nothing may trip the sanitizers, and an output written (status
 * 0) must pass its check. The mutator knows the records (spy-mutate.c). */
#include <stdint.h>

#include "check-output.h"
#include "spinprof-main.h"
#include "spy-mutate.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max);
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max, unsigned int seed);
size_t LLVMFuzzerCustomCrossOver(const uint8_t *d1, size_t s1, const uint8_t *d2, size_t s2, uint8_t *out,
				 size_t max, unsigned int seed);

#define PREFIX 2

/* byte 0, modulo their number: the output, its check, and the most scripts it may hold */
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
	{ "--format=icicle", NULL, FZ_SVG, 1 },
	{ "--format=html", NULL, FZ_HTML, 2 },
	{ "--trace", NULL, FZ_TEXT, 0 },
	{ "--stopwatch", NULL, FZ_TEXT, 0 },
	{ "--stopwatch=main,c,work", NULL, FZ_TEXT, 0 },
	{ "--dump", NULL, FZ_TEXT, 0 },
	{ "--spy", NULL, FZ_TEXT, 0 },
	{ "-l", NULL, FZ_TEXT, 0 },
	{ "-T", NULL, FZ_TEXT, 0 },
	{ "-d", NULL, FZ_TEXT, 0 },
	{ "-r", "-C", FZ_TEXT, 0 },
	{ "-p", "-Q", FZ_TEXT, 0 },
	{ NULL, NULL, FZ_TEXT, 0 }, /* the whole report */
};
#define NOUTS (sizeof(outs) / sizeof(*outs))

enum {
	OPT_THREADS = 1 << 0, /* --threads (the stack formats: a root frame per thread) */
	OPT_CUTOFF0 = 1 << 1, /* --cutoff=0 */
	OPT_ZEROS = 1 << 2,   /* -z */
	OPT_MANGLED = 1 << 3, /* --no-demangle */
	OPT_BRIEF = 1 << 4,   /* -b */
	OPT_CUTOFF = 1 << 5,  /* --cutoff=37.5 */
	OPT_TWO = 1 << 6,     /* two profiles */
	OPT_INLINE = 1 << 7,  /* --inline-file-names -L */
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *argv[24];
	int argc = 0, nfiles, dump;
	unsigned out, opts;

	if (size < PREFIX)
		return 0;
	fz_setup();
	out = data[0] % NOUTS;
	opts = data[1];
	nfiles = fz_split(data + PREFIX, size - PREFIX, opts & OPT_TWO ? 2 : 1);
	dump = outs[out].arg && !strcmp(outs[out].arg, "--dump");
	argv[argc++] = "spinprof";
	argv[argc++] = "-o";
	argv[argc++] = "out";
	if (outs[out].arg)
		argv[argc++] = (char *)outs[out].arg;
	if (outs[out].arg2)
		argv[argc++] = (char *)outs[out].arg2;
	if (!dump) { /* --dump takes no other option */
		if (opts & OPT_THREADS)
			argv[argc++] = "--threads";
		if (opts & OPT_CUTOFF0)
			argv[argc++] = "--cutoff=0";
		if (opts & OPT_ZEROS)
			argv[argc++] = "-z";
		if (opts & OPT_MANGLED)
			argv[argc++] = "--no-demangle";
		if (opts & OPT_BRIEF)
			argv[argc++] = "-b";
		if (opts & OPT_CUTOFF)
			argv[argc++] = "--cutoff=37.5";
		if (opts & OPT_INLINE) {
			argv[argc++] = "--inline-file-names";
			argv[argc++] = "-L";
		}
	}
	argv[argc++] = "p0.out";
	if (nfiles > 1)
		argv[argc++] = "p1.out";
	argv[argc] = NULL;
	unlink("out");
	if (fz_spinprof(argv) == 0)
		fz_check_file("out", outs[out].kind, outs[out].scripts);
	return 0;
}

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max, unsigned int seed)
{
	return spy_mutate(data, size, max, seed, LLVMFuzzerMutate, PREFIX);
}

size_t LLVMFuzzerCustomCrossOver(const uint8_t *d1, size_t s1, const uint8_t *d2, size_t s2, uint8_t *out,
				 size_t max, unsigned int seed)
{
	return spy_cross(d1, s1, d2, s2, out, max, seed, PREFIX);
}
