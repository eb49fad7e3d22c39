/* The report's first part for spy profiles: the run, the profiler's own cost, what was lost, and
 * the Multics self-check (each function's add-one count against the calls its arcs recorded). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* sigabbrev_np */
#endif
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "esc.h"
#include "pcname.h"
#include "print-header.h"
#include "prof.h"
#include "spy-abi.h"
#include "waits.h"

/* Where the threads blocked (revision 5): the time by state, then the ten places with the most.
 * blocked: the threads' blocked cycles, of which the waits hold what their samples placed. */
static void print_waits(FILE *f, const struct prof *p, uint64_t blocked)
{
	struct wait_place *w;
	uint64_t by[WAIT_NSTATES], placed = 0;
	uint32_t with = 0;
	size_t n, shown;

	for (uint32_t i = 0; i < p->spy.nthreads; i++)
		with += !!(p->spy.threads[i].flags & GMON_THREAD_WAITS);
	if (!with) {
		if (p->spy.hdr.flags & GMON_HDR_WAITS_NONE)
			fputs("blocked: where not recorded: the kernel refused a sample at each context switch "
			      "(perf_event_paranoid above 1, without CAP_PERFMON)\n",
			      f);
		return;
	}
	n = wait_places(p, NULL, &w, by);
	if (!n && !blocked) { /* nothing blocked */
		free(w);
		return;
	}
	fputs("blocked:", f);
	for (int s = 0, first = 1; s < WAIT_NSTATES; s++) {
		placed += by[s];
		if (by[s] || s < WAIT_OTHER) {
			fprintf(f, "%s %s %.6f s", first ? "" : ",", wait_state_name[s],
				(double)by[s] / p->hz);
			first = 0;
		}
	}
	if (blocked > placed)
		fprintf(f, "; not placed %.6f s (%u of %u threads placed their waits)",
			(double)(blocked - placed) / p->hz, with, p->spy.nthreads);
	fputc('\n', f);
	shown = n < 10 ? n : 10;
	fprintf(f, "blocked where (%zu of %zu places, by time):\n", shown, n);
	fprintf(f, "  %12s %10s  %-10s  %-40s %s\n", "seconds", "count", "state", "call", "under");
	for (size_t k = 0; k < shown; k++) {
		char call[256];

		wait_call(&w[k], call, sizeof(call));
		fprintf(f, "  %12.6f %10llu  %-10s  %-40s %s\n", (double)w[k].cycles / p->hz,
			(unsigned long long)w[k].count, wait_state_name[w[k].st], call, esc_text(w[k].under));
	}
	free(w);
}

/* Time mode: what the times mean, and the time the threads spent off the CPU, and why. */
static void print_offcpu(FILE *f, const struct prof *p)
{
	const struct gmon_header *h = &p->spy.hdr;
	uint64_t blocked = 0, pre = 0, n = 0, lost = 0;
	uint32_t without = 0;

	if (!p->measured)
		return;
	for (uint32_t i = 0; i < p->spy.nthreads; i++) {
		const struct gmon_thread *t = &p->spy.threads[i];

		if (!(t->flags & GMON_THREAD_OFFCPU)) {
			without++;
			continue;
		}
		blocked += t->off_blocked;
		pre += t->off_preempted;
		n += t->off_switches;
		lost += t->off_lost;
	}
	if (!p->offcpu) {
		fprintf(f, "off CPU: not measured (%s): times are wall time, time off the CPU included\n",
			h->flags & GMON_HDR_OFFCPU_NONE ?
				"the runtime could not open its context-switch events" :
				"the runtime that wrote the file did not measure it");
		return;
	}
	fprintf(f,
		"off CPU: %.6f seconds, of which blocked %.6f s, preempted %.6f s (%llu intervals); "
		"times are CPU time\n",
		(double)(blocked + pre) / p->hz, (double)blocked / p->hz, (double)pre / p->hz,
		(unsigned long long)n);
	if (lost)
		fprintf(f,
			"off CPU: %llu context-switch records lost: the time they held counts as CPU time\n",
			(unsigned long long)lost);
	if (without)
		fprintf(f, "off CPU: %u of %u threads not measured: their times are wall time\n", without,
			p->spy.nthreads);
	print_waits(f, p, blocked);
}

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

