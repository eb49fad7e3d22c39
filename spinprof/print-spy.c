/* The Spy report (Cedar's Spy, SPIN's PC listing, Multics' segment meters): a header, the threads,
 * the procedures indented under their immediate dominators in disjoint sets, the highly active
 * procedures by source line, the PC listings and the modules. */
#define _GNU_SOURCE /* qsort_r */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "esc.h"
#include "dom.h"
#include "print-header.h"
#include "print-spy.h"
#include "spy-model.h"

/* Deeper levels than this print their depth instead of more leaders. */
#define SPY_MAX_INDENT 40
/* Edge visits the disjoint sets may spend before siblings stand alone. */
#define SPY_SET_BUDGET 50000000ull

struct out {
	FILE *f;
	struct sp_model *m;
	const struct spy_opts *o;
	double grand;
};

static double pct(const struct out *u, double v)
{
	return u->grand > 0 ? 100.0 * v / u->grand : 0.0;
}

/* Shown at the cutoff: at least PCT % of all weight (a zero cutoff shows everything). */
static int shown(const struct out *u, double v)
{
	return u->o->cutoff <= 0 || (v > 0 && pct(u, v) >= u->o->cutoff);
}

static int heavy(const struct out *u, const struct sp_proc *pr)
{
	return pr->self > 0 && pct(u, pr->self) >= 1.0;
}

static void section(FILE *f, const char *title)
{
	static const char tildes[] = "~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~";
	fprintf(f, "\n%s\n%s\n%s\n", tildes, title, tildes);
}

static const char *base_name(const char *path)
{
	const char *b = strrchr(path, '/');
	return b ? b + 1 : path;
}

/* "Name (N refs) = SELF, CALLEES (SELF%) (TOTAL%)." */
static void entry(const struct out *u, const struct sp_proc *pr)
{
	FILE *f = u->f;
	double callees = pr->total > pr->self ? pr->total - pr->self : 0;
	fprintf(f, "%s (%u ref%s) = %.0f, %.0f", esc_text(pr->name), pr->refs, pr->refs == 1 ? "" : "s",
		pr->self, callees);
	if (heavy(u, pr))
		fprintf(f, " (%.1f%%)", pct(u, pr->self));
	fprintf(f, " (%.1f%%).\n", pct(u, pr->total));
}

/* Cedar's header dates the run: when it started and when the file was written, in UTC (CLOCK_REALTIME
 * as the runtime read it), to the second. */
static void print_when(FILE *f, const struct gmon_header *h)
{
	char a[32], b[32];
	time_t t0 = (time_t)(h->start_ns / 1000000000u), t1 = (time_t)(h->end_ns / 1000000000u);
	struct tm tm;

	if (!h->start_ns || !gmtime_r(&t0, &tm) || !strftime(a, sizeof(a), "%Y-%m-%d %H:%M:%S", &tm))
		return;
	if (h->end_ns < h->start_ns || !gmtime_r(&t1, &tm) ||
	    !strftime(b, sizeof(b), t1 / 86400 == t0 / 86400 ? "%H:%M:%S" : "%Y-%m-%d %H:%M:%S", &tm))
		fprintf(f, "run: started %s UTC\n", a);
	else
		fprintf(f, "run: %s to %s UTC\n", a, b);
}

