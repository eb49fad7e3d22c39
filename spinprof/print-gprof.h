/* gprof's report: the flat profile, the call graph and its index (print-gprof.c). */
#ifndef SPINPROF_PRINT_GPROF_H
#define SPINPROF_PRINT_GPROF_H

#include <stdio.h>

#include "prof.h"

enum print_flags {
	PRINT_FLAT = 1u << 0,
	PRINT_GRAPH = 1u << 1,
	PRINT_BRIEF = 1u << 2,
	PRINT_ZEROS = 1u << 3,     /* -z */
	PRINT_FULL_PATH = 1u << 4, /* -L: the index names a static function's file by its whole path */
	PRINT_BSD = 1u << 5,       /* -T: gprof's traditional (BSD) layout */
};
struct print_opts {
	unsigned flags; /* enum print_flags */
	int width;      /* -w: the index's width (gprof's output_width, 80) */
};
void print_flat(FILE *f, const struct prof *p, const struct print_opts *po, int *first);
void print_graph(FILE *f, const struct prof *p, const struct print_opts *po, int *first);
void print_index(FILE *f, const struct prof *p, const struct print_opts *po);

#endif
