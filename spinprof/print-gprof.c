/* The flat profile, call graph and index in GNU gprof's layout (columns, widths, sort orders), so
 * that people and tools that read gprof's output read ours; the explanations are our own. */
#include <stdlib.h>
#include <string.h>

#include "prof.h"

/* What the columns mean, in our words: printed after each listing unless -b, where a gprof user
 * expects an explanation. */
static const char flat_blurb[] =
	"\n"
	"Columns of the flat profile:\n"
	"\n"
	" % time            share of all self time that was spent in this function's own code\n"
	" cumulative seconds self seconds of this line and of every line above it\n"
	" self seconds      time in the function itself, not in what it called; the listing\n"
	"                   is sorted by this column, then by calls, then by name\n"
	" calls             how many times the function was called (blank when unknown)\n"
	" self .s/call      self time per call, in the unit the header names (s, ms, us, ns)\n"
	" total .s/call     self and children time per call, in the same unit\n"
	" name              the function; [N] is its entry in the call graph below\n"
	"\n"
	"For spy profiles the times are measured cycles, less the hooks' calibrated cost;\n"
	"for gcc -pg profiles they come from PC samples, one per tick.\n";

static const char graph_blurb[] =
	"\n"
	"Reading the call graph:\n"
	"\n"
	"Each entry is one function, set apart by dashes. The line that starts with its\n"
	"index [N] is the function itself; the lines above it are its callers (parents),\n"
	"the lines below are the functions it calls (children).\n"
	"\n"
	"On the function's own line:\n"
	" % time    share of the total time spent in it and in what it calls\n"
	" self      time in its own code\n"
	" children  time in the functions it calls\n"
	" called    calls from others, and after a '+' the calls it makes to itself\n"
	"\n"
	"On a caller's line: the part of the function's self and children time that\n"
	"belongs to calls from that caller, and 'calls from it / all calls'.\n"
	"On a child's line: the part of the child's time that belongs to calls from this\n"
	"function, and 'calls from this function / all calls of the child'.\n"
	"\n"
	"A caller shown as <spontaneous> is a root: main, a thread's start routine, or a\n"
	"function entered from code without instrumentation (a signal handler, a callback).\n"
	"\n"
	"Functions that call one another in a circle form a cycle: they are listed as\n"
	"<cycle N as a whole> with their members, and time is handed to callers of the\n"
	"cycle as a whole. For spy time profiles every arc carries its own measured time;\n"
	"for gcc -pg profiles a child's time is shared among its callers by call counts.\n";

static const struct {
	char prefix;
	double scale;
} si_tab[] = {
	{ 'T', 1e-12 }, { 'G', 1e-09 }, { 'M', 1e-06 }, { 'K', 1e-03 }, { ' ', 1e-00 }, { 'm', 1e+03 },
	{ 'u', 1e+06 }, { 'n', 1e+09 }, { 'p', 1e+12 }, { 'f', 1e+15 }, { 'a', 1e+18 },
};

static const struct prof *cmp_prof;

static int cmp_time(const void *a, const void *b)
{
	const struct prof_func *l = &cmp_prof->items[*(const uint32_t *)a];
	const struct prof_func *r = &cmp_prof->items[*(const uint32_t *)b];
	double diff = r->time - l->time;
	if (diff > 0.0)
		return 1;
	if (diff < 0.0)
		return -1;
	if (r->ncalls > l->ncalls)
		return 1;
	if (r->ncalls < l->ncalls)
		return -1;
	int c = strcmp(l->name, r->name);
	return c ? c : (l->addr > r->addr) - (l->addr < r->addr);
}

static void flat_line(FILE *f, const struct prof *p, const struct prof_func *s, double scale, double total,
		      double *accum, unsigned flags)
{
	if (!(flags & PRINT_ZEROS) && s->ncalls == 0 && s->time == 0)
		return;
	*accum += s->time;
	fprintf(f, "%6.2f %9.2f %8.2f", total > 0.0 ? 100 * s->time / total : 0.0, *accum / p->hz,
		s->time / p->hz);
	if (s->ncalls != 0)
		fprintf(f, " %8lu %8.2f %8.2f  ", (unsigned long)s->ncalls,
			scale * s->time / p->hz / s->ncalls,
			scale * (s->time + s->child_time) / p->hz / s->ncalls);
	else
		fprintf(f, " %8.8s %8.8s %8.8s  ", "", "", "");
	fprintf(f, "%s\n", s->name);
}

