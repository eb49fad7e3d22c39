/* The readers: spy profiles (summed) and glibc's gmon.out with its executable. */
#ifndef SPINPROF_READ_H
#define SPINPROF_READ_H

#include "prof.h"

struct linkmap;
struct symspecs;

/* Options the readers need. */
struct read_opts {
	int demangle;
	const char *sum_path; /* -s: write the summed profile here, or NULL */
	int no_static;        /* -a: GNU mode leaves static functions out, as gprof */
	int only_funcs;       /* -D: GNU mode takes only symbols typed as functions */
	int static_calls;     /* -c: GNU mode adds the calls found in the code, count 0 */
	int file_info;        /* -i: GNU mode prints what each gmon.out holds */
	int need_source;      /* a symspec names files or lines: every function's source */
	const char *prog;     /* spy profile with PROG first: PROG's symbols, same build-id */
	int lines;            /* -l: GNU mode's symbols are source lines, as gprof's line granularity */
	int sources;          /* -A, -C: every symbol's source file and line (GNU) */
	int full_path;        /* -L: those names and -l's with the file's whole path */
	int inline_names;     /* --inline-file-names: GNU mode's names "NAME (FILE:LINE)", as gprof's */
	const struct symspecs *specs; /* -s (GNU): the arcs -k and -q/-Q FROM/TO keep out of gmon.sum */
	const struct linkmap *map;    /* -R: GNU mode's functions named by object file, as gprof's */
	const char *ext_syms;         /* -S: GNU mode's symbols from this file (gprof's format), not PROG's */
};

/* Read spy profiles paths[0..n) into p, summed. On error prints one line and returns -1. */
int read_spy(struct prof *p, char **paths, int n, const struct read_opts *o);

/* Read glibc gmon.out files paths[0..n) for the executable prog. Errors as read_spy. */
int read_gnu(struct prof *p, const char *prog, char **paths, int n, const struct read_opts *o);

#endif