static void header(const struct out *u)
{
	FILE *f = u->f;
	const struct sp_model *m = u->m;
	const struct prof *p = m->p;
	const struct gmon_profile *g = &p->spy;
	const struct gmon_sampling *s = g->sampling;
	section(f, "Spy report.");
	print_when(f, &g->hdr);
	if (!m->sampled) {
		fprintf(f,
			"watching: nothing sampled; the tree is built from the exact cycles of mode time\n");
		fprintf(f,
			"unit: one cycle (time stamps at %.0f Hz), hooks' cost taken off; total %.0f cycles\n",
			p->hz, m->grand);
		print_duration(f, p);
		print_profiler(f, p);
	} else {
		const char *wn = gmon_watch_name(s->watch);
		fprintf(f, "watching: %s", wn);
		if (s->watch == GMON_WATCH_CALLS)
			fprintf(f, " of %s", s->target && s->target[0] ? esc_text(s->target) : "?");
		if (s->watch == GMON_WATCH_CPU || s->watch == GMON_WATCH_WALL)
			fprintf(f, " at %llu Hz (one tick %.3f ms)", (unsigned long long)s->hz,
				s->hz ? 1000.0 / (double)s->hz : 0.0);
		if (s->divisor > 1)
			fprintf(f, ", one event in %llu kept", (unsigned long long)s->divisor);
		fputc('\n', f);
		fprintf(f, "triggers: start %s, stop %s\n",
			s->start && s->start[0] ? esc_text(s->start) : "-",
			s->stop && s->stop[0] ? esc_text(s->stop) : "-");
		if (s->flags & GMON_SAMP_FOREIGN)
			fputs("warning: the program set SIGPROF's disposition itself (its own handler, or "
			      "ignored): nothing was sampled from then on\n",
			      f);
		if (s->flags & GMON_SAMP_NOSOURCE)
			fputs("warning: the event source could not be set up\n", f);
		if (s->flags & GMON_SAMP_THREADS_CUT)
			fputs("warning: some threads could not be sampled\n", f);
		print_duration(f, p);
		fprintf(f, "samples: %llu taken, %.1f per second; %.0f %s in all\n",
			(unsigned long long)s->taken,
			p->duration_s > 0 ? (double)s->taken / p->duration_s : 0.0, m->all, m->unit);
		if (s->expected) {
			if (s->taken < s->expected)
				fprintf(f,
					"missed: %llu asked for, %llu fewer taken: ticks were missed "
					"(%llu timer overruns)\n",
					(unsigned long long)s->expected,
					(unsigned long long)(s->expected - s->taken),
					(unsigned long long)s->missed);
			else
				fprintf(f, "missed: none (%llu asked for)\n",
					(unsigned long long)s->expected);
		} else if (s->missed) {
			fprintf(f, "missed: %llu events past the tables\n", (unsigned long long)s->missed);
		}
		if (s->dropped)
			fprintf(f, "dropped: %llu samples (stack tables full)\n",
				(unsigned long long)s->dropped);
		/* CPU time and faults come from getrusage at the end; allocations are counted only by
		 * the allocator the alloc watches switch on */
		fprintf(f, "totals: CPU %.6f seconds, %llu page faults, ", (double)s->cpu_ns / 1e9,
			(unsigned long long)s->faults);
		if ((s->watch == GMON_WATCH_ALLOC || s->watch == GMON_WATCH_ALLOCBYTES) &&
		    !(s->flags & GMON_SAMP_NOSOURCE))
			fprintf(f, "%llu allocations of %llu bytes\n", (unsigned long long)s->allocs,
				(unsigned long long)s->alloc_bytes);
		else
			fputs("allocations not watched\n", f);
		/* the profiler's share once, as the header states it; then what sampling cost of it */
		print_profiler(f, p);
		double hs = g->hdr.tsc_hz ? (double)s->handler_cycles / (double)g->hdr.tsc_hz : 0;
		fprintf(f, "sampling: %llu cycles recording samples (%.0f a sample",
			(unsigned long long)s->handler_cycles,
			s->taken ? (double)s->handler_cycles / (double)s->taken : 0.0);
		if (g->hdr.tsc_hz)
			fprintf(f, ", %.6f seconds", hs);
		fprintf(f, "); %.0f %s in the profiler, left out below\n", m->in_runtime, m->unit);
		fprintf(f, "program: %.0f %s, the 100%% of the percentages below (the profiler's left out)\n",
			m->grand, m->unit);
		fprintf(f, "stacks: %llu distinct, %llu cut short", (unsigned long long)m->nstacks,
			(unsigned long long)m->ncut);
		if (m->waiting > 0)
			fprintf(f, "; %.0f %s waiting (%.1f%%)", m->waiting, m->unit, pct(u, m->waiting));
		fputc('\n', f);
	}
	fprintf(f, "cutoff: %g%% of the program's %s\n", u->o->cutoff, m->unit);
	if (u->o->brief)
		return;
	fprintf(f,
		"\nAn entry reads  Name (N refs) = SELF, CALLEES (SELF%%) (TOTAL%%).\n"
		"  SELF      %s with the %s in Name itself%s\n"
		"  CALLEES   %s in what Name calls, directly or not (Name on the stack, not at its top)\n"
		"  SELF%%     SELF as a share of the program's %s, shown when 1%% or more; such a\n"
		"            procedure is marked * and broken down by source line in the last section\n"
		"  TOTAL%%    share of the program's %s with Name on the stack (recursion counted\n"
		"            once); so percentages add up to more than 100%%. The program's: the\n"
		"            profiler's own are left out (the header counts them)\n"
		"  N refs    distinct call sites that call Name\n"
		"Each procedure is printed once, indented under its immediate dominator: the deepest\n"
		"procedure that every call to it goes through (A->B->C and A->D->C put C under A), so a\n"
		"utility called from everywhere sits high. ~ marks one its parent does not call directly.\n"
		"Procedures at one level joined by a line of ! form a disjoint set: none calls another,\n"
		"directly or not; . leads the eye along a level. Below an entry, its callees above the\n"
		"cutoff in call-site order:  (FILE:LINE) Callee = N (P%%), N the %s with Callee called\n"
		"from that site on the stack; (waiting) = N: of SELF, blocked.\n",
		m->unit, m->sampled ? "PC" : "time", m->sampled ? "" : " (its exclusive cycles)", m->unit,
		m->unit, m->unit, m->unit);
}

