/* The encoder of the spy profile file: a struct gmon_profile into bytes, record by record, each with
 * its CRC, large ones compressed. */
#include "gmon-private.h"

/* ---- encoder --------------------------------------------------------------------------------------- */

struct gbuf {
	uint8_t *items;
	size_t nr, alloc;
	int oom;
};

static uint8_t *gbuf_grow(struct gbuf *b, size_t n)
{
	if (b->oom)
		return NULL;
	if (b->alloc - b->nr < n) {
		size_t want = b->alloc ? b->alloc : 4096;
		uint8_t *p;

		while (want - b->nr < n) {
			if (want > SIZE_MAX / 2) {
				b->oom = 1;
				return NULL;
			}
			want *= 2;
		}
		p = realloc(b->items, want);
		if (!p) {
			b->oom = 1;
			return NULL;
		}
		b->items = p;
		b->alloc = want;
	}
	b->nr += n;
	return b->items + b->nr - n;
}

static void put_n(struct gbuf *b, uint64_t v, int n)
{
	uint8_t *p = gbuf_grow(b, (size_t)n);

	if (p)
		put_le(p, v, n);
}

static void put_u32(struct gbuf *b, uint32_t v)
{
	put_n(b, v, 4);
}

static void put_u64(struct gbuf *b, uint64_t v)
{
	put_n(b, v, 8);
}

static void put_bytes(struct gbuf *b, const void *s, size_t n)
{
	uint8_t *p;

	if (n > GMON_STR_MAX)
		n = GMON_STR_MAX; /* the reader refuses longer; never write what cannot be read */
	put_u32(b, (uint32_t)n);
	p = gbuf_grow(b, n);
	if (p && n)
		memcpy(p, s, n);
}

static void put_str(struct gbuf *b, const char *s)
{
	put_bytes(b, s ? s : "", s ? strlen(s) : 0);
}

/* A record is begun by reserving its header; rec_end() fills it in, compressing if worth it. */
static size_t rec_begin(struct gbuf *b)
{
	gbuf_grow(b, GMON_RECORD_HEADER_SIZE);
	return b->nr - GMON_RECORD_HEADER_SIZE;
}

static void rec_end(struct gbuf *b, size_t at, uint16_t tag, int level)
{
	size_t start = at + GMON_RECORD_HEADER_SIZE, raw;
	uint16_t flags = 0;
	uint8_t *h;
	uint32_t crc;

	if (b->oom)
		return;
	raw = b->nr - start;
	if (level > 0 && raw >= GMON_ZLIB_MIN && z_load()) {
		uLongf clen = z_bound((uLong)raw);
		uint8_t *z = malloc(clen + 8);

		if (z && z_compress(z + 8, &clen, b->items + start, (uLong)raw, level) == Z_OK &&
		    clen + 8 < raw) {
			put_le(z, raw, 8);
			memcpy(b->items + start, z, clen + 8);
			b->nr = start + clen + 8;
			flags |= GMON_REC_ZLIB;
		}
		free(z);
	}
	h = b->items + at;
	put_le(h, tag, 2);
	put_le(h + 2, flags, 2);
	put_le(h + 4, 0, 4);
	put_le(h + 8, b->nr - start, 8);
	/* the CRC covers the header (its own field as zero) and the stored payload */
	crc = gmon_crc32(0, h, GMON_RECORD_HEADER_SIZE);
	crc = gmon_crc32(crc, b->items + start, b->nr - start);
	put_le(h + 4, crc, 4);
}

static void enc_header(struct gbuf *b, const struct gmon_header *h)
{
	put_str(b, h->tool);
	put_u32(b, h->abi);
	put_u32(b, h->pid);
	put_u32(b, h->ppid);
	put_u32(b, h->mode);
	put_u32(b, h->flags);
	put_u64(b, h->start_ns);
	put_u64(b, h->end_ns);
	put_u64(b, h->tsc_hz);
	put_u64(b, h->hook_out_mcyc);
	put_u64(b, h->hook_in_mcyc);
	put_u64(b, h->tsc_read_mcyc);
	put_u64(b, h->dropped_arcs);
	put_u64(b, h->dropped_funcs);
	put_u64(b, h->dropped_frames);
	put_u64(b, h->abandoned);
	put_u64(b, h->unmatched);
	put_u64(b, h->slots_lost);
	put_u64(b, h->unregistered);
	put_str(b, h->error);
	put_u32(b, h->argc);
	for (uint32_t i = 0; i < h->argc; i++)
		put_str(b, h->argv[i]);
	/* revision 4 */
	put_u64(b, (uint64_t)h->hook_tail_in_mcyc);
	put_u64(b, (uint64_t)h->hook_tail_out_mcyc);
}

