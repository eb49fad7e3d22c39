/* spinprof: options as gprof's, then read (spy profiles, or an executable and glibc's gmon.out),
 * analyse, and print the header, flat profile, call graph and index, then the Spy report. */
#include <getopt.h>
#include <math.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "esc.h"
#include "argfile.h"
#include "linkmap.h"
#include "out-diff.h"
#include "out-dump.h"
#include "out.h"
#include "print-debug.h"
#include "print-gprof.h"
#include "print-header.h"
#include "print-lines.h"
#include "print-nodes.h"
#include "print-order.h"
#include "print-source.h"
#include "print-spy.h"
#include "print-stopwatch.h"
#include "print-trace.h"
#include "read.h"
#include "symspec.h"
#include "symtab.h"

#define SPINPROF_VERSION "0.1"

static void usage(FILE *f)
{
	fputs("usage: spinprof [-abBcDhilLrsTvxyz] [-pPqQACJZ[SYMSPEC]] [-eEfFnN SYMSPEC] [-k FROM/TO]\n"
	      "                [-m N] [-t N] [-w N] [-d[N]] [-O FORMAT] [-I DIRS] [-R MAP] [-S FILE]\n"
	      "                [--inline-file-names] [--[no-]demangle] [--spy] [--threads]\n"
	      "                [--cutoff=PCT] [--stopwatch[=FUNC,...]] [--trace] [--format=NAME]\n"
	      "                [-o FILE] [@FILE] [PROG] [gmon.out...]\n"
	      "       spinprof --dump [-o FILE] [gmon.out...]\n"
	      "       spinprof --diff [-z] [--[no-]demangle] [-o FILE] OLD NEW\n",
	      f);
}

/* Every option, gprof's and ours: getopt's tables are built from this one, and --help prints it. */
enum {
	LONG_DEMANGLE = 256,
	LONG_NO_DEMANGLE,
	LONG_SPY,
	LONG_THREADS,
	LONG_CUTOFF,
	LONG_DUMP,
	LONG_FORMAT,
	LONG_INLINE_FILE_NAMES,
	LONG_DIFF,
	LONG_STOPWATCH,
	LONG_TRACE,
};

struct sp_opt {
	int key;          /* the short option, or LONG_* */
	const char *name; /* the long one, or NULL */
	int arg;          /* no_argument, required_argument, optional_argument */
	const char *help; /* NULL: not listed apart (the long form of the line above) */
};