void print_flat(FILE *f, struct prof *p, unsigned flags, int *first)
{
	uint32_t *order = xmalloc((p->nsyms + 1) * sizeof(uint32_t));
	for (size_t i = 0; i < p->nsyms; i++)
		order[i] = (uint32_t)i;
	cmp_prof = p;
	qsort(order, p->nsyms, sizeof(uint32_t), cmp_time);
	size_t log_scale = 0;
	double top_time = 0.0;
	for (size_t i = 0; i < p->nsyms; i++) {
		const struct prof_func *s = &p->items[order[i]];
		if (s->ncalls != 0) {
			double t = (s->time + s->child_time) / s->ncalls;
			if (t > top_time)
				top_time = t;
		}
	}
	if (top_time > 0.0) {
		top_time /= p->hz;
		for (log_scale = 0; log_scale < sizeof(si_tab) / sizeof(si_tab[0]); log_scale++) {
			double v = si_tab[log_scale].scale * top_time;
			if (v >= 1.0 && v < 1000.0)
				break;
		}
		if (log_scale == sizeof(si_tab) / sizeof(si_tab[0]))
			log_scale = 0; /* gprof would read past its table; T is as good as any */
	}
	if (!*first)
		fputs("\f\n", f);
	*first = 0;
	fputs("Flat profile:\n", f);
	char unit[64];
	snprintf(unit, sizeof(unit), "%cs/call", si_tab[log_scale].prefix);
	fprintf(f, "\nEach sample counts as %g seconds.\n", 1.0 / p->hz);
	double total = p->total_time;
	if (total <= 0.0) {
		fputs(" no time accumulated\n\n", f);
		total = 1.0;
	}
	fprintf(f, "%5.5s %10.10s %8.8s %8.8s %8.8s %8.8s  %-8.8s\n", "%  ", "cumulative", "self  ", "",
		"self  ", "total ", "");
	fprintf(f, "%5.5s %9.9s  %8.8s %8.8s %8.8s %8.8s  %-8.8s\n", "time", "seconds", "seconds", "calls",
		unit, unit, "name");
	double accum = 0.0;
	for (size_t i = 0; i < p->nsyms; i++)
		flat_line(f, p, &p->items[order[i]], si_tab[log_scale].scale, total, &accum, flags);
	free(order);
	if (!(flags & PRINT_BRIEF)) {
		fputs(flat_blurb, f);
	}
}

/* Decimal digits of v, written backwards from end; returns the first. printf costs too much here:
 * a call graph prints a name for every arc, twice. */
static char *utoa_end(char *end, unsigned long v)
{
	do
		*--end = (char)('0' + v % 10);
	while (v /= 10);
	return end;
}

static void print_name(FILE *f, const struct prof_func *s)
{
	char buf[64], *end = buf + sizeof(buf), *q = end;

	fputs(s->name, f);
	if (s->index != 0) {
		*--q = s->print_flag ? ']' : ')';
		q = utoa_end(q, s->index);
		*--q = s->print_flag ? '[' : '(';
		*--q = ' ';
	}
	if (s->cyc > 0) {
		*--q = '>';
		q = utoa_end(q, (unsigned long)s->cyc);
		q -= 8;
		memcpy(q, " <cycle ", 8);
	}
	fwrite(q, 1, (size_t)(end - q), f);
}

/* gprof's cmp_arc: self calls lowest, then calls within a cycle by count, then by time, count. */
static int cmp_arc(const struct prof *p, const struct prof_arc *l, const struct prof_arc *r)
{
	if (l->parent == l->child)
		return -1;
	if (r->parent == r->child)
		return 1;
	const struct prof_func *lp = &p->items[l->parent], *lc = &p->items[l->child];
	const struct prof_func *rp = &p->items[r->parent], *rc = &p->items[r->child];
	int lin = lp->cyc != 0 && lc->cyc != 0 && lp->cyc == lc->cyc;
	int rin = rp->cyc != 0 && rc->cyc != 0 && rp->cyc == rc->cyc;
	if (lin && rin)
		return (l->count > r->count) - (l->count < r->count);
	if (lin)
		return -1;
	if (rin)
		return 1;
	double lt = l->time + l->child_time, rt = r->time + r->child_time;
	if (lt < rt)
		return -1;
	if (lt > rt)
		return 1;
	return (l->count > r->count) - (l->count < r->count);
}

static int arc_sign;

static int cmp_arc_idx(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	int c = arc_sign * cmp_arc(cmp_prof, &cmp_prof->arcs[x], &cmp_prof->arcs[y]);
	return c ? c : (x > y) - (x < y);
}

/* gprof's insertion sorts amount to stable sorts over the arcs' first-seen order: parents
 * ascending, children descending. */
static uint32_t *sorted_arcs(const struct prof *p, const uint32_t *arcs, uint32_t n, int sign, uint32_t **buf,
			     size_t *bufsz)
{
	if (n > *bufsz) {
		*bufsz = n * 2;
		*buf = xrealloc(*buf, *bufsz * sizeof(uint32_t));
	}
	if (n == 0)
		return *buf; /* no arcs: the buffer may not exist yet */
	memcpy(*buf, arcs, n * sizeof(uint32_t));
	cmp_prof = p;
	arc_sign = sign;
	qsort(*buf, n, sizeof(uint32_t), cmp_arc_idx);
	return *buf;
}

