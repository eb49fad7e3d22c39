/* gmon_dump(): a decoded profile as text, one fact a line, with addresses named after the profile's
 * own functions; for tests and for looking at a file by hand (spinprof --dump, and the tests' tool
 * tests/gmon-dump.c: gmon-dump FILE... prints each file's text). */
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "esc.h"
#include "gmon-format.h"

/* ---- dump ------------------------------------------------------------------------------------------ */

struct sym {
	uint64_t addr;
	const char *name;
	char *own; /* name, when it had to be escaped (see put_str) */
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

/* A string of the file as one word of a line (blank) or as the rest of one, in esc.h's text form
 * (control bytes, DEL, the backslash, broken UTF-8 and C1 controls as \xNN), with blank also the
 * blank, so that no string can end a line or (blank) a field. "-" for an empty one. */
static void put_str(FILE *f, const char *s, int blank)
{
	if (!s || !*s)
		fputc('-', f);
	else
		esc_put(f, s, blank ? ESC_WORD : ESC_TEXT);
}

/* The names of the bits set in flags (names[i] for bit i, NULL past the last; "" for a bit the caller
 * prints otherwise), each followed by a comma, then the bits without a name in hex ("0x40,"). */
static void put_flags(FILE *f, uint32_t flags, const char *const *names)
{
	uint32_t known = 0;

	for (int i = 0; names[i]; i++) {
		known |= 1u << i;
		if ((flags & (1u << i)) && *names[i])
			fprintf(f, "%s,", names[i]);
	}
	if (flags & ~known)
		fprintf(f, "0x%" PRIx32 ",", flags & ~known);
}

static const char *tsc_source_name(uint32_t flags)
{
	static const char *const n[] = {
		"unsaid", "measured", "cpuid", "hypervisor", "sysfs", "perf", "arch"
	};
	uint32_t v = (flags & GMON_HDR_TSC_SOURCE_MASK) >> GMON_HDR_TSC_SOURCE_SHIFT;

	return v < sizeof(n) / sizeof(n[0]) ? n[v] : "unknown";
}

/* s escaped as put_str(f, s, 1) prints it: NULL when it needs no escape (or memory ran out). */
static char *word_dup(const char *s)
{
	if (!s || !*s || (!s[strcspn(s, " ")] && !s[esc_clean(s)]))
		return NULL;
	return esc_dup(s, ESC_WORD);
}

/* |v|, for printing a signed fixed-point value */
static uint64_t mag(int64_t v)
{
	return v < 0 ? -(uint64_t)v : (uint64_t)v;
}

static void dump_header(FILE *f, const struct gmon_header *h)
{
	static const char *const hflags[] = { "tsc_invariant",
					      "final",
					      "forked",
					      "offcpu_none",
					      "signal",
					      "incomplete",
					      "no_hwcount",
					      "no_hwctr",
					      "",
					      "",
					      "",
					      "",
					      "waits_none",
					      NULL };

	fputs("header tool=", f);
	put_str(f, h->tool, 0);
	fprintf(f, " abi=%" PRIu32 " pid=%" PRIu32 " ppid=%" PRIu32 " mode=%s flags=0x%" PRIx32 "\n", h->abi,
		h->pid, h->ppid, gmon_mode_name(h->mode), h->flags);
	/* the header line keeps its form (tests match its end): the flags' names on a line of their own */
	fputs("hflags set=", f);
	put_flags(f, h->flags & ~GMON_HDR_TSC_SOURCE_MASK, hflags);
	fprintf(f, " tsc_source=%s\n", tsc_source_name(h->flags));
	fprintf(f, "times start_ns=%" PRIu64 " end_ns=%" PRIu64 " tsc_hz=%" PRIu64 "\n", h->start_ns,
		h->end_ns, h->tsc_hz);
	fprintf(f,
		"overhead hook_out=%" PRIu64 ".%03" PRIu64 " hook_in=%" PRIu64 ".%03" PRIu64
		" tsc_read=%" PRIu64 ".%03" PRIu64 "\n",
		h->hook_out_mcyc / 1000, h->hook_out_mcyc % 1000, h->hook_in_mcyc / 1000,
		h->hook_in_mcyc % 1000, h->tsc_read_mcyc / 1000, h->tsc_read_mcyc % 1000);
	fprintf(f, "tailcost in=%s%" PRIu64 ".%03" PRIu64 " out=%s%" PRIu64 ".%03" PRIu64 "\n",
		h->hook_tail_in_mcyc < 0 ? "-" : "", mag(h->hook_tail_in_mcyc) / 1000,
		mag(h->hook_tail_in_mcyc) % 1000, h->hook_tail_out_mcyc < 0 ? "-" : "",
		mag(h->hook_tail_out_mcyc) / 1000, mag(h->hook_tail_out_mcyc) % 1000);
	fprintf(f,
		"lost dropped_arcs=%" PRIu64 " dropped_funcs=%" PRIu64 " dropped_frames=%" PRIu64
		" abandoned=%" PRIu64 " unmatched=%" PRIu64 " slots_lost=%" PRIu64 " unregistered=%" PRIu64
		"\n",
		h->dropped_arcs, h->dropped_funcs, h->dropped_frames, h->abandoned, h->unmatched,
		h->slots_lost, h->unregistered);
	fputs("error ", f);
	put_str(f, h->error, 0);
	fputs("\nargv", f);
	for (uint32_t i = 0; i < h->argc; i++) {
		fputc(' ', f);
		if (*h->argv[i]) /* an empty argument leaves two blanks */
			put_str(f, h->argv[i], 1);
	}
	fputc('\n', f);
}

/* A node's or leg's histogram: "-", or KIND:BASE:SCALE:UNDER:OVER:B0,B1,... */
static void dump_nhist(FILE *f, const struct gmon_nhist *h)
{
	if (!h->kind || !h->buckets) {
		fputc('-', f);
		return;
	}
	fprintf(f, "%s:%" PRIu64 ":%" PRIu64 ":%" PRIu64 ":%" PRIu64 ":",
		h->kind == GMON_NHIST_LOG ? "log" : "linear", h->base, h->scale, h->under, h->over);
	for (uint32_t i = 0; i < h->nbuckets; i++)
		fprintf(f, "%s%" PRIu64, i ? "," : "", h->buckets[i]);
}

void gmon_dump(FILE *f, const struct gmon_profile *p)
{
	static const char *const mflags[] = { "main", "instr", "closed", "vdso", "moved", NULL };
	static const char *const tflags[] = { "main",   "exited",   "offcpu", "stopwatch",
					      "folded", "counters", "waits",  NULL };
	static const char *const wkinds[] = { "syscall", "fault", "unread", "other" };
	static const char *const kflags[] = { "waiting", "runtime", "cut", NULL };
	struct symtab t = { .p = p };
	size_t nsym = 0;
	char b1[32], b2[32];

	for (uint32_t i = 0; i < p->nfuncsets; i++)
		nsym += p->funcsets[i].nr;
	t.s = calloc(nsym ? nsym : 1, sizeof(*t.s));
	for (uint32_t i = 0; t.s && i < p->nfuncsets; i++)
		for (uint32_t j = 0; j < p->funcsets[i].nr; j++) {
			const struct gmon_func *fn = &p->funcsets[i].funcs[j];
			char *own = word_dup(fn->name);

			t.s[t.n++] = (struct sym){ fn->addr, own ? own : fn->name, own };
		}
	if (t.s)
		qsort(t.s, t.n, sizeof(*t.s), sym_cmp);

	dump_header(f, &p->hdr);
	for (uint32_t i = 0; i < p->nmodules; i++) {
		const struct gmon_module *m = &p->modules[i];

		fprintf(f, "module id=%" PRIu32 " flags=", m->id);
		put_flags(f, m->flags, mflags);
		fprintf(f, " base=0x%" PRIx64 " text=0x%" PRIx64 "-0x%" PRIx64 " build_id=", m->base,
			m->text_lo, m->text_hi);
		for (uint32_t j = 0; j < m->build_id_len; j++)
			fprintf(f, "%02x", m->build_id[j]);
		fprintf(f, "%s path=", m->build_id_len ? "" : "-");
		put_str(f, m->path, 0);
		fputc('\n', f);
	}
	for (uint32_t i = 0; i < p->nfuncsets; i++) {
		const struct gmon_funcs *fs = &p->funcsets[i];

		for (uint32_t j = 0; j < fs->nr; j++) {
			const struct gmon_func *fn = &fs->funcs[j];

			fputs("func ", f);
			put_str(f, fn->name, 1);
			fprintf(f,
				" count=%" PRIu64 " module=%" PRIu32 " mode=%s addr=0x%" PRIx64
				" flags=0x%" PRIx32 " at=",
				fn->count, fs->module, gmon_mode_name(fs->plugin_mode), fn->addr, fn->flags);
			put_str(f, fn->file, 0);
			fprintf(f, ":%" PRIu32 "\n", fn->line);
		}
	}
	for (uint32_t i = 0; i < p->nthreads; i++) {
		const struct gmon_thread *th = &p->threads[i];

		fprintf(f, "thread tid=%" PRIu32 " flags=", th->tid);
		put_flags(f, th->flags, tflags);
		fputs(" name=", f);
		put_str(f, th->name, 1);
		fprintf(f,
			" arcs=%" PRIu64 " funcs=%" PRIu64 " counts=%" PRIu64 " dropped_arcs=%" PRIu64
			" dropped_funcs=%" PRIu64 " dropped_frames=%" PRIu64 " abandoned=%" PRIu64
			" unmatched=%" PRIu64 " start_ns=%" PRIu64 " end_ns=%" PRIu64 " off_blocked=%" PRIu64
			" off_preempted=%" PRIu64 " off_switches=%" PRIu64 " off_lost=%" PRIu64 "\n",
			th->narcs, th->nfstats, th->ncounts, th->dropped_arcs, th->dropped_funcs,
			th->dropped_frames, th->abandoned, th->unmatched, th->start_ns, th->end_ns,
			th->off_blocked, th->off_preempted, th->off_switches, th->off_lost);
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
			/* revision 3: the thread's counters, a line each (SPYRT_COUNTERS) */
			for (uint32_t k = 0; th->arcctrs && k < th->nctrs; k++) {
				fprintf(f,
					"arcctr tid=%" PRIu32 " caller=%s callee=%s site=0x%" PRIx64
					" event=",
					th->tid, sym_name(&t, a->caller, b1, sizeof(b1)),
					sym_name(&t, a->callee, b2, sizeof(b2)), a->call_site);
				put_str(f, th->ctr_names[k], 1);
				fprintf(f, " incl=%" PRIu64 " self=%" PRIu64 "\n", th->arcctrs[j].incl[k],
					th->arcctrs[j].self[k]);
			}
		}
		for (uint64_t j = 0; j < th->nfstats; j++) {
			const struct gmon_fstat *s = &th->fstats[j];

			fprintf(f,
				"time tid=%" PRIu32 " func=%s calls=%" PRIu64 " incl=%" PRIu64
				" self=%" PRIu64 " min=%" PRIu64 " max=%" PRIu64 " hist=",
				th->tid, sym_name(&t, s->addr, b1, sizeof(b1)), s->calls, s->incl, s->self,
				s->min, s->max);
			for (uint32_t k = 0, first = 1; k < s->nhist; k++)
				if (s->hist[k]) {
					fprintf(f, "%s%" PRIu32 ":%" PRIu64, first ? "" : ",", k, s->hist[k]);
					first = 0;
				}
			/* revision 3: the stopwatch of the outermost calls (0 without it) */
			fprintf(f,
				" outer=%" PRIu64 " outer_sum=%" PRIu64 " outer_sq_hi=%" PRIu64
				" outer_sq_lo=%" PRIu64 " outer_min=%" PRIu64 " outer_hist=",
				s->outer, s->outer_sum, s->outer_sq[1], s->outer_sq[0], s->outer_min);
			for (uint32_t k = 0, first = 1; k < s->nohist; k++)
				if (s->outer_hist[k]) {
					fprintf(f, "%s%" PRIu32 ":%" PRIu64, first ? "" : ",", k,
						s->outer_hist[k]);
					first = 0;
				}
			fputc('\n', f);
		}
		for (uint64_t j = 0; j < th->ncounts; j++)
			fprintf(f, "count tid=%" PRIu32 " func=%s count=%" PRIu64 "\n", th->tid,
				th->counts[j].addr ? sym_name(&t, th->counts[j].addr, b1, sizeof(b1)) :
						     "<unregistered>",
				th->counts[j].count);
		/* revision 5: where it blocked */
		for (uint32_t j = 0; th->waits && j < th->nwaits; j++) {
			const struct gmon_wait *w = &th->waits[j];

			fprintf(f,
				"wait tid=%" PRIu32 " pc=0x%" PRIx64 " func=%s kind=%s count=%" PRIu64
				" cycles=%" PRIu64 "\n",
				th->tid, w->pc, w->func ? sym_name(&t, w->func, b1, sizeof(b1)) : "-",
				w->kind <= GMON_WAIT_LAST ? wkinds[w->kind] : "?", w->count, w->cycles);
		}
	}
	if (p->sampling) {
		const struct gmon_sampling *s = p->sampling;

		fprintf(f, "sampling watch=%s flags=0x%" PRIx32 " hz=%" PRIu64 " divisor=%" PRIu64 " target=",
			gmon_watch_name(s->watch), s->flags, s->hz, s->divisor);
		put_str(f, s->target, 1);
		fputs(" start=", f);
		put_str(f, s->start, 1);
		fputs(" stop=", f);
		put_str(f, s->stop, 1);
		fprintf(f,
			" expected=%" PRIu64 " taken=%" PRIu64 " missed=%" PRIu64 " in_runtime=%" PRIu64
			" dropped=%" PRIu64 " cpu_ns=%" PRIu64 " faults=%" PRIu64 " allocs=%" PRIu64
			" alloc_bytes=%" PRIu64 " handler_cycles=%" PRIu64 "\n",
			s->expected, s->taken, s->missed, s->in_runtime, s->dropped, s->cpu_ns, s->faults,
			s->allocs, s->alloc_bytes, s->handler_cycles);
	}
	for (uint32_t i = 0; i < p->nsamples; i++) {
		const struct gmon_samples *ss = &p->samples[i];

		for (uint64_t j = 0; j < ss->nstacks; j++) {
			const struct gmon_stack *k = &ss->stacks[j];

			fprintf(f,
				"stack tid=%" PRIu32 " count=%" PRIu64 " weight=%" PRIu64 " flags=", ss->tid,
				k->count, k->weight);
			put_flags(f, k->flags, kflags);
			fprintf(f, " pc=0x%" PRIx64 " frames=", k->pc);
			for (uint32_t d = 0; d < k->depth; d++)
				fprintf(f, "%s%s@0x%" PRIx64, d ? "," : "",
					sym_name(&t, k->frames[d].func, b1, sizeof(b1)),
					k->frames[d].call_site);
			fprintf(f, "%s\n", k->depth ? "" : "-");
		}
	}
	for (uint32_t i = 0; i < p->nnodesets; i++) {
		static const char *const track[] = { "none", "successor", "all" };
		const struct gmon_nodes *n = &p->nodesets[i];

		fprintf(f, "nodes tid=%" PRIu32 " track=%s add=%s thread_only=%d dropped=%" PRIu64 "\n",
			n->tid, n->track <= GMON_TRACK_ALL ? track[n->track] : "?",
			n->add == GMON_ADD_SUCCESSOR ? "successor" : "none",
			(n->flags & GMON_NODES_THREAD_ONLY) != 0, n->dropped);
		for (uint32_t j = 0; j < n->nnodes; j++) {
			const struct gmon_node *d = &n->nodes[j];

			fprintf(f, "node tid=%" PRIu32 " name=", n->tid);
			put_str(f, d->name, 1);
			fputs(" file=", f);
			put_str(f, d->file, 1);
			fprintf(f,
				" line=%" PRIu32 " hits=%" PRIu64 " values=%" PRIu64 " sum=%" PRIu64
				" min=%" PRIu64 " max=%" PRIu64 " hist=",
				d->line, d->hits, d->nvalues, d->value_sum, d->value_min, d->value_max);
			dump_nhist(f, &d->hist);
			fputc('\n', f);
		}
		for (uint32_t j = 0; j < n->nlegs; j++) {
			const struct gmon_leg *l = &n->legs[j];

			fprintf(f, "leg tid=%" PRIu32 " from=", n->tid);
			put_str(f, n->nodes[l->from].name, 1);
			fputs(" to=", f);
			put_str(f, n->nodes[l->to].name, 1);
			fprintf(f,
				" count=%" PRIu64 " total_ns=%" PRIu64 " min_ns=%" PRIu64 " max_ns=%" PRIu64
				" ignored=%" PRIu64 " open=%" PRIu64 " hist=",
				l->count, l->total_ns, l->min_ns, l->max_ns, l->ignored, l->open);
			dump_nhist(f, &l->hist);
			fputc('\n', f);
		}
	}
	for (uint32_t i = 0; i < p->ntraces; i++) {
		const struct gmon_trace *tr = &p->traces[i];

		fprintf(f, "trace kind=%s tid=%" PRIu32 " events=%" PRIu64 " dropped=%" PRIu64 "\n",
			gmon_trace_kind_name(tr->kind), tr->tid, tr->n, tr->dropped);
		for (uint64_t j = 0; j < tr->n; j++) {
			const struct gmon_tevent *e = &tr->ev[j];

			fprintf(f,
				"tevent tid=%" PRIu32 " time=%" PRIu64 " what=%" PRIu32
				" func=%s addr=0x%" PRIx64 " value=%" PRIu64 "\n",
				tr->tid, e->time, e->what, sym_name(&t, e->func, b1, sizeof(b1)), e->addr,
				e->value);
		}
	}
	for (uint64_t i = 0; i < p->ntail_sites; i++) {
		int mi = gmon_module_at(p, p->tail_sites[i]);

		fprintf(f, "tail site=0x%" PRIx64 " site_module=%" PRId64 "\n", p->tail_sites[i],
			mi < 0 ? (int64_t)-1 : (int64_t)p->modules[mi].id);
	}
	for (uint32_t i = 0; i < p->ncounters; i++) {
		fputs("counter ", f);
		put_str(f, p->counters[i].name, 1);
		fprintf(f, "=%" PRIu64 "\n", p->counters[i].value);
	}
	for (size_t i = 0; i < t.n; i++)
		free(t.s[i].own);
	free(t.s);
}

