/* gprof's suggested orderings (-r, -R): functions, or object files, placed by the call arcs. */
#ifndef SPINPROF_PRINT_ORDER_H
#define SPINPROF_PRINT_ORDER_H

#include <stdio.h>

#include "prof.h"

/* -r: gprof's function ordering of p's functions, one raw name a line (after graph_analyse). */
void print_function_order(FILE *f, const struct prof *p);

/* -R MAP: gprof's link order of the object files MAP (gprof's format: "FILE.o:" then names) maps
 * p's functions to, one a line. Returns 0, or -1 after one line about MAP. */
int print_file_order(FILE *f, const struct prof *p, const char *map);

#endif
