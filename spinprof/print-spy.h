/* Cedar Spy's report: the header, the threads, the dominator tree of disjoint procedure sets, lines,
 * PCs and modules (print-spy.c). */
#ifndef SPINPROF_PRINT_SPY_H
#define SPINPROF_PRINT_SPY_H

#include <stdio.h>

#include "prof.h"
#include "spy-model.h"

enum spy_sections {
	SPY_HEADER = 1u << 0,
	SPY_THREADS = 1u << 1,
	SPY_TREE = 1u << 2,
	SPY_LINES = 1u << 3,
	SPY_PCS = 1u << 4,
	SPY_MODULES = 1u << 5,
	SPY_ALL = (1u << 6) - 1,
};
struct spy_opts {
	double cutoff; /* percent */
	unsigned sections;
	int brief; /* no explanations */
	int demangle;
	const char *what; /* the profile's name, for the error line */
};
/* Print the Spy report; returns 0, or -1 (after one line on stderr) when there is nothing to
 * weigh. */
int print_spy(FILE *f, const struct prof *p, const struct spy_opts *o);
struct dom_row;
/* The Spy tree of m as the report prints it: the rows of its procedures' dominator tree (node v is
 * procedure v - 1), those weighing at least cutoff percent and all above them, in print order.
 * Returns the number of rows; *rows is malloc()ed. */
size_t spy_tree_rows(const struct sp_model *m, double cutoff, struct dom_row **rows);

#endif