/* ---- a file --------------------------------------------------------------------------------------- */

static uint64_t le(const uint8_t *b, int n)
{
	uint64_t v = 0;

	while (n--)
		v = v << 8 | b[n];
	return v;
}

/* The file at path, read as spinprof reads it (gmon_open_regular, gmon_read_fd), dumped: gmon_dump(),
 * then an "end" line with what only the bytes say: the format revision of the file header, and the
 * END record's count of records and file length (read back once the reader has checked them), and
 * the path. Returns 0, or -1 with the reason in err and nothing printed. */
int gmon_dump_file(FILE *f, const char *path, char *err, size_t errsz)
{
	struct gmon_profile p;
	struct stat st;
	uint8_t fh[12], end[12];
	int fd = gmon_open_regular(path, err, errsz);

	if (fd < 0)
		return -1;
	if (gmon_read_fd(fd, &p, err, errsz)) {
		close(fd);
		return -1;
	}
	/* the reader checked both: the file header, and an END record of 12 bytes ending the file */
	if (fstat(fd, &st) || st.st_size < 12 || pread(fd, fh, 12, 0) != 12 ||
	    pread(fd, end, 12, st.st_size - 12) != 12) {
		snprintf(err, errsz, "cannot read it again: %m");
		close(fd);
		gmon_profile_release(&p);
		return -1;
	}
	close(fd);
	gmon_dump(f, &p);
	fprintf(f, "end revision=%" PRIu64 " records=%" PRIu64 " length=%" PRIu64 " file=", le(fh + 8, 4),
		le(end, 4), le(end + 4, 8));
	put_str(f, path, 0);
	fputc('\n', f);
	gmon_profile_release(&p);
	return 0;
}
