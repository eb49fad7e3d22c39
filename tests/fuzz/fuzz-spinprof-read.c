/* fuzz: spinprof/read-spy.c spinprof/read-gnu.c spinprof/prof.c spinprof/graph.c spinprof/symtab.c spinprof/print-gprof.c spinprof/print-header.c common/gmon-io.c -lbfd -lelf -lz */
/* libFuzzer harness for spinprof's whole path on a spy profile: read_spy (decode, symbols, summing),
 * graph_analyse (cycles, times) and every report, printed to /dev/null. A refusal is one line on stderr
 * and -1; anything else must neither crash nor trip the sanitizers. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "prof.h"
#include "read.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char path[64];
static FILE *null;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct read_opts o = { 0 };
	struct prof p;
	char *paths[1] = { path };
	FILE *f;
	int first = 1;

	if (!path[0]) {
		snprintf(path, sizeof(path), "/tmp/spy-fuzz-read.%ld", (long)getpid());
		null = fopen("/dev/null", "w");
	}
	f = fopen(path, "wb");
	if (!f || fwrite(data, 1, size, f) != size || fclose(f))
		abort();
	prof_init(&p);
	if (read_spy(&p, paths, 1, &o) == 0) {
		graph_analyse(&p);
		print_header(null, &p);
		print_flat(null, &p, PRINT_FLAT | PRINT_GRAPH, &first);
		print_graph(null, &p, PRINT_FLAT | PRINT_GRAPH, &first);
		print_index(null, &p, PRINT_FLAT | PRINT_GRAPH);
	}
	prof_release(&p);
	return 0;
}
