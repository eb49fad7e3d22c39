/* Code without hooks as rows of the flat profile and the call graph (issue 23): where a spy
 * profile's CPU samples caught the PC in no instrumented function (a library's, or code of the
 * program built without the plugin), the function holding it becomes a function of the model, named
 * as the Spy report names it with its module after it, "re_search_internal [libc.so.6]", called from
 * the instrumented function innermost on those samples' stacks. Its time is carved from that caller's
 * self time by the samples: in mode time the caller's measured self time split in the proportion of
 * its own samples that fell in each such function, in modes arcs and count the samples themselves.
 * Such a row has no call count (the hooks never saw a call) and the self-check skips it. */
#ifndef SPINPROF_LIBROWS_H
#define SPINPROF_LIBROWS_H

#include <stddef.h>
#include <stdint.h>

#include "prof.h"

struct pcname;

struct librows {
	uint64_t *at; /* per sampled stack, threads and stacks in the profile's order: its row's
		       * runtime start address, 0 none */
	size_t n;
};

/* Find p's rows (after its functions are in, sorted by address, each range's end set) in its cpu or
 * wall samples: stacks with a frame (mode count has none: any stack) whose PC is in no instrumented
 * function but in a module; add them to p (sorted again, ends set) and note each stack's row in r. */
void librows_find(struct prof *p, struct pcname *names, struct librows *r, int demangle);
/* The row of the k-th stack (the order of librows_find), or PROF_NONE. */
uint32_t librows_row(const struct prof *p, const struct librows *r, size_t k);
/* Mode time (after the hook correction): each row's time carved from its callers' self times, on an
 * arc from each caller with no count. */
void librows_carve(struct prof *p, const struct librows *r);
/* Mode arcs: the arcs, with no count, from each row's callers, for the stacks to weigh. */
void librows_arcs(struct prof *p, const struct librows *r);
/* Free what r owns. */
void librows_release(struct librows *r);

#endif
