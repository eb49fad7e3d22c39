/* The decoder of the spy profile file, which trusts nothing: every length is checked before use, every
 * record's CRC too, and any problem is one error line naming the record. A part of gmon-io.c,
 * compiled through it (it uses its helpers). */
/* ---- decoder --------------------------------------------------------------------------------------- */

struct cur {
	const uint8_t *p;
	size_t len, off;
	int bad;
	char *err;
	size_t errsz;
	const char *where; /* "record 3 (THREAD) at offset 1234" */
};

static void cur_fail(struct cur *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void cur_fail(struct cur *c, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	if (c->bad)
		return;
	c->bad = 1;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (c->where)
		snprintf(c->err, c->errsz, "%s: %s", c->where, msg);
	else
		snprintf(c->err, c->errsz, "%s", msg);
}

static int need(struct cur *c, size_t n, const char *what)
{
	if (c->bad)
		return 0;
	if (c->len - c->off < n) {
		cur_fail(c, "truncated %s (%zu bytes left, %zu needed)", what, c->len - c->off, n);
		return 0;
	}
	return 1;
}

static uint64_t get_n(struct cur *c, int n, const char *what)
{
	uint64_t v;

	if (!need(c, (size_t)n, what))
		return 0;
	v = get_le(c->p + c->off, n);
	c->off += (size_t)n;
	return v;
}

static uint32_t get_u32(struct cur *c, const char *what)
{
	return (uint32_t)get_n(c, 4, what);
}

static uint64_t get_u64(struct cur *c, const char *what)
{
	return get_n(c, 8, what);
}

/* A length-prefixed byte string, returned NUL-terminated in new memory. */
static char *get_bytes(struct cur *c, uint32_t *lenp, const char *what)
{
	uint32_t n = get_u32(c, what);
	char *s;

	if (c->bad)
		return NULL;
	if (n > GMON_STR_MAX) {
		cur_fail(c, "%s of %" PRIu32 " bytes is longer than the limit", what, n);
		return NULL;
	}
	if (!need(c, n, what))
		return NULL;
	s = malloc((size_t)n + 1);
	if (!s) {
		cur_fail(c, "out of memory");
		return NULL;
	}
	memcpy(s, c->p + c->off, n);
	s[n] = 0;
	c->off += n;
	if (lenp)
		*lenp = n;
	return s;
}

static char *get_str(struct cur *c, const char *what)
{
	uint32_t n;
	char *s = get_bytes(c, &n, what);

	if (s && strlen(s) != n) {
		cur_fail(c, "%s contains a NUL byte", what);
		free(s);
		return NULL;
	}
	return s;
}

/* An array count, checked against the bytes left before anything is allocated. */
static uint64_t get_count(struct cur *c, int width, size_t min_size, const char *what)
{
	uint64_t n = get_n(c, width, what);

	if (!c->bad && min_size && n > (c->len - c->off) / min_size) {
		cur_fail(c, "%" PRIu64 " %s cannot fit in the %zu bytes left", n, what, c->len - c->off);
		return 0;
	}
	return n;
}

static void *get_array(struct cur *c, uint64_t n, size_t size)
{
	void *p;

	if (c->bad || !n)
		return NULL;
	p = calloc((size_t)n, size);
	if (!p)
		cur_fail(c, "out of memory");
	return p;
}

static void dec_header(struct cur *c, struct gmon_header *h)
{
	h->tool = get_str(c, "tool name");
	h->abi = get_u32(c, "abi");
	h->pid = get_u32(c, "pid");
	h->ppid = get_u32(c, "ppid");
	h->mode = get_u32(c, "mode");
	h->flags = get_u32(c, "flags");
	h->start_ns = get_u64(c, "start time");
	h->end_ns = get_u64(c, "end time");
	h->tsc_hz = get_u64(c, "tsc frequency");
	h->hook_out_mcyc = get_u64(c, "hook cost");
	h->hook_in_mcyc = get_u64(c, "hook cost");
	h->tsc_read_mcyc = get_u64(c, "tsc read cost");
	h->dropped_arcs = get_u64(c, "dropped counts");
	h->dropped_funcs = get_u64(c, "dropped counts");
	h->dropped_frames = get_u64(c, "dropped counts");
	h->abandoned = get_u64(c, "dropped counts");
	h->unmatched = get_u64(c, "dropped counts");
	h->slots_lost = get_u64(c, "dropped counts");
	h->unregistered = get_u64(c, "dropped counts");
	h->error = get_str(c, "error text");
	h->argc = (uint32_t)get_count(c, 4, 4, "arguments");
	h->argv = get_array(c, h->argc, sizeof(char *));
	for (uint32_t i = 0; h->argv && i < h->argc && !c->bad; i++)
		h->argv[i] = get_str(c, "argument");
	if (!c->bad && h->mode > 2)
		cur_fail(c, "unknown mode %" PRIu32, h->mode);
}

static void dec_module(struct cur *c, struct gmon_module *m)
{
	m->id = get_u32(c, "module id");
	m->flags = get_u32(c, "module flags");
	m->base = get_u64(c, "load address");
	m->text_lo = get_u64(c, "text range");
	m->text_hi = get_u64(c, "text range");
	m->path = get_str(c, "module path");
	m->build_id = (uint8_t *)get_bytes(c, &m->build_id_len, "build-id");
	if (!c->bad && m->text_lo > m->text_hi)
		cur_fail(c, "text range 0x%" PRIx64 "-0x%" PRIx64 " is reversed", m->text_lo, m->text_hi);
}

static void dec_funcs(struct cur *c, struct gmon_funcs *fs)
{
	fs->module = get_u32(c, "module id");
	fs->plugin_mode = get_u32(c, "plugin mode");
	fs->nr = (uint32_t)get_count(c, 4, 32, "functions");
	fs->funcs = get_array(c, fs->nr, sizeof(*fs->funcs));
	for (uint32_t i = 0; fs->funcs && i < fs->nr && !c->bad; i++) {
		struct gmon_func *f = &fs->funcs[i];

		f->addr = get_u64(c, "function");
		f->count = get_u64(c, "function");
		f->line = get_u32(c, "function");
		f->flags = get_u32(c, "function");
		f->name = get_str(c, "function name");
		f->file = get_str(c, "file name");
	}
	if (!c->bad && fs->plugin_mode > 2)
		cur_fail(c, "unknown plugin mode %" PRIu32, fs->plugin_mode);
}

static void dec_thread(struct cur *c, struct gmon_thread *t)
{
	t->tid = get_u32(c, "thread id");
	t->flags = get_u32(c, "thread flags");
	t->start_ns = get_u64(c, "thread times");
	t->end_ns = get_u64(c, "thread times");
	t->name = get_str(c, "thread name");
	t->dropped_arcs = get_u64(c, "thread counts");
	t->dropped_funcs = get_u64(c, "thread counts");
	t->dropped_frames = get_u64(c, "thread counts");
	t->abandoned = get_u64(c, "thread counts");
	t->unmatched = get_u64(c, "thread counts");
	t->narcs = get_count(c, 8, 48, "arcs");
	t->arcs = get_array(c, t->narcs, sizeof(*t->arcs));
	for (uint64_t i = 0; t->arcs && i < t->narcs && !c->bad; i++) {
		struct gmon_arc *a = &t->arcs[i];

		a->call_site = get_u64(c, "arc");
		a->caller = get_u64(c, "arc");
		a->callee = get_u64(c, "arc");
		a->count = get_u64(c, "arc");
		a->incl = get_u64(c, "arc");
		a->self = get_u64(c, "arc");
	}
	t->nfstats = get_count(c, 8, 52, "function times");
	t->fstats = get_array(c, t->nfstats, sizeof(*t->fstats));
	for (uint64_t i = 0; t->fstats && i < t->nfstats && !c->bad; i++) {
		struct gmon_fstat *f = &t->fstats[i];
		uint32_t nh;

		f->addr = get_u64(c, "function time");
		f->calls = get_u64(c, "function time");
		f->incl = get_u64(c, "function time");
		f->self = get_u64(c, "function time");
		f->min = get_u64(c, "function time");
		f->max = get_u64(c, "function time");
		nh = get_u32(c, "histogram");
		if (!c->bad && nh > GMON_HIST_BUCKETS) {
			cur_fail(c, "histogram of %" PRIu32 " buckets (at most %d)", nh, GMON_HIST_BUCKETS);
			break;
		}
		for (uint32_t j = 0; j < nh && !c->bad; j++)
			f->hist[j] = get_u64(c, "histogram");
	}
	t->ncounts = get_count(c, 8, 16, "thread counts");
	t->counts = get_array(c, t->ncounts, sizeof(*t->counts));
	for (uint64_t i = 0; t->counts && i < t->ncounts && !c->bad; i++) {
		t->counts[i].addr = get_u64(c, "count");
		t->counts[i].count = get_u64(c, "count");
	}
}

static void dec_counters(struct cur *c, struct gmon_profile *p)
{
	p->ncounters = (uint32_t)get_count(c, 4, 12, "counters");
	p->counters = get_array(c, p->ncounters, sizeof(*p->counters));
	for (uint32_t i = 0; p->counters && i < p->ncounters && !c->bad; i++) {
		p->counters[i].name = get_str(c, "counter name");
		p->counters[i].value = get_u64(c, "counter value");
	}
}

static void dec_sampling(struct cur *c, struct gmon_sampling *s)
{
	s->watch = get_u32(c, "watch");
	s->flags = get_u32(c, "sampling flags");
	s->hz = get_u64(c, "rate");
	s->divisor = get_u64(c, "divisor");
	s->target = get_str(c, "watched function");
	s->start = get_str(c, "start trigger");
	s->stop = get_str(c, "stop trigger");
	s->expected = get_u64(c, "sampling totals");
	s->taken = get_u64(c, "sampling totals");
	s->missed = get_u64(c, "sampling totals");
	s->in_runtime = get_u64(c, "sampling totals");
	s->dropped = get_u64(c, "sampling totals");
	s->cpu_ns = get_u64(c, "sampling totals");
	s->faults = get_u64(c, "sampling totals");
	s->allocs = get_u64(c, "sampling totals");
	s->alloc_bytes = get_u64(c, "sampling totals");
	s->handler_cycles = get_u64(c, "sampling totals");
	if (!c->bad && s->watch > GMON_WATCH_LAST)
		cur_fail(c, "unknown watch %" PRIu32, s->watch);
	if (!c->bad &&
	    (s->flags & ~(uint32_t)(GMON_SAMP_FOREIGN | GMON_SAMP_NOSOURCE | GMON_SAMP_THREADS_CUT)))
		cur_fail(c, "unknown sampling flags 0x%" PRIx32, s->flags);
	if (!c->bad && !s->divisor)
		cur_fail(c, "divisor 0");
}

/*
 * A thread's stacks. The frames of all stacks go into one array, sized by a first pass over the
 * payload, so a stack's frames pointer stays valid and a lying depth fails before any allocation.
 */
static void dec_samples(struct cur *c, struct gmon_samples *s)
{
	size_t start;
	uint64_t nframes = 0, fi = 0;

	s->tid = get_u32(c, "sample thread id");
	s->nstacks = get_count(c, 8, 32, "stacks");
	start = c->off;
	for (uint64_t i = 0; i < s->nstacks && !c->bad; i++) {
		uint32_t depth;

		if (!need(c, 32, "stack")) /* count, weight, pc, flags, depth */
			break;
		depth = (uint32_t)get_le(c->p + c->off + 28, 4);
		c->off += 32;
		if (depth > (c->len - c->off) / 16) {
			cur_fail(c, "a stack of %" PRIu32 " frames cannot fit in the %zu bytes left", depth,
				 c->len - c->off);
			break;
		}
		c->off += (size_t)depth * 16;
		nframes += depth;
	}
	if (c->bad)
		return;
	c->off = start;
	s->stacks = get_array(c, s->nstacks, sizeof(*s->stacks));
	s->frames = get_array(c, nframes, sizeof(*s->frames));
	s->nframes = nframes;
	for (uint64_t i = 0; s->stacks && i < s->nstacks && !c->bad; i++) {
		struct gmon_stack *k = &s->stacks[i];

		k->count = get_u64(c, "stack");
		k->weight = get_u64(c, "stack");
		k->pc = get_u64(c, "stack");
		k->flags = get_u32(c, "stack flags");
		k->depth = get_u32(c, "stack depth");
		k->frames = k->depth ? s->frames + fi : NULL;
		for (uint32_t j = 0; j < k->depth && !c->bad; j++, fi++) {
			s->frames[fi].func = get_u64(c, "frame");
			s->frames[fi].call_site = get_u64(c, "frame");
		}
		if (!c->bad &&
		    (k->flags & ~(uint32_t)(GMON_STACK_WAITING | GMON_STACK_RUNTIME | GMON_STACK_CUT)))
			cur_fail(c, "unknown stack flags 0x%" PRIx32, k->flags);
	}
}

/* Append one zeroed element to a profile array; NULL when memory ran out. */
static void *grow1(void **items, uint32_t *nr, size_t size)
{
	uint32_t n = *nr;
	void *p;

	if (n == UINT32_MAX)
		return NULL;
	/* capacity doubles at powers of two; no separate alloc field needed */
	if ((n & (n - 1)) == 0) {
		p = realloc(*items, (n ? 2 * (size_t)n : 4) * size);
		if (!p)
			return NULL;
		*items = p;
	}
	p = (char *)*items + n * size;
	memset(p, 0, size);
	*nr = n + 1;
	return p;
}

/* Decode one record's payload (already checked and inflated). */
static void dec_record(struct cur *c, uint16_t tag, struct gmon_profile *p)
{
	void *e;

	switch (tag) {
	case GMON_TAG_MODULE:
		e = grow1((void **)&p->modules, &p->nmodules, sizeof(*p->modules));
		if (!e)
			return cur_fail(c, "out of memory");
		dec_module(c, e);
		for (uint32_t i = 0; !c->bad && i + 1 < p->nmodules; i++)
			if (p->modules[i].id == p->modules[p->nmodules - 1].id)
				cur_fail(c, "module id %" PRIu32 " appears twice", p->modules[i].id);
		break;
	case GMON_TAG_FUNCS: {
		struct gmon_funcs *fs;
		uint32_t i;

		e = grow1((void **)&p->funcsets, &p->nfuncsets, sizeof(*p->funcsets));
		if (!e)
			return cur_fail(c, "out of memory");
		fs = e;
		dec_funcs(c, fs);
		for (i = 0; !c->bad && i < p->nmodules; i++)
			if (p->modules[i].id == fs->module)
				break;
		if (!c->bad && i == p->nmodules)
			cur_fail(c, "functions of module %" PRIu32 ", which no earlier MODULE record names",
				 fs->module);
		break;
	}
	case GMON_TAG_THREAD:
		e = grow1((void **)&p->threads, &p->nthreads, sizeof(*p->threads));
		if (!e)
			return cur_fail(c, "out of memory");
		dec_thread(c, e);
		break;
	case GMON_TAG_COUNTERS:
		if (p->counters || p->ncounters)
			return cur_fail(c, "a second COUNTERS record");
		dec_counters(c, p);
		break;
	case GMON_TAG_SAMPLING:
		if (p->sampling)
			return cur_fail(c, "a second SAMPLING record");
		p->sampling = calloc(1, sizeof(*p->sampling));
		if (!p->sampling)
			return cur_fail(c, "out of memory");
		dec_sampling(c, p->sampling);
		break;
	case GMON_TAG_SAMPLES:
		e = grow1((void **)&p->samples, &p->nsamples, sizeof(*p->samples));
		if (!e)
			return cur_fail(c, "out of memory");
		dec_samples(c, e);
		break;
	}
}

static int dec_fail(struct gmon_profile *p, char *err, size_t errsz, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int dec_fail(struct gmon_profile *p, char *err, size_t errsz, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errsz, fmt, ap);
	va_end(ap);
	gmon_profile_release(p);
	return -1;
}

int gmon_decode(const uint8_t *buf, size_t len, struct gmon_profile *p, char *err, size_t errsz)
{
	uint32_t version, minor, nrec = 0;
	size_t off = GMON_FILE_HEADER_SIZE;
	int seen_end = 0;

	gmon_profile_init(p);
	if (len < 4 || memcmp(buf, GMON_MAGIC, 4))
		return dec_fail(p, err, errsz, "not a gmon file (bad magic)");
	if (len < GMON_FILE_HEADER_SIZE)
		return dec_fail(p, err, errsz, "truncated file header (%zu of %u bytes)", len,
				GMON_FILE_HEADER_SIZE);
	version = (uint32_t)get_le(buf + 4, 4);
	minor = (uint32_t)get_le(buf + 8, 4);
	if (version == GMON_GNU_VERSION || version == 0)
		return dec_fail(p, err, errsz, "a GNU gmon.out (version %" PRIu32 "), not a spy profile",
				version);
	if (version != GMON_SPY_VERSION)
		return dec_fail(p, err, errsz, "unsupported version 0x%08" PRIx32, version);
	if (get_le(buf + 12, 4) != gmon_crc32(0, buf, 12))
		return dec_fail(p, err, errsz, "file header checksum mismatch");
	if (minor > GMON_SPY_MINOR)
		return dec_fail(p, err, errsz, "format revision %" PRIu32 " is newer than this reader's (%u)",
				minor, GMON_SPY_MINOR);

	while (off < len) {
		const uint8_t *h = buf + off;
		uint16_t tag, flags;
		uint64_t plen;
		uint32_t crc;
		uint8_t *raw = NULL;
		struct cur c = { .err = err, .errsz = errsz };
		char where[96];

		if (seen_end)
			return dec_fail(p, err, errsz, "%zu bytes after the END record", len - off);
		if (len - off < GMON_RECORD_HEADER_SIZE)
			return dec_fail(p, err, errsz,
					"record %" PRIu32 " at offset %zu: truncated record header", nrec,
					off);
		tag = (uint16_t)get_le(h, 2);
		flags = (uint16_t)get_le(h + 2, 2);
		crc = (uint32_t)get_le(h + 4, 4);
		plen = get_le(h + 8, 8);
		snprintf(where, sizeof(where), "record %" PRIu32 " (%s) at offset %zu", nrec,
			 gmon_tag_name(tag), off);
		if (plen > len - off - GMON_RECORD_HEADER_SIZE)
			return dec_fail(p, err, errsz, "%s: truncated payload (%" PRIu64 " bytes, %zu left)",
					where, plen, len - off - GMON_RECORD_HEADER_SIZE);
		{
			uint8_t hz[GMON_RECORD_HEADER_SIZE];
			uint32_t want;

			memcpy(hz, h, sizeof(hz));
			put_le(hz + 4, 0, 4);
			want = gmon_crc32(0, hz, sizeof(hz));
			want = gmon_crc32(want, h + GMON_RECORD_HEADER_SIZE, (size_t)plen);
			if (want != crc)
				return dec_fail(p, err, errsz, "%s: checksum mismatch (damaged file)", where);
		}
		if (flags & ~(uint16_t)GMON_REC_ZLIB)
			return dec_fail(p, err, errsz, "%s: unknown flags 0x%x", where, flags);
		c.p = h + GMON_RECORD_HEADER_SIZE;
		c.len = (size_t)plen;
		c.where = where;
		if (flags & GMON_REC_ZLIB) {
			uint64_t rawlen;
			uLongf got;

			if (plen < 8)
				return dec_fail(p, err, errsz, "%s: compressed payload without its length",
						where);
			rawlen = get_le(c.p, 8);
			/* deflate cannot do better than about 1032:1; anything beyond is a lie */
			if (rawlen > GMON_RAW_MAX || rawlen / 1100 > plen)
				return dec_fail(p, err, errsz, "%s: implausible uncompressed length %" PRIu64,
						where, rawlen);
			if (!z_load())
				return dec_fail(p, err, errsz, "%s: compressed, and no zlib to read it",
						where);
			raw = malloc(rawlen ? (size_t)rawlen : 1);
			if (!raw)
				return dec_fail(p, err, errsz, "%s: out of memory", where);
			got = (uLongf)rawlen;
			if (z_uncompress(raw, &got, c.p + 8, (uLong)(plen - 8)) != Z_OK || got != rawlen) {
				free(raw);
				return dec_fail(p, err, errsz, "%s: bad zlib data", where);
			}
			c.p = raw;
			c.len = (size_t)rawlen;
		}
		if (nrec == 0 && tag != GMON_TAG_HEADER) {
			free(raw);
			return dec_fail(p, err, errsz, "%s: the first record must be HEADER", where);
		}
		switch (tag) {
		case GMON_TAG_HEADER:
			if (nrec != 0)
				cur_fail(&c, "a second HEADER record");
			else
				dec_header(&c, &p->hdr);
			break;
		case GMON_TAG_MODULE:
		case GMON_TAG_FUNCS:
		case GMON_TAG_THREAD:
		case GMON_TAG_COUNTERS:
		case GMON_TAG_SAMPLING:
		case GMON_TAG_SAMPLES:
			dec_record(&c, tag, p);
			break;
		case GMON_TAG_END: {
			uint32_t n = get_u32(&c, "record count");
			uint64_t flen = get_u64(&c, "file length");

			if (!c.bad && n != nrec)
				cur_fail(&c, "%" PRIu32 " records announced, %" PRIu32 " read", n, nrec);
			if (!c.bad && flen != len)
				cur_fail(&c, "file length %zu, %" PRIu64 " announced", len, flen);
			seen_end = 1;
			break;
		}
		default:
			cur_fail(&c, "unknown record tag %u", tag);
		}
		if (!c.bad && c.off != c.len)
			cur_fail(&c, "%zu bytes left over at the end of the record", c.len - c.off);
		free(raw);
		if (c.bad) {
			gmon_profile_release(p);
			return -1;
		}
		off += GMON_RECORD_HEADER_SIZE + (size_t)plen;
		nrec++;
	}
	if (!seen_end)
		return dec_fail(p, err, errsz, "truncated: no END record after %" PRIu32 " records", nrec);
	return 0;
}

int gmon_read_file(const char *path, struct gmon_profile *p, char *err, size_t errsz)
{
	uint8_t *buf = NULL;
	size_t nr = 0, alloc = 0;
	FILE *f = fopen(path, "rb");
	int rc;

	gmon_profile_init(p);
	if (!f) {
		snprintf(err, errsz, "cannot open: %s", strerror(errno));
		return -1;
	}
	for (;;) {
		size_t got;

		if (alloc - nr < 65536) {
			uint8_t *q = realloc(buf, alloc ? alloc * 2 : 65536);

			if (!q) {
				snprintf(err, errsz, "out of memory");
				free(buf);
				fclose(f);
				return -1;
			}
			buf = q;
			alloc = alloc ? alloc * 2 : 65536;
		}
		got = fread(buf + nr, 1, alloc - nr, f);
		nr += got;
		if (got == 0)
			break;
	}
	if (ferror(f)) {
		snprintf(err, errsz, "read error: %s", strerror(errno));
		free(buf);
		fclose(f);
		return -1;
	}
	fclose(f);
	rc = gmon_decode(buf, nr, p, err, errsz);
	free(buf);
	return rc;
}
