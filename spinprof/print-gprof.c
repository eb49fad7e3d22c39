/* The flat profile, call graph and index in GNU gprof's layout (columns, widths, sort orders), so
 * that people and tools that read gprof's output read ours; the explanations are our own. */
#define _GNU_SOURCE /* qsort_r */
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "esc.h"
#include "fmt.h"
#include "print-gprof.h"
#include "print-header.h"
#include "prof.h"
#include "spy-abi.h"
#include "symspec.h"

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
	"For spy profiles of mode time the times are measured cycles, less the hooks'\n"
	"calibrated cost; calls are exact in every mode. In modes count and arcs the times\n"
	"come from the CPU (or wall) samples, the innermost instrumented function on the\n"
	"sampled stack charged, the profiler's own ticks left out. For gcc -pg profiles\n"
	"they come from PC samples, one per tick.\n";

static const char flat_lib_blurb[] =
	"\n"
	"A name followed by [MODULE] is code without hooks (a library's function, or the\n"
	"program's own built without the plugin) that the CPU samples caught running:\n"
	"its self time is carved from the self time of the instrumented functions that\n"
	"called it (in mode time their measured self time, in the proportion of their\n"
	"own samples that fell in it), and its calls are not counted (blank).\n";

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
	"for spy arcs profiles, the samples of the stacks it was on (so a callee's time goes\n"
	"to the callers that spent it); spy count profiles record no callers. For gcc -pg\n"
	"profiles a child's time is shared among its callers by call counts.\n";

static const char flat_off_blurb[] =
	"\n"
	"This profile measured the time off the CPU apart: every seconds column above is\n"
	"CPU time of the thread, as gprof means it, and\n"
	" off cpu seconds   time the function's own code spent off the CPU (blocked on a\n"
	"                   lock, a condition variable, a sleep, I/O or a page fault, or\n"
	"                   preempted); the header splits the total into blocked and preempted\n";

static const char flat_ctr_blurb[] =
	"\n"
	"This profile counted events at every call (SPYRT_COUNTERS), a pair of columns each:\n"
	" self/call         the events of the function's own code per call, as self seconds\n"
	" total/call        those of the function and what it called, per call\n"
	" CPI               cycles per instruction of the function's own code, when both\n"
	"                   instructions and cycles were counted\n";

static const char graph_off_blurb[] =
	"\n"
	"Times are CPU time. The off cpu column is the time off the CPU (blocked or\n"
	"preempted): on the function's line, of its calls and everything they called; on\n"
	"a caller's or child's line, of the calls through that arc.\n";

static const char graph_lib_blurb[] =
	"\n"
	"An entry NAME [MODULE] is code without hooks that the CPU samples caught running,\n"
	"under the instrumented functions that called it: its time is theirs that the\n"
	"samples put there (taken off their self time); the hooks saw no call of it, so\n"
	"its called column is blank and its arcs' counts are '-'.\n";

static const struct {
	char prefix;
	double scale;
} si_tab[] = {
	{ 'T', 1e-12 }, { 'G', 1e-09 }, { 'M', 1e-06 }, { 'K', 1e-03 }, { ' ', 1e-00 }, { 'm', 1e+03 },
	{ 'u', 1e+06 }, { 'n', 1e+09 }, { 'p', 1e+12 }, { 'f', 1e+15 }, { 'a', 1e+18 },
};

/* Sort keys of the functions, packed: the sorts read these instead of the functions' big structs
 * (same comparisons, so the same orders). */
struct fkey {
	double t;
	uint64_t c;
	const char *name;
	uint64_t addr;
};

/* gprof's cmp_time (t: self time, c: calls), then address */
static int cmp_time(const void *a, const void *b, void *arg)
{
	const struct fkey *keys = arg;
	const struct fkey *l = &keys[*(const uint32_t *)a];
	const struct fkey *r = &keys[*(const uint32_t *)b];
	double diff = r->t - l->t;
	if (diff > 0.0)
		return 1;
	if (diff < 0.0)
		return -1;
	if (r->c > l->c)
		return 1;
	if (r->c < l->c)
		return -1;
	int c = strcmp(l->name, r->name);
	return c ? c : (l->addr > r->addr) - (l->addr < r->addr);
}

/* The listings are written through a buffer of our own with the fmt.h helpers: a call graph of a
 * million arcs is millions of lines, and printf's and stdio's cost per call dominated the run. */
struct obuf {
	FILE *f; /* NULL: the text stays in buf, which grows */
	char *buf, *q, *lim;
	size_t size;
};

#define OBUF_SIZE (256 * 1024)
#define OBUF_LINE (8 * FMT_NUM_MAX) /* room for one line's numbers; names are copied apart */

static void ob_open(struct obuf *o, FILE *f)
{
	o->f = f;
	o->size = OBUF_SIZE;
	o->buf = o->q = xmalloc(o->size);
	o->lim = o->buf + o->size - OBUF_LINE;
}

static void ob_grow(struct obuf *o, size_t more)
{
	size_t used = (size_t)(o->q - o->buf);
	while (o->size - used < more + OBUF_LINE)
		o->size *= 2;
	o->buf = xrealloc(o->buf, o->size);
	o->q = o->buf + used;
	o->lim = o->buf + o->size - OBUF_LINE;
}

static void ob_flush(struct obuf *o)
{
	if (!o->f) {
		ob_grow(o, OBUF_LINE);
		return;
	}
	fwrite(o->buf, 1, (size_t)(o->q - o->buf), o->f);
	o->q = o->buf;
}

/* Room for OBUF_LINE more bytes at o->q. */
static inline void ob_room(struct obuf *o)
{
	if (o->q > o->lim)
		ob_flush(o);
}

