/* The flame graph (out-svg.c), also drawn inside the HTML page (out-html.c). */
#ifndef SPINPROF_OUT_SVG_H
#define SPINPROF_OUT_SVG_H

#include <stdio.h>

#include "out-folded.h"

enum svg_flags {
	SVG_ICICLE = 1u << 0, /* roots at the top, stacks growing down */
	SVG_INLINE = 1u << 1, /* an <svg> element for an HTML page: no XML declaration */
};

/* A box of the flame graph: a frame of consecutive stacks with the same frames down to it. */
struct box {
	const char *name;
	int mod;        /* enum fold_mod or a module index */
	uint32_t depth; /* 0: the root, "all" */
	double x, w;    /* in weight: from the left, wide */
};

/* The boxes of fo's sorted stacks, parents before their children (a frame opens where a stack's
 * frames first differ from the previous stack's, and closes where they next differ); the root
 * first. Sets *nboxes and the deepest stack's depth; the caller frees the array. */
struct box *svg_layout(const struct fold *fo, size_t *nboxes, uint32_t *maxdepth);
/* Draw fo's stacks as a flame graph titled title, with its script (search, zoom, tooltips). */
void svg_flame(FILE *f, const struct fold *fo, const char *title, unsigned flags);

#endif
