/* spinprof: options as gprof's, then read (spy profiles, or an executable and glibc's gmon.out),
 * analyse, and print the header, flat profile, call graph and index, then the Spy report. */
#include <getopt.h>
#include <math.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>

#include "nodes.h"
#include "out-diff.h"
#include "out-dump.h"
#include "out.h"
#include "print-lines.h"
#include "print-source.h"
#include "read.h"
#include "samples.h"
#include "symtab.h"

#define SPINPROF_VERSION "0.1"

static void usage(FILE *f)
{
	fputs("usage: spinprof [-pPqQbzslACJxyh] [-I DIRS] [--[no-]demangle] [--spy] [--threads] [--cutoff=PCT] [--version]\n"
	      "                [--stopwatch[=FUNC,...]] [--trace]\n"
	      "                [--format=NAME] [-o FILE] [PROG] [gmon.out...]\n"
	      "       spinprof --dump [-o FILE] [gmon.out...]\n"
	      "       spinprof --diff [-z] [--[no-]demangle] [-o FILE] OLD NEW\n",
	      f);
}

static void help(void)
{
	usage(stdout);
	fputs("\nA spy profile (or several, summed) needs nothing else; an ELF first operand means\n"
	      "GNU mode: PROG and glibc's gmon.out files (default gmon.out) from a gcc -pg build.\n\n"
	      "  -p             flat profile only          -P   no flat profile\n"
	      "  -q             call graph only            -Q   no call graph\n"
	      "  -b             brief: no explanations     -z   also functions never called, with no time\n"
	      "  --demangle     demangle C++ names (default); --no-demangle keeps them\n"
	      "  -o FILE        write the report to FILE\n"
	      "  -s             write the summed profile to gmon.sum\n"
	      "  -l, --line     GNU mode: line-by-line profile (each source line a symbol, as gprof -l)\n"
	      "  -A             GNU mode: annotated source (--annotated-source; -J, --no-annotated-source)\n"
	      "  -C             GNU mode: execution counts (--exec-count)\n"
	      "  -I DIRS        where -A looks for sources, ':' between (--directory-path=DIRS)\n"
	      "  -y             -A into FILE-ann files (--separate-files); -x, --all-lines\n"
	      "  --spy          only the Spy report (printed after the call graph when there are samples)\n"
	      "  --threads      only the Spy report's header and threads; with --format=folded, svg,\n"
	      "                 icicle or html: each thread as the root frame of its stacks\n"
	      "  --cutoff=PCT   the Spy report hides what weighs less than PCT % (default 1);\n"
	      "                 --format=dot too (default 0.5 % functions, 0.1 % arcs)\n"
	      "  --stopwatch[=FUNC,...]  only the stopwatch: count, min, avg, max, stddev and\n"
	      "                 log2 histogram of each function's outermost calls (mode time)\n"
	      "  --trace        only the traces (SPYRT_TRACE's calls), in time order across threads\n"
	      "  --format=NAME  write the profile in format NAME instead of the text report:\n",
	      stdout);
	for (const struct out_format *fm = out_formats; fm->name; fm++)
		fprintf(stdout, "                 %-10s %s\n", fm->name, fm->help);
	fputs("  --dump         no report: every record of each spy profile as text, one fact a line\n"
	      "                 (docs/FORMAT.md, \"Text dump\"); only -o goes with it\n"
	      "  --diff OLD NEW compare two runs function by function (matched by name): OLD and NEW\n"
	      "                 are each a spy profile, or a gcc -pg program followed by its gmon.out\n"
	      "  -h, --help     this help                  --version  the version\n",
	      stdout);
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
		fprintf(stderr, "spinprof: %s: write error\n", out ? out : "standard output");
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
			fprintf(stderr, "spinprof: %s: --diff: a program needs its gmon.out after it\n",
				ops[*i]);
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
static int diff_main(char **ops, int nops, const char *out, struct read_opts *o, unsigned flags)
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
		fprintf(stderr, "spinprof: %s: --diff compares two runs; this is a third\n", ops[i]);
		rc = -1;
	}
	FILE *f = stdout;
	if (rc == 0 && out && !(f = fopen(out, "w"))) {
		fprintf(stderr, "spinprof: %s: cannot write: %m\n", out);
		f = stdout;
		rc = -1;
	}
	if (rc == 0)
		rc = diff_write(f, &run[0], &run[1], flags);
	for (int k = 0; k < nread; k++)
		prof_release(&p[k]);
	return finish_output(f, out, rc);
}