static const struct sp_opt sp_opts[] = {
	{ 'p', "flat-profile", optional_argument,
	  "-p[SYMSPEC]      flat profile only (of SYMSPEC's functions)" },
	{ 'P', "no-flat-profile", optional_argument,
	  "-P[SYMSPEC]      no flat profile (SYMSPEC: flat profile without it)" },
	{ 'q', "graph", optional_argument,
	  "-q[SYMSPEC]      call graph only (from SYMSPEC down; FROM/TO: only those arcs)" },
	{ 'Q', "no-graph", optional_argument,
	  "-Q[SYMSPEC]      no call graph (SYMSPEC: call graph without it; FROM/TO: arcs)" },
	{ 'B', NULL, no_argument, "-B               call graph only (gprof's, as -q)" },
	{ 'e', NULL, required_argument, "-e SYMSPEC       leave SYMSPEC's entries out of the call graph" },
	{ 'E', NULL, required_argument,
	  "-E SYMSPEC       as -e, and its time out of its callers' and the total" },
	{ 'f', NULL, required_argument, "-f SYMSPEC       call graph of SYMSPEC and what it calls only" },
	{ 'F', NULL, required_argument,
	  "-F SYMSPEC       as -f, and only its time in the call graph's total" },
	{ 'n', "time", required_argument, "-n SYMSPEC       propagate only SYMSPEC's time (--time=SYMSPEC)" },
	{ 'N', "no-time", required_argument,
	  "-N SYMSPEC       propagate no time of SYMSPEC (--no-time=SYMSPEC)" },
	{ 'k', NULL, required_argument, "-k FROM/TO       delete the arcs FROM -> TO, and their calls" },
	{ 'a', "no-static", no_argument,
	  "-a               no static functions (their time goes to the one before)" },
	{ 'D', "ignore-non-functions", no_argument, "-D               only symbols that are functions" },
	{ 'c', "static-call-graph", no_argument,
	  "-c               add the calls the code makes but did not run (GNU mode)" },
	{ 'b', "brief", no_argument, "-b               brief: no explanations" },
	{ 'z', "display-unused-functions", no_argument,
	  "-z               also functions never called, with no time" },
	{ 'L', "print-path", no_argument, "-L               static functions' files with their whole path" },
	{ 'w', "width", required_argument, "-w N             the index's width (default 80)" },
	{ 'l', "line", no_argument,
	  "-l               line by line: each source line a symbol (GNU; spy: the samples' lines)" },
	{ 'A', "annotated-source", optional_argument,
	  "-A[SYMSPEC]      annotated source (of SYMSPEC's functions' files)" },
	{ 'J', "no-annotated-source", optional_argument,
	  "-J[SYMSPEC]      no annotated source (SYMSPEC: annotated source without it)" },
	{ 'C', "exec-counts", optional_argument,
	  "-C[SYMSPEC]      execution counts (of SYMSPEC's functions)" },
	{ 'Z', "no-exec-counts", optional_argument,
	  "-Z[SYMSPEC]      no execution counts (SYMSPEC: execution counts without it)" },
	{ 'x', "all-lines", no_argument, "-x               annotated source: every line counted" },
	{ 'I', "directory-path", required_argument,
	  "-I DIRS          where -A looks for sources, ':' between (--directory-path=DIRS)" },
	{ 'y', "separate-files", no_argument, "-y               -A into FILE-ann files" },
	{ 'm', "min-count", required_argument,
	  "-m N             the annotated source shows a count below N as #####" },
	{ 't', "table-length", required_argument,
	  "-t N             the annotated source's top N lines (default 10)" },
	{ 'i', "file-info", no_argument, "-i               what each profile holds, nothing else" },
	{ 'O', "file-format", required_argument,
	  "-O FORMAT        the profiles' format: auto or magic (gprof's bsd, 4.4bsd, prof: not read)" },
	{ 'd', "debug", optional_argument,
	  "-d[N]            before the report, the analysed model, one fact a line: N's bits 1 the\n"
	  "                   profile, 2 the functions, 4 the arcs, 8 the cycles (default all)" },
	{ 'T', "traditional", no_argument, "-T               gprof's traditional (BSD) layout" },
	{ 'r', "function-ordering", no_argument,
	  "-r               gprof's suggested function order (for the linker), one name a line" },
	{ 'R', "file-ordering", required_argument,
	  "-R MAP           gprof's suggested order of MAP's object files (MAP: lines\n"
	  "                   FILE.o:... FUNC, as nm -A prints), one a line" },
	{ 'S', "external-symbol-table", required_argument,
	  "-S FILE          GNU mode: the symbols from FILE's \"ADDR T NAME\" lines (nm's), not PROG's" },
	{ LONG_INLINE_FILE_NAMES, "inline-file-names", no_argument,
	  "--inline-file-names  each function named with its file and line: NAME (FILE:LINE)" },
	{ 's', "sum", no_argument,
	  "-s               write the summed profile to gmon.sum (GNU mode: gprof's, and -l)" },
	{ 'o', NULL, required_argument, "-o FILE          write the report to FILE" },
	{ LONG_DEMANGLE, "demangle", optional_argument,
	  "--demangle       demangle C++ names (default); --no-demangle keeps them" },
	{ LONG_NO_DEMANGLE, "no-demangle", no_argument, NULL },
	{ LONG_SPY, "spy", no_argument,
	  "--spy            only the Spy report (printed after the call graph when there are samples)" },
	{ LONG_THREADS, "threads", no_argument,
	  "--threads        only the Spy report's header and threads; with --format=folded, svg,\n"
	  "                   icicle or html: each thread as the root frame of its stacks" },
	{ LONG_CUTOFF, "cutoff", required_argument,
	  "--cutoff=PCT     the Spy report hides what weighs less than PCT % (default 1);\n"
	  "                   --format=dot too (default 0.5 % functions, 0.1 % arcs)" },
	{ LONG_STOPWATCH, "stopwatch", optional_argument,
	  "--stopwatch[=FUNC,...]  only the stopwatch: count, min, avg, max, stddev and\n"
	  "                   log2 histogram of each function's outermost calls (mode time)" },
	{ LONG_TRACE, "trace", no_argument,
	  "--trace          only the traces (SPYRT_TRACE's calls), in time order across threads" },
	{ LONG_FORMAT, "format", required_argument,
	  "--format=NAME    write the profile in format NAME instead of the text report:" },
	{ LONG_DUMP, "dump", no_argument,
	  "--dump           no report: every record of each spy profile as text, one fact a line\n"
	  "                   (docs/FORMAT.md, \"Text dump\"); only -o goes with it" },
	{ LONG_DIFF, "diff", no_argument,
	  "--diff OLD NEW   compare two runs function by function (matched by name): OLD and NEW\n"
	  "                   are each a spy profile, or a gcc -pg program followed by its gmon.out" },
	{ 'h', "help", no_argument, "-h, --help       this help" },
	{ 'v', "version", no_argument, "-v, --version    the version" },
	{ 0, NULL, 0, NULL },
};

static void help(void)
{
	usage(stdout);
	fputs("\nA spy profile (or several, summed) needs nothing else; an ELF first operand means\n"
	      "GNU mode: PROG and glibc's gmon.out files (default gmon.out) from a gcc -pg build.\n"
	      "No operands: ./gmon.out, a spy profile, or a.out and a gcc -pg gmon.out.\n"
	      "A SYMSPEC is FUNC, FILE.c, FILE.c:FUNC or FILE.c:LINE, as gprof's. @FILE: the arguments\n"
	      "FILE holds (blanks between; quotes, backslashes), as gprof's.\n\n",
	      stdout);
	for (const struct sp_opt *op = sp_opts; op->key; op++) {
		if (!op->help)
			continue;
		fprintf(stdout, "  %s\n", op->help);
		if (op->key == LONG_FORMAT)
			for (const struct out_format *fm = out_formats; fm->name; fm++)
				fprintf(stdout, "                   %-10s %s\n", fm->name, fm->help);
	}
}