static uint64_t counter(const struct prof *p, const char *name)
{
	for (uint32_t i = 0; i < p->spy.ncounters; i++)
		if (p->spy.counters[i].name && !strcmp(p->spy.counters[i].name, name))
			return p->spy.counters[i].value;
	return 0;
}

/* Units built with several plugin modes (COUNTERS' plugin_modes): the runtime recorded in the
 * lowest, which every unit has, or, when it could not (a mode=count unit of a module registered after
 * recording began), its error line says what it could not. */
static void print_modes(FILE *f, const struct prof *p)
{
	uint32_t modes = (uint32_t)counter(p, "plugin_modes") & 7, n = 0, lowest;

	if (!modes || (modes & (modes - 1)) == 0)
		return;
	lowest = (uint32_t)__builtin_ctz(modes);
	fputs(" (units built with ", f);
	for (uint32_t m = 0; m <= SPY_MODE_TIME; m++)
		if (modes & 1u << m)
			fprintf(f, "%smode=%s", n++ ? " and " : "", gmon_mode_name(m));
	if (p->spy.hdr.mode <= lowest)
		fputs(": recorded in the mode they all have)", f);
	else
		fprintf(f, ": those of mode=%s have no times of their own)", gmon_mode_name(lowest));
}

static const char *func_at(const struct prof *p, uint64_t pc)
{
	uint32_t i = pc ? prof_lookup(p, pc) : PROF_NONE;
	return i != PROF_NONE && p->items[i].name ? p->items[i].name : NULL;
}

/* The function holding pc: the one whose range holds it or, the last function having no known end,
 * the nearest below it when that is the thread's innermost instrumented call (top). */
static const char *func_of_pc(const struct prof *p, uint64_t pc, uint64_t top)
{
	const char *name = func_at(p, pc);
	const struct prof_func *below = NULL;
	if (name || !pc || !top)
		return name;
	for (size_t i = 0; i < p->nsyms; i++)
		if (p->items[i].addr <= pc && (!below || p->items[i].addr > below->addr))
			below = &p->items[i];
	if (!below || below->addr != top)
		return NULL;
	/* and both in one module's text: a PC in a library is not in the executable's last function */
	for (uint32_t m = 0; m < p->spy.nmodules; m++) {
		const struct gmon_module *g = &p->spy.modules[m];
		if (top >= g->text_lo && top < g->text_hi)
			return pc < g->text_hi ? below->name : NULL;
	}
	return NULL;
}

/* pc outside the instrumented functions' ranges: "NAME+0xOFF [MODULE]" by its module's symbols (libc's,
 * say), "NAME [MODULE]" for a part of NAME placed before it (GCC's NAME.cold), else "MODULE+0xOFF"
 * (from the module's load address), else nothing; the bare NAME in fn, else "". */
static void name_pc(const struct prof *p, uint64_t pc, char *buf, size_t size, char *fn, size_t fnsize)
{
	buf[0] = fn[0] = 0;
	for (uint32_t m = 0; pc && m < p->spy.nmodules; m++) {
		const struct gmon_module *g = &p->spy.modules[m];
		struct pcname n;
		uint64_t start = 0;
		const char *name;

		if (pc < g->text_lo || pc >= g->text_hi)
			continue;
		pcname_init(&n, &p->spy, 0);
		name = pcname_func(&n, (int)m, pc, &start);
		if (name) {
			snprintf(fn, fnsize, "%s", name);
			if (start <= pc)
				snprintf(buf, size, "%s+0x%llx [%s]", name, (unsigned long long)(pc - start),
					 pcname_module(&n, (int)m));
			else
				snprintf(buf, size, "%s [%s]", name, pcname_module(&n, (int)m));
		} else {
			snprintf(buf, size, "%s+0x%llx", pcname_module(&n, (int)m),
				 (unsigned long long)(pc - g->base));
		}
		pcname_release(&n);
		return;
	}
}