static void enc_module(struct gbuf *b, const struct gmon_module *m)
{
	put_u32(b, m->id);
	put_u32(b, m->flags);
	put_u64(b, m->base);
	put_u64(b, m->text_lo);
	put_u64(b, m->text_hi);
	put_str(b, m->path);
	put_bytes(b, m->build_id, m->build_id_len);
}

static void enc_funcs(struct gbuf *b, const struct gmon_funcs *fs)
{
	put_u32(b, fs->module);
	put_u32(b, fs->plugin_mode);
	put_u32(b, fs->nr);
	for (uint32_t i = 0; i < fs->nr; i++) {
		const struct gmon_func *f = &fs->funcs[i];

		put_u64(b, f->addr);
		put_u64(b, f->count);
		put_u32(b, f->line);
		put_u32(b, f->flags);
		put_str(b, f->name);
		put_str(b, f->file);
	}
}

static void enc_thread(struct gbuf *b, const struct gmon_thread *t)
{
	put_u32(b, t->tid);
	put_u32(b, t->flags);
	put_u64(b, t->start_ns);
	put_u64(b, t->end_ns);
	put_str(b, t->name);
	put_u64(b, t->dropped_arcs);
	put_u64(b, t->dropped_funcs);
	put_u64(b, t->dropped_frames);
	put_u64(b, t->abandoned);
	put_u64(b, t->unmatched);
	put_u64(b, t->narcs);
	for (uint64_t i = 0; i < t->narcs; i++) {
		const struct gmon_arc *a = &t->arcs[i];
		uint8_t *p = gbuf_grow(b, 48);

		if (!p)
			return;
		put_le(p, a->call_site, 8);
		put_le(p + 8, a->caller, 8);
		put_le(p + 16, a->callee, 8);
		put_le(p + 24, a->count, 8);
		put_le(p + 32, a->incl, 8);
		put_le(p + 40, a->self, 8);
	}
	put_u64(b, t->nfstats);
	for (uint64_t i = 0; i < t->nfstats; i++) {
		const struct gmon_fstat *f = &t->fstats[i];
		uint32_t nh = f->nhist < GMON_HIST_BUCKETS ? f->nhist : GMON_HIST_BUCKETS;

		while (nh && !f->hist[nh - 1])
			nh--; /* trailing empty buckets are left out */
		put_u64(b, f->addr);
		put_u64(b, f->calls);
		put_u64(b, f->incl);
		put_u64(b, f->self);
		put_u64(b, f->min);
		put_u64(b, f->max);
		put_u32(b, nh);
		for (uint32_t j = 0; j < nh; j++)
			put_u64(b, f->hist[j]);
	}
	put_u64(b, t->ncounts);
	for (uint64_t i = 0; i < t->ncounts; i++) {
		put_u64(b, t->counts[i].addr);
		put_u64(b, t->counts[i].count);
	}
	/* revision 2: off-CPU time */
	put_u64(b, t->off_blocked);
	put_u64(b, t->off_preempted);
	put_u64(b, t->off_switches);
	put_u64(b, t->off_lost);
	for (uint64_t i = 0; i < t->narcs; i++) {
		static const struct gmon_arcoff none;
		const struct gmon_arcoff *o = t->arcoffs ? &t->arcoffs[i] : &none;

		put_u64(b, o->incl);
		put_u64(b, o->self);
		put_u64(b, o->self_pre);
	}
	/* revision 3: the stopwatch of each function time's outermost calls, in their order */
	for (uint64_t i = 0; i < t->nfstats; i++) {
		const struct gmon_fstat *f = &t->fstats[i];
		uint32_t nh = f->nohist < GMON_HIST_BUCKETS ? f->nohist : GMON_HIST_BUCKETS;

		while (nh && !f->outer_hist[nh - 1])
			nh--;
		put_u64(b, f->outer);
		put_u64(b, f->outer_sum);
		put_u64(b, f->outer_sq[0]);
		put_u64(b, f->outer_sq[1]);
		put_u64(b, f->outer_min);
		put_u32(b, nh);
		for (uint32_t j = 0; j < nh; j++)
			put_u64(b, f->outer_hist[j]);
	}
	/* revision 3, GMON_THREAD_COUNTERS: the counters' names, then incl and self of each for each
	 * arc */
	if (t->flags & GMON_THREAD_COUNTERS) {
		put_u32(b, t->nctrs);
		for (uint32_t k = 0; k < t->nctrs; k++)
			put_str(b, t->ctr_names[k]);
		for (uint64_t i = 0; i < t->narcs; i++) {
			static const struct gmon_arcctr none;
			const struct gmon_arcctr *o = t->arcctrs ? &t->arcctrs[i] : &none;

			for (uint32_t k = 0; k < t->nctrs; k++) {
				put_u64(b, o->incl[k]);
				put_u64(b, o->self[k]);
			}
		}
	}
	/* revision 5: where it blocked */
	put_u32(b, t->waits ? t->nwaits : 0);
	for (uint32_t i = 0; t->waits && i < t->nwaits; i++) {
		const struct gmon_wait *w = &t->waits[i];

		put_u64(b, w->pc);
		put_u64(b, w->func);
		put_u32(b, w->kind);
		put_u64(b, w->count);
		put_u64(b, w->cycles);
	}
}

