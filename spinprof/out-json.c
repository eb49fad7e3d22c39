/* --format=json: the whole analysed model as one JSON document for scripts: the run's header, the
 * functions with their counts and times, the arcs, the cycles, the threads and the samples' summary.
 * The schema is docs/spinprof-json.md; times are in the profile's unit (out_unit) and in seconds. */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>

#include "esc.h"
#include "nodes.h"
#include "out.h"
#include "spy-model.h"
#include "waits.h"

#define JSON_SCHEMA 1

/* A JSON string (esc.h's ESC_JSON), or null. */
static void js_str(FILE *out, const char *s)
{
	if (!s) {
		fputs("null", out);
		return;
	}
	fputc('"', out);
	esc_put(out, s, ESC_JSON);
	fputc('"', out);
}

/* A number: JSON has no NaN nor infinities. */
static void js_num(FILE *out, double v)
{
	if (isfinite(v))
		fprintf(out, "%.17g", v);
	else
		fputs("null", out);
}

static void js_key_num(FILE *out, const char *key, double v)
{
	fprintf(out, ", \"%s\": ", key);
	js_num(out, v);
}

static void js_key_u(FILE *out, const char *key, uint64_t v)
{
	fprintf(out, ", \"%s\": %" PRIu64, key, v);
}

static void js_header(FILE *out, const struct prof *p, const struct out_opts *o, double all)
{
	fprintf(out, "\"header\": {\"kind\": \"%s\", \"file\": ", p->kind == PROF_SPY ? "spy" : "gnu");
	js_str(out, o->what);
	fprintf(out, ", \"unit\": \"%s\"", out_unit(p));
	js_key_num(out, "hz", p->hz);
	js_key_num(out, "total", all);
	js_key_num(out, "total_seconds", out_has_times(p) ? all / p->hz : 0);
	fprintf(out, ", \"measured\": %s, \"sampled\": %s, \"callers\": %s, \"offcpu\": %s",
		p->measured ? "true" : "false", p->sampled ? "true" : "false", p->no_arcs ? "false" : "true",
		p->offcpu ? "true" : "false");
	if (p->kind == PROF_GNU) {
		fprintf(out, ", \"granularity\": %ld}", p->granularity);
		return;
	}
	const struct gmon_header *h = &p->spy.hdr;
	fputs(", \"tool\": ", out);
	js_str(out, h->tool);
	fprintf(out, ", \"mode\": \"%s\"", gmon_mode_name(h->mode));
	js_key_u(out, "abi", h->abi);
	js_key_u(out, "pid", h->pid);
	js_key_u(out, "profiles", (uint64_t)p->nprofiles);
	js_key_u(out, "start_ns", h->start_ns);
	js_key_u(out, "end_ns", h->end_ns);
	js_key_num(out, "duration_seconds", p->duration_s);
	js_key_u(out, "tsc_hz", h->tsc_hz);
	js_key_num(out, "hook_out_cycles", p->hook_out);
	js_key_num(out, "hook_in_cycles", p->hook_in);
	struct prof_cost pc;
	prof_cost(p, &pc);
	if (pc.share >= 0) {
		js_key_num(out, "profiler_share", pc.share);
		fprintf(out, ", \"profiler_share_from\": \"%s\"",
			pc.from_samples ? "samples" : "calibration");
	} else {
		fputs(", \"profiler_share\": null, \"profiler_share_from\": null", out);
	}
	js_key_u(out, "dropped_arcs", h->dropped_arcs);
	js_key_u(out, "dropped_funcs", h->dropped_funcs);
	js_key_u(out, "dropped_frames", h->dropped_frames);
	js_key_u(out, "abandoned", h->abandoned);
	js_key_u(out, "unmatched", h->unmatched);
	fputs(", \"error\": ", out);
	js_str(out, h->error);
	fputs(", \"argv\": [", out);
	for (uint32_t i = 0; i < h->argc; i++) {
		fputs(i ? ", " : "", out);
		js_str(out, h->argv[i]);
	}
	fputs("]", out);
	if (p->nctr) {
		fputs(", \"counters\": [", out);
		for (uint32_t k = 0; k < p->nctr; k++) {
			fputs(k ? ", " : "", out);
			js_str(out, p->ctr_names[k]);
		}
		fputs("]", out);
	}
	if (p->spy.sampling) {
		const struct gmon_sampling *s = p->spy.sampling;
		fprintf(out, ", \"sampling\": {\"watch\": \"%s\"", gmon_watch_name(s->watch));
		js_key_u(out, "hz", s->hz);
		js_key_u(out, "divisor", s->divisor);
		js_key_u(out, "taken", s->taken);
		js_key_u(out, "missed", s->missed);
		js_key_u(out, "in_runtime", s->in_runtime);
		js_key_u(out, "dropped", s->dropped);
		js_key_num(out, "profiler_ticks", p->profiler_ticks);
		js_key_num(out, "outside_ticks", p->outside_ticks);
		fputs("}", out);
	}
	fputs("}", out);
}

