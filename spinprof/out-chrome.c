/* spinprof --format=chrome: Chrome's trace event JSON (the object form, {"traceEvents": [...]}) for
 * Perfetto, chrome://tracing and speedscope. Per thread: its name as metadata (ph "M"); a sampled
 * profile as a "Profile" and a "ProfileChunk" event holding a cpuProfile (nodes, samples, timeDeltas),
 * as Chrome DevTools records one; a time-mode profile without samples as its call tree of complete
 * events (ph "X") laid out by inclusive time, not a timeline (spinprof.1 says what each holds). Checked
 * in speedscope 1.25.0 (t287-t289), which named what is fixed here: lanes of same-named threads, and
 * args shown inside the names of complete events. */
#include <stdlib.h>
#include <string.h>

#include "esc.h"
#include "out.h"
#include "spy-model.h"

#define NO_NODE UINT32_MAX
#define MAX_DEPTH 256

/* A node of one thread's call tree: a procedure under its parent, its own weight and its total. */
struct ct_node {
	uint32_t proc, parent, first, next;
	double self, total;
};

struct ct_tree {
	struct ct_node *items;
	size_t nr, alloc;
};

static uint32_t ct_child(struct ct_tree *t, uint32_t parent, uint32_t proc)
{
	uint32_t *link = parent == NO_NODE ? NULL : &t->items[parent].first;
	if (link)
		for (uint32_t c = *link; c != NO_NODE; c = t->items[c].next)
			if (t->items[c].proc == proc)
				return c;
	GROW(t->items, t->nr, t->alloc);
	uint32_t i = (uint32_t)t->nr++;
	t->items[i] = (struct ct_node){ proc, parent, NO_NODE, NO_NODE, 0, 0 };
	if (parent != NO_NODE) { /* appended, so that children keep the order they came in */
		uint32_t *at = &t->items[parent].first;
		while (*at != NO_NODE)
			at = &t->items[*at].next;
		*at = i;
	}
	return i;
}

/* A JSON string (esc.h's ESC_JSON); "" for NULL. */
static void json_str(FILE *f, const char *s)
{
	putc('"', f);
	esc_put(f, s ? s : "", ESC_JSON);
	putc('"', f);
}

static void meta(FILE *f, int *first, const char *what, uint32_t pid, uint32_t tid, const char *name)
{
	/* with cat and ts, as DevTools writes them: speedscope takes a trace for Chrome's only when its
	 * first event has pid, tid, ph and cat */
	fprintf(f,
		"%s\n{\"ph\":\"M\",\"cat\":\"__metadata\",\"name\":\"%s\",\"pid\":%u,\"tid\":%u,\"ts\":0,"
		"\"args\":{\"name\":",
		*first ? "" : ",", what, pid, tid);
	json_str(f, name);
	fputs("}}", f);
	*first = 0;
}

/* The name a thread is shown with: its own, else "thread TID"; "NAME TID" when another thread has the
 * same name (threads inherit their creator's), since speedscope labels a sampled thread's lane with
 * its thread_name alone and would show several lanes under one name. */
static void thread_meta(FILE *f, int *first, const struct gmon_profile *g, uint32_t pid, uint32_t tid)
{
	const char *name = NULL;
	for (uint32_t i = 0; i < g->nthreads; i++)
		if (g->threads[i].tid == tid)
			name = g->threads[i].name;
	int shared = 0;
	for (uint32_t i = 0; name && name[0] && i < g->nthreads; i++)
		shared |= g->threads[i].tid != tid && g->threads[i].name && !strcmp(g->threads[i].name, name);
	char buf[64];
	if (!name || !name[0])
		snprintf(buf, sizeof(buf), "thread %u", tid);
	else if (shared)
		snprintf(buf, sizeof(buf), "%.*s %u", (int)esc_text_fit(name, 40), name, tid);
	if (!name || !name[0] || shared)
		name = buf;
	meta(f, first, "thread_name", pid, tid, name);
}

/* One thread's samples: the stacks' tree, then the cpuProfile, whose samples walk the tree depth
 * first, each node with its own weight as the time to the next sample (microseconds: ns / 1000 for
 * cpu and wall, one unit each otherwise). */
