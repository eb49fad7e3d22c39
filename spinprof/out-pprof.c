/* spinprof --format=pprof: the profile as pprof's profile.proto message (spinprof/profile.proto,
 * compiled by protoc-c), gzipped, for `go tool pprof` and the continuous-profiling servers that
 * take pprof. Sampled profiles give their stacks; the others their arcs (caller, callee) and each
 * function's own weight (see spinprof.1). */
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "esc.h"
#include "out.h"
#include "profile.pb-c.h"
#include "spy-model.h"

typedef Perftools__Profiles__Profile pb_profile;
typedef Perftools__Profiles__Sample pb_sample;
typedef Perftools__Profiles__Location pb_location;
typedef Perftools__Profiles__Line pb_line;
typedef Perftools__Profiles__Function pb_function;
typedef Perftools__Profiles__Mapping pb_mapping;
typedef Perftools__Profiles__ValueType pb_value_type;
typedef Perftools__Profiles__Label pb_label;

#define NVAL_MAX 3

/* A function of the profile, its strings as the model has them. */
struct pp_func {
	const char *name, *sys, *file;
	uint32_t line;
	int module; /* -1 none */
};

/* A location: an address in a function (0: the function itself, no PC known). */
struct pp_loc {
	uint64_t addr;
	uint32_t func;
	uint32_t line;
};

/* A sample before its locations have ids: a slice of the locs array, innermost first. */
struct pp_sample {
	size_t loc0, nloc;
	int64_t v[NVAL_MAX];
	uint32_t tid;
	const char *thread;
	int waiting;
};

struct pp {
	const struct prof *p;
	struct sp_model m;
	int have_m;
	struct pp_func *funcs;
	size_t nfuncs, funcs_alloc;
	struct pp_loc *locs; /* per sample, with repeats */
	size_t nlocs, locs_alloc;
	struct pp_loc *uloc; /* sorted, unique: the Location messages */
	size_t nuloc;
	struct pp_sample *samples;
	size_t nsamples, samples_alloc;
	const char **strs; /* every string used, then sorted and unique */
	size_t nstrs, strs_alloc;
	int nval;
	const char *vtype[NVAL_MAX], *vunit[NVAL_MAX];
};

/* Strings go in as esc.h's text form: profile.proto's strings must be UTF-8 for pprof's tools, and
 * they show them on a terminal. */
static void str_use(struct pp *x, const char *s)
{
	s = esc_text(s);
	if (!s || !s[0])
		return;
	GROW(x->strs, x->nstrs, x->strs_alloc);
	x->strs[x->nstrs++] = s;
}

static int str_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The index of s in the string table: [0] is "", then x->strs. */
static int64_t str_id(const struct pp *x, const char *s)
{
	s = esc_text(s);
	if (!s || !s[0])
		return 0;
	const char **at = bsearch(&s, x->strs, x->nstrs, sizeof(*x->strs), str_cmp);
	return at ? (int64_t)(at - x->strs) + 1 : 0;
}

static int loc_cmp(const void *a, const void *b)
{
	const struct pp_loc *u = a, *v = b;
	if (u->addr != v->addr)
		return u->addr < v->addr ? -1 : 1;
	return u->func < v->func ? -1 : u->func > v->func;
}

static void add_loc(struct pp *x, uint64_t addr, uint32_t func, uint32_t line)
{
	GROW(x->locs, x->nlocs, x->locs_alloc);
	x->locs[x->nlocs++] = (struct pp_loc){ addr, func, line };
}

static struct pp_sample *add_sample(struct pp *x, size_t loc0)
{
	GROW(x->samples, x->nsamples, x->samples_alloc);
	struct pp_sample *s = &x->samples[x->nsamples++];
	memset(s, 0, sizeof(*s));
	s->loc0 = loc0;
	s->nloc = x->nlocs - loc0;
	return s;
}

