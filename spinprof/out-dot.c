/* --format=dot: the analysed call graph for graphviz, drawn as gprof2dot draws one: a box per
 * function labelled with its name, total % and (self %) and calls, coloured from blue (cold) to red
 * (hot) and sized by its total; an edge per arc labelled with its % and its calls (percentages of
 * the time, or, in a profile without times, of all calls). What weighs less
 * than the cutoff is left out: 0.5 % for functions and 0.1 % for arcs (gprof2dot's defaults), or
 * --cutoff=PCT for both. */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>

#include "esc.h"
#include "out.h"

/* The weight of everything, the 100 %: all self time, or, without times, all entries. */
static double dot_all(const struct prof *p, int timed)
{
	double all = 0;

	for (uint32_t i = 0; i < p->nsyms; i++)
		all += timed ? p->items[i].time : (double)(p->items[i].ncalls + p->items[i].self_calls);
	return all;
}

/* The colour of a weight w in [0, 1], as "#rrggbb": hue from blue (0) to red (1), darker when
 * cold, as gprof2dot's temperature map. */
static void dot_colour(char buf[8], double w)
{
	w = w > 0 ? (w < 1 ? w : 1) : 0; /* NaN too */
	double h = (1 - w) * 240 / 60, s = 0.85, v = 0.55 + 0.4 * w;
	int hi = (int)h;
	double c = v * s, x = c * (1 - fabs(h - 2 * (hi / 2) - 1)), m = v - c, r, g, b;

	r = hi == 0 || hi >= 5 ? c : hi == 1 || hi == 4 ? x : 0;
	g = hi == 0 || hi == 3 ? x : hi == 1 || hi == 2 ? c : 0;
	b = hi <= 1 ? 0 : hi == 2 ? x : c;
	snprintf(buf, 8, "#%02x%02x%02x", (int)((r + m) * 255 + 0.5), (int)((g + m) * 255 + 0.5),
		 (int)((b + m) * 255 + 0.5));
}

/* s as the inside of a dot string (esc.h's ESC_DOT). */
static void dot_str(FILE *out, const char *s)
{
	esc_put(out, s, ESC_DOT);
}

int out_dot(FILE *out, const struct prof *p, const struct out_opts *o)
{
	int timed = out_has_times(p);
	double all = dot_all(p, timed);
	if (timed && all <= 0) /* times, but none measured (a run shorter than a tick): calls */
		all = dot_all(p, timed = 0);
	double node_min = o->cutoff_given ? o->cutoff : 0.5, edge_min = o->cutoff_given ? o->cutoff : 0.1;
	unsigned char *shown = xcalloc(p->nsyms ? p->nsyms : 1, 1);
	char col[8];

	if (all <= 0) /* nothing weighs anything: every percentage is 0 */
		all = 1;
	fputs("digraph \"", out);
	dot_str(out, o->what);
	fprintf(out,
		"\" {\n\tgraph [fontname=Arial, nodesep=0.125, ranksep=0.25, tooltip=\"%s\"];\n"
		"\tnode [fontcolor=white, fontname=Arial, height=0, shape=box, style=filled, "
		"width=0];\n\tedge [fontname=Arial];\n",
		timed ? (p->measured ? "percentages of measured cycles" : "percentages of ticks") :
			"percentages of calls (no times)");
	for (uint32_t i = 0; i < p->nsyms; i++) {
		const struct prof_func *f = &p->items[i];
		uint64_t calls = f->ncalls + f->self_calls;
		double self = timed ? f->time : (double)calls;
		double total = timed ? f->time + f->child_time : self;
		double w = total / all;

		if (!f->name || 100 * w < node_min || (!calls && total <= 0))
			continue;
		shown[i] = 1;
		if (w > 1)
			w = 1;
		dot_colour(col, w);
		fprintf(out, "\t\"f%" PRIu32 "\" [color=\"%s\", fontsize=\"%.2f\", label=\"", i, col,
			9 + 9 * w);
		dot_str(out, f->name);
		if (f->cyc)
			fprintf(out, " <cycle %d>", f->cyc);
		fprintf(out, "\\n%.2f%%\\n(%.2f%%)", 100 * total / all, 100 * self / all);
		if (f->lib) /* code without hooks: its calls not counted */
			fputs("\\n-", out);
		else
			fprintf(out, "\\n%" PRIu64 "×", calls);
		if (f->self_calls)
			fprintf(out, " (%" PRIu64 " recursive)", f->self_calls);
		fputs("\", tooltip=\"", out);
		dot_str(out, f->file ? f->file : "??");
		fprintf(out, ":%" PRIu32 "\"];\n", f->line);
	}
	for (size_t ai = 0; ai < p->narcs; ai++) {
		const struct prof_arc *a = &p->arcs[ai];
		double w;

		int lib = a->child < p->nsyms && p->items[a->child].lib; /* no count, but time */
		if (a->parent >= p->nsyms || a->child >= p->nsyms || !shown[a->parent] || !shown[a->child] ||
		    (!a->count && !lib))
			continue;
		w = (timed ? a->time + a->child_time : (double)a->count) / all;
		if (100 * w < edge_min)
			continue;
		if (w > 1)
			w = 1;
		dot_colour(col, w);
		fprintf(out,
			"\t\"f%" PRIu32 "\" -> \"f%" PRIu32 "\" [arrowsize=\"%.2f\", color=\"%s\", "
			"fontcolor=\"%s\", fontsize=\"%.2f\", label=\"%.2f%%\\n",
			a->parent, a->child, 0.35 + 0.65 * w, col, col, 9 + 9 * w, 100 * w);
		if (lib)
			fputc('-', out);
		else
			fprintf(out, "%" PRIu64 "×", a->count);
		fprintf(out, "\", penwidth=\"%.2f\"];\n", 0.5 + 3.5 * w);
	}
	fputs("}\n", out);
	free(shown);
	return 0;
}
