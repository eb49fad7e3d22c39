/* spinprof -l on a spy profile: the line-by-line flat profile, gprof -l's layout, from the CPU or wall
 * samples' PCs (each PC's source line through its module's debug information), weighed as the Spy
 * report weighs them (the profiler's own ticks left out). */
#include <stdlib.h>
#include <string.h>

#include "esc.h"
#include "print-lines.h"
#include "spy-model.h"

struct line_row {
	char *name; /* "FUNC (FILE:LINE)", or "FUNC (module+0xOFFSET)" where the line is unknown */
	double w;
};

static int row_name_cmp(const void *a, const void *b)
{
	return strcmp(((const struct line_row *)a)->name, ((const struct line_row *)b)->name);
}

static int row_cmp(const void *a, const void *b)
{
	const struct line_row *x = a, *y = b;
	if (x->w != y->w)
		return x->w > y->w ? -1 : 1;
	return strcmp(x->name, y->name);
}

int print_spy_lines(FILE *f, const struct prof *p, int demangle, const char *what)
{
	struct sp_model m;
	const struct gmon_sampling *sp = p->kind == PROF_SPY ? p->spy.sampling : NULL;
	int ok = sp && (sp->watch == GMON_WATCH_CPU || sp->watch == GMON_WATCH_WALL) && sp->hz &&
		 sp_model_build(&m, p, demangle) == 0;
	if (ok && !m.sampled) {
		sp_model_release(&m);
		ok = 0;
	}
	if (!ok) {
		esc_msg("spinprof: %s: -l needs CPU or wall samples (SPYRT_WATCH=cpu or wall)\n", what);
		return -1;
	}
	struct line_row *rows = xmalloc((m.npcs + 1) * sizeof(*rows));
	size_t n = 0;
	for (size_t i = 0; i < m.npcs; i++) {
		const struct sp_pc *pc = &m.pcs[i];
		const char *file, *base;
		unsigned line;
		char where[320];
		if (sp_src(&m, pc->pc, &file, &line) == 0) {
			base = strrchr(file, '/');
			snprintf(where, sizeof(where), "%s:%u", base ? base + 1 : file, line);
		} else {
			sp_addr_text(&m, pc->pc, where, sizeof(where));
		}
		const char *fn = m.procs[pc->proc].name;
		size_t len = strlen(fn) + strlen(where) + 4;
		rows[n].name = xmalloc(len);
		snprintf(rows[n].name, len, "%s (%s)", fn, where);
		rows[n++].w = pc->w;
	}
	/* one row a line: the PCs of a line added up */
	qsort(rows, n, sizeof(*rows), row_name_cmp);
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		if (k && strcmp(rows[k - 1].name, rows[i].name) == 0) {
			rows[k - 1].w += rows[i].w;
			free(rows[i].name);
		} else {
			rows[k++] = rows[i];
		}
	}
	qsort(rows, k, sizeof(*rows), row_cmp);
	double tick = 1.0 / (double)sp->hz, cum = 0;
	fprintf(f, "Flat profile:\n\nEach sample counts as %g seconds.\n", tick);
	fputs("  %   cumulative   self              self     total           \n"
	      " time   seconds   seconds    calls  Ts/call  Ts/call  name    \n",
	      f);
	for (size_t i = 0; i < k; i++) {
		cum += rows[i].w * tick;
		fprintf(f, "%6.2f %9.2f %8.2f %8s %8s %8s  %s\n",
			m.grand > 0 ? 100.0 * rows[i].w / m.grand : 0.0, cum, rows[i].w * tick, "", "", "",
			esc_text(rows[i].name));
		free(rows[i].name);
	}
	free(rows);
	sp_model_release(&m);
	return 0;
}