/* The run ended by a signal: which, where, and whether the profile is whole. */
static void print_signal(FILE *f, const struct prof *p)
{
	const struct gmon_header *h = &p->spy.hdr;
	int sig = (int)counter(p, "signal");
	uint64_t pc = counter(p, "signal_pc");
	const char *abbrev = sig > 0 && sig < 65 ? sigabbrev_np(sig) : NULL;
	uint64_t top_addr = counter(p, "signal_func");
	const char *at = func_of_pc(p, pc, top_addr), *top = func_at(p, top_addr);
	char name[32], where[512], fn[256];

	if (abbrev)
		snprintf(name, sizeof(name), "SIG%s", abbrev);
	else
		snprintf(name, sizeof(name), "signal %d", sig);
	fprintf(f, "%s by %s at 0x%llx", h->flags & GMON_HDR_INCOMPLETE ? "incomplete: killed" : "ended",
		name, (unsigned long long)pc);
	where[0] = fn[0] = 0;
	if (!at)
		name_pc(p, pc, where, sizeof(where), fn, sizeof(fn));
	if (at)
		fprintf(f, " in %s", esc_text(at));
	else if (where[0])
		fprintf(f, " in %s", esc_text(where));
	if (top && (at ? strcmp(at, top) : strcmp(fn, top)))
		fprintf(f, " (innermost instrumented call: %s)", esc_text(top));
	fputs(h->flags & GMON_HDR_INCOMPLETE ? "; written in the crash handler: what could be read\n" :
					       "; the profile was written before the signal took effect\n",
	      f);
}

/*
 * Mode time with CPU samples: the time the samples put in the profiler against what the calibration
 * took off the functions. More, beyond three times the samples' error, is the hooks' cost that the
 * calibration (a loop on warm caches at start-up) did not foresee: it is still in the functions' self
 * time, said here since it cannot be placed (issue 23, item 2). The samples' share holds the writer
 * and the sampler too, so it is an upper bound.
 */
static void print_uncorrected(FILE *f, const struct prof *p, uint64_t calls)
{
	const struct gmon_sampling *sp = p->spy.sampling;
	struct prof_cost c;
	double raw, taken, seen, err;

	if (!p->measured || !sp || sp->watch != GMON_WATCH_CPU || !sp->hz || !calls || !(p->hz > 0))
		return;
	prof_cost(p, &c);
	if (!c.from_samples)
		return;
	taken = prof_taken_off(p, &raw) / p->hz;
	seen = c.part / (double)sp->hz;
	err = 3 * sqrt(c.part) / (double)sp->hz;
	if (seen - err <= taken)
		return;
	fprintf(f,
		"hook correction: the samples put %.6f s of CPU in the profiler (hooks, writer, sampler), "
		"%.6f s more than the calibration took off the functions: up to %.1f cycles a call of the "
		"hooks' cost is still in the functions' self time, most where calls are many\n",
		seen, seen - taken, (seen - taken) * p->hz / (double)calls);
}

void print_profiler(FILE *f, const struct prof *p)
{
	struct prof_cost c;
	prof_cost(p, &c);
	if (c.share < 0)
		fprintf(f, "profiler: its share not measured (no CPU samples%s)\n",
			p->spy.hdr.mode == SPY_MODE_TIME ? "" : ", and no times in this mode");
	else if (c.from_samples)
		fprintf(f,
			"profiler: %.1f%% of the CPU time (%.0f of the %.0f ticks on the CPU were in it), "
			"in no function's time%s\n",
			100.0 * c.share, c.part, c.all,
			p->spy.hdr.mode == SPY_MODE_ARCS ?
				" (mode arcs counts most calls inline, in the callers' own ticks)" :
				"");
	else
		fprintf(f,
			"profiler: %.1f%% of the %s time (its hooks' calibrated cost, %.6f of %.6f seconds), "
			"taken off every function's time\n",
			100.0 * c.share, p->offcpu ? "measured CPU" : "measured", c.part / p->hz,
			c.all / p->hz);
}

void print_duration(FILE *f, const struct prof *p)
{
	if (p->duration_bad)
		fputs("duration: unknown: a profile's end time precedes its start (its times are inconsistent)\n",
		      f);
	else
		fprintf(f, "duration: %.6f seconds\n", p->duration_s);
}

int no_ticks(const struct prof *p, char *buf, size_t n)
{
	const struct gmon_sampling *s = p->kind == PROF_SPY ? p->spy.sampling : NULL;
	if (!s || (s->watch != GMON_WATCH_CPU && s->watch != GMON_WATCH_WALL) || !s->expected || s->taken)
		return 0;
	snprintf(buf, n, ": %llu ticks of %s time were expected and none arrived (%s)",
		 (unsigned long long)s->expected, gmon_watch_name(s->watch),
		 s->flags & GMON_SAMP_FOREIGN ? "the program set SIGPROF's disposition itself" :
						"SIGPROF blocked in every thread?");
	return 1;
}