static void sampled_thread(FILE *f, int *first, struct sp_model *m, const struct gmon_samples *ss,
			   uint32_t pid, uint32_t id)
{
	const struct gmon_sampling *sp = m->p->spy.sampling;
	int ticks = sp->watch == GMON_WATCH_CPU || sp->watch == GMON_WATCH_WALL;
	struct ct_tree t = { NULL, 0, 0 };
	ct_child(&t, NO_NODE, UINT32_MAX); /* the root */
	struct sp_frame *fr = NULL;
	size_t fr_alloc = 0;
	for (uint64_t k = 0; k < ss->nstacks; k++) {
		const struct gmon_stack *st = &ss->stacks[k];
		double w = ticks ? (double)st->weight / 1000 : (double)st->weight;
		if (w <= 0)
			continue;
		if (fr_alloc < (size_t)st->depth + 1) {
			fr_alloc = (size_t)st->depth + 1;
			fr = xrealloc(fr, fr_alloc * sizeof(*fr));
		}
		size_t n = sp_stack_frames(m, st, fr);
		uint32_t at = 0;
		t.items[0].total += w;
		for (size_t d = n; d-- > 0;) {
			at = ct_child(&t, at, fr[d].proc);
			t.items[at].total += w;
		}
		t.items[at].self += w;
	}
	free(fr);
	fprintf(f,
		",\n{\"ph\":\"P\",\"name\":\"Profile\",\"cat\":\"disabled-by-default-v8.cpu_profiler\","
		"\"id\":\"0x%x\",\"pid\":%u,\"tid\":%u,\"ts\":0,\"args\":{\"data\":{\"startTime\":0}}}",
		id, pid, ss->tid);
	fprintf(f,
		",\n{\"ph\":\"P\",\"name\":\"ProfileChunk\",\"cat\":\"disabled-by-default-v8.cpu_profiler\","
		"\"id\":\"0x%x\",\"pid\":%u,\"tid\":%u,\"ts\":0,\"args\":{\"data\":{\"cpuProfile\":{\"nodes\":[",
		id, pid, ss->tid);
	for (size_t i = 0; i < t.nr; i++) {
		const struct ct_node *c = &t.items[i];
		const struct sp_proc *pr = c->proc == UINT32_MAX ? NULL : &m->procs[c->proc];
		fprintf(f, "%s\n{\"id\":%zu,", i ? "," : "", i + 1);
		if (c->parent != NO_NODE)
			fprintf(f, "\"parent\":%u,", c->parent + 1);
		fputs("\"callFrame\":{\"functionName\":", f);
		json_str(f, pr ? pr->name : "(root)");
		fputs(",\"url\":", f);
		json_str(f, pr && pr->file ? pr->file : "");
		/* V8 counts lines from 0 */
		fprintf(f, ",\"scriptId\":0,\"lineNumber\":%ld,\"columnNumber\":-1}}",
			pr && pr->line ? (long)pr->line - 1 : -1L);
	}
	/* depth first, each node's own samples before its children's */
	uint32_t *order = xmalloc((t.nr + 1) * sizeof(uint32_t)),
		 *stack = xmalloc((t.nr + 1) * sizeof(uint32_t));
	size_t no = 0, sp_n = 0;
	stack[sp_n++] = 0;
	while (sp_n) {
		uint32_t i = stack[--sp_n];
		if (t.items[i].self > 0)
			order[no++] = i;
		size_t mark = sp_n;
		for (uint32_t c = t.items[i].first; c != NO_NODE; c = t.items[c].next)
			stack[sp_n++] = c;
		for (size_t a = mark, b = sp_n; a + 1 < b; a++, b--) { /* first child on top */
			uint32_t x = stack[a];
			stack[a] = stack[b - 1];
			stack[b - 1] = x;
		}
	}
	fputs("],\n\"samples\":[", f);
	for (size_t i = 0; i < no; i++)
		fprintf(f, "%u,", order[i] + 1);
	fputs("1]},\n\"timeDeltas\":[0", f);
	for (size_t i = 0; i < no; i++)
		fprintf(f, ",%.3f", t.items[order[i]].self);
	fputs("]}}}", f);
	free(order);
	free(stack);
	free(t.items);
	*first = 0;
}

