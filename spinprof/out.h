/* spinprof's output formats (--format=NAME): each is one file, out-NAME.c, that only reads the analysed
 * model (prof.h, after graph_analyse) and writes one format. The text report is print-*.c. */
#ifndef SPINPROF_OUT_H
#define SPINPROF_OUT_H

#include <stdio.h>

#include "print-gprof.h" /* enum print_flags */
#include "prof.h"

struct out_opts {
	const char *what; /* the profile's name (the first operand), for messages */
	int demangle;
	double cutoff;    /* --cutoff=PCT, percent: the formats that prune hide what weighs less */
	int cutoff_given; /* --cutoff was on the command line (else cutoff is the text report's 1) */
	unsigned flags;   /* PRINT_BRIEF, PRINT_ZEROS */
	int threads;      /* --threads: the stack formats put each thread as its stacks' root frame */
};

/* One format: its name as --format takes it, the writer, and a line for --help. write returns 0, or
 * -1 after one line "spinprof: FILE: what is wrong" on stderr. */
struct out_format {
	const char *name;
	int (*write)(FILE *f, const struct prof *p, const struct out_opts *o);
	const char *help;
};

/* The formats other than text, ended by a NULL name. */
extern const struct out_format out_formats[];

/* The format called name, or NULL. */
const struct out_format *out_find(const char *name);

/* 1 when p has times (measured cycles, sampled ticks, or GNU's histogram), 0 when it has only
 * calls; and the unit of its times: "cycles", "ticks", or "calls" without times. */
int out_has_times(const struct prof *p);
const char *out_unit(const struct prof *p);

/* The writers of out_formats. */
int out_callgrind(FILE *f, const struct prof *p, const struct out_opts *o);
int out_dot(FILE *f, const struct prof *p, const struct out_opts *o);
int out_json(FILE *f, const struct prof *p, const struct out_opts *o);
int out_pprof(FILE *f, const struct prof *p, const struct out_opts *o);
int out_chrome(FILE *f, const struct prof *p, const struct out_opts *o);
int out_folded(FILE *f, const struct prof *p, const struct out_opts *o); /* out-folded.c */
int out_svg(FILE *f, const struct prof *p, const struct out_opts *o);    /* out-svg.c */
int out_icicle(FILE *f, const struct prof *p, const struct out_opts *o); /* out-svg.c */
int out_html(FILE *f, const struct prof *p, const struct out_opts *o);   /* out-html.c */

#endif
