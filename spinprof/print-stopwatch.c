/* The stopwatch (SystemTap's @count, @min, @avg, @max and @hist_log; Multics' metering of whole
 * calls): per function, the wall cycles of its outermost calls, from the model's p->watch. */
#define _GNU_SOURCE /* qsort_r */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "esc.h"
#include "print-stopwatch.h"
#include "prof.h"
#include "spy-abi.h"

#define BAR_WIDTH 50 /* SystemTap's histogram width */

static double w_avg(const struct prof_watch *w)
{
	return w->n ? (double)w->sum / (double)w->n : 0;
}

/* population standard deviation: sqrt(E[x^2] - E[x]^2) */
static double w_stddev(const struct prof_watch *w)
{
	if (!w->n)
		return 0;
	long double m = (long double)w->sum / (long double)w->n, v = w->sq / (long double)w->n - m * m;
	return v > 0 ? (double)sqrtl(v) : 0;
}

static const struct prof_watch none;

static const struct prof_watch *watch_of(const struct prof *p, size_t i)
{
	return p->watch && i < p->nwatch ? &p->watch[i] : &none;
}

/* by outermost calls' total time, most first, then by name (arg: the profile) */
static int by_total(const void *a, const void *b, void *arg)
{
	const struct prof *p = arg;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	uint64_t sx = p->watch[x].sum, sy = p->watch[y].sum;
	if (sx != sy)
		return sx > sy ? -1 : 1;
	return strcmp(prof_key(&p->items[x]), prof_key(&p->items[y]));
}

/* The functions with outermost calls, by total time; returns their number (*out malloc'ed). */
static size_t by_time(const struct prof *p, uint32_t **out)
{
	uint32_t *v = xmalloc((p->nsyms + 1) * sizeof(*v));
	size_t n = 0;
	for (size_t i = 0; p->watch && i < p->nsyms && i < p->nwatch; i++)
		if (p->watch[i].n && p->items[i].name)
			v[n++] = (uint32_t)i;
	qsort_r(v, n, sizeof(*v), by_total, (void *)p);
	*out = v;
	return n;
}

static void hist_row(FILE *f, int vw, const char *value, uint64_t count, uint64_t max)
{
	int bar = max ? (int)(count * BAR_WIDTH / max) : 0;
	if (count && !bar)
		bar = 1;
	fprintf(f, "%*s |", vw, value);
	for (int i = 0; i < BAR_WIDTH; i++)
		fputc(i < bar ? '@' : ' ', f);
	fprintf(f, " %" PRIu64 "\n", count);
}

/* @hist_log's form: a value column (the bucket's lower bound, cycles), bars of '@' scaled to the
 * largest count, counts; one empty bucket either side of the used ones, and a run of more than two
 * empty buckets between them shown as '~'. */
static void print_hist(FILE *f, const struct prof_watch *w)
{
	int lo = -1, hi = -1;
	uint64_t max = 0;
	for (int b = 0; b < GMON_HIST_BUCKETS; b++)
		if (w->hist[b]) {
			if (lo < 0)
				lo = b;
			hi = b;
			if (w->hist[b] > max)
				max = w->hist[b];
		}
	if (lo < 0)
		return;
	lo = lo > 0 ? lo - 1 : 0;
	hi = hi + 1 < GMON_HIST_BUCKETS ? hi + 1 : hi;
	char top[32];
	snprintf(top, sizeof(top), "%" PRIu64, hi ? (uint64_t)1 << hi : 0);
	int vw = (int)strlen(top) > 5 ? (int)strlen(top) : 5;
	fprintf(f, "%*s |", vw, "value");
	for (int i = 0; i < BAR_WIDTH; i++)
		fputc('-', f);
	fputs(" count\n", f);
	for (int b = lo; b <= hi; b++) {
		int run = 0;
		while (b + run <= hi && !w->hist[b + run])
			run++;
		if (run > 2 && b > lo && b + run <= hi) {
			/* the empty run between used buckets: its first row, '~', its last row */
			char v[32];
			snprintf(v, sizeof(v), "%" PRIu64, (uint64_t)1 << b);
			hist_row(f, vw, v, 0, max);
			fprintf(f, "%*s\n", vw, "~");
			b += run - 1;
		}
		char v[32];
		snprintf(v, sizeof(v), "%" PRIu64, b ? (uint64_t)1 << b : 0);
		hist_row(f, vw, v, w->hist[b], max);
	}
}