/* Sampled profiles: every stack of every thread, its count and its weight in the watch's unit. */
static void from_stacks(struct pp *x)
{
	struct sp_model *m = &x->m;
	const struct gmon_profile *g = &x->p->spy;
	const struct gmon_sampling *sp = g->sampling;
	int ticks = sp->watch == GMON_WATCH_CPU || sp->watch == GMON_WATCH_WALL;
	static const char *const wtype[] = {
		[GMON_WATCH_CPU] = "cpu",
		[GMON_WATCH_WALL] = "wall",
		[GMON_WATCH_ALLOC] = "alloc_objects",
		[GMON_WATCH_ALLOCBYTES] = "alloc_space",
		[GMON_WATCH_FAULTS] = "faults",
		[GMON_WATCH_CALLS] = "calls",
	};
	x->nval = 2;
	x->vtype[0] = "samples";
	x->vunit[0] = "count";
	x->vtype[1] = sp->watch <= GMON_WATCH_LAST && wtype[sp->watch] ? wtype[sp->watch] : "events";
	x->vunit[1] = ticks ? "nanoseconds" : sp->watch == GMON_WATCH_ALLOCBYTES ? "bytes" : "count";
	struct sp_frame *fr = NULL;
	size_t fr_alloc = 0;
	for (uint32_t t = 0; t < g->nsamples; t++) {
		const struct gmon_samples *ss = &g->samples[t];
		const char *tname = NULL;
		for (uint32_t i = 0; i < g->nthreads; i++)
			if (g->threads[i].tid == ss->tid)
				tname = g->threads[i].name;
		for (uint64_t k = 0; k < ss->nstacks; k++) {
			const struct gmon_stack *st = &ss->stacks[k];
			if (!st->count && !st->weight)
				continue;
			if (fr_alloc < (size_t)st->depth + 1) {
				fr_alloc = (size_t)st->depth + 1;
				fr = xrealloc(fr, fr_alloc * sizeof(*fr));
			}
			size_t n = sp_stack_frames(m, st, fr), loc0 = x->nlocs;
			for (size_t d = 0; d < n; d++) {
				const struct sp_proc *pr = &m->procs[fr[d].proc];
				const char *file;
				unsigned line = pr->line;
				if (pr->kind == SP_PROFILER) {
					/* at its PC, in the runtime's mapping: a location of no mapping is
					 * one pprof cannot name (<unknown>) */
					add_loc(x, st->pc, fr[d].proc, 0);
					continue;
				}
				if (fr[d].addr && sp_src(m, fr[d].addr, &file, &line) < 0)
					line = 0;
				add_loc(x, fr[d].addr, fr[d].proc, line);
			}
			struct pp_sample *s = add_sample(x, loc0);
			s->v[0] = (int64_t)st->count;
			s->v[1] = (int64_t)st->weight;
			s->tid = ss->tid;
			s->thread = tname;
			s->waiting = (st->flags & GMON_STACK_WAITING) != 0;
		}
	}
	free(fr);
	for (size_t i = 0; i < m->nprocs; i++) {
		const struct sp_proc *pr = &m->procs[i];
		GROW(x->funcs, x->nfuncs, x->funcs_alloc);
		/* a system name apart from <profiler>: pprof takes a name equal to its system name for a
		 * C++ one to tidy, and "<...>" for template arguments to drop (it showed <unknown>) */
		x->funcs[x->nfuncs++] =
			(struct pp_func){ pr->name, pr->kind == SP_PROFILER ? "spy_profiler" : NULL, pr->file,
					  pr->line, pr->module };
	}
}

/* Profiles without samples: per arc, the calls and (time mode) the callee's self time in them, on
 * the stack (callee, caller); per function, what no arc holds: its calls without a known caller (all
 * its calls in count mode) and the rest of its self time (all of it in GNU's histogram). */