static void ob_close(struct obuf *o)
{
	if (o->f)
		ob_flush(o);
	free(o->buf);
}

/* Copy n bytes of s; long ones (C++ names) go through stdio. */
static inline void ob_put(struct obuf *o, const char *s, size_t n)
{
	if (n > OBUF_LINE / 2) {
		if (o->f) {
			ob_flush(o);
			fwrite(s, 1, n, o->f);
			return;
		}
		ob_grow(o, n);
	}
	ob_room(o);
	memcpy(o->q, s, n);
	o->q += n;
}

static void ob_puts(struct obuf *o, const char *s)
{
	ob_put(o, s, strlen(s));
}

/* printf("%-6.6s", "[index]"): gprof's index column, cut at six characters */
static char *fmt_index6(char *q, uint32_t index)
{
	char b[16], *end = b + sizeof(b), *s = end;
	*--s = ']';
	s = fmt_digits_end(s, index);
	*--s = '[';
	int n = (int)(end - s);
	if (n > 6)
		n = 6;
	memcpy(q, s, (size_t)n);
	return fmt_spaces(q + n, 6 - n);
}

/* The flat profile's counter columns: self and total per call of each, and cycles per instruction
 * of the function's own code when both were counted (dashes where there is nothing to divide). */
static char *flat_ctrs(char *q, const struct prof *p, const struct prof_ctr *c, uint64_t calls)
{
	double cpi = prof_ctr_cpi(p, c);

	for (uint32_t k = 0; k < p->nctr; k++) {
		if (calls) {
			q = fmt_f(q, c->self[k] / (double)calls, 10, 2);
			*q++ = ' ';
			q = fmt_f(q, c->incl[k] / (double)calls, 10, 2);
		} else {
			q = fmt_spaces(q, 21);
		}
		q = fmt_spaces(q, 2);
	}
	if (prof_ctr_col(p, "instructions") >= 0 && prof_ctr_col(p, "cycles") >= 0) {
		if (cpi >= 0) {
			q = fmt_f(q, cpi, 6, 2);
		} else {
			q = fmt_spaces(q, 5);
			*q++ = '-';
		}
		q = fmt_spaces(q, 2);
	}
	return q;
}

/* The counter columns' two heading lines (line 0: the counters' names, 1: what each column is). */
static void flat_ctr_head(FILE *f, const struct prof *p, int line)
{
	for (uint32_t k = 0; k < p->nctr; k++) {
		const char *name = esc_text(p->ctr_names[k]);
		if (line == 0)
			fprintf(f, "%21.*s  ", (int)esc_cut(name, 21), name);
		else
			fprintf(f, "%10s %10s  ", "self/call", "total/call");
	}
	if (prof_ctr_col(p, "instructions") >= 0 && prof_ctr_col(p, "cycles") >= 0)
		fprintf(f, "%6s  ", line == 0 ? "" : "CPI");
}

/* Whether p has rows of code without hooks (librows.c). */
static int has_lib(const struct prof *p)
{
	for (size_t i = 0; i < p->nsyms; i++)
		if (p->items[i].lib)
			return 1;
	return 0;
}

static void flat_line(struct obuf *o, const struct prof *p, const struct prof_func *s, double scale,
		      double total, double *accum, unsigned flags)
{
	if (!(flags & PRINT_ZEROS) && s->ncalls == 0 && s->time == 0)
		return;
	*accum += s->time;
	ob_room(o);
	char *q = o->q;
	int bsd = (flags & PRINT_BSD) != 0;
	q = fmt_f(q, total > 0.0 ? 100 * s->time / total : 0.0, bsd ? 5 : 6, bsd ? 1 : 2);
	*q++ = ' ';
	q = fmt_f(q, *accum / p->hz, bsd ? 10 : 9, 2);
	*q++ = ' ';
	q = fmt_f(q, s->time / p->hz, 8, 2);
	if (s->ncalls != 0) {
		*q++ = ' ';
		q = fmt_u(q, s->ncalls, 8);
		*q++ = ' ';
		q = fmt_f(q, scale * s->time / p->hz / s->ncalls, 8, 2);
		*q++ = ' ';
		q = fmt_f(q, scale * (s->time + s->child_time) / p->hz / s->ncalls, 8, 2);
		q = fmt_spaces(q, 2);
	} else {
		q = fmt_spaces(q, 29);
	}
	if (p->offcpu) { /* the function's own time off the CPU, apart from its CPU self time */
		q = fmt_f(q, p->func_off[s - p->items].self / p->hz, 8, 2);
		q = fmt_spaces(q, 2);
	}
	if (p->func_ctr) /* SPYRT_COUNTERS: each counter's self and total per call, and CPI */
		q = flat_ctrs(q, p, &p->func_ctr[s - p->items], s->ncalls);
	o->q = q;
	ob_puts(o, esc_text(s->name));
	ob_room(o);
	if (bsd) { /* gprof's print_name: the cycle and the call graph's index too */
		q = o->q;
		if (s->cyc > 0) {
			memcpy(q, " <cycle ", 8);
			q = fmt_u(q + 8, (uint64_t)s->cyc, 0);
			*q++ = '>';
		}
		if (s->index != 0) {
			*q++ = ' ';
			*q++ = s->print_flag ? '[' : '(';
			q = fmt_u(q, s->index, 0);
			*q++ = s->print_flag ? ']' : ')';
		}
		o->q = q;
	}
	*o->q++ = '\n';
}

/* gprof's granularity line says what one sample is worth; a spy profile has no samples to weigh: it
 * says what its unit is and how much time there is (of seconds, in the profile's ticks), or that its
 * mode measures none. */
