/* --format=callgrind: the analysed call graph in valgrind's callgrind format, for KCachegrind and
 * callgrind_annotate: each function with its file and line and its self cost, each arc as a call
 * with its exact count and its inclusive cost (what the model holds: measured, or propagated). */
#define _GNU_SOURCE /* qsort_r */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "esc.h"
#include "out.h"

/* Names are written once, then by number ("name compression"): function ids, and file ids (one per
 * distinct file name, found by sorting: a program has thousands of files). */
struct cg_ids {
	uint32_t *fn;           /* function index -> id, 0: not yet written */
	uint32_t *file;         /* function index -> its file's id (from 1) */
	unsigned char *written; /* by file id: its name was written */
	uint32_t next_fn;
};

static uint64_t cg_cost(double v)
{
	return prof_u64(v + 0.5); /* costs are integers */
}

static const char *cg_file(const struct prof_func *f)
{
	return f->file && f->file[0] ? f->file : "???";
}

static int cg_by_file(const void *a, const void *b, void *arg)
{
	const struct prof *p = arg;

	return strcmp(cg_file(&p->items[*(const uint32_t *)a]), cg_file(&p->items[*(const uint32_t *)b]));
}

static void cg_ids_init(struct cg_ids *ids, const struct prof *p)
{
	size_t n = p->nsyms ? p->nsyms : 1;
	uint32_t *order = xmalloc(n * sizeof(uint32_t)), id = 0;

	ids->fn = xcalloc(n, sizeof(uint32_t));
	ids->file = xcalloc(n, sizeof(uint32_t));
	ids->written = xcalloc(n + 1, 1);
	ids->next_fn = 0;
	for (uint32_t i = 0; i < p->nsyms; i++)
		order[i] = i;
	qsort_r(order, p->nsyms, sizeof(uint32_t), cg_by_file, (void *)p);
	for (uint32_t k = 0; k < p->nsyms; k++) {
		if (!k || cg_by_file(&order[k - 1], &order[k], (void *)p))
			id++;
		ids->file[order[k]] = id;
	}
	free(order);
}

/* KEY=(id) name the first time, KEY=(id) after, for function i's file. */
static void cg_put_file(FILE *out, struct cg_ids *ids, const char *key, const struct prof *p, uint32_t i)
{
	uint32_t id = ids->file[i];

	if (ids->written[id]) {
		fprintf(out, "%s=(%" PRIu32 ")\n", key, id);
		return;
	}
	ids->written[id] = 1;
	fprintf(out, "%s=(%" PRIu32 ") %s\n", key, id, esc_text(cg_file(&p->items[i])));
}

static void cg_put_fn(FILE *out, struct cg_ids *ids, const char *key, const struct prof *p, uint32_t i)
{
	if (ids->fn[i]) {
		fprintf(out, "%s=(%" PRIu32 ")\n", key, ids->fn[i]);
		return;
	}
	ids->fn[i] = ++ids->next_fn;
	fprintf(out, "%s=(%" PRIu32 ") %s\n", key, ids->fn[i], esc_text(p->items[i].name));
}

static int cg_shown(const struct prof *p, const struct prof_func *f, unsigned flags)
{
	return (flags & PRINT_ZEROS) || f->ncalls || f->self_calls || f->time > 0 || f->nchild ||
	       (p->offcpu && p->func_off && p->func_off[f - p->items].self > 0);
}

/* A counter's name as an event of callgrind's (letters, digits and '_'): "page-faults" is page_faults. */
static const char *cg_event(const char *name)
{
	static char b[64];
	size_t i = 0;

	for (; name[i] && i + 1 < sizeof(b); i++)
		b[i] = (name[i] >= 'a' && name[i] <= 'z') || (name[i] >= 'A' && name[i] <= 'Z') ||
				       (name[i] >= '0' && name[i] <= '9') ?
			       name[i] :
			       '_';
	b[i] = 0;
	return b;
}