/* A number option's value: a decimal from lo up, or one line and -1. */
static long num_arg(const char *opt, const char *arg, long lo)
{
	char *end;
	long v = strtol(arg, &end, 10);
	if (!arg[0] || *end || v < lo || v > 1000000000L) {
		esc_msg("spinprof: %s %s: not a number from %ld\n", opt, arg, lo);
		return -1;
	}
	return v;
}

/* The first 8 bytes of path: "gmon" and glibc's version 1 (gnu_gmon), or spy's (spy_gmon). */
static int gmon_version_is(const char *path, uint32_t version)
{
	unsigned char b[8];
	char err[128];
	int fd = gmon_open_regular(path, err, sizeof(err)); /* no FIFO or device is read */
	int ok = fd >= 0 && pread(fd, b, 8, 0) == 8 && memcmp(b, "gmon", 4) == 0 &&
		 (uint32_t)(b[4] | b[5] << 8 | b[6] << 16 | (uint32_t)b[7] << 24) == version;
	if (fd >= 0)
		close(fd);
	return ok;
}

static int gnu_gmon(const char *path)
{
	return gmon_version_is(path, GMON_GNU_VERSION);
}

static int spy_gmon(const char *path)
{
	return gmon_version_is(path, GMON_SPY_VERSION);
}

/* Close the report's stream (out, or standard output) after it was written with result rc: the exit
 * status, 2 when rc < 0 (already said) or the write failed (said here). */
static int finish_output(FILE *f, const char *out, int rc)
{
	int err = ferror(f);

	err |= f != stdout ? fclose(f) : fflush(f);
	if (rc < 0)
		return 2;
	if (err) {
		esc_msg("spinprof: %s: write error\n", out ? out : "standard output");
		return 2;
	}
	return 0;
}

/* Read one run of --diff from ops[*i]: a spy profile, or a program and its gmon.out. */
static int diff_read(struct df_run *run, char **ops, int nops, int *i, const struct read_opts *o)
{
	prof_init(run->p);
	run->prog = NULL;
	if (symtab_is_elf(ops[*i])) {
		if (*i + 1 >= nops) {
			esc_msg("spinprof: %s: --diff: a program needs its gmon.out after it\n", ops[*i]);
			return -1;
		}
		run->prog = ops[*i];
		run->path = ops[*i + 1];
		*i += 2;
		return read_gnu(run->p, run->prog, ops + *i - 1, 1, o);
	}
	run->path = ops[*i];
	*i += 1;
	return read_spy(run->p, ops + *i - 1, 1, o);
}

/* spinprof --diff OLD NEW: each a spy profile or PROG gmon.out. */
/* An option's error was said: what the options gathered is freed (so a sanitizer's leak check at exit
 * finds nothing) and the status is 2. */
static int usage_exit(struct symspecs *specs)
{
	symspecs_release(specs);
	return 2;
}

static int diff_main(char **ops, int nops, const char *out, struct read_opts *o, const struct print_opts *po)
{
	struct prof p[2];
	struct df_run run[2] = { { &p[0], NULL, NULL }, { &p[1], NULL, NULL } };
	int i = 0, rc = 0, nread = 0;

	o->sum_path = NULL;
	for (int k = 0; k < 2 && rc == 0; k++) {
		if (i >= nops) {
			fputs("spinprof: --diff needs two runs: OLD NEW, each a spy profile or a program "
			      "and its gmon.out\n",
			      stderr);
			rc = -1;
			break;
		}
		rc = diff_read(&run[k], ops, nops, &i, o);
		nread = k + 1;
		if (rc == 0)
			graph_analyse(&p[k]);
	}
	if (rc == 0 && i < nops) {
		esc_msg("spinprof: %s: --diff compares two runs; this is a third\n", ops[i]);
		rc = -1;
	}
	FILE *f = stdout;
	if (rc == 0 && out && !(f = fopen(out, "w"))) {
		esc_msg("spinprof: %s: cannot write: %m\n", out);
		f = stdout;
		rc = -1;
	}
	if (rc == 0)
		rc = diff_write(f, &run[0], &run[1], po->flags);
	for (int k = 0; k < nread; k++)
		prof_release(&p[k]);
	return finish_output(f, out, rc);
}

/* --inline-file-names for a spy profile: each function shown as "NAME (FILE:LINE)" with the plugin's
 * file (its base name, or with -L its path) and line, sorted still on its own name. */
