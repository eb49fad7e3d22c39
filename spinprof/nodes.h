/* Mesa's nodes and legs as spinprof shows them: the NODES records of every thread and file summed
 * by node name and by leg (from name, to name). */
#ifndef SPINPROF_NODES_H
#define SPINPROF_NODES_H

#include <stdio.h>

#include "prof.h"

struct nm_hist {
	struct gmon_nhist h; /* buckets owned */
	int mixed;           /* records with another histogram for it were left out */
};

struct nm_node {
	const char *name, *file; /* point into the profile */
	uint32_t line;
	uint64_t hits, nvalues, sum, min, max;
	struct nm_hist hist;
};

struct nm_leg {
	uint32_t from, to; /* indices into nm.nodes */
	uint64_t count, total_ns, min_ns, max_ns, ignored, open;
	uint32_t nthreads; /* threads that ran it */
	struct nm_hist hist;
};

struct nodes_model {
	struct nm_node *nodes;
	size_t nnodes;
	struct nm_leg *legs;
	size_t nlegs;
	uint32_t track, add; /* as the first record says */
	int thread_only;
	uint64_t dropped;
};

/* Build m from p's NODES records; 0, or -1 when there are none. */
int nodes_model_build(struct nodes_model *m, const struct prof *p);
void nodes_model_release(struct nodes_model *m);

#endif
