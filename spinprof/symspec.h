/* gprof's symspecs (-p/-P/-q/-Q/-n/-N/-A/-J/-C/-Z NAME, -e/-E/-f/-F, -k FROM/TO): which functions each listing
 * shows, which arcs count and which functions' time propagates, as gprof's sym_ids.c decides. */
#ifndef SPINPROF_SYMSPEC_H
#define SPINPROF_SYMSPEC_H

#include "prof.h"

/* gprof's tables; a function's prof_func.spec has bit 1 << table set when a spec of it matches */
enum symspec_table {
	SYMSPEC_INCL_GRAPH,
	SYMSPEC_EXCL_GRAPH,
	SYMSPEC_INCL_ARCS,
	SYMSPEC_EXCL_ARCS,
	SYMSPEC_INCL_FLAT,
	SYMSPEC_EXCL_FLAT,
	SYMSPEC_INCL_TIME,
	SYMSPEC_EXCL_TIME,
	SYMSPEC_INCL_ANNO, /* -A SYMSPEC: the annotated source's files */
	SYMSPEC_EXCL_ANNO, /* -J SYMSPEC */
	SYMSPEC_INCL_EXEC, /* -C SYMSPEC: the execution counts' functions */
	SYMSPEC_EXCL_EXEC, /* -Z SYMSPEC */
	SYMSPEC_NTABLES
};

/* One side of a spec: FILE:FUNC, FILE:LINE, FILE, FUNC or LINE (each part NULL/0 when absent). */
struct symspec_pat {
	char *file, *name;
	uint32_t line;
	int no_file; /* a file part that names no file (gprof's <non-existent-file>): matches nothing */
};

struct symspec {
	enum symspec_table table;
	struct symspec_pat left, right;
	int has_right;
};

struct symspecs {
	struct symspec *items;
	size_t nr, alloc;
};

/* Add spec (gprof's syntax, "SPEC[/SPEC]") to table. */
void symspecs_add(struct symspecs *s, const char *spec, enum symspec_table table);
/* 1 when some spec names a file or a line: the readers then find every function's source. */
int symspecs_need_source(const struct symspecs *s);
/* Mark p's functions (prof_func.spec, prof.spec_used) and drop the arcs -k and -q/-Q FROM/TO leave
 * out (with their calls); in GNU mode, time outside the flat profile's functions is dropped as
 * gprof drops it. Before graph_analyse. */
void symspecs_apply(const struct symspecs *s, struct prof *p);
/* f in the flat profile: gprof's INCL_FLAT, or that table empty and f not in EXCL_FLAT */
int symspecs_in_flat(const struct prof *p, const struct prof_func *f);
/* f in a listing of tables incl and excl: in incl, or incl empty and f not in excl (gprof's rule for
 * -A/-J and -C/-Z) */
int symspecs_in(const struct prof *p, const struct prof_func *f, enum symspec_table incl,
		enum symspec_table excl);
/* What gprof's sym_id_parse leaves in its arcs[] for -r: for each FROM/TO spec (the last given
 * first), a copy of the first function of each run of consecutive functions (by address) a side
 * matches, chained from the last run's copy to the first's, and an arc of count 0 from each FROM copy
 * to each TO copy, in the chains' order. */
struct symspec_copies {
	uint32_t *sym, *next; /* per copy: the function it copies, the next copy of its side's chain */
	size_t n, alloc;
	uint32_t *from, *to; /* per arc: its copies */
	size_t narcs, arcs_alloc;
};
/* Fill c (zeroed) from s and p's functions (after symspecs_apply). */
void symspecs_copies(const struct symspecs *s, const struct prof *p, struct symspec_copies *c);
void symspec_copies_release(struct symspec_copies *c);
void symspecs_release(struct symspecs *s);

#endif
