/* -d[N]: spinprof's debugging output, the analysed model as the report is about to be made from
 * it, one fact a line before the report, by category bits as gprof's -d (whose own output traces
 * its internals, and is not spinprof's to copy). */
#include <inttypes.h>

#include "esc.h"
#include "print-debug.h"

static const char *fname(const struct prof *p, uint32_t i)
{
	if (i == PROF_NONE || i >= p->nr)
		return "?";
	return p->items[i].name ? esc_text(p->items[i].name) : "<cycle>";
}

void print_debug(FILE *f, const struct prof *p, unsigned what)
{
	double hz = p->hz > 0 ? p->hz : 1;
	if (what & DEBUG_PROFILE) {
		fprintf(f, "[profile] kind=%s profiles=%d hz=%.17g total=%.6f s print_time=%.6f s",
			p->kind == PROF_SPY ? "spy" : "gnu", p->kind == PROF_SPY ? p->nprofiles : 1, p->hz,
			p->total_time / hz, p->print_time / hz);
		fprintf(f, " functions=%zu arcs=%zu cycles=%zu", p->nsyms, p->narcs, p->ncycles);
		if (p->kind == PROF_GNU)
			fprintf(f, " granularity=%ld bytes", p->granularity);
		else
			fprintf(f, " measured=%d sampled=%d no_arcs=%d stacks=%zu", p->measured, p->sampled,
				p->no_arcs, p->nstacks);
		fputc('\n', f);
	}
	if (what & DEBUG_SYMBOLS)
		for (size_t i = 0; i < p->nsyms; i++) {
			const struct prof_func *s = &p->items[i];
			/* a spy profile's addresses are the run's: not shown (they mean nothing after it) */
			fprintf(f, "[symbol] %zu ", i);
			if (p->kind == PROF_GNU)
				fprintf(f, "%#" PRIx64 "-%#" PRIx64 " ", s->addr, s->end);
			fprintf(f,
				"%s%s%s calls=%" PRIu64 " self_calls=%" PRIu64 " self=%.6f s children=%.6f s",
				s->name ? esc_text(s->name) : "?", s->is_static ? " static" : "",
				s->is_func ? "" : " not-function", s->ncalls, s->self_calls, s->time / hz,
				s->child_time / hz);
			if (s->file)
				fprintf(f, " at %s:%u", esc_text(s->file), s->line);
			if (s->cyc)
				fprintf(f, " cycle=%d", s->cyc);
			if (s->index)
				fprintf(f, " index=%u", s->index);
			fputc('\n', f);
		}
	if (what & DEBUG_ARCS)
		for (size_t i = 0; i < p->narcs; i++) {
			const struct prof_arc *a = &p->arcs[i];
			fprintf(f, "[arc] %s -> %s count=%" PRIu64 " self=%.6f s children=%.6f s\n",
				fname(p, a->parent), fname(p, a->child), a->count, a->time / hz,
				a->child_time / hz);
		}
	if (what & DEBUG_CYCLES)
		for (size_t c = p->nsyms; c < p->nsyms + p->ncycles; c++) {
			const struct prof_func *h = &p->items[c];
			fprintf(f, "[cycle] %d calls=%" PRIu64 " internal=%" PRIu64 " members:", h->cyc,
				h->ncalls, h->self_calls);
			for (uint32_t m = h->next; m != PROF_NONE && m < p->nsyms; m = p->items[m].next)
				fprintf(f, " %s", fname(p, m));
			fputc('\n', f);
		}
}