static void enc_sampling(struct gbuf *b, const struct gmon_sampling *s)
{
	put_u32(b, s->watch);
	put_u32(b, s->flags);
	put_u64(b, s->hz);
	put_u64(b, s->divisor);
	put_str(b, s->target);
	put_str(b, s->start);
	put_str(b, s->stop);
	put_u64(b, s->expected);
	put_u64(b, s->taken);
	put_u64(b, s->missed);
	put_u64(b, s->in_runtime);
	put_u64(b, s->dropped);
	put_u64(b, s->cpu_ns);
	put_u64(b, s->faults);
	put_u64(b, s->allocs);
	put_u64(b, s->alloc_bytes);
	put_u64(b, s->handler_cycles);
}

static void enc_samples(struct gbuf *b, const struct gmon_samples *s)
{
	put_u32(b, s->tid);
	put_u64(b, s->nstacks);
	for (uint64_t i = 0; i < s->nstacks; i++) {
		const struct gmon_stack *k = &s->stacks[i];

		put_u64(b, k->count);
		put_u64(b, k->weight);
		put_u64(b, k->pc);
		put_u32(b, k->flags);
		put_u32(b, k->depth);
		for (uint32_t j = 0; j < k->depth; j++) {
			put_u64(b, k->frames[j].func);
			put_u64(b, k->frames[j].call_site);
		}
	}
}

static void enc_nhist(struct gbuf *b, const struct gmon_nhist *h)
{
	put_u32(b, h->kind);
	put_u32(b, h->kind ? h->nbuckets : 0);
	if (!h->kind)
		return;
	put_u64(b, h->base);
	put_u64(b, h->scale);
	put_u64(b, h->under);
	put_u64(b, h->over);
	for (uint32_t i = 0; i < h->nbuckets; i++)
		put_u64(b, h->buckets[i]);
}

static void enc_nodes(struct gbuf *b, const struct gmon_nodes *n)
{
	put_u32(b, n->tid);
	put_u32(b, n->track);
	put_u32(b, n->add);
	put_u32(b, n->flags);
	put_u64(b, n->dropped);
	put_u32(b, n->nnodes);
	put_u32(b, n->nlegs);
	for (uint32_t i = 0; i < n->nnodes; i++) {
		const struct gmon_node *d = &n->nodes[i];

		put_str(b, d->name);
		put_str(b, d->file);
		put_u32(b, d->line);
		put_u64(b, d->hits);
		put_u64(b, d->nvalues);
		put_u64(b, d->value_sum);
		put_u64(b, d->value_min);
		put_u64(b, d->value_max);
		enc_nhist(b, &d->hist);
	}
	for (uint32_t i = 0; i < n->nlegs; i++) {
		const struct gmon_leg *l = &n->legs[i];

		put_u32(b, l->from);
		put_u32(b, l->to);
		put_u64(b, l->count);
		put_u64(b, l->total_ns);
		put_u64(b, l->min_ns);
		put_u64(b, l->max_ns);
		put_u64(b, l->ignored);
		put_u64(b, l->open);
		enc_nhist(b, &l->hist);
	}
}