static void from_arcs(struct pp *x)
{
	const struct prof *p = x->p;
	int timed = p->measured || p->kind == PROF_GNU;
	x->nval = timed ? 3 : 1;
	x->vtype[0] = "calls";
	x->vunit[0] = "count";
	x->vtype[1] = p->measured ? "cycles" : "samples";
	x->vunit[1] = "count";
	x->vtype[2] = p->measured && !p->offcpu ? "wall" : "cpu";
	x->vunit[2] = "nanoseconds";
	double ns = p->hz > 0 ? 1e9 / p->hz : 0;
	/* an arc's self cycles are as measured, its callee's with the hooks' cost taken off: the arcs
	 * share the callee's self in their proportions, and what they leave has no known caller */
	double *rest = xcalloc(p->nsyms + 1, sizeof(double)), *in = xcalloc(p->nsyms + 1, sizeof(double));
	for (size_t j = 0; j < p->narcs; j++)
		if (p->arcs[j].parent < p->nsyms && p->arcs[j].child < p->nsyms)
			in[p->arcs[j].child] += p->arcs[j].m_self;
	for (size_t i = 0; i < p->nsyms; i++) {
		rest[i] = p->measured ? p->items[i].m_self : p->items[i].time;
		in[i] = in[i] > rest[i] && in[i] > 0 ? rest[i] / in[i] : 1;
	}
	for (size_t j = 0; j < p->narcs; j++) {
		const struct prof_arc *a = &p->arcs[j];
		if (a->parent >= p->nsyms || a->child >= p->nsyms)
			continue;
		size_t loc0 = x->nlocs;
		add_loc(x, 0, a->child, p->items[a->child].line);
		add_loc(x, 0, a->parent, p->items[a->parent].line);
		struct pp_sample *s = add_sample(x, loc0);
		s->v[0] = (int64_t)a->count;
		if (p->measured) {
			double w = a->m_self * in[a->child];
			s->v[1] = prof_i64(w + 0.5);
			s->v[2] = prof_i64(w * ns + 0.5);
			rest[a->child] -= w;
		}
	}
	for (size_t i = 0; i < p->nsyms; i++) {
		const struct prof_func *f = &p->items[i];
		uint64_t calls = p->no_arcs ? f->count : f->spont;
		double w = rest[i] > 0 ? rest[i] : 0;
		if (calls || prof_i64(w + 0.5)) {
			size_t loc0 = x->nlocs;
			add_loc(x, 0, (uint32_t)i, f->line);
			struct pp_sample *s = add_sample(x, loc0);
			s->v[0] = (int64_t)calls;
			s->v[1] = prof_i64(w + 0.5);
			s->v[2] = prof_i64(w * ns + 0.5);
		}
	}
	free(rest);
	free(in);
	for (size_t i = 0; i < p->nsyms; i++) {
		const struct prof_func *f = &p->items[i];
		GROW(x->funcs, x->nfuncs, x->funcs_alloc);
		x->funcs[x->nfuncs++] =
			(struct pp_func){ f->name, f->key, f->file, f->line,
					  p->kind == PROF_SPY ? gmon_module_at(&p->spy, f->addr) : -1 };
	}
	/* mode time: the hooks' calibrated cost, taken off every function's time, as <profiler>'s own:
	 * its share is the header's (prof_cost) */
	struct prof_cost c;
	prof_cost(p, &c);
	if (p->measured && !c.from_samples && c.part > 0) {
		GROW(x->funcs, x->nfuncs, x->funcs_alloc);
		x->funcs[x->nfuncs++] = (struct pp_func){ "<profiler>", "spy_profiler", NULL, 0, -1 };
		size_t loc0 = x->nlocs;
		add_loc(x, 0, (uint32_t)(x->nfuncs - 1), 0);
		struct pp_sample *s = add_sample(x, loc0);
		s->v[1] = (int64_t)(c.part + 0.5);
		s->v[2] = (int64_t)(c.part * ns + 0.5);
	}
}

