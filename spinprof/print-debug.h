/* -d[N]: the analysed model printed for debugging, by category. */
#ifndef SPINPROF_PRINT_DEBUG_H
#define SPINPROF_PRINT_DEBUG_H

#include <stdio.h>

#include "prof.h"

/* -d's N: a sum of these (-d alone: all) */
enum debug_what {
	DEBUG_PROFILE = 1u << 0, /* what was read: kind, rate, totals, counts */
	DEBUG_SYMBOLS = 1u << 1, /* each function: (GNU) address range, name, file, calls, times, cycle */
	DEBUG_ARCS = 1u << 2,    /* each arc: caller, callee, count, propagated times */
	DEBUG_CYCLES = 1u << 3,  /* each cycle found: calls into it, among its members, its members */
	DEBUG_ALL = 0xfu,
};

/* Print what of p (after graph_analyse), one fact a line, each "[category] ...". */
void print_debug(FILE *f, const struct prof *p, unsigned what);

#endif
