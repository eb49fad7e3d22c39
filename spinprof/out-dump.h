/* spinprof --dump. */
#ifndef SPINPROF_OUT_DUMP_H
#define SPINPROF_OUT_DUMP_H

#include <stdio.h>

/* Print the spy profiles paths[0..n) to f, each as gmon_dump_file() prints it, one after the other.
 * At the first that cannot be read, prints one line "spinprof: FILE: what is wrong" and returns -1. */
int dump_spy(FILE *f, char **paths, int n);

#endif