void print_header(FILE *f, const struct prof *p)
{
	const struct gmon_header *h = &p->spy.hdr;
	fprintf(f, "spy profile: %d file%s, %s\n", p->nprofiles, p->nprofiles == 1 ? "" : "s",
		esc_text(h->tool));
	fputs("command line:", f);
	for (uint32_t i = 0; i < h->argc; i++)
		fprintf(f, " %s", esc_text(h->argv[i]));
	fputc('\n', f);
	print_duration(f, p);
	fprintf(f, "mode: %s", gmon_mode_name(h->mode));
	if (h->tsc_hz)
		fprintf(f, " (time stamps at %llu Hz%s%s)", (unsigned long long)h->tsc_hz,
			h->flags & GMON_HDR_TSC_INVARIANT ? ", invariant" : "", tsc_source(h));
	print_modes(f, p);
	fputc('\n', f);
	uint32_t nfolded = 0;
	for (uint32_t i = 0; i < p->spy.nthreads; i++)
		nfolded += !!(p->spy.threads[i].flags & GMON_THREAD_FOLDED);
	if (counter(p, "threads_folded") && nfolded == 1)
		fprintf(f, "threads: %u (one of them %llu exited threads folded together)\n", p->spy.nthreads,
			(unsigned long long)counter(p, "threads_folded"));
	else if (counter(p, "threads_folded")) /* summed profiles: a folded record each */
		fprintf(f, "threads: %u (%u of them %llu exited threads folded together)\n", p->spy.nthreads,
			nfolded, (unsigned long long)counter(p, "threads_folded"));
	else
		fprintf(f, "threads: %u\n", p->spy.nthreads);
	print_offcpu(f, p);
	uint64_t calls = 0;
	for (size_t i = 0; i < p->nsyms; i++)
		calls += p->items[i].arcs_in;
	double per = p->hook_out + p->hook_in;
	double total = h->tsc_hz ? (double)calls * per / (double)h->tsc_hz : 0;
	if (h->mode == SPY_MODE_COUNT) {
		fputs("hook overhead: none, mode count has no hooks (add-one counters only)\n", f);
	} else {
		/* the calibration and what it comes to; the profiler's share is the next line's alone */
		uint64_t tails = 0;
		for (size_t i = 0; i < p->nsyms; i++)
			tails += p->items[i].tail_calls;
		double tail_total =
			h->tsc_hz ? (double)tails * (p->hook_tail_in + p->hook_tail_out) / (double)h->tsc_hz :
				    0;
		total += tail_total;
		fprintf(f, "hook overhead: %.1f cycles per call (%.1f caller + %.1f callee), %llu calls", per,
			p->hook_out, p->hook_in, (unsigned long long)calls);
		if (h->tsc_hz)
			fprintf(f, ", %.6f seconds in all\n", total);
		else
			fprintf(f, " (no time stamps in mode %s: not in seconds)\n", gmon_mode_name(h->mode));
		if (tails)
			fprintf(f,
				"tail calls: %llu, each %+.1f cycles to the tail caller and %+.1f to its caller "
				"beyond a call's, taken off too\n",
				(unsigned long long)tails, p->hook_tail_in, p->hook_tail_out);
		print_uncorrected(f, p, calls);
		if (p->nclamped && h->tsc_hz)
			fprintf(f,
				"hook correction: %zu functions' self time would go below 0 by %.6f seconds in "
				"all (the calibration is more than their hooks cost them): shown as 0\n",
				p->nclamped, p->clamped_cycles / (double)h->tsc_hz);
	}
	print_profiler(f, p);
	fprintf(f,
		"dropped: arcs %llu, function times %llu, frames %llu; abandoned %llu, unmatched %llu, "
		"slots lost %llu, unregistered %llu\n",
		(unsigned long long)h->dropped_arcs, (unsigned long long)h->dropped_funcs,
		(unsigned long long)h->dropped_frames, (unsigned long long)h->abandoned,
		(unsigned long long)h->unmatched, (unsigned long long)h->slots_lost,
		(unsigned long long)h->unregistered);
	char why[160];
	if (!p->sampled && no_ticks(p, why, sizeof(why)))
		fprintf(f, "samples: none%s\n", why);
	else if (p->sampled)
		fprintf(f,
			"times: from %s samples, %.0f ticks in instrumented functions and the code they "
			"called, %.0f in other code (left out), %.0f in the profiler (left out)\n",
			gmon_watch_name(p->spy.sampling->watch), p->total_time, p->outside_ticks,
			p->profiler_ticks);
	if (h->flags & GMON_HDR_NO_HWCOUNT)
		fputs("hardware counters: none on this machine for SPYRT_WATCH; sampled by cpu time instead\n",
		      f);
	if (p->nctr) { /* SPYRT_COUNTERS */
		fputs("counters:", f);
		for (uint32_t k = 0; k < p->nctr; k++)
			fprintf(f, "%s %s", k ? "," : "", esc_text(p->ctr_names[k]));
		fputs(" (per call in the flat profile)\n", f);
	}
	if (h->flags & GMON_HDR_NO_HWCTR)
		fputs("hardware counters: none on this machine for some of SPYRT_COUNTERS; left out\n", f);
	if (h->error && h->error[0])
		fprintf(f, "runtime error: %s\n", esc_text(h->error));
	if (h->flags & GMON_HDR_SIGNAL)
		print_signal(f, p);
	if (p->nshared) {
		/* whatever the counts say, they are of two functions each */
		fprintf(f,
			"self-check: %zu functions share an address with another module's (loaded there in "
			"turn): their calls are merged\n",
			p->nshared);
		for (size_t i = 0; i < p->nshared; i++)
			fprintf(f, "mismatch: %s\n", esc_text(p->shared[i]));
	} else if (h->mode == SPY_MODE_COUNT) {
		fputs("self-check: not possible in mode count (no arcs)\n", f);
	} else {
		size_t checked = 0, bad = 0;
		uint64_t off = 0, flight = counter(p, "calls_in_flight");
		for (size_t i = 0; i < p->nsyms; i++) {
			const struct prof_func *s = &p->items[i];
			if (!s->has_count)
				continue;
			checked++;
			bad += s->count != s->arcs_in;
			off += s->count > s->arcs_in ? s->count - s->arcs_in : s->arcs_in - s->count;
		}
		/* the runtime could not hold every thread at the snapshot (a signal flood, a thread that
		 * waited for a CPU too long): the calls it says may have been in flight then, each counted
		 * without its arc or the other way round, are said as such, not as mismatches */
		const char *what = bad && off <= flight ? "in flight" : "mismatch";
		if (bad == 0)
			fprintf(f, "self-check: %zu functions, add-one counts equal incoming arc counts\n",
				checked);
		else if (off <= flight)
			fprintf(f,
				"self-check: %zu functions, add-one counts equal incoming arc counts but for "
				"%llu calls in flight at the snapshot (%llu threads not held, up to %llu calls)\n",
				checked, (unsigned long long)off,
				(unsigned long long)counter(p, "threads_unheld"), (unsigned long long)flight);
		else
			fprintf(f,
				"self-check: %zu functions, %zu mismatches (add-one count vs incoming arcs)\n",
				checked, bad);
		if (bad && flight && off > flight)
			fprintf(f,
				"self-check: %llu threads not held at the snapshot account for up to %llu calls "
				"in flight, not for these\n",
				(unsigned long long)counter(p, "threads_unheld"), (unsigned long long)flight);
		for (size_t i = 0; i < p->nsyms; i++) {
			const struct prof_func *s = &p->items[i];
			if (s->has_count && s->count != s->arcs_in)
				fprintf(f, "%s: %s count %llu arcs %llu\n", what, esc_text(s->name),
					(unsigned long long)s->count, (unsigned long long)s->arcs_in);
		}
		if (p->callers_bad)
			fprintf(f,
				"self-check: %llu of %llu arcs name a caller that does not hold their call "
				"site (a frame that had returned), first %s\n",
				(unsigned long long)p->callers_bad, (unsigned long long)p->callers_checked,
				esc_text(p->caller_bad_example));
		else if (p->callers_checked)
			fprintf(f, "self-check: %llu arcs, each caller holds its call site\n",
				(unsigned long long)p->callers_checked);
	}
	fputc('\n', f);
}
