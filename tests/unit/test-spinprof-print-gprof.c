/* unit: spinprof/print-gprof.c spinprof/print-header.c spinprof/graph.c spinprof/prof.c spinprof/u64map.c spinprof/symspec.c spinprof/pcname.c spinprof/waits.c spinprof/symtab.c spinprof/modsym.c spinprof/sorted.c spinprof/linkmap.c common/gmon-io.c common/gmon-encode.c common/gmon-write.c common/gmon-decode.c common/gmon-read.c common/gmon-dump.c common/esc.c -lz */
/* spinprof/print-gprof.c, gprof's layout, on the call graph test-spinprof-graph analyses, built by hand
 * as gprof would read it: main -> a 1, a -> b 3, b -> a 1 (a and b one cycle), main -> c 2, c -> c 5,
 * self times main 1, a 2, b 4, c 8 ticks of 0.01 s (15 in all). Every number of the report follows:
 * the flat profile sorted by self time, c 8/15 = 53.33 %, b 26.67, a 13.33, main 6.67, cumulative
 * 0.08, 0.12, 0.14, 0.15 s; calls without the recursive ones (c 2, b 3, a 2: gprof's convention,
 * fib 1 for 1+21890), self and total ms a call (c 0.08 s / 2 = 40.00 ms; no children outside its
 * cycle or itself); main without calls has blank columns. The call graph: main 100 % (0.01 self, 0.14
 * children: c's 0.08 and the cycle's 0.06), c 53.3 % called 2+5, the cycle 40.0 % (0.06) entered once
 * with 4 calls inside, b 26.7 %, a 13.3 %; main's arcs 2/2 to c and 1/1 into the cycle; and the index
 * by name. Without -b the explanations follow each table; -z adds nothing here (every function ran). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "handgraph.h"
#include "print-gprof.h"
#include "prof.h"

static struct prof *model(void)
{
	struct prof *p = calloc(1, sizeof(*p));
	uint32_t f[4];

	assert_non_null(p);
	prof_init(p);
	hand_graph(p, f);
	p->total_time = 15;
	graph_analyse(p);
	return p;
}

/* the flat profile, the call graph and the index of p with flags, as one string (caller frees) */
static char *report(const struct prof *p, unsigned flags)
{
	struct print_opts po = { flags, 80 };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int first = 1;

	assert_non_null(f);
	print_flat(f, p, &po, &first);
	print_graph(f, p, &po, &first);
	print_index(f, p, &po);
	assert_int_equal(fclose(f), 0);
	return buf;
}

static const char want_brief[] = "Flat profile:\n"
				 "\n"
				 "Each sample counts as 0.01 seconds.\n"
				 "  %   cumulative   self              self     total           \n"
				 " time   seconds   seconds    calls  ms/call  ms/call  name    \n"
				 " 53.33      0.08     0.08        2    40.00    40.00  c\n"
				 " 26.67      0.12     0.04        3    13.33    13.33  b\n"
				 " 13.33      0.14     0.02        2    10.00    10.00  a\n"
				 "  6.67      0.15     0.01                             main\n"
				 "\f\n"
				 "\t\t\tCall graph\n"
				 "\n"
				 "\n"
				 "granularity: each sample hit covers 0 byte(s) for 6.67% of 0.15 seconds\n"
				 "\n"
				 "index % time    self  children    called     name\n"
				 "                                                 <spontaneous>\n"
				 "[1]    100.0    0.01    0.14                 main [1]\n"
				 "                0.08    0.00       2/2           c [2]\n"
				 "                0.06    0.00       1/1           a <cycle 1> [5]\n"
				 "-----------------------------------------------\n"
				 "                                   5             c [2]\n"
				 "                0.08    0.00       2/2           main [1]\n"
				 "[2]     53.3    0.08    0.00       2+5       c [2]\n"
				 "                                   5             c [2]\n"
				 "-----------------------------------------------\n"
				 "[3]     40.0    0.06    0.00       1+4       <cycle 1 as a whole> [3]\n"
				 "                0.04    0.00       3             b <cycle 1> [4]\n"
				 "                0.02    0.00       2             a <cycle 1> [5]\n"
				 "-----------------------------------------------\n"
				 "                                   3             a <cycle 1> [5]\n"
				 "[4]     26.7    0.04    0.00       3         b <cycle 1> [4]\n"
				 "                                   1             a <cycle 1> [5]\n"
				 "-----------------------------------------------\n"
				 "                                   1             b <cycle 1> [4]\n"
				 "                0.06    0.00       1/1           main [1]\n"
				 "[5]     13.3    0.02    0.00       2         a <cycle 1> [5]\n"
				 "                                   3             b <cycle 1> [4]\n"
				 "-----------------------------------------------\n"
				 "\f\n"
				 "Index by function name\n"
				 "\n"
				 "   [5] a                       [2] c                       [3] <cycle 1>\n"
				 "   [4] b                       [1] main\n";

/* line by line, so that a failure names the first line that differs */
static void same_text(const char *got, const char *want)
{
	for (unsigned line = 1;; line++) {
		const char *ge = strchr(got, '\n'), *we = strchr(want, '\n');
		size_t gl = ge ? (size_t)(ge - got) : strlen(got),
		       wl = we ? (size_t)(we - want) : strlen(want);

		if (gl != wl || memcmp(got, want, gl))
			fail_msg("line %u: got \"%.*s\", want \"%.*s\"", line, (int)gl, got, (int)wl, want);
		if (!ge || !we) {
			if (ge || we)
				fail_msg("line %u: one text ends before the other", line);
			return;
		}
		got = ge + 1;
		want = we + 1;
	}
}

static void test_brief(void **state)
{
	struct prof *p = model();
	char *got = report(p, PRINT_BRIEF);

	(void)state;
	same_text(got, want_brief);
	free(got);
	/* -z: the same, since every function has calls or time */
	got = report(p, PRINT_BRIEF | PRINT_ZEROS);
	same_text(got, want_brief);
	free(got);
	prof_release(p);
	free(p);
}

/* without -b: the same tables, each followed by the explanation of its columns */
static void test_blurbs(void **state)
{
	struct prof *p = model();
	char *got = report(p, 0);
	const char *flat = strstr(got, " 53.33      0.08     0.08        2    40.00    40.00  c\n");
	const char *graph = strstr(got, "[2]     53.3    0.08    0.00       2+5       c [2]\n");
	const char *flat_blurb = strstr(got, "Columns of the flat profile:");
	const char *graph_blurb = strstr(got, "Reading the call graph:");

	(void)state;
	assert_non_null(flat);
	assert_non_null(graph);
	assert_non_null(flat_blurb);
	assert_non_null(graph_blurb);
	assert_true(flat < flat_blurb && flat_blurb < graph && graph < graph_blurb);
	free(got);
	prof_release(p);
	free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_brief),
		cmocka_unit_test(test_blurbs),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