static void js_off(FILE *out, const struct prof_off *off)
{
	fputs(", \"off_cpu\": {\"total\": ", out);
	js_num(out, off->incl);
	js_key_num(out, "self", off->self);
	js_key_num(out, "preempted", off->pre);
	fputs("}", out);
}

/* SPYRT_COUNTERS: each counter's totals by name, and cycles per instruction where both were counted */
static void js_ctr(FILE *out, const struct prof *p, const struct prof_ctr *c)
{
	double cpi = prof_ctr_cpi(p, c);

	fputs(", \"counters\": {", out);
	for (uint32_t k = 0; k < p->nctr; k++) {
		fputs(k ? ", " : "", out);
		js_str(out, p->ctr_names[k]);
		fputs(": {\"self\": ", out);
		js_num(out, c->self[k]);
		js_key_num(out, "total", c->incl[k]);
		fputs("}", out);
	}
	fputs("}", out);
	if (cpi >= 0)
		js_key_num(out, "cpi", cpi);
}

static void js_functions(FILE *out, const struct prof *p, double hz)
{
	fputs(",\n\"functions\": [", out);
	for (uint32_t i = 0; i < p->nsyms; i++) {
		const struct prof_func *f = &p->items[i];

		fprintf(out, "%s\n {\"id\": %" PRIu32 ", \"name\": ", i ? "," : "", i);
		js_str(out, f->name);
		if (f->key) {
			fputs(", \"symbol\": ", out);
			js_str(out, f->key);
		}
		fputs(", \"file\": ", out);
		js_str(out, f->file);
		js_key_u(out, "line", f->line);
		js_key_u(out, "addr", f->addr);
		js_key_u(out, "end", f->end);
		fprintf(out, ", \"static\": %s", f->is_static ? "true" : "false");
		js_key_u(out, "calls", f->ncalls);
		js_key_u(out, "self_calls", f->self_calls);
		js_key_u(out, "spontaneous", f->spont);
		if (f->has_count)
			js_key_u(out, "count", f->count);
		if (f->lib)
			fputs(", \"instrumented\": false", out);
		js_key_num(out, "self", f->time);
		js_key_num(out, "total", f->time + f->child_time);
		js_key_num(out, "self_seconds", hz > 0 ? f->time / hz : 0);
		js_key_num(out, "total_seconds", hz > 0 ? (f->time + f->child_time) / hz : 0);
		fprintf(out, ", \"cycle\": %d", f->cyc);
		if (p->offcpu && p->func_off)
			js_off(out, &p->func_off[i]);
		if (p->func_ctr)
			js_ctr(out, p, &p->func_ctr[i]);
		fputs("}", out);
	}
	fputs("\n]", out);
}

static void js_arcs(FILE *out, const struct prof *p)
{
	fputs(",\n\"arcs\": [", out);
	for (size_t i = 0, n = 0; i < p->narcs; i++) {
		const struct prof_arc *a = &p->arcs[i];

		if (a->parent >= p->nsyms || a->child >= p->nsyms)
			continue;
		fprintf(out, "%s\n {\"caller\": %" PRIu32 ", \"callee\": %" PRIu32, n++ ? "," : "", a->parent,
			a->child);
		js_key_u(out, "count", a->count);
		js_key_num(out, "self", a->time);
		js_key_num(out, "children", a->child_time);
		if (p->offcpu && p->arc_off)
			js_key_num(out, "off_cpu", p->arc_off[i]);
		if (p->arc_ctr)
			js_ctr(out, p, &p->arc_ctr[i]);
		fputs("}", out);
	}
	fputs("\n]", out);
}