static void threads(const struct out *u)
{
	FILE *f = u->f;
	const struct sp_model *m = u->m;
	section(f, "Breakdown of threads.");
	uint32_t *ord = xmalloc((m->nthreads + 1) * sizeof(uint32_t));
	for (uint32_t i = 0; i < m->nthreads; i++)
		ord[i] = i;
	/* heaviest first, insertion sort: there are few threads */
	for (uint32_t i = 1; i < m->nthreads; i++)
		for (uint32_t j = i; j > 0 && m->threads[ord[j]].w > m->threads[ord[j - 1]].w; j--) {
			uint32_t t = ord[j];
			ord[j] = ord[j - 1];
			ord[j - 1] = t;
		}
	for (uint32_t i = 0; i < m->nthreads; i++) {
		const struct sp_thread *th = &m->threads[ord[i]];
		fprintf(f, "Thread %u", th->tid);
		if (th->name[0])
			fprintf(f, " \"%s\"", esc_text(th->name));
		if (th->flags & GMON_THREAD_MAIN)
			fputs(" (main)", f);
		if (th->flags & GMON_THREAD_FOLDED)
			fprintf(f, " (%llu threads folded)", (unsigned long long)th->folded);
		if (th->wait > 0)
			fprintf(f, " (%.0f waiting)", th->wait);
		fprintf(f, " = %.0f (%.1f%%).\n", th->w, pct(u, th->w));
		for (uint32_t k = 0; k < th->ntop; k++)
			if (shown(u, th->topw[k]) && th->topw[k] > 0)
				fprintf(f, "    %s = %.0f (%.1f%%).\n", esc_text(m->procs[th->top[k]].name),
					th->topw[k], pct(u, th->topw[k]));
	}
	free(ord);
}

/* by weight (arg), heaviest first, then by index */
static int listing_cmp(const void *a, const void *b, void *arg)
{
	const double *w = arg;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	if (w[x] != w[y])
		return w[x] > w[y] ? -1 : 1;
	return x < y ? -1 : x > y;
}

/* the model's (arg) edges by caller, then call site (none last), then callee */
static int edge_cmp(const void *a, const void *b, void *arg)
{
	const struct sp_model *m = arg;
	const struct sp_edge *x = &m->edges[*(const uint32_t *)a], *y = &m->edges[*(const uint32_t *)b];
	if (x->from != y->from)
		return x->from < y->from ? -1 : 1;
	if ((x->site == 0) != (y->site == 0))
		return x->site == 0 ? 1 : -1;
	if (x->site != y->site)
		return x->site < y->site ? -1 : 1;
	return x->to < y->to ? -1 : x->to > y->to;
}

/* "(FILE:LINE)" of a call site, or of the callee's definition when the binary is gone. */
static void site_text(struct sp_model *m, const struct sp_edge *e, char *buf, size_t n)
{
	const char *file;
	unsigned line;
	const struct sp_proc *to = &m->procs[e->to];
	if (e->site && sp_src(m, e->site - 1, &file, &line) == 0)
		snprintf(buf, n, "(%s:%u)", base_name(file), line);
	else if (e->site && to->file) /* the binary is gone: where the callee is defined */
		snprintf(buf, n, "(%s:%u)", base_name(to->file), to->line);
	else if (e->site) {
		char at[300];
		sp_addr_text(m, e->site, at, sizeof(at));
		snprintf(buf, n, "(%s)", at);
	} else
		snprintf(buf, n, "(?)");
}

static void leaders(FILE *f, const char *cur, uint32_t n)
{
	uint32_t shown_n = n < SPY_MAX_INDENT ? n : SPY_MAX_INDENT;
	for (uint32_t k = 0; k < shown_n; k++) {
		fputc(cur[k], f);
		fputc(' ', f);
	}
	if (n > shown_n)
		fprintf(f, "{%u} ", n);
}

