/* spinprof --format=folded: one line per distinct stack, "root;...;leaf WEIGHT", Brendan Gregg's
 * stackcollapse format, from the Spy model's sampled stacks (sp_model_build_paths); sorted by the
 * frames' names, as flamegraph.pl and the other flame graph tools take them. */
#define _GNU_SOURCE /* qsort_r */
#include <stdlib.h>
#include <string.h>

#include "esc.h"
#include "out-folded.h"

/* by the stacks' names (arg: the fold), ties by the stacks' order, so the sort is stable */
static int path_cmp(const void *a, const void *b, void *arg)
{
	const struct fold *fo = arg;
	const struct fold_stack *x = a, *y = b;
	const char *const *nx = fo->names + x->at, *const *ny = fo->names + y->at;
	uint32_t d = x->depth < y->depth ? x->depth : y->depth;
	for (uint32_t i = 0; i < d; i++) {
		int c = strcmp(nx[i], ny[i]);
		if (c)
			return c;
	}
	if (x->depth != y->depth)
		return x->depth < y->depth ? -1 : 1;
	return x->at < y->at ? -1 : x->at > y->at;
}

static int same(const struct fold *fo, const struct fold_stack *x, const struct fold_stack *y)
{
	if (x->depth != y->depth)
		return 0;
	for (uint32_t i = 0; i < x->depth; i++)
		if (strcmp(fo->names[x->at + i], fo->names[y->at + i]))
			return 0;
	return 1;
}

int fold_build(struct fold *fo, const struct prof *p, const struct out_opts *o, const char **why)
{
	memset(fo, 0, sizeof(*fo));
	if (p->kind != PROF_SPY) {
		*why = "gcc -pg's gmon.out has no stacks";
		return -1;
	}
	if (sp_model_build_paths(&fo->m, p, o->demangle) < 0) {
		*why = "the profile has no samples and no measured times";
		return -1;
	}
	struct sp_model *m = &fo->m;
	fo->unit = m->unit;
	if (!m->npaths) {
		*why = m->sampled ? "every sample is the profiler's" : "no call path has measured cycles";
		sp_model_release(m);
		return -1;
	}
	int thr = o->threads;
	if (thr) {
		fo->thread_names = xcalloc(m->nthreads + 1, sizeof(char *));
		for (size_t t = 0; t < m->nthreads; t++) {
			char b[300];
			if (m->threads[t].name[0])
				snprintf(b, sizeof(b), "thread %u %s", m->threads[t].tid, m->threads[t].name);
			else
				snprintf(b, sizeof(b), "thread %u", m->threads[t].tid);
			fo->thread_names[t] = xstrdup(b);
		}
	}
	size_t nn = m->npath_procs + (thr ? m->npaths : 0) + 1;
	fo->names = xmalloc(nn * sizeof(char *));
	fo->mods = xmalloc(nn * sizeof(int));
	fo->stacks = xmalloc((m->npaths + 1) * sizeof(*fo->stacks));
	size_t at = 0;
	for (size_t i = 0; i < m->npaths; i++) {
		const struct sp_path *pa = &m->paths[i];
		struct fold_stack *s = &fo->stacks[i];
		s->w = pa->w;
		s->at = at;
		int tf = thr && pa->thread < m->nthreads; /* time mode's paths mix the threads */
		s->depth = pa->depth + (tf != 0);
		if (tf) {
			fo->names[at] = fo->thread_names[pa->thread];
			fo->mods[at++] = FOLD_THREAD;
		}
		for (uint32_t d = 0; d < pa->depth; d++) {
			const struct sp_proc *pr = &m->procs[m->path_procs[pa->at + d]];
			fo->names[at] = pr->name;
			fo->mods[at++] = pr->module >= 0 ? pr->module : FOLD_NOMOD;
		}
	}
	qsort_r(fo->stacks, m->npaths, sizeof(*fo->stacks), path_cmp, fo);
	size_t n = 0;
	for (size_t i = 0; i < m->npaths; i++) {
		if (n && same(fo, &fo->stacks[n - 1], &fo->stacks[i]))
			fo->stacks[n - 1].w += fo->stacks[i].w;
		else
			fo->stacks[n++] = fo->stacks[i];
	}
	/* cycles shared among paths are fractions: whole cycles, as measured, and the paths of none
	 * left out */
	size_t kept = 0;
	for (size_t i = 0; i < n; i++) {
		if (!m->sampled)
			fo->stacks[i].w = (double)prof_u64(fo->stacks[i].w + 0.5);
		if (fo->stacks[i].w > 0) {
			fo->total += fo->stacks[i].w;
			fo->stacks[kept++] = fo->stacks[i];
		}
	}
	fo->n = kept;
	return 0;
}

int fold_build_or_say(struct fold *fo, const struct prof *p, const struct out_opts *o)
{
	const char *why;
	if (fold_build(fo, p, o, &why) == 0)
		return 0;
	esc_msg("spinprof: %s: no stacks: %s\n", o->what, why);
	return -1;
}

void fold_release(struct fold *fo)
{
	if (fo->thread_names)
		for (size_t t = 0; t < fo->m.nthreads; t++)
			free(fo->thread_names[t]);
	free(fo->thread_names);
	free(fo->names);
	free(fo->mods);
	free(fo->stacks);
	sp_model_release(&fo->m);
	memset(fo, 0, sizeof(*fo));
}

void fold_print_w(FILE *f, double w)
{
	if (w >= 0 && w < 1e18 && w == (double)(uint64_t)w)
		fprintf(f, "%llu", (unsigned long long)w);
	else
		fprintf(f, "%.15g", w);
}

int out_folded(FILE *f, const struct prof *p, const struct out_opts *o)
{
	struct fold fo;
	if (fold_build_or_say(&fo, p, o) < 0)
		return -1;
	for (size_t i = 0; i < fo.n; i++) {
		const struct fold_stack *s = &fo.stacks[i];
		for (uint32_t d = 0; d < s->depth; d++) {
			if (d)
				putc(';', f);
			/* a ';' inside a name would split the frame: the tools read none */
			esc_put(f, fo.names[s->at + d], ESC_FOLDED);
		}
		putc(' ', f);
		fold_print_w(f, s->w);
		putc('\n', f);
	}
	fold_release(&fo);
	return 0;
}