/* The locations of the functions without an address: their entry (the module's, or the model's). */
static uint64_t func_addr(const struct pp *x, uint32_t func)
{
	if (x->have_m) {
		uint64_t k = x->m.procs[func].key;
		return x->m.procs[func].kind == SP_FUNC ? k : 0;
	}
	return func < x->p->nsyms ? x->p->items[func].addr : 0; /* <profiler>: none */
}

static char *hex(const uint8_t *b, uint32_t n)
{
	char *s = xmalloc(2 * (size_t)n + 1);
	for (uint32_t i = 0; i < n; i++)
		snprintf(s + 2 * i, 3, "%02x", b[i]);
	s[2 * n] = 0;
	return s;
}

/* gzip buf into f. */
static int write_gzip(FILE *f, const uint8_t *buf, size_t len)
{
	z_stream z;
	memset(&z, 0, sizeof(z));
	if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		return -1;
	uint8_t out[1 << 16];
	z.next_in = (uint8_t *)buf;
	z.avail_in = (uInt)len;
	int rc;
	do {
		z.next_out = out;
		z.avail_out = sizeof(out);
		rc = deflate(&z, Z_FINISH);
		if (rc == Z_STREAM_ERROR)
			break;
		fwrite(out, 1, sizeof(out) - z.avail_out, f);
	} while (rc != Z_STREAM_END);
	deflateEnd(&z);
	return rc == Z_STREAM_END ? 0 : -1;
}