size_t spy_tree_rows(const struct sp_model *m, double cutoff, struct dom_row **rows)
{
	uint32_t n = (uint32_t)m->nprocs + 1;
	uint32_t *ed = xmalloc((m->nedges + 1) * 2 * sizeof(uint32_t));
	size_t ne = 0;
	for (size_t i = 0; i < m->nedges; i++) {
		const struct sp_edge *e = &m->edges[i];
		ed[2 * ne] = e->from == SP_ROOT ? 0 : e->from + 1;
		ed[2 * ne + 1] = e->to + 1;
		ne++;
	}
	/* islands of recursion hang from their heaviest member */
	uint32_t *order = xmalloc((size_t)n * sizeof(uint32_t));
	double *w = xmalloc((size_t)n * sizeof(double));
	unsigned char *show = xcalloc(n, 1);
	w[0] = m->grand;
	for (uint32_t v = 1; v < n; v++) {
		w[v] = m->procs[v - 1].total;
		/* shown(): at least cutoff percent of the program's weight */
		show[v] =
			cutoff <= 0 || (w[v] > 0 && (m->grand > 0 ? 100.0 * w[v] / m->grand : 0.0) >= cutoff);
	}
	for (uint32_t v = 0; v < n; v++)
		order[v] = v;
	qsort_r(order, n, sizeof(uint32_t), listing_cmp, w);
	struct dom_graph g;
	dom_graph_build(&g, n, ed, ne, order);
	free(ed);
	uint32_t *idom = dom_idom(&g);
	uint64_t budget = SPY_SET_BUDGET;
	size_t nrows = dom_layout(&g, idom, w, show, &budget, rows);
	free(idom);
	dom_graph_release(&g);
	free(order);
	free(w);
	free(show);
	return nrows;
}

static void tree(struct out *u)
{
	FILE *f = u->f;
	struct sp_model *m = u->m;
	uint32_t n = (uint32_t)m->nprocs + 1;
	section(f, "Breakdown of procedures.");
	struct dom_row *rows;
	size_t nrows = spy_tree_rows(m, u->o->cutoff, &rows);
	/* each procedure's calls, in call-site order */
	uint32_t *eo = xmalloc((m->nedges + 1) * sizeof(uint32_t)),
		 *e0 = xcalloc((size_t)n + 1, sizeof(uint32_t));
	size_t neo = 0;
	for (size_t i = 0; i < m->nedges; i++)
		if (m->edges[i].from != SP_ROOT)
			eo[neo++] = (uint32_t)i;
	qsort_r(eo, neo, sizeof(uint32_t), edge_cmp, m);
	for (size_t i = 0; i < neo; i++)
		e0[m->edges[eo[i]].from + 1]++;
	for (uint32_t v = 0; v < n; v++)
		e0[v + 1] += e0[v];
	char *cur = xmalloc(SPY_MAX_INDENT + 2);
	char where[600];
	for (size_t r = 0; r < nrows; r++) {
		const struct dom_row *row = &rows[r];
		const struct sp_proc *pr = &m->procs[row->node - 1];
		if (row->depth < SPY_MAX_INDENT)
			cur[row->depth] = row->enter;
		leaders(f, cur, row->depth + 1);
		if (heavy(u, pr))
			fputc('*', f);
		if (row->indirect)
			fputc('~', f);
		entry(u, pr);
		if (row->depth < SPY_MAX_INDENT)
			cur[row->depth] = row->lead;
		uint32_t pi = row->node - 1;
		for (uint32_t k = e0[pi]; k < e0[pi + 1]; k++) {
			const struct sp_edge *e = &m->edges[eo[k]];
			if (!shown(u, e->w) || e->w <= 0)
				continue;
			site_text(m, e, where, sizeof(where));
			leaders(f, cur, row->depth + 1);
			fprintf(f, "    %s %s = %.0f (%.1f%%).\n", esc_text(where),
				esc_text(m->procs[e->to].name), e->w, pct(u, e->w));
		}
		if (pr->wait > 0 && shown(u, pr->wait)) {
			leaders(f, cur, row->depth + 1);
			fprintf(f, "    (waiting) = %.0f (%.1f%%).\n", pr->wait, pct(u, pr->wait));
		}
	}
	free(cur);
	free(eo);
	free(e0);
	free(rows);
}

struct line_w {
	char *file;
	unsigned line;
	char *inl;   /* "NAME, inlined at FILE:LINE" when the code is an inlined function's, or NULL */
	uint64_t pc; /* when the line is unknown */
	double w;
};

