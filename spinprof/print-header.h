/* The spy run's header above the report: the run, the profiler's share and the Multics self-check
 * (print-header.c). */
#ifndef SPINPROF_PRINT_HEADER_H
#define SPINPROF_PRINT_HEADER_H

#include <stdio.h>

#include "prof.h"

void print_header(FILE *f, const struct prof *p);
/* The header's one statement of the profiler's share (prof_cost), the Spy report's too. */
void print_profiler(FILE *f, const struct prof *p);
/* Its "duration:" line (the Spy report's too). */
void print_duration(FILE *f, const struct prof *p);
/* A spy profile whose cpu or wall ticks never came: ": N ticks were expected and none arrived
 * (why)" into buf, and 1; else 0. */
int no_ticks(const struct prof *p, char *buf, size_t n);

#endif