/* gprof's sort_members: by total time, then calls, both decreasing (ties: address order). */
static int cmp_member(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	const struct prof_func *l = &cmp_prof->items[x], *r = &cmp_prof->items[y];
	double tl = l->prop_self + l->prop_child, tr = r->prop_self + r->prop_child;
	if (tl != tr)
		return tl > tr ? -1 : 1;
	uint64_t cl = l->ncalls + l->self_calls, cr = r->ncalls + r->self_calls;
	if (cl != cr)
		return cl > cr ? -1 : 1;
	return (x > y) - (x < y);
}

static void graph_entry(FILE *f, const struct prof *p, const struct prof_func *s, double print_time,
			uint32_t **buf, size_t *bufsz)
{
	double hz = p->hz;
	uint32_t self = (uint32_t)(s - p->items);
	if (!s->name) {
		char b[32];
		snprintf(b, sizeof(b), "[%u]", s->index);
		fprintf(f, "%-6.6s %5.1f %7.2f %7.2f %7lu", b,
			100 * (s->prop_self + s->prop_child) / print_time, s->prop_self / hz,
			s->prop_child / hz, (unsigned long)s->ncalls);
		if (s->self_calls != 0)
			fprintf(f, "+%-7lu", (unsigned long)s->self_calls);
		else
			fprintf(f, " %7.7s", "");
		fprintf(f, " <cycle %d as a whole> [%u]\n", s->cyc, s->index);
		/* members, by total time then calls (stable: address order on ties) */
		size_t nm = 0;
		for (uint32_t m = s->next; m != PROF_NONE; m = p->items[m].next)
			nm++;
		if (nm > *bufsz) {
			*bufsz = nm * 2;
			*buf = xrealloc(*buf, *bufsz * sizeof(uint32_t));
		}
		nm = 0;
		for (uint32_t m = s->next; m != PROF_NONE; m = p->items[m].next)
			(*buf)[nm++] = m;
		cmp_prof = p;
		qsort(*buf, nm, sizeof(uint32_t), cmp_member);
		for (size_t k = 0; k < nm; k++) {
			const struct prof_func *fm = &p->items[(*buf)[k]];
			fprintf(f, "%6.6s %5.5s %7.2f %7.2f %7lu", "", "", fm->prop_self / hz,
				fm->prop_child / hz, (unsigned long)fm->ncalls);
			if (fm->self_calls != 0)
				fprintf(f, "+%-7lu", (unsigned long)fm->self_calls);
			else
				fprintf(f, " %7.7s", "");
			fputs("     ", f);
			print_name(f, fm);
			fputc('\n', f);
		}
		return;
	}
	const struct prof_func *head = &p->items[s->head];
	if (s->nparent == 0) {
		fprintf(f, "%6.6s %5.5s %7.7s %7.7s %7.7s %7.7s     <spontaneous>\n", "", "", "", "", "", "");
	} else {
		uint32_t *v = sorted_arcs(p, p->parent_arcs + s->parent0, s->nparent, 1, buf, bufsz);
		for (uint32_t k = 0; k < s->nparent; k++) {
			const struct prof_arc *a = &p->arcs[v[k]];
			const struct prof_func *par = &p->items[a->parent];
			if (a->parent == self || (s->cyc != 0 && par->cyc == s->cyc))
				fprintf(f, "%6.6s %5.5s %7.7s %7.7s %7lu %7.7s     ", "", "", "", "",
					(unsigned long)a->count, "");
			else
				fprintf(f, "%6.6s %5.5s %7.2f %7.2f %7lu/%-7lu     ", "", "", a->time / hz,
					a->child_time / hz, (unsigned long)a->count,
					(unsigned long)head->ncalls);
			print_name(f, par);
			fputc('\n', f);
		}
	}
	char b[32];
	snprintf(b, sizeof(b), "[%u]", s->index);
	fprintf(f, "%-6.6s %5.1f %7.2f %7.2f", b, 100 * (s->prop_self + s->prop_child) / print_time,
		s->prop_self / hz, s->prop_child / hz);
	if (s->ncalls + s->self_calls != 0) {
		fprintf(f, " %7lu", (unsigned long)s->ncalls);
		if (s->self_calls != 0)
			fprintf(f, "+%-7lu ", (unsigned long)s->self_calls);
		else
			fprintf(f, " %7.7s ", "");
	} else {
		fprintf(f, " %7.7s %7.7s ", "", "");
	}
	print_name(f, s);
	fputc('\n', f);
	uint32_t *v = sorted_arcs(p, p->child_arcs + s->child0, s->nchild, -1, buf, bufsz);
	for (uint32_t k = 0; k < s->nchild; k++) {
		const struct prof_arc *a = &p->arcs[v[k]];
		const struct prof_func *ch = &p->items[a->child];
		if (a->child == self || (ch->cyc != 0 && ch->cyc == s->cyc))
			fprintf(f, "%6.6s %5.5s %7.7s %7.7s %7lu %7.7s     ", "", "", "", "",
				(unsigned long)a->count, "");
		else
			fprintf(f, "%6.6s %5.5s %7.2f %7.2f %7lu/%-7lu     ", "", "", a->time / hz,
				a->child_time / hz, (unsigned long)a->count,
				(unsigned long)p->items[ch->head].ncalls);
		print_name(f, ch);
		fputc('\n', f);
	}
}