static void spy_granularity(FILE *f, const struct prof *p, double seconds)
{
	if (p->measured)
		fprintf(f, "\ngranularity: exact cycle counts, one cycle %.3g ns; %.6f seconds in all\n\n",
			1e9 / p->hz, seconds / p->hz);
	else if (p->sampled)
		fprintf(f,
			"\ngranularity: exact call counts; times from %s samples of the stacks, one "
			"tick %.3g ms; %.2f seconds in all\n\n",
			gmon_watch_name(p->spy.sampling->watch), 1e3 / p->hz, seconds / p->hz);
	else if (p->no_arcs)
		fputs("\ngranularity: exact calls per function; callers not recorded in mode count\n\n", f);
	else if (p->spy.hdr.mode == SPY_MODE_TIME)
		fputs("\ngranularity: exact call counts; no times (the profile has no time-stamp rate)\n\n",
		      f);
	else
		fprintf(f, "\ngranularity: exact call counts; no times in mode %s\n\n",
			gmon_mode_name(p->spy.hdr.mode));
}

void print_flat(FILE *f, const struct prof *p, const struct print_opts *po, int *first)
{
	unsigned flags = po->flags;
	uint32_t *order = xmalloc((p->nsyms + 1) * sizeof(uint32_t));
	for (size_t i = 0; i < p->nsyms; i++)
		order[i] = (uint32_t)i;
	struct fkey *keys = xmalloc((p->nsyms + 1) * sizeof(*keys));
	uint64_t *rk = xmalloc((p->nsyms + 1) * sizeof(uint64_t));
	int nan = 0;
	for (size_t i = 0; i < p->nsyms; i++) {
		const struct prof_func *s = &p->items[i];
		keys[i] = (struct fkey){ s->time, s->ncalls, prof_key(s), s->addr };
		nan |= isnan(s->time);
		rk[i] = ~prof_key_up(s->time); /* self time decreasing */
	}
	if (nan)
		qsort_r(order, p->nsyms, sizeof(uint32_t), cmp_time, keys);
	else
		prof_sort_keyed_r(order, rk, p->nsyms, cmp_time, keys);
	free(rk);
	free(keys);
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
	if (flags & PRINT_BSD) {
		log_scale = 5; /* gprof's BSD layout: milliseconds */
	} else if (top_time > 0.0) {
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
	if (!(flags & PRINT_BSD)) {
		fputs("Flat profile:\n", f);
	} else if (!(flags & PRINT_BRIEF)) { /* gprof's BSD layout explains first */
		fputs("\n\n\nflat profile:\n", f);
		fputs(flat_blurb, f);
		if (p->offcpu)
			fputs(flat_off_blurb, f);
	}
	char unit[64];
	snprintf(unit, sizeof(unit), "%cs/call", si_tab[log_scale].prefix);
	double total = p->total_time;
	if (!(flags & PRINT_BSD))
		fprintf(f, "\nEach sample counts as %g seconds.\n", 1.0 / p->hz);
	if (p->kind == PROF_SPY && (p->spec_used & (1u << SYMSPEC_INCL_FLAT | 1u << SYMSPEC_EXCL_FLAT))) {
		/* gprof's total leaves out the time of the functions not listed */
		total = 0.0;
		for (size_t i = 0; i < p->nsyms; i++)
			if (symspecs_in_flat(p, &p->items[i]))
				total += p->items[i].time;
	}
	/* -T: gprof's granularity line, or a spy profile's own, which says what it has */
	int spy_line = (flags & PRINT_BSD) && p->kind == PROF_SPY;
	if (spy_line) {
		spy_granularity(f, p, total > 0.0 ? total : 0.0);
	} else if (flags & PRINT_BSD) {
		fprintf(f, "\ngranularity: each sample hit covers %ld byte(s)", p->granularity);
		if (total > 0.0)
			fprintf(f, " for %.2f%% of %.2f seconds\n\n", 100.0 / total, total / p->hz);
	}
	if (total <= 0.0) {
		char why[160];
		if (!spy_line)
			fprintf(f, " no time accumulated%s\n\n", no_ticks(p, why, sizeof(why)) ? why : "");
		total = 1.0;
	}
	if (p->offcpu) {
		fprintf(f, "%5.5s %10.10s %8.8s %8.8s %8.8s %8.8s  %8.8s  ", "%  ", "cumulative", "self  ",
			"", "self  ", "total ", "off cpu ");
		flat_ctr_head(f, p, 0);
		fprintf(f, "%-8.8s\n", "");
		fprintf(f, "%5.5s %9.9s  %8.8s %8.8s %8.8s %8.8s  %8.8s  ", "time", "seconds", "seconds",
			"calls", unit, unit, "seconds ");
		flat_ctr_head(f, p, 1);
		fprintf(f, "%-8.8s\n", "name");
	} else {
		fprintf(f, "%5.5s %10.10s %8.8s %8.8s %8.8s %8.8s  ", "%  ", "cumulative", "self  ", "",
			"self  ", "total ");
		flat_ctr_head(f, p, 0);
		fprintf(f, "%-8.8s\n", "");
		fprintf(f, "%5.5s %9.9s  %8.8s %8.8s %8.8s %8.8s  ", "time", "seconds", "seconds", "calls",
			unit, unit);
		flat_ctr_head(f, p, 1);
		fprintf(f, "%-8.8s\n", "name");
	}
	double accum = 0.0;
	struct obuf o;
	ob_open(&o, f);
	for (size_t i = 0; i < p->nsyms; i++)
		if (symspecs_in_flat(p, &p->items[order[i]]))
			flat_line(&o, p, &p->items[order[i]], si_tab[log_scale].scale, total, &accum, flags);
	ob_close(&o);
	free(order);
	if (!(flags & PRINT_BRIEF) && !(flags & PRINT_BSD)) {
		fputs(flat_blurb, f);
		if (p->offcpu)
			fputs(flat_off_blurb, f);
		if (p->nctr)
			fputs(flat_ctr_blurb, f);
		if (has_lib(p))
			fputs(flat_lib_blurb, f);
	}
}

/* What the call graph needs of a function at the other end of an arc, packed (a function's own
 * struct is large, and the arcs reach functions at random): its name as gprof's print_name shows
 * it ("name <cycle C> [N]", in lab), its cycle, and its calls (or its cycle's), the denominator of
 * a child line. */
struct gfn {
	uint64_t denom;
	size_t lab;
	uint32_t len;
	int cyc;
};

struct glab {
	struct gfn *fn;
	char *lab;
	int cw; /* the children column's width: 7, or 11 in gprof's BSD layout (-T) */
};

/* gprof's print_name for every function. */
static void graph_labels(const struct prof *p, struct glab *g)
{
	size_t n = p->nsyms, size = 0;
	g->fn = xmalloc((n + 1) * sizeof(*g->fn));
	for (size_t i = 0; i < n; i++)
		size += strlen(esc_text(p->items[i].name)) + 2 * 24;
	g->lab = xmalloc(size + 1);
	char *q = g->lab;
	for (size_t i = 0; i < n; i++) {
		const struct prof_func *s = &p->items[i];
		struct gfn *x = &g->fn[i];
		x->lab = (size_t)(q - g->lab);
		x->cyc = s->cyc;
		x->denom = p->items[s->head].ncalls;
		const char *name = esc_text(s->name);
		size_t nl = strlen(name);
		memcpy(q, name, nl);
		q += nl;
		if (s->cyc > 0) {
			memcpy(q, " <cycle ", 8);
			q = fmt_u(q + 8, (uint64_t)s->cyc, 0);
			*q++ = '>';
		}
		if (s->index != 0) {
			*q++ = ' ';
			*q++ = s->print_flag ? '[' : '(';
			q = fmt_u(q, s->index, 0);
			*q++ = s->print_flag ? ']' : ')';
		}
		x->len = (uint32_t)((size_t)(q - g->lab) - x->lab);
	}
}

static inline void put_label(struct obuf *o, const struct glab *g, uint32_t i)
{
	ob_put(o, g->lab + g->fn[i].lab, g->fn[i].len);
	ob_room(o);
	*o->q++ = '\n';
}

/* One arc of a parent or child list with its sort key, gprof's cmp_arc: self calls lowest
 * (cls 0), then calls within a cycle (cls 1) by count, then the others (cls 2) by time, count. */
struct gent {
	double t;
	uint64_t count;
	uint32_t arc, other;
	int cls;
};

/* x before y: the key ascending (sign 1) or descending (sign -1), ties in the arcs' first-seen
 * order; gprof's insertion sorts amount to this stable sort. */
static inline int gent_before(const struct gent *x, const struct gent *y, int sign)
{
	int c = 0;
	if (x->cls != y->cls)
		c = x->cls < y->cls ? -1 : 1;
	else if (x->cls == 1)
		c = (x->count > y->count) - (x->count < y->count);
	else if (x->cls == 2)
		c = x->t < y->t ? -1 : x->t > y->t ? 1 : (x->count > y->count) - (x->count < y->count);
	c *= sign;
	return c ? c < 0 : x->arc < y->arc;
}

/* qsort_r's comparison (the call graph is printed by two threads: no globals) */
static int cmp_gent(const void *a, const void *b, void *sign)
{
	const struct gent *x = a, *y = b;
	int sg = *(const int *)sign;
	return gent_before(x, y, sg) ? -1 : gent_before(y, x, sg) ? 1 : 0;
}

/* The arcs of a list sorted (most lists are short: insertion sort, no callbacks). */
static struct gent *sorted_arcs(const struct prof *p, const struct glab *g, const uint32_t *arcs, uint32_t n,
				int parents, struct gent **buf, size_t *bufsz)
{
	if (n > *bufsz) {
		*bufsz = (size_t)n * 2;
		*buf = xrealloc(*buf, *bufsz * sizeof(**buf));
	}
	struct gent *e = *buf;
	for (uint32_t k = 0; k < n; k++) {
		const struct prof_arc *a = &p->arcs[arcs[k]];
		int pc = g->fn[a->parent].cyc, cc = g->fn[a->child].cyc;
		e[k].t = a->time + a->child_time;
		e[k].count = a->count;
		e[k].arc = arcs[k];
		e[k].other = parents ? a->parent : a->child;
		e[k].cls = a->parent == a->child ? 0 : pc != 0 && cc != 0 && pc == cc ? 1 : 2;
		__builtin_prefetch(g->lab + g->fn[e[k].other].lab);
	}
	int sign = parents ? 1 : -1;
	if (n <= 32) {
		for (uint32_t k = 1; k < n; k++) {
			struct gent x = e[k];
			uint32_t j = k;
			for (; j > 0 && gent_before(&x, &e[j - 1], sign); j--)
				e[j] = e[j - 1];
			e[j] = x;
		}
	} else {
		qsort_r(e, n, sizeof(*e), cmp_gent, &sign);
	}
	return e;
}

/* gprof's sort_members (t: total time, c: calls and self calls): both decreasing, ties in the
 * cycle's chain order (addr holds the place), as its insertion sort leaves them. */
static int cmp_member(const void *a, const void *b, void *keys)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	const struct fkey *l = (const struct fkey *)keys + x, *r = (const struct fkey *)keys + y;
	if (l->t != r->t)
		return l->t > r->t ? -1 : 1;
	if (l->c != r->c)
		return l->c > r->c ? -1 : 1;
	return (l->addr > r->addr) - (l->addr < r->addr);
}

