/* SystemTap's stopwatch of functions: --stopwatch, and the default report's short table
 * (print-stopwatch.c). */
#ifndef SPINPROF_PRINT_STOPWATCH_H
#define SPINPROF_PRINT_STOPWATCH_H

#include <stdio.h>

#include "prof.h"

/* The stopwatch of the functions named in funcs (comma-separated; NULL: every
 * function with outermost calls, by total time), each a line of statistics and a SystemTap
 * @hist_log histogram; 0, or -1 after one line on stderr (what names the profile). */
int print_stopwatch(FILE *f, const struct prof *p, const char *funcs, const char *what);
/* The default report's short table: the n functions of most total time, count, min, avg, max and
 * standard deviation of their outermost calls. Nothing without stopwatches. */
void print_stopwatch_top(FILE *f, const struct prof *p, int n);

#endif
