/* gmon_dump(): a decoded profile as text, one fact a line, with addresses named after the profile's
 * own functions; for tests and for looking at a file by hand. Built with -DGMON_DUMP_MAIN, together
 * with gmon-io.c, it is a small tool: gmon-dump FILE... prints each file's text. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "gmon-format.h"

/* ---- dump ------------------------------------------------------------------------------------------ */

struct sym {
	uint64_t addr;
	const char *name;
};

static int sym_cmp(const void *a, const void *b)
{
	const struct sym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

struct symtab {
	struct sym *s;
	size_t n;
	const struct gmon_profile *p;
};

/* The function starting at addr, or NULL. */
static const char *sym_exact(const struct symtab *t, uint64_t addr)
{
	size_t lo = 0, hi = t->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->s[mid].addr < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < t->n && t->s[lo].addr == addr ? t->s[lo].name : NULL;
}

/* NAME for a function address, "<spontaneous>"/"<various>" for the caller markers, else hex. */
static const char *sym_name(const struct symtab *t, uint64_t addr, char *buf, size_t sz)
{
	const char *n;

	if (addr == GMON_CALLER_NONE)
		return "<spontaneous>";
	if (addr == GMON_CALLER_MANY)
		return "<various>";
	n = sym_exact(t, addr);
	if (n)
		return n;
	snprintf(buf, sz, "0x%" PRIx64, addr);
	return buf;
}

static void dump_header(FILE *f, const struct gmon_header *h)
{
	fprintf(f,
		"header tool=%s abi=%" PRIu32 " pid=%" PRIu32 " ppid=%" PRIu32 " mode=%s flags=0x%" PRIx32
		"\n",
		h->tool, h->abi, h->pid, h->ppid, gmon_mode_name(h->mode), h->flags);
	fprintf(f, "times start_ns=%" PRIu64 " end_ns=%" PRIu64 " tsc_hz=%" PRIu64 "\n", h->start_ns,
		h->end_ns, h->tsc_hz);
	fprintf(f,
		"overhead hook_out=%" PRIu64 ".%03" PRIu64 " hook_in=%" PRIu64 ".%03" PRIu64
		" tsc_read=%" PRIu64 ".%03" PRIu64 "\n",
		h->hook_out_mcyc / 1000, h->hook_out_mcyc % 1000, h->hook_in_mcyc / 1000,
		h->hook_in_mcyc % 1000, h->tsc_read_mcyc / 1000, h->tsc_read_mcyc % 1000);
	fprintf(f,
		"lost dropped_arcs=%" PRIu64 " dropped_funcs=%" PRIu64 " dropped_frames=%" PRIu64
		" abandoned=%" PRIu64 " unmatched=%" PRIu64 " slots_lost=%" PRIu64 " unregistered=%" PRIu64
		"\n",
		h->dropped_arcs, h->dropped_funcs, h->dropped_frames, h->abandoned, h->unmatched,
		h->slots_lost, h->unregistered);
	fprintf(f, "error %s\n", h->error && *h->error ? h->error : "-");
	fprintf(f, "argv");
	for (uint32_t i = 0; i < h->argc; i++)
		fprintf(f, " %s", h->argv[i]);
	fputc('\n', f);
}

void gmon_dump(FILE *f, const struct gmon_profile *p)
{
	struct symtab t = { .p = p };
	size_t nsym = 0;
	char b1[32], b2[32];

	for (uint32_t i = 0; i < p->nfuncsets; i++)
		nsym += p->funcsets[i].nr;
	t.s = calloc(nsym ? nsym : 1, sizeof(*t.s));
	for (uint32_t i = 0; t.s && i < p->nfuncsets; i++)
		for (uint32_t j = 0; j < p->funcsets[i].nr; j++)
			t.s[t.n++] =
				(struct sym){ p->funcsets[i].funcs[j].addr, p->funcsets[i].funcs[j].name };
	if (t.s)
		qsort(t.s, t.n, sizeof(*t.s), sym_cmp);

	dump_header(f, &p->hdr);
	for (uint32_t i = 0; i < p->nmodules; i++) {
		const struct gmon_module *m = &p->modules[i];

		fprintf(f,
			"module id=%" PRIu32 " flags=%s%s%s%s base=0x%" PRIx64 " text=0x%" PRIx64
			"-0x%" PRIx64 " build_id=",
			m->id, m->flags & GMON_MOD_MAIN ? "main," : "",
			m->flags & GMON_MOD_INSTRUMENTED ? "instr," : "",
			m->flags & GMON_MOD_CLOSED ? "closed," : "", m->flags & GMON_MOD_VDSO ? "vdso," : "",
			m->base, m->text_lo, m->text_hi);
		for (uint32_t j = 0; j < m->build_id_len; j++)
			fprintf(f, "%02x", m->build_id[j]);
		fprintf(f, "%s path=%s\n", m->build_id_len ? "" : "-", m->path);
	}
	for (uint32_t i = 0; i < p->nfuncsets; i++) {
		const struct gmon_funcs *fs = &p->funcsets[i];

		for (uint32_t j = 0; j < fs->nr; j++) {
			const struct gmon_func *fn = &fs->funcs[j];

			fprintf(f,
				"func %s count=%" PRIu64 " module=%" PRIu32 " mode=%s addr=0x%" PRIx64
				" flags=0x%" PRIx32 " at=%s:%" PRIu32 "\n",
				fn->name, fn->count, fs->module, gmon_mode_name(fs->plugin_mode), fn->addr,
				fn->flags, fn->file, fn->line);
		}
	}
	for (uint32_t i = 0; i < p->nthreads; i++) {
		const struct gmon_thread *th = &p->threads[i];

		fprintf(f,
			"thread tid=%" PRIu32 " flags=%s%s%s name=%s arcs=%" PRIu64 " funcs=%" PRIu64
			" counts=%" PRIu64 " dropped_arcs=%" PRIu64 " dropped_funcs=%" PRIu64
			" dropped_frames=%" PRIu64 " abandoned=%" PRIu64 " unmatched=%" PRIu64
			" start_ns=%" PRIu64 " end_ns=%" PRIu64 " off_blocked=%" PRIu64
			" off_preempted=%" PRIu64 " off_switches=%" PRIu64 " off_lost=%" PRIu64 "\n",
			th->tid, th->flags & GMON_THREAD_MAIN ? "main," : "",
			th->flags & GMON_THREAD_EXITED ? "exited," : "",
			th->flags & GMON_THREAD_OFFCPU ? "offcpu," : "",
			th->name && *th->name ? th->name : "-", th->narcs, th->nfstats, th->ncounts,
			th->dropped_arcs, th->dropped_funcs, th->dropped_frames, th->abandoned, th->unmatched,
			th->start_ns, th->end_ns, th->off_blocked, th->off_preempted, th->off_switches,
			th->off_lost);
		for (uint64_t j = 0; j < th->narcs; j++) {
			const struct gmon_arc *a = &th->arcs[j];
			const struct gmon_arcoff *o = th->arcoffs ? &th->arcoffs[j] : NULL;
			int mi = gmon_module_at(p, a->call_site);
			const struct gmon_module *m = mi < 0 ? NULL : &p->modules[mi];

			fprintf(f,
				"arc tid=%" PRIu32 " caller=%s callee=%s count=%" PRIu64 " incl=%" PRIu64
				" self=%" PRIu64 " site=0x%" PRIx64 " site_module=%" PRId64
				" off_incl=%" PRIu64 " off_self=%" PRIu64 " off_self_pre=%" PRIu64 "\n",
				th->tid, sym_name(&t, a->caller, b1, sizeof(b1)),
				sym_name(&t, a->callee, b2, sizeof(b2)), a->count, a->incl, a->self,
				a->call_site, m ? (int64_t)m->id : (int64_t)-1, o ? o->incl : 0,
				o ? o->self : 0, o ? o->self_pre : 0);
		}
		for (uint64_t j = 0; j < th->nfstats; j++) {
			const struct gmon_fstat *s = &th->fstats[j];

			fprintf(f,
				"time tid=%" PRIu32 " func=%s calls=%" PRIu64 " incl=%" PRIu64
				" self=%" PRIu64 " min=%" PRIu64 " max=%" PRIu64 " hist=",
				th->tid, sym_name(&t, s->addr, b1, sizeof(b1)), s->calls, s->incl, s->self,
				s->min, s->max);
			for (int k = 0, first = 1; k < GMON_HIST_BUCKETS; k++)
				if (s->hist[k]) {
					fprintf(f, "%s%d:%" PRIu64, first ? "" : ",", k, s->hist[k]);
					first = 0;
				}
			fputc('\n', f);
		}
		for (uint64_t j = 0; j < th->ncounts; j++)
			fprintf(f, "count tid=%" PRIu32 " func=%s count=%" PRIu64 "\n", th->tid,
				th->counts[j].addr ? sym_name(&t, th->counts[j].addr, b1, sizeof(b1)) :
						     "<unregistered>",
				th->counts[j].count);
	}
	if (p->sampling) {
		const struct gmon_sampling *s = p->sampling;

		fprintf(f,
			"sampling watch=%s flags=0x%" PRIx32 " hz=%" PRIu64 " divisor=%" PRIu64
			" target=%s start=%s stop=%s expected=%" PRIu64 " taken=%" PRIu64 " missed=%" PRIu64
			" in_runtime=%" PRIu64 " dropped=%" PRIu64 " cpu_ns=%" PRIu64 " faults=%" PRIu64
			" allocs=%" PRIu64 " alloc_bytes=%" PRIu64 " handler_cycles=%" PRIu64 "\n",
			gmon_watch_name(s->watch), s->flags, s->hz, s->divisor,
			s->target && *s->target ? s->target : "-", s->start && *s->start ? s->start : "-",
			s->stop && *s->stop ? s->stop : "-", s->expected, s->taken, s->missed, s->in_runtime,
			s->dropped, s->cpu_ns, s->faults, s->allocs, s->alloc_bytes, s->handler_cycles);
	}
	for (uint32_t i = 0; i < p->nsamples; i++) {
		const struct gmon_samples *ss = &p->samples[i];

		for (uint64_t j = 0; j < ss->nstacks; j++) {
			const struct gmon_stack *k = &ss->stacks[j];

			fprintf(f,
				"stack tid=%" PRIu32 " count=%" PRIu64 " weight=%" PRIu64
				" flags=%s%s%s pc=0x%" PRIx64 " frames=",
				ss->tid, k->count, k->weight, k->flags & GMON_STACK_WAITING ? "waiting," : "",
				k->flags & GMON_STACK_RUNTIME ? "runtime," : "",
				k->flags & GMON_STACK_CUT ? "cut," : "", k->pc);
			for (uint32_t d = 0; d < k->depth; d++)
				fprintf(f, "%s%s@0x%" PRIx64, d ? "," : "",
					sym_name(&t, k->frames[d].func, b1, sizeof(b1)),
					k->frames[d].call_site);
			fprintf(f, "%s\n", k->depth ? "" : "-");
		}
	}
	for (uint32_t i = 0; i < p->ncounters; i++)
		fprintf(f, "counter %s=%" PRIu64 "\n", p->counters[i].name, p->counters[i].value);
	free(t.s);
}

#ifdef GMON_DUMP_MAIN
int main(int argc, char **argv)
{
	struct gmon_profile p;
	char err[512];
	int rc = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: gmon-dump FILE...\n");
		return 2;
	}
	for (int i = 1; i < argc; i++) {
		if (gmon_read_file(argv[i], &p, err, sizeof(err))) {
			fprintf(stderr, "gmon-dump: %s: %s\n", argv[i], err);
			rc = 2;
			continue;
		}
		gmon_dump(stdout, &p);
		gmon_profile_release(&p);
	}
	return rc;
}
#endif