/* An arc's line: within a cycle or to itself just the count, else self, children, count/calls; an
 * arc into code without hooks (nocount: its calls were not counted) "-" for the count. */
static void arc_line(struct obuf *o, const struct prof_arc *a, const struct gent *e, uint64_t denom,
		     double hz, const double *off, int cw, int nocount)
{
	ob_room(o);
	char *q = o->q;
	if (e->cls < 2) {
		q = fmt_spaces(q, 22 + cw);
		q = fmt_u(q, a->count, 7);
		q = fmt_spaces(q, 13);
	} else {
		q = fmt_spaces(q, 13);
		q = fmt_f(q, a->time / hz, 7, 2);
		*q++ = ' ';
		q = fmt_f(q, a->child_time / hz, cw, 2);
		*q++ = ' ';
		if (nocount) {
			q = fmt_spaces(q, 6);
			*q++ = '-';
			q = fmt_spaces(q, 13);
		} else {
			q = fmt_u(q, a->count, 7);
			*q++ = '/';
			q = fmt_u_left(q, denom, 7);
			q = fmt_spaces(q, 5);
		}
	}
	if (off) { /* the calls' time off the CPU: in a column of its own, where the name was */
		q -= 4;
		if (e->cls < 2)
			q = fmt_spaces(q, 7);
		else
			q = fmt_f(q, off[e->arc] / hz, 7, 2);
		q = fmt_spaces(q, 6);
	}
	o->q = q;
}

