/* gprof's suggested orderings (-r, -R): functions, or object files, placed by the call arcs. */
#ifndef SPINPROF_PRINT_ORDER_H
#define SPINPROF_PRINT_ORDER_H

#include <stdio.h>

#include "prof.h"

struct symspec_copies;
/* -r: gprof's function ordering of p's functions, one raw name a line (after graph_analyse); copies:
 * gprof's copies of the FROM/TO symspecs' functions and their arcs, placed too (NULL: none). */
void print_function_order(FILE *f, const struct prof *p, const struct symspec_copies *copies);

struct linkmap;
/* -R MAP: gprof's link order of the object files of map, whose first functions stand for them in
 * p (GNU mode, read with the map), one a line; copies as for print_function_order. */
void print_file_order(FILE *f, const struct prof *p, const struct linkmap *map,
		      const struct symspec_copies *copies);
/* -R MAP for a spy profile: its functions grouped into the object files the map names them in,
 * the calls between two files summed and sorted by count, then placed as print_file_order does. */
void print_file_order_spy(FILE *f, const struct prof *p, const struct linkmap *map);

#endif
