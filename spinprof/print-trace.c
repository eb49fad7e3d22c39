/* spinprof --trace: the traces the runtime kept (SPYRT_TRACE's calls, as Cedar's SetTrace printed
 * them; page faults and signals, Multics' traces), every thread's events in one time order, from the
 * model's p->tev; each trace's count of events it kept and dropped first. */
#define _GNU_SOURCE /* sigabbrev_np */
#include <inttypes.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "esc.h"
#include "print-trace.h"
#include "prof.h"

/* "name+0xoff" of pc in function k, or its hex (as the file names it: the lines are escaped whole) */
static const char *where(const struct prof *p, uint32_t k, uint64_t pc, char *buf, size_t sz)
{
	if (k != PROF_NONE && p->items[k].name && pc >= p->items[k].addr)
		snprintf(buf, sz, "%s+0x%" PRIx64, p->items[k].name, pc - p->items[k].addr);
	else
		snprintf(buf, sz, "0x%" PRIx64, pc);
	return buf;
}

static const char *fname(const struct prof *p, uint32_t func)
{
	return func != PROF_NONE && p->items[func].name ? p->items[func].name : "?";
}

/* calls: the depth of traced calls each thread is at, for the indentation */
struct depth {
	uint32_t tid;
	int depth;
};

static int *depth_of(struct depth **d, size_t *n, uint32_t tid)
{
	for (size_t i = 0; i < *n; i++)
		if ((*d)[i].tid == tid)
			return &(*d)[i].depth;
	*d = xrealloc(*d, (*n + 1) * sizeof(**d));
	(*d)[*n] = (struct depth){ tid, 0 };
	return &(*d)[(*n)++].depth;
}

int print_trace(FILE *f, const struct prof *p, const char *what)
{
	const struct gmon_profile *g = &p->spy;
	if (p->kind != PROF_SPY || !g->ntraces) {
		esc_msg("spinprof: %s: no trace: the run had none (SPYRT_TRACE)\n", what);
		return -1;
	}
	double us = p->hz > 0 ? 1e6 / p->hz : 0;
	uint64_t t0 = p->ntev ? p->tev[0].time : 0, dropped = 0;
	fprintf(f,
		"Trace: %zu events in time order across threads, times in microseconds from the "
		"first\n\n",
		p->ntev);
	for (uint32_t i = 0; i < g->ntraces; i++) {
		const struct gmon_trace *t = &g->traces[i];
		fprintf(f, "trace of %s, thread %" PRIu32 ": %" PRIu64 " events, %" PRIu64 " dropped%s\n",
			gmon_trace_kind_name(t->kind), t->tid, t->n, t->dropped,
			t->dropped ? " (the earliest: the ring keeps the last)" : "");
		dropped += t->dropped;
	}
	if (dropped)
		fprintf(f, "dropped: %" PRIu64 " events in all\n", dropped);
	fprintf(f, "\n%14s %10s  %-6s %-40s %14s\n", "time", "thread", "event", "function (call site)",
		"duration");
	struct depth *dep = NULL;
	size_t ndep = 0;
	char b1[256], line[512];
	for (size_t i = 0; i < p->ntev; i++) {
		const struct prof_tevent *e = &p->tev[i];
		double t = (double)(e->time - t0) * us;
		if (e->kind == GMON_TRACE_CALLS) {
			int *d = depth_of(&dep, &ndep, e->tid);
			if (e->what == GMON_TEV_EXIT && *d > 0)
				--*d;
			int ind = *d < 20 ? 2 * *d : 40;
			if (e->what == GMON_TEV_ENTER) {
				snprintf(line, sizeof(line), "%*s%s (%s)", ind, "", fname(p, e->func),
					 where(p, e->at, e->addr, b1, sizeof(b1)));
				fprintf(f, "%14.3f %10" PRIu32 "  %-6s %s\n", t, e->tid, "enter",
					esc_text(line));
				++*d;
			} else {
				snprintf(line, sizeof(line), "%*s%s", ind, "", fname(p, e->func));
				fprintf(f, "%14.3f %10" PRIu32 "  %-6s %-40s %14.3f\n", t, e->tid, "exit",
					esc_text(line), (double)e->value * us);
			}
		} else if (e->kind == GMON_TRACE_SIGNALS) {
			/* the signal, the PC it interrupted, and the innermost instrumented call */
			const char *nm = e->what < 65 ? sigabbrev_np((int)e->what) : NULL;
			fprintf(f, "%14.3f %10" PRIu32 "  %-6s SIG%s (%" PRIu32 ") at %s in %s\n", t, e->tid,
				"signal", nm ? nm : "?", e->what,
				esc_text(where(p, e->at, e->addr, b1, sizeof(b1))),
				e->func != PROF_NONE ? esc_text(fname(p, e->func)) : "-");
		} else if (e->kind == GMON_TRACE_FAULTS) {
			/* the address that faulted, the faulting PC, and the innermost instrumented call */
			fprintf(f, "%14.3f %10" PRIu32 "  %-6s address 0x%" PRIx64 " at %s in %s\n", t,
				e->tid, "fault", e->addr, esc_text(where(p, e->at, e->value, b1, sizeof(b1))),
				e->func != PROF_NONE ? esc_text(fname(p, e->func)) : "-");
		}
	}
	free(dep);
	fputc('\n', f);
	return 0;
}