/* Time mode: one thread's call tree from its arcs, laid out by inclusive time. A function's calls
 * are the arcs from it; under a function reached by several paths they are shared among the paths
 * in proportion to each path's time (arcs record no longer paths). */
struct layout {
	FILE *f;
	const struct prof *p;
	const struct gmon_thread *gt;
	double *incl;           /* by prof function: inclusive cycles on this thread, its arcs' sum */
	uint32_t *from0, *from; /* the thread's arcs by caller: from[from0[fn] ... from0[fn + 1]) */
	uint32_t *on_path;
	double us, min_us; /* microseconds per cycle; events shorter than min_us are left out */
	uint32_t pid;
	size_t nevents;
};

static void lay(struct layout *l, uint32_t fn, double ts, double dur, int depth)
{
	const struct prof_func *pf = &l->p->items[fn];
	fputs(",\n{\"ph\":\"X\",\"name\":", l->f);
	json_str(l->f, pf->name);
	/* no args: speedscope shows an event's args as part of its name ("work {...}") */
	fprintf(l->f, ",\"cat\":\"function\",\"pid\":%u,\"tid\":%u,\"ts\":%.3f,\"dur\":%.3f}", l->pid,
		l->gt->tid, ts, dur);
	l->nevents++;
	if (depth >= MAX_DEPTH || l->incl[fn] <= 0)
		return;
	l->on_path[fn]++;
	double scale = dur / (l->incl[fn] * l->us);
	double at = ts;
	for (uint32_t k = l->from0[fn]; k < l->from0[fn + 1]; k++) {
		const struct gmon_arc *a = &l->gt->arcs[l->from[k]];
		uint32_t ce = prof_at(l->p, a->callee);
		if (ce == PROF_NONE || l->on_path[ce])
			continue; /* recursion: its time is already in the outer call's */
		double d = (double)a->incl * l->us * scale;
		if (d < l->min_us || d <= 0)
			continue;
		if (at + d > ts + dur)
			d = ts + dur - at;
		lay(l, ce, at, d, depth + 1);
		at += d;
	}
	l->on_path[fn]--;
}

/* ratio: by function, what the hook correction leaves of the raw cycles of its calls with no known
 * caller (its corrected time over theirs): a root's time is laid as corrected, and what was taken off
 * the thread's roots is <profiler>'s, after them, so that the profiler's share is the header's. */
