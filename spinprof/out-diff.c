/* spinprof --diff OLD NEW: two analysed models compared function by function, matched by name (so
 * two builds of a program compare): self, total and calls in each run, the difference and the ratio,
 * the largest change first, under the two runs' headers side by side. Times are compared in seconds
 * (printed in milliseconds),
 * so a spy profile (cycles) and a GNU one (ticks) compare too. */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "esc.h"
#include "out-diff.h"
#include "print-gprof.h"

/* One function of one run, or all of a run's functions of one name (static functions of several
 * files) summed. has_time: the run has times (else self and total are unknown). */
struct df_row {
	const char *name;
	double self, total; /* seconds */
	uint64_t calls;
};

/* A row of the comparison: the old and new values (present[] says which runs have the name). */
struct df_line {
	const char *name;
	struct df_row r[2];
	int present[2];
	double dkey[3]; /* |change| of total, self, calls: the sort keys */
};

static int df_by_name(const void *a, const void *b)
{
	return strcmp(((const struct df_row *)a)->name, ((const struct df_row *)b)->name);
}

/* The run's functions that were called or took time, sorted by name, those of one name summed. */
static size_t df_rows(const struct prof *p, unsigned flags, struct df_row **out)
{
	int timed = out_has_times(p);
	struct df_row *r = xmalloc((p->nsyms ? p->nsyms : 1) * sizeof(*r));
	size_t n = 0, m = 0;

	for (uint32_t i = 0; i < p->nsyms; i++) {
		const struct prof_func *f = &p->items[i];
		uint64_t calls = f->ncalls + f->self_calls;

		if (!f->name || (!(flags & PRINT_ZEROS) && !calls && f->time <= 0))
			continue;
		r[n].name = f->name;
		r[n].self = timed ? f->time / p->hz : 0;
		r[n].total = timed ? (f->time + f->child_time) / p->hz : 0;
		r[n].calls = calls;
		n++;
	}
	qsort(r, n, sizeof(*r), df_by_name);
	for (size_t i = 0; i < n; i++) {
		if (m && !strcmp(r[m - 1].name, r[i].name)) {
			r[m - 1].self += r[i].self;
			r[m - 1].total += r[i].total;
			r[m - 1].calls += r[i].calls;
		} else {
			r[m++] = r[i];
		}
	}
	*out = r;
	return m;
}

/* The largest change first: total, then self, then calls; then by name. */
static int df_by_change(const void *a, const void *b)
{
	const struct df_line *x = a, *y = b;

	for (int k = 0; k < 3; k++)
		if (x->dkey[k] != y->dkey[k])
			return x->dkey[k] < y->dkey[k] ? 1 : -1;
	return strcmp(x->name, y->name);
}

/* The header lines of one run, as label and value. */
#define DF_NHDR 9
/* A string of the file as a value of the header's table: its text form, cut whole at 127 bytes. */
static void df_val(char *val, const char *raw)
{
	const char *t = esc_text(raw);
	size_t n = esc_cut(t, 127);

	memcpy(val, t, n);
	val[n] = '\0';
}

static void df_header(const struct df_run *run, char val[DF_NHDR][128])
{
	const struct prof *p = run->p;
	double all = 0;
	uint64_t calls = 0;
	size_t nfun = 0;

	for (uint32_t i = 0; i < p->nsyms; i++) {
		all += p->items[i].time;
		calls += p->items[i].ncalls + p->items[i].self_calls;
		nfun += p->items[i].ncalls + p->items[i].self_calls > 0;
	}
	df_val(val[0], run->path);
	if (p->kind == PROF_GNU) {
		snprintf(val[1], 128, "gcc -pg (glibc gmon.out)");
		df_val(val[2], run->prog ? run->prog : "?");
		snprintf(val[3], 128, "-");
		snprintf(val[4], 128, "-");
	} else {
		const struct gmon_header *h = &p->spy.hdr;
		size_t len = 1;

		snprintf(val[1], 128, "spy, mode %s", gmon_mode_name(h->mode));
		for (uint32_t i = 0; i < h->argc; i++)
			len += strlen(h->argv[i]) + 1;
		char *cmd = xmalloc(len);
		cmd[0] = '\0';
		for (uint32_t i = 0, k = 0; i < h->argc; i++)
			k += (uint32_t)sprintf(cmd + k, "%s%s", i ? " " : "", h->argv[i]);
		df_val(val[2], cmd);
		free(cmd);
		snprintf(val[3], 128, "%" PRIu32, h->pid);
		snprintf(val[4], 128, p->duration_bad ? "unknown" : "%.6f s", p->duration_s);
	}
	if (out_has_times(p))
		snprintf(val[5], 128, "%.6f s (%.0f %s)", all / p->hz, all, out_unit(p));
	else
		snprintf(val[5], 128, "none (calls only)");
	if (out_has_times(p))
		snprintf(val[6], 128, "%.0f %s per second", p->hz, out_unit(p));
	else
		snprintf(val[6], 128, "-");
	snprintf(val[7], 128, "%zu", nfun);
	snprintf(val[8], 128, "%" PRIu64, calls);
}