int out_callgrind(FILE *out, const struct prof *p, const struct out_opts *o)
{
	int timed = out_has_times(p), off = p->offcpu && p->func_off && p->arc_off;
	/* SPYRT_COUNTERS: an event each after the time's */
	uint32_t nc = timed && p->func_ctr && p->arc_ctr ? p->nctr : 0;
	struct cg_ids ids;
	uint64_t sum[2] = { 0, 0 }, csum[PROF_CTR_MAX] = { 0 };

	cg_ids_init(&ids, p);
	fputs("# callgrind format\nversion: 1\ncreator: spinprof\n", out);
	if (p->kind == PROF_SPY) {
		fprintf(out, "pid: %" PRIu32 "\ncmd:", p->spy.hdr.pid);
		for (uint32_t i = 0; i < p->spy.hdr.argc; i++)
			fprintf(out, " %s", esc_text(p->spy.hdr.argv[i]));
		fputs("\n", out);
	} else {
		fprintf(out, "cmd: %s\n", esc_text(o->what));
	}
	fputs("positions: line\n", out);
	if (timed) {
		fprintf(out, "event: %s : %s (%.6g per second)\n", p->measured ? "Cycles" : "Ticks",
			p->measured         ? "measured CPU cycles" :
			p->kind == PROF_GNU ? "histogram samples" :
					      "sampled ticks",
			p->hz);
		if (off)
			fputs("event: OffCPU : cycles off the CPU\n", out);
		for (uint32_t k = 0; k < nc; k++) {
			fprintf(out, "event: %s : ", cg_event(p->ctr_names[k]));
			esc_put(out, p->ctr_names[k], ESC_TEXT);
			fputs(" (SPYRT_COUNTERS)\n", out);
		}
		fprintf(out, "events: %s%s", p->measured ? "Cycles" : "Ticks", off ? " OffCPU" : "");
		for (uint32_t k = 0; k < nc; k++)
			fprintf(out, " %s", cg_event(p->ctr_names[k]));
		fputs("\n", out);
	} else {
		fputs("event: Calls : times entered (the profile has no times)\nevents: Calls\n", out);
	}

	for (uint32_t i = 0; i < p->nsyms; i++) {
		const struct prof_func *f = &p->items[i];
		uint64_t self[2];

		if (!f->name || !cg_shown(p, f, o->flags))
			continue;
		self[0] = timed ? cg_cost(f->time) : f->ncalls + f->self_calls;
		self[1] = off ? cg_cost(p->func_off[i].self) : 0;
		sum[0] += self[0];
		sum[1] += self[1];
		fputs("\n", out);
		cg_put_file(out, &ids, "fl", p, i);
		cg_put_fn(out, &ids, "fn", p, i);
		fprintf(out, "%" PRIu32 " %" PRIu64, f->line, self[0]);
		if (off)
			fprintf(out, " %" PRIu64, self[1]);
		for (uint32_t k = 0; k < nc; k++) {
			fprintf(out, " %" PRIu64, cg_cost(p->func_ctr[i].self[k]));
			csum[k] += cg_cost(p->func_ctr[i].self[k]);
		}
		fputs("\n", out);
		for (uint32_t k = 0; k < f->nchild; k++) {
			uint32_t ai = p->child_arcs[f->child0 + k];
			const struct prof_arc *a = &p->arcs[ai];
			const struct prof_func *c = &p->items[a->child];

			/* an arc into code without hooks (librows.c) has no count but its time: calls=0 */
			if ((!a->count && !c->lib) || a->child >= p->nsyms)
				continue;
			cg_put_file(out, &ids, "cfi", p, a->child);
			cg_put_fn(out, &ids, "cfn", p, a->child);
			fprintf(out, "calls=%" PRIu64 " %" PRIu32 "\n%" PRIu32 " %" PRIu64, a->count, c->line,
				f->line, timed ? cg_cost(a->time + a->child_time) : 0);
			if (off)
				fprintf(out, " %" PRIu64, cg_cost(p->arc_off[ai]));
			for (uint32_t e = 0; e < nc; e++)
				fprintf(out, " %" PRIu64, cg_cost(p->arc_ctr[ai].incl[e]));
			fputs("\n", out);
		}
	}
	for (int w = 0; w < 2; w++) {
		fprintf(out, w ? "\ntotals: %" PRIu64 : "\nsummary: %" PRIu64, sum[0]);
		if (off)
			fprintf(out, " %" PRIu64, sum[1]);
		for (uint32_t k = 0; k < nc; k++)
			fprintf(out, " %" PRIu64, csum[k]);
	}
	fputs("\n", out);
	free(ids.fn);
	free(ids.file);
	free(ids.written);
	return 0;
}
