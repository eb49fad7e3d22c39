/* --trace: the runtime's traces of calls, faults and signals (print-trace.c). */
#ifndef SPINPROF_PRINT_TRACE_H
#define SPINPROF_PRINT_TRACE_H

#include <stdio.h>

#include "prof.h"

/* The traces (SPYRT_TRACE's calls; faults; signals) in time order across threads,
 * after each trace's count of events and of those it dropped; 0, or -1 after one line on stderr. */
int print_trace(FILE *f, const struct prof *p, const char *what);

#endif
