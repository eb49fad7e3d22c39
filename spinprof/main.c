/* spinprof: options as gprof's, then read (spy profiles, or an executable and glibc's gmon.out),
 * analyse, and print the header, flat profile, call graph and index, then the Spy report. */
#include <getopt.h>
#include <math.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>

#include "out-dump.h"
#include "out.h"
#include "read.h"
#include "samples.h"
#include "symtab.h"

#define SPINPROF_VERSION "0.1"

static void usage(FILE *f)
{
	fputs("usage: spinprof [-pPqQbzsh] [--[no-]demangle] [--spy] [--threads] [--cutoff=PCT] [--version]\n"
	      "                [--stopwatch[=FUNC,...]] [--trace]\n"
	      "                [--format=NAME] [-o FILE] [PROG] [gmon.out...]\n"
	      "       spinprof --dump [-o FILE] [gmon.out...]\n",
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
	      "  --spy          only the Spy report (printed after the call graph when there are samples)\n"
	      "  --threads      only the Spy report's header and threads\n"
	      "  --cutoff=PCT   the Spy report hides what weighs less than PCT % (default 1)\n"
	      "  --stopwatch[=FUNC,...]  only the stopwatch: count, min, avg, max, stddev and\n"
	      "                 log2 histogram of each function's outermost calls (mode time)\n"
	      "  --trace        only the traces (SPYRT_TRACE's calls), in time order across threads\n"
	      "  --format=NAME  write the profile in format NAME instead of the text report:\n",
	      stdout);
	for (const struct out_format *fm = out_formats; fm->name; fm++)
		fprintf(stdout, "                 %-10s %s\n", fm->name, fm->help);
	fputs("  --dump         no report: every record of each spy profile as text, one fact a line\n"
	      "                 (docs/FORMAT.md, \"Text dump\"); only -o goes with it\n"
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
		{ "stopwatch", optional_argument, NULL, OPT_STOPWATCH },
		{ "trace", no_argument, NULL, OPT_TRACE },
		{ NULL, 0, NULL, 0 },
	};
	int only_flat = 0, no_flat = 0, only_graph = 0, no_graph = 0, sum = 0, dump = 0, c;
	char report_opt[32] = ""; /* the last report option given: --dump takes none */
	unsigned flags = 0;
	const char *out = NULL;
	struct read_opts o = { 1, NULL };
	struct spy_opts so = { 1.0, 0, 0, 1, NULL };
	const struct out_format *format = NULL; /* NULL: the text report */
	int cutoff_given = 0, stopwatch = 0, trace = 0;
	const char *watch_funcs = NULL; /* --stopwatch=FUNC,...; NULL: every function */
	char *end;
	opterr = 0;
	int li;
	while ((c = getopt_long(argc, argv, "pPqQbzso:h", longopts, &li)) != -1) {
		if (c != 'o' && c != 'h' && c != OPT_VERSION && c != OPT_DUMP && c != OPT_FORMAT &&
		    c != '?') {
			if (c < 256)
				snprintf(report_opt, sizeof(report_opt), "-%c", c);
			else
				snprintf(report_opt, sizeof(report_opt), "--%s", longopts[li].name);
		}
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
		case OPT_VERSION:
			printf("spinprof (spy) %s\n", SPINPROF_VERSION);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	int show_flat = 1, show_graph = 1;
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
		struct out_opts oo = { so.what, o.demangle, so.cutoff, cutoff_given, flags };
		rc = format->write(f, &p, &oo);
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
		if (p.kind == PROF_SPY && !only_flat && !only_graph)
			print_header(f, &p);
		if (show_flat)
			print_flat(f, &p, flags, &first);
		if (show_graph) {
			print_graph(f, &p, flags, &first);
			print_index(f, &p, flags);
		}
		if (!only_flat && !only_graph)
			print_stopwatch_top(f, &p, 10);
		if (!only_flat && !only_graph && sp_has_samples(&p)) {
			so.sections = SPY_ALL;
			rc = print_spy(f, &p, &so);
		}
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