static void print_one(FILE *f, const struct prof *p, size_t i)
{
	const struct prof_func *fn = &p->items[i];
	const struct prof_watch *w = watch_of(p, i);
	double us = p->hz > 0 ? 1e6 / p->hz : 0;
	fputs(esc_text(fn->name), f);
	if (fn->file)
		fprintf(f, " (%s:%" PRIu32 ")", esc_text(fn->file), fn->line);
	fputs(":\n", f);
	if (!w->n) {
		fputs("  no outermost calls\n\n", f);
		return;
	}
	fprintf(f,
		"  count %" PRIu64 ", min %" PRIu64 ", avg %.0f, max %" PRIu64 ", stddev %.0f cycles\n"
		"  min %.3f, avg %.3f, max %.3f, stddev %.3f microseconds\n",
		w->n, w->min, w_avg(w), w->max, w_stddev(w), (double)w->min * us, w_avg(w) * us,
		(double)w->max * us, w_stddev(w) * us);
	print_hist(f, w);
	fputc('\n', f);
}

/* The stopwatches are there, else one line naming the profile and why not. */
static int have_watch(const struct prof *p, const char *what)
{
	if (p->kind != PROF_SPY) {
		esc_msg("spinprof: %s: the stopwatch needs a spy profile, not gcc -pg's\n", what);
		return 0;
	}
	if (p->spy.hdr.mode != SPY_MODE_TIME) {
		esc_msg("spinprof: %s: no stopwatch: recorded in mode %s, not time\n", what,
			gmon_mode_name(p->spy.hdr.mode));
		return 0;
	}
	if (!p->watch) {
		esc_msg("spinprof: %s: no stopwatch: written before format revision 3\n", what);
		return 0;
	}
	return 1;
}

static void stopwatch_title(FILE *f, const struct prof *p)
{
	fprintf(f,
		"Stopwatch: the outermost calls of each function (not those inside another of its own), "
		"wall time\nin cycles of %.0f Hz; histogram buckets by powers of two, value the "
		"bucket's least\n\n",
		p->hz);
}

int print_stopwatch(FILE *f, const struct prof *p, const char *funcs, const char *what)
{
	if (!have_watch(p, what))
		return -1;
	if (!funcs) {
		stopwatch_title(f, p);
		uint32_t *v;
		size_t n = by_time(p, &v);
		for (size_t k = 0; k < n; k++)
			print_one(f, p, v[k]);
		free(v);
		return 0;
	}
	/* every name first, so a wrong one prints nothing */
	char *list = xstrdup(funcs), *save = NULL;
	int rc = 0;
	for (int pass = 0; pass < 2 && !rc; pass++) {
		if (pass)
			stopwatch_title(f, p);
		strcpy(list, funcs);
		for (char *name = strtok_r(list, ",", &save); name; name = strtok_r(NULL, ",", &save)) {
			int found = 0;
			for (size_t i = 0; i < p->nsyms; i++) {
				const struct prof_func *fn = &p->items[i];
				if (!fn->name || (strcmp(fn->name, name) && strcmp(prof_key(fn), name)))
					continue;
				found = 1;
				if (pass)
					print_one(f, p, i);
			}
			if (!found) {
				esc_msg("spinprof: %s: --stopwatch: no function '%s' in the profile\n", what,
					name);
				rc = -1;
				break;
			}
		}
	}
	free(list);
	return rc;
}

void print_stopwatch_top(FILE *f, const struct prof *p, int top)
{
	if (p->kind != PROF_SPY || !p->watch)
		return;
	uint32_t *v;
	size_t n = by_time(p, &v);
	double us = p->hz > 0 ? 1e6 / p->hz : 0;
	if (n > (size_t)top)
		n = (size_t)top;
	if (n) {
		fprintf(f,
			"Stopwatch: the outermost calls of the %zu functions of most inclusive time "
			"(microseconds, wall;\nspinprof --stopwatch prints their histograms)\n\n"
			"%10s %12s %12s %12s %12s  %s\n",
			n, "count", "min", "avg", "max", "stddev", "name");
		for (size_t k = 0; k < n; k++) {
			const struct prof_watch *w = &p->watch[v[k]];
			fprintf(f, "%10" PRIu64 " %12.3f %12.3f %12.3f %12.3f  %s\n", w->n,
				(double)w->min * us, w_avg(w) * us, (double)w->max * us, w_stddev(w) * us,
				esc_text(p->items[v[k]].name));
		}
		fputc('\n', f);
	}
	free(v);
}