static void js_cycles(FILE *out, const struct prof *p)
{
	fputs(",\n\"cycles\": [", out);
	for (size_t i = p->nsyms; i < p->nr; i++) {
		const struct prof_func *h = &p->items[i];

		fprintf(out, "%s\n {\"cycle\": %d, \"members\": [", i > p->nsyms ? "," : "", h->cyc);
		for (uint32_t m = h->next, k = 0; m != PROF_NONE; m = p->items[m].next)
			fprintf(out, "%s%" PRIu32, k++ ? ", " : "", m);
		fputs("]", out);
		js_key_u(out, "calls", h->ncalls);
		js_key_u(out, "self_calls", h->self_calls);
		js_key_num(out, "self", h->prop_self);
		js_key_num(out, "total", h->prop_self + h->prop_child);
		fputs("}", out);
	}
	fputs("\n]", out);
}

static void js_threads(FILE *out, const struct prof *p)
{
	fputs(",\n\"threads\": [", out);
	for (uint32_t i = 0; p->kind == PROF_SPY && i < p->spy.nthreads; i++) {
		const struct gmon_thread *t = &p->spy.threads[i];

		fprintf(out, "%s\n {\"tid\": %" PRIu32 ", \"name\": ", i ? "," : "", t->tid);
		js_str(out, t->name);
		js_key_u(out, "flags", t->flags);
		js_key_u(out, "start_ns", t->start_ns);
		js_key_u(out, "end_ns", t->end_ns);
		js_key_u(out, "arcs", t->narcs);
		js_key_u(out, "off_blocked", t->off_blocked);
		js_key_u(out, "off_preempted", t->off_preempted);
		js_key_u(out, "dropped_arcs", t->dropped_arcs);
		js_key_u(out, "abandoned", t->abandoned);
		if (t->flags & GMON_THREAD_WAITS) {
			struct wait_place *w;
			uint64_t by[WAIT_NSTATES];
			size_t n = wait_places(p, t, &w, by);

			fputs(", \"blocked_by\": {", out);
			for (int s = 0; s < WAIT_NSTATES; s++) {
				fprintf(out, "%s", s ? ", " : "");
				js_str(out, wait_state_name[s]);
				fprintf(out, ": %" PRIu64, by[s]);
			}
			fputs("}, \"waits\": [", out);
			for (size_t k = 0; k < n; k++) {
				fprintf(out, "%s{\"state\": ", k ? ", " : "");
				js_str(out, wait_state_name[w[k].st]);
				fputs(", \"call\": ", out);
				js_str(out, w[k].name);
				fputs(", \"module\": ", out);
				js_str(out, w[k].module);
				js_key_u(out, "pc", w[k].pc);
				fputs(", \"fault\": ", out);
				fputs(w[k].kind == GMON_WAIT_FAULT ? "true" : "false", out);
				fputs(", \"under\": ", out);
				js_str(out, w[k].under);
				js_key_u(out, "count", w[k].count);
				js_key_u(out, "cycles", w[k].cycles);
				fputs("}", out);
			}
			fputs("]", out);
			free(w);
		}
		fputs("}", out);
	}
	fputs("\n]", out);
}

/* The samples' model (spy-model.h): its totals and every procedure's self and total weight. */
static void js_samples(FILE *out, const struct prof *p, int demangle)
{
	struct sp_model m;

	fputs(",\n\"samples\": ", out);
	if (!sp_has_samples(p) || sp_model_build(&m, p, demangle) < 0) {
		fputs("null", out);
		return;
	}
	fprintf(out, "{\"unit\": \"%s\"", m.unit);
	js_key_num(out, "total", m.grand);
	js_key_num(out, "all", m.all);
	js_key_num(out, "in_profiler", m.in_runtime);
	js_key_num(out, "waiting", m.waiting);
	js_key_u(out, "stacks", m.nstacks);
	js_key_u(out, "cut", m.ncut);
	fputs(", \"procedures\": [", out);
	for (size_t i = 0; i < m.nprocs; i++) {
		const struct sp_proc *s = &m.procs[i];
		static const char *const kinds[] = { "function", "profiler", "module", "unknown" };

		fprintf(out, "%s\n  {\"name\": ", i ? "," : "");
		js_str(out, s->name);
		fprintf(out, ", \"kind\": \"%s\", \"file\": ", kinds[s->kind & 3]);
		js_str(out, s->file);
		js_key_u(out, "line", s->line);
		js_key_num(out, "self", s->self);
		js_key_num(out, "total", s->total);
		js_key_num(out, "waiting", s->wait);
		fputs("}", out);
	}
	fputs("]}", out);
	sp_model_release(&m);
}