void print_graph(FILE *f, struct prof *p, unsigned flags, int *first)
{
	if (!*first)
		fputs("\f\n", f);
	*first = 0;
	fputs(flags & PRINT_BRIEF ? "\t\t\tCall graph\n\n" : "\t\t     Call graph (explanation follows)\n\n",
	      f);
	double print_time = 0.0;
	for (size_t i = 0; i < p->nsyms; i++)
		print_time += p->items[i].time;
	if (p->kind == PROF_SPY)
		fputs("\ngranularity: exact cycle counts", f);
	else
		fprintf(f, "\ngranularity: each sample hit covers %ld byte(s)", p->granularity);
	if (print_time > 0.0)
		fprintf(f, " for %.2f%% of %.2f seconds\n\n", 100.0 / print_time, print_time / p->hz);
	else {
		fputs(" no time propagated\n\n", f);
		print_time = 1.0;
	}
	fputs("index % time    self  children    called     name\n", f);
	uint32_t *buf = NULL;
	size_t bufsz = 0;
	for (size_t i = 0; i < p->nr; i++) {
		const struct prof_func *s = &p->items[p->time_order[i]];
		if ((!(flags & PRINT_ZEROS) && s->ncalls == 0 && s->self_calls == 0 && s->prop_self == 0 &&
		     s->prop_child == 0) ||
		    !s->print_flag)
			continue;
		graph_entry(f, p, s, print_time, &buf, &bufsz);
		fputs("-----------------------------------------------\n", f);
	}
	free(buf);
	if (!(flags & PRINT_BRIEF)) {
		fputs(graph_blurb, f);
	}
}

static int cmp_name(const void *a, const void *b)
{
	const struct prof_func *l = &cmp_prof->items[*(const uint32_t *)a];
	const struct prof_func *r = &cmp_prof->items[*(const uint32_t *)b];
	int c = strcmp(l->name, r->name);
	return c ? c : (l->addr > r->addr) - (l->addr < r->addr);
}

void print_index(FILE *f, struct prof *p, unsigned flags)
{
	int column_width = (80 - 1) / 3;
	uint32_t *names = xmalloc((p->nr + 1) * sizeof(uint32_t));
	size_t nnames = 0;
	for (size_t i = 0; i < p->nsyms; i++) {
		const struct prof_func *s = &p->items[i];
		if (!(flags & PRINT_ZEROS) && s->ncalls == 0 && s->time == 0)
			continue;
		names[nnames++] = (uint32_t)i;
	}
	cmp_prof = p;
	qsort(names, nnames, sizeof(uint32_t), cmp_name);
	size_t todo = nnames;
	for (size_t i = p->nsyms; i < p->nr; i++)
		names[todo++] = (uint32_t)i;
	fputs("\f\nIndex by function name\n\n", f);
	size_t rows = (todo + 2) / 3;
	for (size_t i = 0; i < rows; i++) {
		int col = 0, starting_col = 0;
		for (size_t j = i; j < todo; j += rows) {
			const struct prof_func *s = &p->items[names[j]];
			char buf[48];
			snprintf(buf, sizeof(buf), s->print_flag ? "[%u]" : "(%u)", s->index);
			col += (int)strlen(buf);
			for (; col < starting_col + 5; ++col)
				fputc(' ', f);
			fprintf(f, " %s ", buf);
			if (j < nnames) {
				fputs(s->name, f);
				col += (int)strlen(s->name);
				if (s->is_static && s->file) {
					const char *fn = strrchr(s->file, '/');
					fn = fn ? fn + 1 : s->file;
					fprintf(f, " (%s)", fn);
					col += (int)strlen(fn) + 3;
				}
			} else {
				snprintf(buf, sizeof(buf), "<cycle %d>", s->cyc);
				fputs(buf, f);
				col += (int)strlen(buf);
			}
			starting_col += column_width;
		}
		fputc('\n', f);
	}
	free(names);
}
