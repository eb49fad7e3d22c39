/* The report's first part for spy profiles: the run, the profiler's own cost, what was lost, and
 * the Multics self-check (each function's add-one count against the calls its arcs recorded). */
#include <string.h>

#include "prof.h"
#include "spy-abi.h"

/* How the time stamps' rate was obtained; a rate measured over a short run is rough. */
static const char *tsc_source(const struct gmon_header *h)
{
	static char buf[96];
	double s = h->end_ns > h->start_ns ? (double)(h->end_ns - h->start_ns) / 1e9 : 0;

	switch ((h->flags & GMON_HDR_TSC_SOURCE_MASK) >> GMON_HDR_TSC_SOURCE_SHIFT) {
	case GMON_TSC_MEASURED:
		snprintf(buf, sizeof(buf), ", measured against CLOCK_MONOTONIC over %.6f seconds%s", s,
			 s < 0.01 ? ": rough" : "");
		return buf;
	case GMON_TSC_CPUID:
		return ", from CPUID leaf 0x15";
	case GMON_TSC_HYPERVISOR:
		return ", from the hypervisor (CPUID leaf 0x40000010)";
	case GMON_TSC_SYSFS:
		return ", from sysfs tsc_freq_khz";
	case GMON_TSC_PERF:
		return ", from the kernel (perf_event page)";
	case GMON_TSC_ARCH:
		return ", from CNTFRQ_EL0";
	default:
		return "";
	}
}

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
		fprintf(f, " (time stamps at %llu Hz%s%s)", (unsigned long long)h->tsc_hz,
			h->flags & GMON_HDR_TSC_INVARIANT ? ", invariant" : "", tsc_source(h));
	fputc('\n', f);
	fprintf(f, "threads: %u\n", p->spy.nthreads);
	uint64_t calls = 0;
	for (size_t i = 0; i < p->nsyms; i++)
		calls += p->items[i].arcs_in;
	double per = p->hook_out + p->hook_in;
	double total = h->tsc_hz ? (double)calls * per / (double)h->tsc_hz : 0;
	fprintf(f,
		"hook overhead: %.1f cycles per call (%.1f caller + %.1f callee), %llu calls, %.6f seconds total, "
		"%.2f%% of the run\n",
		per, p->hook_out, p->hook_in, (unsigned long long)calls, total,
		p->duration_s > 0 ? 100.0 * total / p->duration_s : 0.0);
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
