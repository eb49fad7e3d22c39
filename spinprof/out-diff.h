/* spinprof --diff. */
#ifndef SPINPROF_OUT_DIFF_H
#define SPINPROF_OUT_DIFF_H

#include <stdio.h>

#include "out.h"

/* One run to compare: its analysed model, its profile's path, and for GNU data its program. */
struct df_run {
	struct prof *p;
	const char *path;
	const char *prog; /* NULL for a spy profile */
};

/* Print the comparison of old and new to f (flags: PRINT_ZEROS also lists functions never called
 * and without time). Returns 0. */
int diff_write(FILE *f, const struct df_run *old, const struct df_run *new, unsigned flags);

#endif