int main(int argc, char **argv)
{
	enum {
		OPT_DEMANGLE = 256,
		OPT_NO_DEMANGLE,
		OPT_VERSION,
		OPT_SPY,
		OPT_THREADS,
		OPT_CUTOFF,
		OPT_DUMP,
		OPT_FORMAT,
		OPT_DIFF,
		OPT_STOPWATCH,
		OPT_TRACE
	};
	static const struct option longopts[] = {
		{ "demangle", optional_argument, NULL, OPT_DEMANGLE },
		{ "no-demangle", no_argument, NULL, OPT_NO_DEMANGLE },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, OPT_VERSION },
		{ "brief", no_argument, NULL, 'b' },
		{ "spy", no_argument, NULL, OPT_SPY },
		{ "threads", no_argument, NULL, OPT_THREADS },
		{ "cutoff", required_argument, NULL, OPT_CUTOFF },
		{ "dump", no_argument, NULL, OPT_DUMP },
		{ "format", required_argument, NULL, OPT_FORMAT },
		{ "diff", no_argument, NULL, OPT_DIFF },
		{ "line", no_argument, NULL, 'l' },
		{ "annotated-source", optional_argument, NULL, 'A' },
		{ "no-annotated-source", no_argument, NULL, 'J' },
		{ "exec-count", optional_argument, NULL, 'C' },
		{ "all-lines", no_argument, NULL, 'x' },
		{ "directory-path", required_argument, NULL, 'I' },
		{ "separate-files", no_argument, NULL, 'y' },
		{ "stopwatch", optional_argument, NULL, OPT_STOPWATCH },
		{ "trace", no_argument, NULL, OPT_TRACE },
		{ NULL, 0, NULL, 0 },
	};
	int only_flat = 0, no_flat = 0, only_graph = 0, no_graph = 0, sum = 0, dump = 0, diff = 0, c;
	char report_opt[32] = ""; /* the last report option given: --dump takes none */
	char not_diff[32] = "";   /* the last option --diff does not take */
	unsigned flags = 0;
	const char *out = NULL;
	struct read_opts o = { 1, NULL, 0, 0 };
	int annotate = 0, no_annotate = 0, exec_count = 0; /* -A, -J, -C */
	struct source_opts srco = { NULL, 0, 0, 0, 0 };
	static const char *src_dirs[256]; /* -I's directories, in argv's strings */
	size_t nsrc_dirs = 0;
	struct spy_opts so = { 1.0, 0, 0, 1, NULL };
	const struct out_format *format = NULL; /* NULL: the text report */
	int cutoff_given = 0, stopwatch = 0, trace = 0;
	const char *watch_funcs = NULL; /* --stopwatch=FUNC,...; NULL: every function */
	char *end;
	opterr = 0;
	int li;
	while ((c = getopt_long(argc, argv, "pPqQbzso:hlA::JC::xI:y", longopts, &li)) != -1) {
		if (c != 'o' && c != 'h' && c != OPT_VERSION && c != OPT_DUMP && c != OPT_FORMAT &&
		    c != OPT_DIFF && c != '?') {
			if (c < 256)
				snprintf(report_opt, sizeof(report_opt), "-%c", c);
			else
				snprintf(report_opt, sizeof(report_opt), "--%s", longopts[li].name);
			if (c != 'z' && c != OPT_DEMANGLE && c != OPT_NO_DEMANGLE)
				snprintf(not_diff, sizeof(not_diff), "%s", report_opt);
		}
		if (c == OPT_FORMAT || c == OPT_DUMP)
			snprintf(not_diff, sizeof(not_diff), "--%s", longopts[li].name);
		switch (c) {
		case 'p':
			only_flat = 1;
			break;
		case 'P':
			no_flat = 1;
			break;
		case 'q':
			only_graph = 1;
			break;
		case 'Q':
			no_graph = 1;
			break;
		case 'b':
			flags |= PRINT_BRIEF;
			break;
		case 'z':
			flags |= PRINT_ZEROS;
			break;
		case 's':
			sum = 1;
			break;
		case 'l': /* -l, --line: line-by-line profile (GNU mode) */
			o.lines = 1;
			break;
		case 'A': /* -A, --annotated-source: gprof's annotated source (GNU mode) */
		case 'C': /* -C, --exec-count: gprof's execution counts (GNU mode) */
			if (optarg) {
				fprintf(stderr, "spinprof: -%c%s: symspecs are not supported with -%c\n", c,
					optarg, c);
				return 2;
			}
			*(c == 'A' ? &annotate : &exec_count) = 1;
			break;
		case 'J': /* -J, --no-annotated-source */
			annotate = 0;
			no_annotate = 1;
			break;
		case 'x': /* -x, --all-lines: with -A */
			srco.all_lines = 1;
			break;
		case 'y': /* -y, --separate-files: -A into FILE-ann */
			srco.separate = 1;
			break;
		case 'I': /* -I, --directory-path=DIRS: where -A looks for sources (':' between) */
			for (char *d = strtok(optarg, ":"); d; d = strtok(NULL, ":")) {
				if (nsrc_dirs == sizeof(src_dirs) / sizeof(src_dirs[0])) {
					fputs("spinprof: -I: more than 256 directories\n", stderr);
					return 2;
				}
				src_dirs[nsrc_dirs++] = d;
			}
			break;
		case 'o':
			out = optarg;
			break;
		case 'h':
			help();
			return 0;
		case OPT_DEMANGLE:
			o.demangle = 1;
			break;
		case OPT_NO_DEMANGLE:
			o.demangle = 0;
			break;
		case OPT_SPY:
			so.sections |= SPY_ALL;
			break;
		case OPT_THREADS:
			so.sections |= SPY_HEADER | SPY_THREADS;
			break;
		case OPT_CUTOFF:
			/* plain decimals only: strtod would also take blanks, signs, hex, inf and nan */
			so.cutoff = strtod(optarg, &end);
			if (!optarg[0] || strspn(optarg, "0123456789.") != strlen(optarg) || *end ||
			    !isfinite(so.cutoff) || so.cutoff > 100) {
				fprintf(stderr, "spinprof: --cutoff=%s: not a percentage from 0 to 100\n",
					optarg);
				return 2;
			}
			cutoff_given = 1;
			break;
		case OPT_FORMAT:
			if (!strcmp(optarg, "text")) {
				format = NULL;
				break;
			}
			if (!(format = out_find(optarg))) {
				fprintf(stderr, "spinprof: --format=%s: no such format; they are: text",
					optarg);
				for (const struct out_format *fm = out_formats; fm->name; fm++)
					fprintf(stderr, ", %s", fm->name);
				fputs("\n", stderr);
				return 2;
			}
			break;
		case OPT_STOPWATCH:
			stopwatch = 1;
			watch_funcs = optarg && optarg[0] ? optarg : NULL;
			break;
		case OPT_TRACE:
			trace = 1;
			break;
		case OPT_DUMP:
			dump = 1;
			break;
		case OPT_DIFF:
			diff = 1;
			break;
		case OPT_VERSION:
			printf("spinprof (spy) %s\n", SPINPROF_VERSION);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	int show_flat = 1, show_graph = 1;
	if (no_annotate)
		annotate = 0;
	if ((annotate || exec_count) && !only_flat && !only_graph)
		show_flat = show_graph = 0; /* as gprof: the outputs asked for, only */
	o.sources = annotate || exec_count;
	srco.dirs = src_dirs;
	srco.ndirs = nsrc_dirs;
	srco.zeros = (flags & PRINT_ZEROS) != 0;
	if (only_flat || only_graph) {
		show_flat = only_flat;
		show_graph = only_graph;
	}
	if (no_flat)
		show_flat = 0;
	if (no_graph)
		show_graph = 0;
	if (sum)
		o.sum_path = "gmon.sum";
	char **ops = argv + optind;
	int nops = argc - optind;
	static char *dflt[] = { "gmon.out" };
	if (diff) {
		if (not_diff[0]) {
			fprintf(stderr, "spinprof: --diff compares two runs: %s does not go with it\n",
				not_diff);
			return 2;
		}
		return diff_main(ops, nops, out, &o, flags);
	}
	if (dump) {
		if (format) {
			fprintf(stderr,
				"spinprof: --dump prints no report: --format=%s does not go with it\n",
				format->name);
			return 2;
		}
		if (report_opt[0]) {
			fprintf(stderr, "spinprof: --dump prints no report: %s does not go with it\n",
				report_opt);
			return 2;
		}
		FILE *f = stdout;
		if (out && !(f = fopen(out, "w"))) {
			fprintf(stderr, "spinprof: %s: cannot write: %m\n", out);
			return 2;
		}
		return finish_output(f, out, nops > 0 ? dump_spy(f, ops, nops) : dump_spy(f, dflt, 1));
	}
	struct prof p;
	prof_init(&p);
	int rc;
	if (nops > 0 && symtab_is_elf(ops[0])) {
		if (sum)
			fputs("spinprof: -s writes spy profiles; ignored in GNU mode\n", stderr);
		o.sum_path = NULL;
		rc = nops > 1 ? read_gnu(&p, ops[0], ops + 1, nops - 1, &o) :
				read_gnu(&p, ops[0], dflt, 1, &o);
	} else {
		rc = nops > 0 ? read_spy(&p, ops, nops, &o) : read_spy(&p, dflt, 1, &o);
	}
	if (rc < 0) {
		prof_release(&p);
		return 2;
	}
	graph_analyse(&p);
	FILE *f = stdout;
	if (out && !(f = fopen(out, "w"))) {
		fprintf(stderr, "spinprof: %s: cannot write: %m\n", out);
		prof_release(&p);
		return 2;
	}
	/* A report can be millions of lines: one thread writes it, so no lock per call, and a big buffer. */
	__fsetlocking(f, FSETLOCKING_BYCALLER);
	setvbuf(f, NULL, _IOFBF, 1 << 20);
	int first = 1;
	so.brief = (flags & PRINT_BRIEF) != 0;
	so.demangle = o.demangle;
	so.what = nops > 0 ? ops[nops > 1 && p.kind == PROF_GNU ? 1 : 0] : dflt[0];
	if (trace && !format) {
		rc = print_trace(f, &p, so.what);
	} else if (stopwatch && !format) {
		rc = print_stopwatch(f, &p, watch_funcs, so.what);
	} else if (format) {
		struct out_opts oo = { so.what,      o.demangle, so.cutoff,
				       cutoff_given, flags,      (so.sections & SPY_THREADS) != 0 };
		rc = format->write(f, &p, &oo);
	} else if (o.lines && p.kind == PROF_SPY) {
		/* -l: the samples' lines (the call graph stays the functions') */
		rc = print_spy_lines(f, &p, o.demangle, so.what);
	} else if (so.sections) {
		/* the Spy report alone */
		if (p.kind != PROF_SPY) {
			fprintf(stderr, "spinprof: %s: the Spy report needs a spy profile, not gcc -pg's\n",
				so.what);
			rc = -1;
		} else {
			rc = print_spy(f, &p, &so);
		}
	} else {
		if (p.kind == PROF_SPY && !only_flat && !only_graph && (show_flat || show_graph))
			print_header(f, &p);
		if (show_flat)
			print_flat(f, &p, flags, &first);
		if (show_graph) {
			print_graph(f, &p, flags, &first);
			print_index(f, &p, flags);
		}
		if (exec_count)
			print_exec_counts(f, &p, (flags & PRINT_ZEROS) != 0, &first);
		if (annotate)
			print_source(f, &p, &srco, &first);
		if (!only_flat && !only_graph && !annotate && !exec_count)
			print_stopwatch_top(f, &p, 10);
		if (!only_flat && !only_graph && !annotate && !exec_count && sp_has_samples(&p)) {
			so.sections = SPY_ALL;
			rc = print_spy(f, &p, &so);
		}
		if (!only_flat && !only_graph)
			print_nodes(f, &p, so.brief);
	}
	prof_release(&p);
	return finish_output(f, out, rc);
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