static void graph_entry(struct obuf *o, const struct prof *p, const struct glab *g, const struct prof_func *s,
			double print_time, void **buf, size_t *bufsz)
{
	double hz = p->hz;
	char *q;
	ob_room(o);
	if (!s->name) {
		q = fmt_index6(o->q, s->index);
		*q++ = ' ';
		q = fmt_f(q, 100 * (s->prop_self + s->prop_child) / print_time, 5, 1);
		*q++ = ' ';
		q = fmt_f(q, s->prop_self / hz, 7, 2);
		*q++ = ' ';
		q = fmt_f(q, s->prop_child / hz, g->cw, 2);
		*q++ = ' ';
		q = fmt_u(q, s->ncalls, 7);
		if (s->self_calls != 0) {
			*q++ = '+';
			q = fmt_u_left(q, s->self_calls, 7);
		} else {
			q = fmt_spaces(q, 8);
		}
		if (p->offcpu)
			q = fmt_spaces(q, 9);
		memcpy(q, " <cycle ", 8);
		q = fmt_u(q + 8, (uint64_t)s->cyc, 0);
		memcpy(q, " as a whole> [", 14);
		q = fmt_u(q + 14, s->index, 0);
		*q++ = ']';
		*q++ = '\n';
		o->q = q;
		/* members, by total time then calls (stable: address order on ties) */
		/* the chain walked once (each step waits for a member's struct: a big cycle's are
		 * all over the array), the buffer grown as it goes */
		size_t nm = 0;
		uint32_t *mem = *buf;
		for (uint32_t m = s->next; m != PROF_NONE; m = p->items[m].next) {
			if ((nm + 1) * sizeof(uint32_t) > *bufsz * sizeof(struct gent)) {
				*bufsz = *bufsz ? *bufsz * 2 : 64;
				*buf = xrealloc(*buf, *bufsz * sizeof(struct gent));
				mem = *buf;
			}
			mem[nm++] = m;
		}
		struct fkey *keys = xmalloc((p->nsyms + 1) * sizeof(*keys));
		uint64_t *rk = xmalloc((nm + 1) * sizeof(uint64_t));
		int nan = 0;
		for (size_t k = 0; k < nm; k++) {
			const struct prof_func *fm = &p->items[mem[k]];
			/* addr: the member's place in the cycle's chain, gprof's order on ties */
			keys[mem[k]] = (struct fkey){ fm->prop_self + fm->prop_child,
						      fm->ncalls + fm->self_calls, fm->name, k };
			nan |= isnan(keys[mem[k]].t);
			rk[k] = ~prof_key_up(keys[mem[k]].t); /* total time decreasing */
		}
		if (nan)
			qsort_r(mem, nm, sizeof(uint32_t), cmp_member, keys);
		else
			prof_sort_keyed_r(mem, rk, nm, cmp_member, keys);
		free(rk);
		free(keys);
		for (size_t k = 0; k < nm; k++) {
			const struct prof_func *fm = &p->items[mem[k]];
			ob_room(o);
			q = fmt_spaces(o->q, 13);
			q = fmt_f(q, fm->prop_self / hz, 7, 2);
			*q++ = ' ';
			q = fmt_f(q, fm->prop_child / hz, g->cw, 2);
			*q++ = ' ';
			q = fmt_u(q, fm->ncalls, 7);
			if (fm->self_calls != 0) {
				*q++ = '+';
				q = fmt_u_left(q, fm->self_calls, 7);
			} else {
				q = fmt_spaces(q, 8);
			}
			o->q = fmt_spaces(q, p->offcpu ? 14 : 5);
			put_label(o, g, mem[k]);
		}
		return;
	}
	uint32_t self = (uint32_t)(s - p->items);
	struct gent **ebuf = (struct gent **)buf;
	if (s->nparent == 0 && p->no_arcs) {
		/* mode count: not spontaneous, its callers were not recorded */
	} else if (s->nparent == 0) {
		o->q = fmt_spaces(o->q, (p->offcpu ? 46 : 37) + g->cw);
		ob_puts(o, "     <spontaneous>\n");
	} else {
		const struct gent *e =
			sorted_arcs(p, g, p->parent_arcs + s->parent0, s->nparent, 1, ebuf, bufsz);
		uint64_t denom = p->items[s->head].ncalls;
		for (uint32_t k = 0; k < s->nparent; k++) {
			arc_line(o, &p->arcs[e[k].arc], &e[k], denom, hz, p->arc_off, g->cw, s->lib);
			put_label(o, g, e[k].other);
		}
	}
	ob_room(o);
	q = fmt_index6(o->q, s->index);
	*q++ = ' ';
	q = fmt_f(q, 100 * (s->prop_self + s->prop_child) / print_time, 5, 1);
	*q++ = ' ';
	q = fmt_f(q, s->prop_self / hz, 7, 2);
	*q++ = ' ';
	q = fmt_f(q, s->prop_child / hz, g->cw, 2);
	if (s->ncalls + s->self_calls != 0) {
		*q++ = ' ';
		q = fmt_u(q, s->ncalls, 7);
		if (s->self_calls != 0) {
			*q++ = '+';
			q = fmt_u_left(q, s->self_calls, 7);
			*q++ = ' ';
		} else {
			q = fmt_spaces(q, 9);
		}
	} else {
		q = fmt_spaces(q, 17);
	}
	if (p->offcpu) {
		q = fmt_f(q, p->func_off[self].incl / hz, 7, 2);
		q = fmt_spaces(q, 2);
	}
	o->q = q;
	put_label(o, g, self);
	const struct gent *e = sorted_arcs(p, g, p->child_arcs + s->child0, s->nchild, 0, ebuf, bufsz);
	for (uint32_t k = 0; k < s->nchild; k++) {
		arc_line(o, &p->arcs[e[k].arc], &e[k], g->fn[e[k].other].denom, hz, p->arc_off, g->cw,
			 p->items[e[k].other].lib);
		put_label(o, g, e[k].other);
	}
}