static void inline_file_names(struct prof *p, int full_path)
{
	for (size_t i = 0; i < p->nsyms; i++) {
		struct prof_func *f = &p->items[i];
		if (!f->name || !f->file || !f->line)
			continue;
		const char *base = strrchr(f->file, '/');
		base = base && !full_path ? base + 1 : f->file;
		size_t n = strlen(f->name) + strlen(base) + 16;
		char *shown = xmalloc(n);
		snprintf(shown, n, "%s (%s:%u)", f->name, base, f->line);
		if (!f->key)
			f->key = f->name;
		else
			free(f->name);
		f->name = shown;
	}
}

/* gprof's output styles: -p/-q (and their SYMSPEC forms) choose, -P/-Q without one take away */
enum style {
	STYLE_FLAT = 1u << 0,
	STYLE_GRAPH = 1u << 1,
	STYLE_INFO = 1u << 2,
	STYLE_ANNO = 1u << 3,
	STYLE_EXEC = 1u << 4,
	STYLE_FUNC_ORDER = 1u << 5,
	STYLE_FILE_ORDER = 1u << 6,
};

/* What the command line asks for. */
struct args {
	unsigned style, user_style; /* enum style */
	int sum, sum_only, dump, diff;
	const char *map_path; /* -R MAP */
	unsigned debug;       /* -d: enum debug_what */
	char report_opt[32];  /* the last report option given: --dump takes none */
	char not_diff[32];    /* the last option --diff does not take */
	struct print_opts po;
	const char *out;
	struct read_opts o;
	struct spy_opts so;
	struct symspecs specs;
	struct source_opts srco;
	const char *src_dirs[256]; /* -I's directories, in argv's strings */
	size_t nsrc_dirs;
	const struct out_format *format; /* NULL: the text report */
	int cutoff_given, stopwatch, trace;
	const char *watch_funcs; /* --stopwatch=FUNC,...; NULL: every function */
	char **ops;              /* the operands */
	int nops;
	const struct symspec_copies *copies; /* -r, -R in GNU mode: the arcs FROM/TO symspecs add */
};

/* Parse the command line into a: -1 to go on, else the exit status (0 after -h or -v; 2 after one
 * line on stderr). */