static int line_cmp(const void *a, const void *b)
{
	const struct line_w *x = a, *y = b;
	if (!x->file != !y->file)
		return x->file ? -1 : 1;
	if (x->file) {
		int c = strcmp(x->file, y->file);
		if (c)
			return c;
		if (x->line != y->line)
			return x->line < y->line ? -1 : 1;
		if (!x->inl != !y->inl)
			return x->inl ? 1 : -1;
		return x->inl ? strcmp(x->inl, y->inl) : 0;
	}
	return x->pc < y->pc ? -1 : x->pc > y->pc;
}

static int pc_cmp(const void *a, const void *b)
{
	const struct sp_pc *x = a, *y = b;
	if (x->proc != y->proc)
		return x->proc < y->proc ? -1 : 1;
	return x->pc < y->pc ? -1 : x->pc > y->pc;
}

static void lines(struct out *u)
{
	FILE *f = u->f;
	struct sp_model *m = u->m;
	section(f, "Breakdown of highly active procedures.");
	if (!m->sampled) {
		fputs("(no samples: where inside a procedure the time went needs a sampled run, SPYRT_WATCH=cpu)\n",
		      f);
		return;
	}
	if (m->npcs) /* qsort's pointer must not be NULL, even for nothing */
		qsort(m->pcs, m->npcs, sizeof(*m->pcs), pc_cmp);
	uint32_t *hv = xmalloc((m->nprocs + 1) * sizeof(uint32_t)), nh = 0;
	for (uint32_t i = 0; i < m->nprocs; i++)
		if (heavy(u, &m->procs[i]))
			hv[nh++] = i;
	/* heaviest first */
	for (uint32_t i = 1; i < nh; i++)
		for (uint32_t j = i; j > 0 && m->procs[hv[j]].self > m->procs[hv[j - 1]].self; j--) {
			uint32_t t = hv[j];
			hv[j] = hv[j - 1];
			hv[j - 1] = t;
		}
	for (uint32_t h = 0; h < nh; h++) {
		uint32_t pi = hv[h];
		const struct sp_proc *pr = &m->procs[pi];
		entry(u, pr);
		size_t lo = 0, hi = m->npcs;
		while (lo < hi) {
			size_t mid = (lo + hi) / 2;
			if (m->pcs[mid].proc < pi)
				lo = mid + 1;
			else
				hi = mid;
		}
		struct line_w *lw = NULL;
		size_t nl = 0, al = 0;
		for (size_t i = lo; i < m->npcs && m->pcs[i].proc == pi;) {
			size_t j = i;
			double w = 0;
			for (; j < m->npcs && m->pcs[j].proc == pi && m->pcs[j].pc == m->pcs[i].pc; j++)
				w += m->pcs[j].w;
			const char *file;
			unsigned line;
			GROW(lw, nl, al);
			const char *iname, *ifile;
			unsigned iline;
			char *inl = NULL;
			if (sp_inline(m, m->pcs[i].pc, &iname, &ifile, &iline) == 0) {
				size_t n = strlen(iname) + strlen(base_name(ifile)) + 40;
				inl = xmalloc(n);
				snprintf(inl, n, "%s, inlined at %s:%u", iname, base_name(ifile), iline);
			}
			if (sp_src(m, m->pcs[i].pc, &file, &line) == 0)
				lw[nl++] = (struct line_w){ xstrdup(base_name(file)), line, inl, 0, w };
			else {
				free(inl);
				lw[nl++] = (struct line_w){ NULL, 0, NULL, m->pcs[i].pc, w };
			}
			i = j;
		}
		if (nl)
			qsort(lw, nl, sizeof(*lw), line_cmp);
		for (size_t i = 0; i < nl;) {
			size_t j = i;
			double w = 0;
			for (; j < nl && line_cmp(&lw[i], &lw[j]) == 0; j++)
				w += lw[j].w;
			if (lw[i].file && lw[i].inl)
				fprintf(f, "    (%s:%u in %s) = %.0f (%.1f%%).\n", esc_text(lw[i].file),
					lw[i].line, esc_text(lw[i].inl), w, pct(u, w));
			else if (lw[i].file)
				fprintf(f, "    (%s:%u) = %.0f (%.1f%%).\n", esc_text(lw[i].file), lw[i].line,
					w, pct(u, w));
			else {
				char at[300];
				sp_addr_text(m, lw[i].pc, at, sizeof(at));
				fprintf(f, "    (%s) = %.0f (%.1f%%).\n", esc_text(at), w, pct(u, w));
			}
			i = j;
		}
		if (pr->wait > 0)
			fprintf(f, "    (waiting) = %.0f (%.1f%%).\n", pr->wait, pct(u, pr->wait));
		for (size_t i = 0; i < nl; i++) {
			free(lw[i].file);
			free(lw[i].inl);
		}
		free(lw);
	}
	free(hv);
}