/* The entries ahead in index order: their functions, arcs and the far ends of their arcs are at
 * random places, so their loads are started early enough to overlap (memory latency, not work,
 * was the call graph's cost). How far ahead, in entries: the functions' structs 2 * AHEAD_LISTS,
 * their arc index lists AHEAD_LISTS, the arcs AHEAD_ARCS, the far ends one; each step reads what
 * the one before brought in. */
#define AHEAD_ARCS 2
#define AHEAD_LISTS 4

/* The arcs of s's lists, or (ends) their far ends' packed entries. */
static void prefetch_lists(const struct prof *p, const struct glab *g, const struct prof_func *s, int ends)
{
	for (uint32_t k = 0; k < s->nparent; k++) {
		const struct prof_arc *a = &p->arcs[p->parent_arcs[s->parent0 + k]];
		if (ends)
			__builtin_prefetch(&g->fn[a->parent]);
		else
			__builtin_prefetch(a);
	}
	for (uint32_t k = 0; k < s->nchild; k++) {
		const struct prof_arc *a = &p->arcs[p->child_arcs[s->child0 + k]];
		if (ends)
			__builtin_prefetch(&g->fn[a->child]);
		else
			__builtin_prefetch(a);
	}
}

static void graph_prefetch(const struct prof *p, const struct glab *g, size_t i)
{
	if (i + 2 * AHEAD_LISTS < p->nr)
		__builtin_prefetch(&p->items[p->time_order[i + 2 * AHEAD_LISTS]]);
	if (i + AHEAD_LISTS < p->nr && p->time_order[i + AHEAD_LISTS] < p->nsyms) {
		const struct prof_func *s = &p->items[p->time_order[i + AHEAD_LISTS]];
		for (uint32_t k = 0; k < s->nparent; k += 16)
			__builtin_prefetch(&p->parent_arcs[s->parent0 + k]);
		for (uint32_t k = 0; k < s->nchild; k += 16)
			__builtin_prefetch(&p->child_arcs[s->child0 + k]);
	}
	if (i + AHEAD_ARCS < p->nr && p->time_order[i + AHEAD_ARCS] < p->nsyms)
		prefetch_lists(p, g, &p->items[p->time_order[i + AHEAD_ARCS]], 0);
	if (i + 1 < p->nr && p->time_order[i + 1] < p->nsyms)
		prefetch_lists(p, g, &p->items[p->time_order[i + 1]], 1);
}

/* Entries [lo, hi) of the index order. */
static void graph_range(struct obuf *o, const struct prof *p, const struct glab *g, unsigned flags,
			double print_time, size_t lo, size_t hi)
{
	void *buf = NULL;
	size_t bufsz = 0;
	for (size_t i = lo; i < hi; i++) {
		const struct prof_func *s = &p->items[p->time_order[i]];
		if ((!(flags & PRINT_ZEROS) && s->ncalls == 0 && s->self_calls == 0 && s->prop_self == 0 &&
		     s->prop_child == 0) ||
		    !s->print_flag ||
		    (p->lines && (!s->is_func || !s->name))) /* gprof -l: functions only, no cycle */
			continue;
		graph_prefetch(p, g, i);
		graph_entry(o, p, g, s, print_time, &buf, &bufsz);
		if (flags & PRINT_BSD)
			ob_put(o, "\n-----------------------------------------------\n\n", 50);
		else
			ob_put(o, "-----------------------------------------------\n", 48);
	}
	free(buf);
}

/* A big call graph is formatted by two threads, in chunks of entries: the main thread takes the
 * even ones and writes every chunk in order, a helper the odd ones, into two buffers in turn. */
#define GRAPH_CHUNK 256 /* entries */