static void enc_trace(struct gbuf *b, const struct gmon_trace *t)
{
	put_u32(b, t->kind);
	put_u32(b, t->tid);
	put_u64(b, t->dropped);
	put_u64(b, t->n);
	for (uint64_t i = 0; i < t->n; i++) {
		const struct gmon_tevent *e = &t->ev[i];

		put_u64(b, e->time);
		put_u64(b, e->func);
		put_u64(b, e->addr);
		put_u64(b, e->value);
		put_u32(b, e->what);
	}
}

int gmon_encode(const struct gmon_profile *p, int level, uint8_t **out, size_t *len)
{
	struct gbuf b = { 0 };
	uint32_t nrec = 0;
	uint8_t *h;
	size_t at;

	h = gbuf_grow(&b, GMON_FILE_HEADER_SIZE);
	if (h) {
		memcpy(h, GMON_MAGIC, 4);
		put_le(h + 4, GMON_SPY_VERSION, 4);
		put_le(h + 8, GMON_SPY_MINOR, 4);
		put_le(h + 12, gmon_crc32(0, h, 12), 4);
	}
	at = rec_begin(&b);
	enc_header(&b, &p->hdr);
	rec_end(&b, at, GMON_TAG_HEADER, level);
	nrec++;
	for (uint32_t i = 0; i < p->nmodules; i++, nrec++) {
		at = rec_begin(&b);
		enc_module(&b, &p->modules[i]);
		rec_end(&b, at, GMON_TAG_MODULE, level);
	}
	for (uint32_t i = 0; i < p->nfuncsets; i++, nrec++) {
		at = rec_begin(&b);
		enc_funcs(&b, &p->funcsets[i]);
		rec_end(&b, at, GMON_TAG_FUNCS, level);
	}
	for (uint32_t i = 0; i < p->nthreads; i++, nrec++) {
		at = rec_begin(&b);
		enc_thread(&b, &p->threads[i]);
		rec_end(&b, at, GMON_TAG_THREAD, level);
	}
	if (p->sampling) {
		at = rec_begin(&b);
		enc_sampling(&b, p->sampling);
		rec_end(&b, at, GMON_TAG_SAMPLING, level);
		nrec++;
	}
	for (uint32_t i = 0; i < p->nsamples; i++, nrec++) {
		at = rec_begin(&b);
		enc_samples(&b, &p->samples[i]);
		rec_end(&b, at, GMON_TAG_SAMPLES, level);
	}
	for (uint32_t i = 0; i < p->nnodesets; i++, nrec++) {
		at = rec_begin(&b);
		enc_nodes(&b, &p->nodesets[i]);
		rec_end(&b, at, GMON_TAG_NODES, level);
	}
	for (uint32_t i = 0; i < p->ntraces; i++, nrec++) {
		at = rec_begin(&b);
		enc_trace(&b, &p->traces[i]);
		rec_end(&b, at, GMON_TAG_TRACE, level);
	}
	if (p->ntail_sites) {
		at = rec_begin(&b);
		put_u64(&b, p->ntail_sites);
		for (uint64_t i = 0; i < p->ntail_sites; i++)
			put_u64(&b, p->tail_sites[i]);
		rec_end(&b, at, GMON_TAG_TAILS, level);
		nrec++;
	}
	at = rec_begin(&b);
	put_u32(&b, p->ncounters);
	for (uint32_t i = 0; i < p->ncounters; i++) {
		put_str(&b, p->counters[i].name);
		put_u64(&b, p->counters[i].value);
	}
	rec_end(&b, at, GMON_TAG_COUNTERS, level);
	nrec++;
	/* END states the number of records before it and the file's length, so a file cut at a
	 * record boundary is caught too */
	at = rec_begin(&b);
	put_u32(&b, nrec);
	put_u64(&b, b.nr + 8);
	rec_end(&b, at, GMON_TAG_END, 0);
	if (b.oom) {
		free(b.items);
		return -1;
	}
	*out = b.items;
	*len = b.nr;
	return 0;
}
