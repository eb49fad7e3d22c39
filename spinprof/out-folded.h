/* The profile's stacks merged and sorted by their frames' names: the folded format's lines, and the
 * flame graphs' boxes (out-svg.c, out-html.c) drawn from the same stacks. */
#ifndef SPINPROF_OUT_FOLDED_H
#define SPINPROF_OUT_FOLDED_H

#include "out.h"
#include "spy-model.h"

/* A frame's kind for its colour: a procedure's module index, or one of these. */
enum fold_mod {
	FOLD_NOMOD = -1,  /* a procedure in no module (<unknown>, <profiler>) */
	FOLD_THREAD = -2, /* a thread as root frame (--threads) */
};

/* One distinct stack: its frames (root first) at fold.names[at...at + depth), their colour kinds at
 * fold.mods[...], and its weight. */
struct fold_stack {
	double w;
	uint32_t depth;
	size_t at;
};

struct fold {
	struct sp_model m;
	const char *unit; /* what a weight counts: m.unit */
	double total;     /* all stacks' weight */
	struct fold_stack *stacks;
	size_t n;
	const char **names;
	int *mods;
	char **thread_names; /* per m.threads, with --threads */
};

/* Build fo from p's samples (or a time-mode profile's exact cycles). Returns 0, or -1 when p has no
 * stacks, with *why saying so (fo then needs no release). */
int fold_build(struct fold *fo, const struct prof *p, const struct out_opts *o, const char **why);
/* fold_build, or one line "spinprof: FILE: no stacks: why" on stderr and -1. */
int fold_build_or_say(struct fold *fo, const struct prof *p, const struct out_opts *o);
/* Free what fo owns. */
void fold_release(struct fold *fo);
/* A weight as folded prints it: an integer when it is one, else up to 15 significant digits. */
void fold_print_w(FILE *f, double w);

#endif