struct gpar {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	const struct prof *p;
	const struct glab *g;
	unsigned flags;
	double print_time;
	size_t nchunks;
	struct gslot {
		struct obuf o;
		int ready;
	} slot[2];
};

static void *graph_helper(void *arg)
{
	struct gpar *w = arg;
	for (size_t c = 1; c < w->nchunks; c += 2) {
		struct gslot *sl = &w->slot[c / 2 % 2];
		pthread_mutex_lock(&w->mu);
		while (sl->ready)
			pthread_cond_wait(&w->cv, &w->mu);
		pthread_mutex_unlock(&w->mu);
		sl->o.q = sl->o.buf;
		size_t lo = c * GRAPH_CHUNK, hi = lo + GRAPH_CHUNK < w->p->nr ? lo + GRAPH_CHUNK : w->p->nr;
		graph_range(&sl->o, w->p, w->g, w->flags, w->print_time, lo, hi);
		pthread_mutex_lock(&w->mu);
		sl->ready = 1;
		pthread_cond_broadcast(&w->cv);
		pthread_mutex_unlock(&w->mu);
	}
	return NULL;
}

/* Write the helper's chunk c (odd) once it is there. */
static void graph_take(struct gpar *w, struct obuf *o, size_t c)
{
	struct gslot *sl = &w->slot[c / 2 % 2];
	pthread_mutex_lock(&w->mu);
	while (!sl->ready)
		pthread_cond_wait(&w->cv, &w->mu);
	pthread_mutex_unlock(&w->mu);
	ob_flush(o);
	fwrite(sl->o.buf, 1, (size_t)(sl->o.q - sl->o.buf), o->f);
	pthread_mutex_lock(&w->mu);
	sl->ready = 0;
	pthread_cond_broadcast(&w->cv);
	pthread_mutex_unlock(&w->mu);
}

static void graph_all(struct obuf *o, const struct prof *p, const struct glab *g, unsigned flags,
		      double print_time)
{
	struct gpar w = { .p = p, .g = g, .flags = flags, .print_time = print_time };
	w.nchunks = (p->nr + GRAPH_CHUNK - 1) / GRAPH_CHUNK;
	pthread_t helper;
	if (w.nchunks < 4 || sysconf(_SC_NPROCESSORS_ONLN) < 2) {
		graph_range(o, p, g, flags, print_time, 0, p->nr);
		return;
	}
	pthread_mutex_init(&w.mu, NULL);
	pthread_cond_init(&w.cv, NULL);
	ob_open(&w.slot[0].o, NULL);
	ob_open(&w.slot[1].o, NULL);
	if (pthread_create(&helper, NULL, graph_helper, &w) != 0) {
		graph_range(o, p, g, flags, print_time, 0, p->nr);
	} else {
		for (size_t c = 0; c < w.nchunks; c += 2) {
			if (c > 0)
				graph_take(&w, o, c - 1);
			size_t lo = c * GRAPH_CHUNK, hi = lo + GRAPH_CHUNK < p->nr ? lo + GRAPH_CHUNK : p->nr;
			graph_range(o, p, g, flags, print_time, lo, hi);
		}
		if (w.nchunks % 2 == 0)
			graph_take(&w, o, w.nchunks - 1);
		pthread_join(helper, NULL);
	}
	ob_close(&w.slot[0].o);
	ob_close(&w.slot[1].o);
	pthread_mutex_destroy(&w.mu);
	pthread_cond_destroy(&w.cv);
}

void print_graph(FILE *f, const struct prof *p, const struct print_opts *po, int *first)
{
	unsigned flags = po->flags;
	int bsd = (flags & PRINT_BSD) != 0;
	if (bsd && !(flags & PRINT_BRIEF)) { /* gprof's BSD layout explains first */
		fputs(graph_blurb, f);
		if (p->offcpu)
			fputs(graph_off_blurb, f);
	}
	if (!*first)
		fputs("\f\n", f);
	*first = 0;
	if (!bsd)
		fputs(flags & PRINT_BRIEF ? "\t\t\tCall graph\n\n" :
					    "\t\t     Call graph (explanation follows)\n\n",
		      f);
	double print_time = p->print_time;
	if (p->kind == PROF_SPY)
		spy_granularity(f, p, print_time);
	else if (print_time > 0.0)
		fprintf(f, "\ngranularity: each sample hit covers %ld byte(s) for %.2f%% of %.2f seconds\n\n",
			p->granularity, 100.0 / print_time, print_time / p->hz);
	else
		fprintf(f, "\ngranularity: each sample hit covers %ld byte(s) no time propagated\n\n",
			p->granularity);
	if (print_time <= 0.0)
		print_time = 1.0;
	if (bsd && p->offcpu) /* a spy profile's: gprof's header with the off-CPU column labelled */
		fprintf(f,
			"%6.6s %5.5s %7.7s %11.11s %7.7s/%-7.7s     %9.9s%-8.8s\n"
			"%-6.6s %5.5s %7.7s %11.11s %7.7s+%-7.7s %7.7s  %-8.8s\t%5.5s\n"
			"%6.6s %5.5s %7.7s %11.11s %7.7s/%-7.7s     %9.9s%-8.8s\n\n",
			"", "", "", "", "called", "total", "", "parents", "index", "%time", "self",
			"descendants", "called", "self", "off cpu", "name", "index", "", "", "", "", "called",
			"total", "", "children");
	else if (bsd)
		fprintf(f,
			"%6.6s %5.5s %7.7s %11.11s %7.7s/%-7.7s     %-8.8s\n"
			"%-6.6s %5.5s %7.7s %11.11s %7.7s+%-7.7s %-8.8s\t%5.5s\n"
			"%6.6s %5.5s %7.7s %11.11s %7.7s/%-7.7s     %-8.8s\n\n",
			"", "", "", "", "called", "total", "parents", "index", "%time", "self", "descendants",
			"called", "self", "name", "index", "", "", "", "", "called", "total", "children");
	else
		fputs(p->offcpu ? "index % time    self  children    called     off cpu  name\n" :
				  "index % time    self  children    called     name\n",
		      f);
	struct glab g;
	graph_labels(p, &g);
	g.cw = bsd ? 11 : 7;
	struct obuf o;
	ob_open(&o, f);
	graph_all(&o, p, &g, flags, print_time);
	ob_close(&o);
	free(g.fn);
	free(g.lab);
	if (!bsd && !(flags & PRINT_BRIEF)) {
		fputs(graph_blurb, f);
		if (p->offcpu)
			fputs(graph_off_blurb, f);
		if (has_lib(p))
			fputs(graph_lib_blurb, f);
	}
}