static int parse_args(int argc, char **argv, struct args *a)
{
	struct option longopts[sizeof(sp_opts) / sizeof(sp_opts[0])];
	char shortopts[3 * sizeof(sp_opts) / sizeof(sp_opts[0]) + 1], *sq = shortopts;
	size_t nl = 0;
	for (const struct sp_opt *op = sp_opts; op->key; op++) {
		if (op->name)
			longopts[nl++] = (struct option){ op->name, op->arg, NULL, op->key };
		if (op->key < 256) {
			*sq++ = (char)op->key;
			for (int k = 0; k < op->arg; k++)
				*sq++ = ':';
		}
	}
	longopts[nl] = (struct option){ NULL, 0, NULL, 0 };
	*sq = '\0';
	*a = (struct args){ .style = STYLE_FLAT | STYLE_GRAPH,
			    .po = { 0, 80 },
			    .o = { .demangle = 1 },
			    .so = { 1.0, 0, 0, 1, NULL },
			    .srco = { NULL, 0, 0, 0, 0, 10, 1 } };
	char *end;
	int c, li;
	opterr = 0;
	while ((c = getopt_long(argc, argv, shortopts, longopts, &li)) != -1) {
		if (c != 'o' && c != 'h' && c != 'v' && c != LONG_DUMP && c != LONG_FORMAT &&
		    c != LONG_DIFF && c != '?') {
			if (c < 256)
				snprintf(a->report_opt, sizeof(a->report_opt), "-%c", c);
			else
				snprintf(a->report_opt, sizeof(a->report_opt), "--%s", longopts[li].name);
			if (c != 'z' && c != LONG_DEMANGLE && c != LONG_NO_DEMANGLE)
				snprintf(a->not_diff, sizeof(a->not_diff), "%s", a->report_opt);
		}
		if (c == LONG_FORMAT || c == LONG_DUMP)
			snprintf(a->not_diff, sizeof(a->not_diff), "--%s", longopts[li].name);
		switch (c) {
		case 'p':
			if (optarg)
				symspecs_add(&a->specs, optarg, SYMSPEC_INCL_FLAT);
			a->user_style |= STYLE_FLAT;
			break;
		case 'P':
			if (optarg) {
				symspecs_add(&a->specs, optarg, SYMSPEC_EXCL_FLAT);
				a->user_style |= STYLE_FLAT;
			} else {
				a->style &= ~STYLE_FLAT;
				a->user_style &= ~STYLE_FLAT;
			}
			break;
		case 'B': /* gprof's, undocumented: -q */
			a->user_style |= STYLE_GRAPH;
			break;
		case 'q':
		case 'Q':
			if (optarg) {
				int arcs = strchr(optarg, '/') != NULL;
				symspecs_add(&a->specs, optarg,
					     c == 'q' ? (arcs ? SYMSPEC_INCL_ARCS : SYMSPEC_INCL_GRAPH) :
							(arcs ? SYMSPEC_EXCL_ARCS : SYMSPEC_EXCL_GRAPH));
				a->user_style |= STYLE_GRAPH;
			} else if (c == 'q') {
				a->user_style |= STYLE_GRAPH;
			} else {
				a->style &= ~STYLE_GRAPH;
				a->user_style &= ~STYLE_GRAPH;
			}
			break;
		case 'e':
		case 'E':
			symspecs_add(&a->specs, optarg, SYMSPEC_EXCL_GRAPH);
			if (c == 'E')
				symspecs_add(&a->specs, optarg, SYMSPEC_EXCL_TIME);
			break;
		case 'f':
		case 'F':
			symspecs_add(&a->specs, optarg, SYMSPEC_INCL_GRAPH);
			if (c == 'F')
				symspecs_add(&a->specs, optarg, SYMSPEC_INCL_TIME);
			break;
		case 'n':
			symspecs_add(&a->specs, optarg, SYMSPEC_INCL_TIME);
			break;
		case 'N':
			symspecs_add(&a->specs, optarg, SYMSPEC_EXCL_TIME);
			break;
		case 'k':
			symspecs_add(&a->specs, optarg, SYMSPEC_EXCL_ARCS);
			break;
		case 'a':
			a->o.no_static = 1;
			break;
		case 'D':
			a->o.only_funcs = 1;
			break;
		case 'c':
			a->o.static_calls = 1;
			break;
		case 'b':
			a->po.flags |= PRINT_BRIEF;
			break;
		case 'z':
			a->po.flags |= PRINT_ZEROS;
			break;
		case 'L':
			a->po.flags |= PRINT_FULL_PATH;
			a->o.full_path = 1;
			break;
		case 'l':
			a->o.lines = 1;
			break;
		case 'A':
		case 'C':
			if (optarg)
				symspecs_add(&a->specs, optarg,
					     c == 'A' ? SYMSPEC_INCL_ANNO : SYMSPEC_INCL_EXEC);
			a->style |= c == 'A' ? STYLE_ANNO : STYLE_EXEC;
			a->user_style |= c == 'A' ? STYLE_ANNO : STYLE_EXEC;
			break;
		case 'J':
		case 'Z': {
			unsigned st = c == 'J' ? STYLE_ANNO : STYLE_EXEC;
			if (optarg) {
				symspecs_add(&a->specs, optarg,
					     c == 'J' ? SYMSPEC_EXCL_ANNO : SYMSPEC_EXCL_EXEC);
				a->style |= st;
				a->user_style |= st;
			} else {
				a->style &= ~st;
				a->user_style &= ~st;
			}
			break;
		}
		case 'x':
			a->srco.all_lines = 1;
			break;
		case 'y':
			a->srco.separate = 1;
			break;
		case 'I':
			for (char *d = strtok(optarg, ":"); d; d = strtok(NULL, ":")) {
				if (a->nsrc_dirs == sizeof(a->src_dirs) / sizeof(a->src_dirs[0])) {
					fputs("spinprof: -I: more than 256 directories\n", stderr);
					return usage_exit(&a->specs);
				}
				a->src_dirs[a->nsrc_dirs++] = d;
			}
			break;
		case 'w':
		case 'm':
		case 't': {
			char name[4] = { '-', (char)c, 0, 0 };
			long v = num_arg(name, optarg, c == 't' ? 1 : 0);
			if (v < 0)
				return usage_exit(&a->specs);
			if (c == 'w')
				a->po.width = (int)v;
			else if (c == 't')
				a->srco.table_len = (int)v;
			else
				a->srco.min_count = v;
			break;
		}
		case 'd':
			if (!optarg) {
				a->debug = DEBUG_ALL;
			} else {
				long v = num_arg("-d", optarg, 0);
				if (v < 0)
					return usage_exit(&a->specs);
				/* as gprof's -dN, which always adds its "any" bit: at least the profile */
				a->debug = (unsigned)v & DEBUG_ALL ? (unsigned)v & DEBUG_ALL : DEBUG_PROFILE;
			}
			break;
		case 'O':
			if (strcmp(optarg, "auto") && strcmp(optarg, "magic")) {
				esc_msg("spinprof: -O %s: not a profile format spinprof reads (auto, magic)\n",
					optarg);
				return usage_exit(&a->specs);
			}
			break;
		case 'T':
			a->po.flags |= PRINT_BSD;
			break;
		case 'r':
			a->user_style |= STYLE_FUNC_ORDER;
			break;
		case 'S':
			a->o.ext_syms = optarg;
			break;
		case LONG_INLINE_FILE_NAMES:
			a->o.inline_names = 1;
			break;
		case 'R':
			a->user_style |= STYLE_FILE_ORDER;
			a->map_path = optarg;
			break;
		case 'i':
			a->user_style |= STYLE_INFO;
			a->o.file_info = 1;
			break;
		case 's':
			a->sum = 1;
			break;
		case 'o':
			a->out = optarg;
			break;
		case 'h':
			help();
			return 0;
		case LONG_DEMANGLE:
			a->o.demangle = 1;
			break;
		case LONG_NO_DEMANGLE:
			a->o.demangle = 0;
			break;
		case LONG_SPY:
			a->so.sections |= SPY_ALL;
			break;
		case LONG_THREADS:
			a->so.sections |= SPY_HEADER | SPY_THREADS;
			break;
		case LONG_CUTOFF:
			/* plain decimals only: strtod would also take blanks, signs, hex, inf and nan */
			a->so.cutoff = strtod(optarg, &end);
			if (!optarg[0] || strspn(optarg, "0123456789.") != strlen(optarg) || *end ||
			    !isfinite(a->so.cutoff) || a->so.cutoff > 100) {
				esc_msg("spinprof: --cutoff=%s: not a percentage from 0 to 100\n", optarg);
				return usage_exit(&a->specs);
			}
			a->cutoff_given = 1;
			break;
		case LONG_FORMAT:
			if (!strcmp(optarg, "text")) {
				a->format = NULL;
				break;
			}
			if (!(a->format = out_find(optarg))) {
				char names[256] = "text";
				for (const struct out_format *fm = out_formats; fm->name; fm++)
					snprintf(names + strlen(names), sizeof(names) - strlen(names), ", %s",
						 fm->name);
				esc_msg("spinprof: --format=%s: no such format; they are: %s\n", optarg,
					names);
				return usage_exit(&a->specs);
			}
			break;
		case LONG_STOPWATCH:
			a->stopwatch = 1;
			a->watch_funcs = optarg && optarg[0] ? optarg : NULL;
			break;
		case LONG_TRACE:
			a->trace = 1;
			break;
		case LONG_DUMP:
			a->dump = 1;
			break;
		case LONG_DIFF:
			a->diff = 1;
			break;
		case 'v':
			printf("spinprof (spy) %s\n", SPINPROF_VERSION);
			return 0;
		default:
			usage(stderr);
			return usage_exit(&a->specs);
		}
	}
	if ((a->user_style & STYLE_FUNC_ORDER) && (a->user_style & STYLE_FILE_ORDER)) {
		/* gprof's rule: both would place the same arcs */
		fputs("spinprof: only one of -r (--function-ordering) and -R (--file-ordering) may be "
		      "given\n",
		      stderr);
		return usage_exit(&a->specs);
	}
	if (a->user_style)
		a->style = a->user_style;
	if (a->po.flags & PRINT_BSD)
		a->o.demangle = 0; /* gprof's BSD layout prints the symbol table's names */
	/* gprof's default_excluded_list: the profiler's own functions, in every listing */
	static const char *const excluded[] = { "_gprof_mcount",     "mcount",     "_mcount", "__mcount",
						"__mcount_internal", "__mcleanup", NULL };
	for (const char *const *x = excluded; *x; x++) {
		symspecs_add(&a->specs, *x, SYMSPEC_EXCL_TIME);
		symspecs_add(&a->specs, *x, SYMSPEC_EXCL_GRAPH);
		symspecs_add(&a->specs, *x, SYMSPEC_EXCL_FLAT);
	}
	a->o.need_source = symspecs_need_source(&a->specs);
	a->o.sources = (a->style & (STYLE_ANNO | STYLE_EXEC)) != 0;
	a->srco.dirs = a->src_dirs;
	a->srco.ndirs = a->nsrc_dirs;
	a->srco.zeros = (a->po.flags & PRINT_ZEROS) != 0;
	if (a->sum)
		a->o.sum_path = "gmon.sum";
	a->ops = argv + optind;
	a->nops = argc - optind;
	return -1;
}