int out_pprof(FILE *f, const struct prof *p, const struct out_opts *o)
{
	struct pp x;
	memset(&x, 0, sizeof(x));
	x.p = p;
	if (sp_has_samples(p)) {
		sp_model_build(&x.m, p, o->demangle);
		x.have_m = 1;
		from_stacks(&x);
	} else {
		from_arcs(&x);
	}
	const struct gmon_profile *g = &p->spy;
	uint32_t nmod = p->kind == PROF_SPY ? g->nmodules : 0;
	char **bids = xcalloc(nmod + 1, sizeof(char *));
	/* the strings */
	for (int v = 0; v < x.nval; v++) {
		str_use(&x, x.vtype[v]);
		str_use(&x, x.vunit[v]);
	}
	str_use(&x, "thread");
	str_use(&x, "tid");
	str_use(&x, "state");
	str_use(&x, "waiting");
	for (size_t i = 0; i < x.nfuncs; i++) {
		str_use(&x, x.funcs[i].name);
		str_use(&x, x.funcs[i].sys);
		str_use(&x, x.funcs[i].file);
	}
	for (size_t i = 0; i < x.nsamples; i++)
		str_use(&x, x.samples[i].thread);
	for (uint32_t i = 0; i < nmod; i++) {
		str_use(&x, g->modules[i].path);
		bids[i] = hex(g->modules[i].build_id, g->modules[i].build_id_len);
		str_use(&x, bids[i]);
	}
	const char *tool = p->kind == PROF_SPY && g->hdr.tool ? g->hdr.tool : "gprof";
	str_use(&x, tool);
	if (x.nstrs)
		qsort(x.strs, x.nstrs, sizeof(*x.strs), str_cmp);
	size_t u = 0;
	for (size_t i = 0; i < x.nstrs; i++)
		if (!u || strcmp(x.strs[u - 1], x.strs[i]))
			x.strs[u++] = x.strs[i];
	x.nstrs = u;

	/* the locations: unique (address, function) pairs */
	for (size_t i = 0; i < x.nlocs; i++)
		if (!x.locs[i].addr)
			x.locs[i].addr = func_addr(&x, x.locs[i].func);
	x.uloc = xmalloc((x.nlocs + 1) * sizeof(*x.uloc));
	if (x.nlocs)
		memcpy(x.uloc, x.locs, x.nlocs * sizeof(*x.uloc));
	qsort(x.uloc, x.nlocs, sizeof(*x.uloc), loc_cmp);
	for (size_t i = 0; i < x.nlocs; i++)
		if (!x.nuloc || loc_cmp(&x.uloc[x.nuloc - 1], &x.uloc[i]))
			x.uloc[x.nuloc++] = x.uloc[i];

	/* the messages */
	pb_profile pr = PERFTOOLS__PROFILES__PROFILE__INIT;
	pr.n_string_table = x.nstrs + 1;
	pr.string_table = xmalloc(pr.n_string_table * sizeof(char *));
	pr.string_table[0] = (char *)"";
	for (size_t i = 0; i < x.nstrs; i++)
		pr.string_table[i + 1] = (char *)x.strs[i];

	pb_value_type vt[NVAL_MAX], *vtp[NVAL_MAX];
	for (int v = 0; v < x.nval; v++) {
		perftools__profiles__value_type__init(&vt[v]);
		vt[v].type = str_id(&x, x.vtype[v]);
		vt[v].unit = str_id(&x, x.vunit[v]);
		vtp[v] = &vt[v];
	}
	pr.n_sample_type = (size_t)x.nval;
	pr.sample_type = vtp;
	pr.default_sample_type = vt[x.nval - 1].type;
	pb_value_type period = PERFTOOLS__PROFILES__VALUE_TYPE__INIT;
	if (x.have_m && g->sampling->hz &&
	    (g->sampling->watch == GMON_WATCH_CPU || g->sampling->watch == GMON_WATCH_WALL)) {
		period.type = vt[1].type;
		period.unit = vt[1].unit;
		pr.period_type = &period;
		pr.period = prof_i64(1e9 / (double)g->sampling->hz);
	}
	if (p->kind == PROF_SPY) {
		pr.time_nanos = (int64_t)g->hdr.start_ns;
		pr.duration_nanos = prof_i64(p->duration_s * 1e9);
	}
	int64_t comment = str_id(&x, tool);
	pr.n_comment = 1;
	pr.comment = &comment;

	pb_mapping *maps = xcalloc(nmod + 1, sizeof(*maps));
	pb_mapping **mapp = xcalloc(nmod + 1, sizeof(*mapp));
	for (uint32_t i = 0; i < nmod; i++) {
		const struct gmon_module *md = &g->modules[i];
		perftools__profiles__mapping__init(&maps[i]);
		maps[i].id = i + 1;
		maps[i].memory_start = md->text_lo;
		maps[i].memory_limit = md->text_hi;
		maps[i].file_offset = md->text_lo - md->base;
		maps[i].filename = str_id(&x, md->path);
		maps[i].build_id = str_id(&x, bids[i]);
		maps[i].has_functions = 1;
		maps[i].has_filenames = 1;
		maps[i].has_line_numbers = 1;
		mapp[i] = &maps[i];
	}
	/* the main executable first, as pprof expects */
	for (uint32_t i = 1; i < nmod; i++)
		if (g->modules[i].flags & GMON_MOD_MAIN) {
			pb_mapping *t = mapp[0];
			mapp[0] = mapp[i];
			mapp[i] = t;
		}
	pr.n_mapping = nmod;
	pr.mapping = mapp;

	pb_function *fns = xcalloc(x.nfuncs + 1, sizeof(*fns));
	pb_function **fnp = xcalloc(x.nfuncs + 1, sizeof(*fnp));
	for (size_t i = 0; i < x.nfuncs; i++) {
		perftools__profiles__function__init(&fns[i]);
		fns[i].id = i + 1;
		fns[i].name = str_id(&x, x.funcs[i].name);
		fns[i].system_name = str_id(&x, x.funcs[i].sys ? x.funcs[i].sys : x.funcs[i].name);
		fns[i].filename = str_id(&x, x.funcs[i].file);
		fns[i].start_line = x.funcs[i].line;
		fnp[i] = &fns[i];
	}
	pr.n_function = x.nfuncs;
	pr.function = fnp;

	pb_location *locs = xcalloc(x.nuloc + 1, sizeof(*locs));
	pb_location **locp = xcalloc(x.nuloc + 1, sizeof(*locp));
	pb_line *lines = xcalloc(x.nuloc + 1, sizeof(*lines));
	pb_line **linep = xcalloc(x.nuloc + 1, sizeof(*linep));
	for (size_t i = 0; i < x.nuloc; i++) {
		const struct pp_loc *l = &x.uloc[i];
		perftools__profiles__location__init(&locs[i]);
		perftools__profiles__line__init(&lines[i]);
		locs[i].id = i + 1;
		locs[i].address = l->addr;
		int mi = p->kind == PROF_SPY && l->addr ? gmon_module_at(g, l->addr) : -1;
		locs[i].mapping_id = mi >= 0 ? (uint64_t)mi + 1 : 0;
		lines[i].function_id = l->func + 1;
		lines[i].line = l->line;
		linep[i] = &lines[i];
		locs[i].n_line = 1;
		locs[i].line = &linep[i];
		locp[i] = &locs[i];
	}
	pr.n_location = x.nuloc;
	pr.location = locp;

	pb_sample *ss = xcalloc(x.nsamples + 1, sizeof(*ss));
	pb_sample **ssp = xcalloc(x.nsamples + 1, sizeof(*ssp));
	uint64_t *ids = xmalloc((x.nlocs + 1) * sizeof(uint64_t));
	pb_label *labels = xcalloc(3 * x.nsamples + 1, sizeof(*labels));
	pb_label **labelp = xcalloc(3 * x.nsamples + 1, sizeof(*labelp));
	for (size_t i = 0; i < x.nsamples; i++) {
		struct pp_sample *s = &x.samples[i];
		perftools__profiles__sample__init(&ss[i]);
		for (size_t k = 0; k < s->nloc; k++) {
			struct pp_loc *l =
				bsearch(&x.locs[s->loc0 + k], x.uloc, x.nuloc, sizeof(*x.uloc), loc_cmp);
			ids[s->loc0 + k] = (uint64_t)(l - x.uloc) + 1;
		}
		ss[i].n_location_id = s->nloc;
		ss[i].location_id = ids + s->loc0;
		ss[i].n_value = (size_t)x.nval;
		ss[i].value = s->v;
		if (x.have_m) {
			pb_label *lb = &labels[3 * i];
			size_t n = 0;
			perftools__profiles__label__init(&lb[n]);
			lb[n].key = str_id(&x, "tid");
			lb[n++].num = s->tid;
			if (s->thread && s->thread[0]) {
				perftools__profiles__label__init(&lb[n]);
				lb[n].key = str_id(&x, "thread");
				lb[n++].str = str_id(&x, s->thread);
			}
			if (s->waiting) {
				perftools__profiles__label__init(&lb[n]);
				lb[n].key = str_id(&x, "state");
				lb[n++].str = str_id(&x, "waiting");
			}
			for (size_t k = 0; k < n; k++)
				labelp[3 * i + k] = &lb[k];
			ss[i].n_label = n;
			ss[i].label = &labelp[3 * i];
		}
		ssp[i] = &ss[i];
	}
	pr.n_sample = x.nsamples;
	pr.sample = ssp;

	size_t len = perftools__profiles__profile__get_packed_size(&pr);
	uint8_t *buf = xmalloc(len + 1);
	perftools__profiles__profile__pack(&pr, buf);
	int rc = write_gzip(f, buf, len);
	if (rc < 0)
		esc_msg("spinprof: %s: cannot compress the pprof profile\n", o->what);

	free(buf);
	free(ss);
	free(ssp);
	free(ids);
	free(labels);
	free(labelp);
	free(locs);
	free(locp);
	free(lines);
	free(linep);
	free(fns);
	free(fnp);
	free(maps);
	free(mapp);
	free(pr.string_table);
	for (uint32_t i = 0; i < nmod; i++)
		free(bids[i]);
	free(bids);
	free(x.funcs);
	free(x.locs);
	free(x.uloc);
	free(x.samples);
	free(x.strs);
	if (x.have_m)
		sp_model_release(&x.m);
	return rc;
}