static int cmp_name(const void *a, const void *b, void *arg)
{
	const struct fkey *keys = arg;
	const struct fkey *l = &keys[*(const uint32_t *)a];
	const struct fkey *r = &keys[*(const uint32_t *)b];
	int c = strcmp(l->name, r->name);
	return c ? c : (l->addr > r->addr) - (l->addr < r->addr);
}

void print_index(FILE *f, const struct prof *p, const struct print_opts *po)
{
	unsigned flags = po->flags;
	int column_width = (po->width - 1) / 3;
	uint32_t *names = xmalloc((p->nr + 1) * sizeof(uint32_t));
	size_t nnames = 0;
	for (size_t i = 0; i < p->nsyms; i++) {
		const struct prof_func *s = &p->items[i];
		if (!(flags & PRINT_ZEROS) && s->ncalls == 0 && s->time == 0)
			continue;
		names[nnames++] = (uint32_t)i;
	}
	struct fkey *keys = xmalloc((p->nsyms + 1) * sizeof(*keys));
	uint64_t *rk = xmalloc((nnames + 1) * sizeof(uint64_t));
	for (size_t i = 0; i < p->nsyms; i++)
		keys[i] = (struct fkey){ 0, 0, prof_key(&p->items[i]), p->items[i].addr };
	for (size_t k = 0; k < nnames; k++)
		rk[k] = prof_key_str(keys[names[k]].name);
	prof_sort_keyed_r(names, rk, nnames, cmp_name, keys);
	free(rk);
	free(keys);
	size_t todo = nnames;
	for (size_t i = p->nsyms; i < p->nr; i++)
		names[todo++] = (uint32_t)i;
	fputs("\f\nIndex by function name\n\n", f);
	size_t rows = (todo + 2) / 3;
	if (flags & PRINT_BSD) { /* gprof's BSD layout: fixed columns, names cut */
		for (size_t i = 0; i < rows; i++) {
			for (size_t j = i; j < todo; j += rows) {
				const struct prof_func *s = &p->items[names[j]];
				char buf[48];
				snprintf(buf, sizeof(buf), s->print_flag ? "[%u]" : "(%u)", s->index);
				if (j < nnames) {
					const char *key = esc_text(prof_key(s));
					fprintf(f, "%6.6s %-19.*s", buf, (int)esc_cut(key, 19), key);
				} else {
					fprintf(f, "%6.6s ", buf);
					snprintf(buf, sizeof(buf), "<cycle %d>", s->cyc);
					fprintf(f, "%-19.19s", buf);
				}
			}
			fputc('\n', f);
		}
		free(names);
		return;
	}
	/* gprof's layout: a name's column starts 5 past where the last one's ended, or at its place */
	struct obuf o;
	ob_open(&o, f);
	for (size_t i = 0; i < rows; i++) {
		int col = 0, starting_col = 0;
		for (size_t j = i; j < todo; j += rows) {
			const struct prof_func *s = &p->items[names[j]];
			char buf[48], *q = buf;
			*q++ = s->print_flag ? '[' : '(';
			q = fmt_u(q, s->index, 0);
			*q++ = s->print_flag ? ']' : ')';
			int n = (int)(q - buf);
			col += n;
			for (; col < starting_col + 5;) { /* -w may make it any width */
				int k = starting_col + 5 - col < OBUF_LINE / 2 ? starting_col + 5 - col :
										 OBUF_LINE / 2;
				ob_room(&o);
				o.q = fmt_spaces(o.q, k);
				col += k;
			}
			ob_room(&o);
			*o.q++ = ' ';
			memcpy(o.q, buf, (size_t)n);
			o.q += n;
			*o.q++ = ' ';
			if (j < nnames) {
				const char *name = esc_text(s->name);
				size_t nl = strlen(name);
				ob_put(&o, name, nl);
				col += (int)nl;
				if (s->is_static && s->file) {
					const char *fn = strrchr(s->file, '/');
					fn = esc_text(fn && !(flags & PRINT_FULL_PATH) ? fn + 1 : s->file);
					size_t fl = strlen(fn);
					ob_put(&o, " (", 2);
					ob_put(&o, fn, fl);
					ob_put(&o, ")", 1);
					col += (int)fl + 3;
				}
			} else {
				ob_put(&o, "<cycle ", 7);
				ob_room(&o);
				o.q = fmt_u(o.q, (uint64_t)s->cyc, 0);
				*o.q++ = '>';
				col += 8 + (int)(fmt_u(buf, (uint64_t)s->cyc, 0) - buf);
			}
			starting_col += column_width;
		}
		ob_room(&o);
		*o.q++ = '\n';
	}
	ob_close(&o);
	free(names);
}