/* --diff OLD NEW: two runs compared, each a spy profile or PROG gmon.out. */
static int cmd_diff(struct args *a)
{
	symspecs_release(&a->specs);
	if (a->not_diff[0]) {
		esc_msg("spinprof: --diff compares two runs: %s does not go with it\n", a->not_diff);
		return 2;
	}
	return diff_main(a->ops, a->nops, a->out, &a->o, &a->po);
}

static char *default_gmon[] = { "gmon.out" };

/* --dump: spy profiles as text, one fact a line. */
static int cmd_dump(struct args *a)
{
	symspecs_release(&a->specs);
	if (a->format) {
		esc_msg("spinprof: --dump prints no report: --format=%s does not go with it\n",
			a->format->name);
		return 2;
	}
	if (a->report_opt[0]) {
		esc_msg("spinprof: --dump prints no report: %s does not go with it\n", a->report_opt);
		return 2;
	}
	FILE *f = stdout;
	if (a->out && !(f = fopen(a->out, "w"))) {
		esc_msg("spinprof: %s: cannot write: %m\n", a->out);
		return 2;
	}
	return finish_output(f, a->out,
			     a->nops > 0 ? dump_spy(f, a->ops, a->nops) : dump_spy(f, default_gmon, 1));
}

/* The outputs of an analysed profile: the first whose test holds prints it. Each returns 0, or -1
 * after one line on stderr. */
struct output {
	const char *name;
	int (*chosen)(const struct args *a, const struct prof *p);
	int (*print)(FILE *f, const struct prof *p, struct args *a);
};

static int is_trace(const struct args *a, const struct prof *p)
{
	(void)p;
	return a->trace && !a->format;
}