static void df_side_by_side(FILE *f, const struct df_run *old, const struct df_run *new)
{
	static const char *const label[DF_NHDR] = { "profile", "kind", "command",          "pid",  "duration",
						    "time",    "rate", "functions called", "calls" };
	char a[DF_NHDR][128], b[DF_NHDR][128];
	int w = 3;

	df_header(old, a);
	df_header(new, b);
	for (int i = 0; i < DF_NHDR; i++)
		if ((int)strlen(a[i]) > w)
			w = (int)strlen(a[i]);
	fprintf(f, "%-17s %-*s  %s\n", "", w, "old", "new");
	for (int i = 0; i < DF_NHDR; i++)
		fprintf(f, "%-17s %-*s  %s\n", label[i], w, a[i], b[i]);
}

static void df_ratio(char *buf, size_t n, double old, double new)
{
	if (old > 0)
		snprintf(buf, n, "%.3f", new / old);
	else
		snprintf(buf, n, "%s", new > 0 ? "new" : "-");
}

static void df_time_cols(FILE *f, const struct df_line *l, int k, int timed[2])
{
	double o = k ? l->r[0].total : l->r[0].self, n = k ? l->r[1].total : l->r[1].self;
	char ratio[24];

	for (int s = 0; s < 2; s++) {
		if (l->present[s] && timed[s])
			fprintf(f, " %11.4f", 1e3 * (s ? n : o));
		else
			fprintf(f, " %11s", "-");
	}
	if (timed[0] && timed[1]) {
		df_ratio(ratio, sizeof(ratio), o, n);
		fprintf(f, " %+11.4f %7s", 1e3 * (n - o), ratio);
	} else {
		fprintf(f, " %11s %7s", "-", "-");
	}
}

int diff_write(FILE *f, const struct df_run *old, const struct df_run *new, unsigned flags)
{
	struct df_row *r[2];
	size_t n[2], i = 0, j = 0, nl = 0;
	int timed[2] = { out_has_times(old->p), out_has_times(new->p) };

	n[0] = df_rows(old->p, flags, &r[0]);
	n[1] = df_rows(new->p, flags, &r[1]);
	struct df_line *l = xcalloc(n[0] + n[1] + 1, sizeof(*l));
	while (i < n[0] || j < n[1]) {
		int c = i == n[0] ? 1 : j == n[1] ? -1 : strcmp(r[0][i].name, r[1][j].name);
		struct df_line *x = &l[nl++];

		if (c <= 0) {
			x->r[0] = r[0][i++];
			x->present[0] = 1;
		}
		if (c >= 0) {
			x->r[1] = r[1][j++];
			x->present[1] = 1;
		}
		x->name = x->present[0] ? x->r[0].name : x->r[1].name;
		x->dkey[0] = timed[0] && timed[1] ? fabs(x->r[1].total - x->r[0].total) : 0;
		x->dkey[1] = timed[0] && timed[1] ? fabs(x->r[1].self - x->r[0].self) : 0;
		x->dkey[2] = fabs((double)x->r[1].calls - (double)x->r[0].calls);
	}
	qsort(l, nl, sizeof(*l), df_by_change);

	fprintf(f, "spinprof --diff: %s (old) against %s (new)\n\n", esc_text(old->path),
		esc_text(new->path));
	df_side_by_side(f, old, new);
	fprintf(f, "\nper function, matched by name, the largest change first (of total time, then self "
		   "time, then calls);\n"
		   "times in milliseconds; ratio new/old; + only in the new run, - only in the old one\n\n");
	fprintf(f, "  %11s %11s %11s %7s %11s %11s %11s %7s %11s %11s %12s %7s  name\n", "self old",
		"self new", "self diff", "ratio", "total old", "total new", "total diff", "ratio",
		"calls old", "calls new", "calls diff", "ratio");
	for (size_t k = 0; k < nl; k++) {
		const struct df_line *x = &l[k];
		char ratio[24];

		fputc(x->present[0] && x->present[1] ? ' ' : x->present[1] ? '+' : '-', f);
		df_time_cols(f, x, 0, timed);
		df_time_cols(f, x, 1, timed);
		for (int s = 0; s < 2; s++) {
			if (x->present[s])
				fprintf(f, " %11" PRIu64, x->r[s].calls);
			else
				fprintf(f, " %11s", "-");
		}
		df_ratio(ratio, sizeof(ratio), (double)x->r[0].calls, (double)x->r[1].calls);
		fprintf(f, " %+12" PRId64 " %7s  %s\n", (int64_t)(x->r[1].calls - x->r[0].calls), ratio,
			esc_text(x->name));
	}
	free(l);
	free(r[0]);
	free(r[1]);
	return 0;
}