/* SPIN's listing: Count Percent Procedure, heaviest first, of w[0..n) against total. */
static void listing(FILE *f, const char *title, const char *what, const double *w, uint32_t n, double total,
		    const char *(*name)(const struct sp_model *, uint32_t), const struct sp_model *m)
{
	fprintf(f, "\n%s\n", title);
	fprintf(f, "Count   Percent  %s\n-----   -------  ---------\n", what);
	uint32_t *ord = xmalloc(((size_t)n + 1) * sizeof(uint32_t)), k = 0;
	for (uint32_t i = 0; i < n; i++)
		if (w[i] > 0)
			ord[k++] = i;
	qsort_r(ord, k, sizeof(uint32_t), listing_cmp, (void *)w);
	for (uint32_t i = 0; i < k; i++)
		fprintf(f, "%-7.0f %7.2f  %s\n", w[ord[i]], total > 0 ? 100.0 * w[ord[i]] / total : 0.0,
			esc_text(name(m, ord[i])));
	if (k == 0)
		fputs("(none)\n", f);
	free(ord);
}

static const char *proc_name(const struct sp_model *m, uint32_t i)
{
	return m->procs[i].name;
}

/* proc_name, and past the procedures the profiler */
static const char *all_name(const struct sp_model *m, uint32_t i)
{
	return i < m->nprocs ? m->procs[i].name : "<profiler>";
}

static const char *module_name(const struct sp_model *m, uint32_t i)
{
	return i < m->p->spy.nmodules ? m->p->spy.modules[i].path : "(no module)";
}

static void pcs(struct out *u)
{
	FILE *f = u->f;
	struct sp_model *m = u->m;
	section(f, "PC listing.");
	if (!m->sampled) {
		fputs("(no samples: the PC listing needs a sampled run, SPYRT_WATCH=cpu)\n", f);
		return;
	}
	uint32_t n = (uint32_t)m->nprocs;
	double *w = xmalloc(((size_t)n + 1) * sizeof(double));
	double prog = 0;
	for (uint32_t i = 0; i < n; i++)
		w[i] = m->procs[i].self;
	w[n] = m->in_runtime; /* the profiler's, as one more procedure */
	listing(f, "All ticks (percent of all):", "Procedure", w, n + 1, m->all, all_name, m);
	for (uint32_t i = 0; i < n; i++)
		prog += w[i] = m->procs[i].prog;
	listing(f, "Ticks in the program (percent of these):", "Procedure", w, n, prog, proc_name, m);
	for (uint32_t i = 0; i < n; i++)
		w[i] = m->procs[i].rt;
	listing(f, "Ticks in the profiler, charged to the instrumented function running (percent of these):",
		"Procedure", w, n, m->in_runtime, proc_name, m);
	free(w);
}

static void modules(struct out *u)
{
	FILE *f = u->f;
	struct sp_model *m = u->m;
	section(f, "Breakdown of modules.");
	listing(f, m->sampled ? "Samples per executable and shared library:" : "Self cycles per module:",
		"Module", m->module_w, m->p->spy.nmodules + 1, m->all, module_name, m);
}

int print_spy(FILE *f, const struct prof *p, const struct spy_opts *o)
{
	struct sp_model m;
	if (sp_model_build(&m, p, o->demangle) < 0) {
		esc_msg("spinprof: %s: no samples and no measured times for the Spy report "
			"(run with SPYRT_WATCH=cpu or SPYRT_MODE=time)\n",
			o->what ? o->what : "gmon.out");
		sp_model_release(&m);
		return -1;
	}
	struct out u = { f, &m, o, m.grand };
	if (o->sections & SPY_HEADER)
		header(&u);
	if (o->sections & SPY_THREADS)
		threads(&u);
	if (o->sections & SPY_TREE)
		tree(&u);
	if (o->sections & SPY_LINES)
		lines(&u);
	if (o->sections & SPY_PCS)
		pcs(&u);
	if (o->sections & SPY_MODULES)
		modules(&u);
	sp_model_release(&m);
	return 0;
}