static int print_trace_of(FILE *f, const struct prof *p, struct args *a)
{
	return print_trace(f, p, a->so.what);
}

static int is_stopwatch(const struct args *a, const struct prof *p)
{
	(void)p;
	return a->stopwatch && !a->format;
}

static int print_stopwatch_of(FILE *f, const struct prof *p, struct args *a)
{
	return print_stopwatch(f, p, a->watch_funcs, a->so.what);
}

static int is_format(const struct args *a, const struct prof *p)
{
	(void)p;
	return a->format != NULL;
}

/* --format=NAME: one of out_formats[] */
static int print_format(FILE *f, const struct prof *p, struct args *a)
{
	struct out_opts oo = { a->so.what,      a->o.demangle, a->so.cutoff,
			       a->cutoff_given, a->po.flags,   (a->so.sections & SPY_THREADS) != 0 };

	return a->format->write(f, p, &oo);
}

/* -l on a spy profile: the samples' lines (the call graph stays the functions') */
static int is_lines(const struct args *a, const struct prof *p)
{
	return a->o.lines && p->kind == PROF_SPY;
}

static int print_lines_of(FILE *f, const struct prof *p, struct args *a)
{
	return print_spy_lines(f, p, a->o.demangle, a->so.what);
}

/* --spy, --threads: the Spy report alone */
static int is_spy(const struct args *a, const struct prof *p)
{
	(void)p;
	return a->so.sections != 0;
}

static int print_spy_alone(FILE *f, const struct prof *p, struct args *a)
{
	if (p->kind != PROF_SPY) {
		esc_msg("spinprof: %s: the Spy report needs a spy profile, not gcc -pg's\n", a->so.what);
		return -1;
	}
	return print_spy(f, p, &a->so);
}

static int is_report(const struct args *a, const struct prof *p)
{
	(void)a;
	(void)p;
	return 1;
}

/* The report: gprof's parts the options chose, then (by default) the stopwatch table, the Spy report
 * and the nodes. */
static int print_report(FILE *f, const struct prof *p, struct args *a)
{
	unsigned style = a->style;
	int show_flat = (style & STYLE_FLAT) != 0, show_graph = (style & STYLE_GRAPH) != 0;
	int only_flat = (a->user_style & STYLE_FLAT) != 0, only_graph = (a->user_style & STYLE_GRAPH) != 0;
	int annotate = (style & STYLE_ANNO) != 0, exec_count = (style & STYLE_EXEC) != 0;
	int ordering = (style & (STYLE_FUNC_ORDER | STYLE_FILE_ORDER)) != 0;
	int whole = !only_flat && !only_graph && !annotate && !exec_count && !ordering;
	int first = !a->o.file_info; /* -i printed first: a form feed before the next */
	int rc = 0;

	if (p->kind == PROF_SPY && !only_flat && !only_graph && (show_flat || show_graph))
		print_header(f, p);
	int bsd = (a->po.flags & PRINT_BSD) != 0; /* gprof's BSD order: call graph, flat profile */
	if (show_graph && bsd)
		print_graph(f, p, &a->po, &first);
	if (show_flat)
		print_flat(f, p, &a->po, &first);
	if (show_graph) {
		if (!bsd)
			print_graph(f, p, &a->po, &first);
		print_index(f, p, &a->po);
	}
	if (exec_count)
		print_exec_counts(f, p, (a->po.flags & PRINT_ZEROS) != 0, &first);
	if (annotate)
		print_source(f, p, &a->srco, &first);
	if (style & STYLE_FUNC_ORDER)
		print_function_order(f, p, a->copies);
	if ((style & STYLE_FILE_ORDER) && a->o.map) {
		if (p->kind == PROF_GNU)
			print_file_order(f, p, a->o.map, a->copies);
		else
			print_file_order_spy(f, p, a->o.map);
	}
	if (whole)
		print_stopwatch_top(f, p, 10);
	if (whole && sp_has_samples(p)) {
		a->so.sections = SPY_ALL;
		rc = print_spy(f, p, &a->so);
	}
	if (whole)
		print_nodes(f, p, a->so.brief);
	return rc;
}

static const struct output outputs[] = {
	{ "trace", is_trace, print_trace_of }, { "stopwatch", is_stopwatch, print_stopwatch_of },
	{ "format", is_format, print_format }, { "lines", is_lines, print_lines_of },
	{ "spy", is_spy, print_spy_alone },    { "report", is_report, print_report },
};

/* The profiles read (spy's, or a program and glibc's gmon.out files, gprof's operands), analysed,
 * and printed by the first output that is chosen. */
