/* gprof's -A (annotated source) and -C (execution counts) for GNU mode. */
#ifndef SPINPROF_PRINT_SOURCE_H
#define SPINPROF_PRINT_SOURCE_H

#include <stdio.h>

#include "prof.h"

struct source_opts {
	const char *const *dirs; /* -I: where to look for sources not found by their names */
	size_t ndirs;
	int separate;   /* -y: each file's annotation into FILE-ann in the current directory */
	int all_lines;  /* -x */
	int zeros;      /* -z: also files whose functions were never called */
	int table_len;  /* -t: the busiest lines listed (gprof's default 10) */
	long min_count; /* -m: a count below it is shown as ##### (gprof's default 1) */
};

/* The annotated source of every file of p's functions; *first as print_flat's. */
void print_source(FILE *f, const struct prof *p, const struct source_opts *o, int *first);
/* -C: each function's calls, "FILE:LINE: (NAME:0xADDR) N executions", by file and line. */
void print_exec_counts(FILE *f, const struct prof *p, int zeros, int *first);

#endif