static void timed_thread(FILE *f, const struct prof *p, const struct gmon_thread *gt, uint32_t pid,
			 double min_pct, const double *ratio)
{
	struct layout l = { f, p, gt, NULL, NULL, NULL, NULL, p->hz > 0 ? 1e6 / p->hz : 1, 0, pid, 0 };
	l.incl = xcalloc(p->nsyms + 1, sizeof(double));
	/* the arcs grouped by caller (a counting sort), in the order the thread has them */
	uint32_t *caller = xmalloc((gt->narcs + 1) * sizeof(uint32_t));
	l.from0 = xcalloc(p->nsyms + 2, sizeof(uint32_t));
	l.from = xmalloc((gt->narcs + 1) * sizeof(uint32_t));
	for (uint64_t j = 0; j < gt->narcs; j++) {
		caller[j] =
			gt->arcs[j].caller > GMON_CALLER_MANY ? prof_at(p, gt->arcs[j].caller) : PROF_NONE;
		if (caller[j] != PROF_NONE)
			l.from0[caller[j] + 2]++;
	}
	for (size_t i = 2; i < p->nsyms + 2; i++)
		l.from0[i] += l.from0[i - 1];
	for (uint64_t j = 0; j < gt->narcs; j++)
		if (caller[j] != PROF_NONE)
			l.from[l.from0[caller[j] + 1]++] = (uint32_t)j;
	free(caller);
	l.on_path = xcalloc(p->nsyms + 1, sizeof(uint32_t));
	double roots = 0;
	for (uint64_t j = 0; j < gt->narcs; j++) {
		uint32_t ce = prof_at(p, gt->arcs[j].callee);
		if (ce == PROF_NONE)
			continue;
		l.incl[ce] += (double)gt->arcs[j].incl;
		if (gt->arcs[j].caller <= GMON_CALLER_MANY || prof_at(p, gt->arcs[j].caller) == PROF_NONE)
			roots += (double)gt->arcs[j].incl;
	}
	/* events at one depth do not overlap, so the floor bounds their number (a call graph's paths
	 * can be exponentially many) */
	l.min_us = roots * l.us * (min_pct > 0.001 ? min_pct : 0.001) / 100;
	double at = 0, off = 0;
	for (uint64_t j = 0; j < gt->narcs; j++) {
		const struct gmon_arc *a = &gt->arcs[j];
		uint32_t ce = prof_at(p, a->callee);
		if (ce == PROF_NONE || (a->caller > GMON_CALLER_MANY && prof_at(p, a->caller) != PROF_NONE))
			continue;
		double d = (double)a->incl * l.us * ratio[ce];
		off += (double)a->incl * l.us - d;
		if (d < l.min_us || d <= 0)
			continue;
		lay(&l, ce, at, d, 0);
		at += d;
	}
	if (off >= l.min_us && off > 0) {
		fputs(",\n{\"ph\":\"X\",\"name\":\"<profiler>\"", f);
		fprintf(f, ",\"cat\":\"profiler\",\"pid\":%u,\"tid\":%u,\"ts\":%.3f,\"dur\":%.3f}", pid,
			gt->tid, at, off);
	}
	free(l.incl);
	free(l.on_path);
	free(l.from0);
	free(l.from);
}

int out_chrome(FILE *f, const struct prof *p, const struct out_opts *o)
{
	int sampled = sp_has_samples(p);
	if (p->kind != PROF_SPY || (!sampled && !p->measured)) {
		esc_msg("spinprof: %s: --format=chrome needs a spy profile with samples or measured times\n",
			o->what);
		return -1;
	}
	const struct gmon_profile *g = &p->spy;
	uint32_t pid = g->hdr.pid;
	int first = 1;
	fputs("{\"displayTimeUnit\":\"ns\",\"otherData\":{\"tool\":", f);
	json_str(f, g->hdr.tool);
	fprintf(f, ",\"layout\":\"%s\"},\n\"traceEvents\":[",
		sampled ? "samples: cpuProfile per thread" : "call tree by inclusive time, not a timeline");
	meta(f, &first, "process_name", pid, 0, g->hdr.argc && g->hdr.argv[0] ? g->hdr.argv[0] : "?");
	if (sampled) {
		struct sp_model m;
		sp_model_build(&m, p, o->demangle);
		for (uint32_t t = 0; t < g->nsamples; t++) {
			thread_meta(f, &first, g, pid, g->samples[t].tid);
			sampled_thread(f, &first, &m, &g->samples[t], pid, t + 1);
		}
		sp_model_release(&m);
	} else {
		double min_pct = o->cutoff_given ? o->cutoff : 0.01;
		/* each root's corrected time over its raw, every thread's calls with no known caller */
		double *ratio = xcalloc(p->nsyms + 1, sizeof(double));
		for (uint32_t t = 0; t < g->nthreads; t++)
			for (uint64_t j = 0; j < g->threads[t].narcs; j++) {
				const struct gmon_arc *a = &g->threads[t].arcs[j];
				uint32_t ce = prof_at(p, a->callee);
				if (ce != PROF_NONE &&
				    (a->caller <= GMON_CALLER_MANY || prof_at(p, a->caller) == PROF_NONE))
					ratio[ce] += (double)a->incl;
			}
		for (size_t i = 0; i < p->nsyms; i++)
			ratio[i] = ratio[i] > 0 ? p->items[i].m_spont_incl / ratio[i] : 1;
		for (uint32_t t = 0; t < g->nthreads; t++) {
			thread_meta(f, &first, g, pid, g->threads[t].tid);
			timed_thread(f, p, &g->threads[t], pid, min_pct, ratio);
		}
		free(ratio);
	}
	fputs("\n]}\n", f);
	return 0;
}