static void js_hist(FILE *out, const struct nm_hist *h)
{
	fputs(", \"hist\": ", out);
	if (!h->h.kind) {
		fputs("null", out);
		return;
	}
	fprintf(out, "{\"kind\": \"%s\"", h->h.kind == GMON_NHIST_LOG ? "log" : "linear");
	js_key_u(out, "base", h->h.base);
	js_key_u(out, "scale", h->h.scale);
	js_key_u(out, "under", h->h.under);
	js_key_u(out, "over", h->h.over);
	fputs(", \"buckets\": [", out);
	for (uint32_t i = 0; i < h->h.nbuckets; i++)
		fprintf(out, "%s%" PRIu64, i ? ", " : "", h->h.buckets[i]);
	fputs("]}", out);
}

/* Mesa's nodes and legs (nodes.h), summed over threads and files; null when the profile has none. */
static void js_nodes(FILE *out, const struct prof *p)
{
	static const char *const track[] = { "none", "successor", "all" };
	struct nodes_model m;

	fputs(",\n\"nodes\": ", out);
	if (nodes_model_build(&m, p)) {
		fputs("null", out);
		return;
	}
	fprintf(out, "{\"track\": \"%s\", \"add\": \"%s\", \"thread_only\": %s",
		m.track <= GMON_TRACK_ALL ? track[m.track] : "?",
		m.add == GMON_ADD_SUCCESSOR ? "successor" : "none", m.thread_only ? "true" : "false");
	js_key_u(out, "dropped", m.dropped);
	fputs(", \"nodes\": [", out);
	for (size_t i = 0; i < m.nnodes; i++) {
		const struct nm_node *n = &m.nodes[i];

		fprintf(out, "%s\n  {\"name\": ", i ? "," : "");
		js_str(out, n->name);
		fputs(", \"file\": ", out);
		js_str(out, n->file[0] ? n->file : NULL);
		js_key_u(out, "line", n->line);
		js_key_u(out, "hits", n->hits);
		js_key_u(out, "values", n->nvalues);
		js_key_u(out, "sum", n->sum);
		js_key_u(out, "min", n->min);
		js_key_u(out, "max", n->max);
		js_hist(out, &n->hist);
		fputs("}", out);
	}
	fputs("], \"legs\": [", out);
	for (size_t i = 0; i < m.nlegs; i++) {
		const struct nm_leg *l = &m.legs[i];

		fprintf(out, "%s\n  {\"from\": ", i ? "," : "");
		js_str(out, m.nodes[l->from].name);
		fputs(", \"to\": ", out);
		js_str(out, m.nodes[l->to].name);
		js_key_u(out, "count", l->count);
		js_key_u(out, "total_ns", l->total_ns);
		js_key_u(out, "min_ns", l->min_ns);
		js_key_u(out, "max_ns", l->max_ns);
		js_key_u(out, "ignored", l->ignored);
		js_key_u(out, "open", l->open);
		js_hist(out, &l->hist);
		fputs("}", out);
	}
	fputs("]}", out);
	nodes_model_release(&m);
}

int out_json(FILE *out, const struct prof *p, const struct out_opts *o)
{
	double all = 0;

	for (uint32_t i = 0; i < p->nsyms; i++)
		all += p->items[i].time;
	fprintf(out, "{\"format\": \"spinprof\", \"schema\": %d,\n", JSON_SCHEMA);
	js_header(out, p, o, all);
	js_functions(out, p, out_has_times(p) ? p->hz : 0);
	js_arcs(out, p);
	js_cycles(out, p);
	js_threads(out, p);
	js_samples(out, p, o->demangle);
	js_nodes(out, p);
	fputs("\n}\n", out);
	return 0;
}