static int cmd_profile(struct args *a)
{
	struct linkmap map = { 0 };
	struct symspec_copies copies = { 0 };
	struct prof p;
	int rc;

	prof_init(&p);
	/* gprof's operands: PROG (default a.out) and its gmon.out files (default gmon.out); a spy
	 * profile needs no program, and with one it must be the program that ran */
	char *prog = NULL, **profs = a->ops;
	int nprofs = a->nops;
	if (a->nops > 0 && symtab_is_elf(a->ops[0])) {
		prog = a->ops[0];
		profs = a->ops + 1;
		nprofs = a->nops - 1;
	}
	if (nprofs == 0) {
		profs = default_gmon;
		nprofs = 1;
	}
	static char aout[] = "a.out";
	if (!prog && a->nops == 0 && gnu_gmon(profs[0]))
		prog = aout;
	if (prog && !gnu_gmon(profs[0]) && spy_gmon(profs[0])) {
		a->o.prog = prog;
		prog = NULL;
	}
	if (a->map_path) {
		char err[256];
		if (linkmap_read(&map, a->map_path, err, sizeof(err)) < 0) {
			esc_msg("spinprof: %s: %s\n", a->map_path, err);
			linkmap_release(&map);
			symspecs_release(&a->specs);
			return 2;
		}
		a->o.map = &map;
	}
	if (prog) {
		/* gprof's --sum implies --line, and prints no report unless one is asked for */
		if (a->sum) {
			a->o.lines = 1;
			a->sum_only = !a->user_style;
			a->o.specs = &a->specs;
		}
		rc = read_gnu(&p, prog, profs, nprofs, &a->o);
	} else if (a->o.ext_syms) {
		esc_msg("spinprof: %s: -S reads symbols for a gcc -pg profile; a spy profile names "
			"its functions\n",
			profs[0]);
		rc = -1;
	} else {
		rc = read_spy(&p, profs, nprofs, &a->o);
	}
	if (rc == 0 && (a->style == STYLE_INFO || a->sum_only)) {
		/* -i alone: what the files hold, nothing more */
		prof_release(&p);
		linkmap_release(&map);
		symspecs_release(&a->specs);
		return finish_output(stdout, NULL, 0);
	}
	if (rc < 0) {
		prof_release(&p);
		linkmap_release(&map);
		symspecs_release(&a->specs);
		return 2;
	}
	symspecs_apply(&a->specs, &p);
	/* -r, -R in GNU mode place, as gprof, the arcs of count 0 its FROM/TO symspecs add */
	if ((a->style & (STYLE_FUNC_ORDER | STYLE_FILE_ORDER)) && p.kind == PROF_GNU)
		symspecs_copies(&a->specs, &p, &copies);
	symspecs_release(&a->specs);
	if (a->o.inline_names && p.kind == PROF_SPY)
		inline_file_names(&p, a->o.full_path);
	graph_analyse(&p);
	FILE *f = stdout;
	if (a->out && !(f = fopen(a->out, "w"))) {
		esc_msg("spinprof: %s: cannot write: %m\n", a->out);
		prof_release(&p);
		linkmap_release(&map);
		symspec_copies_release(&copies);
		return 2;
	}
	/* A report can be millions of lines: one thread writes it, so no lock per call, and a big buffer. */
	__fsetlocking(f, FSETLOCKING_BYCALLER);
	setvbuf(f, NULL, _IOFBF, 1 << 20);
	/* -d: the model first; beside a --format's output, on stderr */
	if (a->debug)
		print_debug(a->format ? stderr : f, &p, a->debug);
	a->so.brief = (a->po.flags & PRINT_BRIEF) != 0;
	a->so.demangle = a->o.demangle;
	a->so.what = profs[0];
	a->copies = &copies;
	const struct output *out = outputs;
	while (!out->chosen(a, &p))
		out++;
	rc = out->print(f, &p, a);
	prof_release(&p);
	linkmap_release(&map);
	symspec_copies_release(&copies);
	return finish_output(f, a->out, rc);
}

static int is_diff(const struct args *a)
{
	return a->diff;
}

static int is_dump(const struct args *a)
{
	return a->dump;
}

static int is_profile(const struct args *a)
{
	(void)a;
	return 1;
}

/* The commands: the first whose test holds runs; the last, a report of the profiles, always does. */
static const struct command {
	const char *name;
	int (*chosen)(const struct args *a);
	int (*run)(struct args *a);
} commands[] = {
	{ "diff", is_diff, cmd_diff },
	{ "dump", is_dump, cmd_dump },
	{ "profile", is_profile, cmd_profile },
};

static int run(int argc, char **argv)
{
	struct args a;
	const struct command *cmd = commands;
	int rc;

	argfile_expand(&argc, &argv); /* gprof's @FILE */
	rc = parse_args(argc, argv, &a);
	if (rc >= 0)
		return rc;
	while (!cmd->chosen(&a))
		cmd++;
	return cmd->run(&a);
}

int main(int argc, char **argv)
{
	int rc = run(argc, argv);

	esc_release(); /* the escaped strings the report and its messages used */
	return rc;
}

/* Under LeakSanitizer: libbfd keeps one allocation of bfd_find_nearest_line's past bfd_close,
 * which is not ours to free. Unused in a build without sanitizers. */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
	return "leak:libbfd\n";
}

/* ... and says nothing about it: stderr carries only spinprof's own lines. */
const char *__lsan_default_options(void);
const char *__lsan_default_options(void)
{
	return "print_suppressions=0";
}
