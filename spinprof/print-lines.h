/* spinprof -l for spy profiles: a line-by-line flat profile from the samples. */
#ifndef SPINPROF_PRINT_LINES_H
#define SPINPROF_PRINT_LINES_H

#include <stdio.h>

#include "prof.h"

/* The flat profile of p's CPU or wall samples by source line, "FUNC (FILE:LINE)", heaviest first.
 * Returns 0, or -1 (after one line "spinprof: WHAT: ...") when p has no such samples. */
int print_spy_lines(FILE *f, const struct prof *p, int demangle, const char *what);

#endif
