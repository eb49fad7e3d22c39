/* The report's first part for spy profiles: the run, the profiler's own cost, what was lost, and
 * the Multics self-check (each function's add-one count against the calls its arcs recorded). */
#include <string.h>

#include "prof.h"
#include "spy-abi.h"

void print_header(FILE *f, const struct prof *p)
{
	const struct gmon_header *h = &p->spy.hdr;
	fprintf(f, "spy profile: %d file%s, %s\n", p->nprofiles, p->nprofiles == 1 ? "" : "s", h->tool);
	fputs("command line:", f);
	for (uint32_t i = 0; i < h->argc; i++)
		fprintf(f, " %s", h->argv[i]);
	fputc('\n', f);
	fprintf(f, "duration: %.6f seconds\n", p->duration_s);
	fprintf(f, "mode: %s", gmon_mode_name(h->mode));
	if (h->tsc_hz)
		fprintf(f, " (time stamps at %llu Hz%s)", (unsigned long long)h->tsc_hz,
			h->flags & GMON_HDR_TSC_INVARIANT ? ", invariant" : "");
	fputc('\n', f);
	fprintf(f, "threads: %u\n", p->spy.nthreads);
	uint64_t calls = 0;
	for (size_t i = 0; i < p->nsyms; i++)
		calls += p->items[i].arcs_in;
	double per = p->hook_out + p->hook_in;
	double total = h->tsc_hz ? (double)calls * per / (double)h->tsc_hz : 0;
	/* the hooks of several threads add up past the run's real time: their share is of the
	 * process's CPU time when the file has it, else of the threads' summed lifetimes */
	double base = p->duration_s;
	char of[96] = "the run";
	if (p->spy.nthreads > 1 && p->spy.sampling && p->spy.sampling->cpu_ns) {
		base = (double)p->spy.sampling->cpu_ns / 1e9;
		snprintf(of, sizeof(of), "the run's %.6f CPU seconds", base);
	} else if (p->spy.nthreads > 1) {
		base = 0;
		for (uint32_t i = 0; i < p->spy.nthreads; i++) {
			const struct gmon_thread *t = &p->spy.threads[i];
			if (t->end_ns > t->start_ns)
				base += (double)(t->end_ns - t->start_ns) / 1e9;
		}
		snprintf(of, sizeof(of), "the %u threads' %.6f seconds together", p->spy.nthreads, base);
	}
	fprintf(f,
		"hook overhead: %.1f cycles per call (%.1f caller + %.1f callee), %llu calls, %.6f seconds total, "
		"%.2f%% of %s\n",
		per, p->hook_out, p->hook_in, (unsigned long long)calls, total,
		base > 0 ? 100.0 * total / base : 0.0, of);
	fprintf(f,
		"dropped: arcs %llu, function times %llu, frames %llu; abandoned %llu, unmatched %llu, "
		"slots lost %llu, unregistered %llu\n",
		(unsigned long long)h->dropped_arcs, (unsigned long long)h->dropped_funcs,
		(unsigned long long)h->dropped_frames, (unsigned long long)h->abandoned,
		(unsigned long long)h->unmatched, (unsigned long long)h->slots_lost,
		(unsigned long long)h->unregistered);
	if (h->error && h->error[0])
		fprintf(f, "runtime error: %s\n", h->error);
	if (h->mode == SPY_MODE_COUNT) {
		fputs("self-check: not possible in mode count (no arcs)\n", f);
	} else {
		size_t checked = 0, bad = 0;
		for (size_t i = 0; i < p->nsyms; i++) {
			const struct prof_func *s = &p->items[i];
			if (!s->has_count)
				continue;
			checked++;
			bad += s->count != s->arcs_in;
		}
		if (bad == 0)
			fprintf(f, "self-check: %zu functions, add-one counts equal incoming arc counts\n",
				checked);
		else
			fprintf(f,
				"self-check: %zu functions, %zu mismatches (add-one count vs incoming arcs)\n",
				checked, bad);
		for (size_t i = 0; i < p->nsyms; i++) {
			const struct prof_func *s = &p->items[i];
			if (s->has_count && s->count != s->arcs_in)
				fprintf(f, "mismatch: %s count %llu arcs %llu\n", s->name,
					(unsigned long long)s->count, (unsigned long long)s->arcs_in);
		}
	}
	fputc('\n', f);
}
