/* The one encoder and decoder of the spy profile file, linked into the runtime (which writes) and
 * spinprof (which reads), so both sides agree by construction. The decoder trusts nothing: every
 * length is checked before use and every record carries a CRC, so a damaged file is one error line.
 * Built with -DGMON_ZLIB_DLOPEN (the runtime) it finds zlib with dlopen when it first compresses, so
 * profiled programs need no -lz, and writes plain records when there is none.
 * The text view of a decoded profile, gmon_dump(), is in gmon-dump.c. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "gmon-format.h"

#ifdef GMON_ZLIB_DLOPEN
#include <dlfcn.h>

static struct {
	int tried;
	uLong (*bound)(uLong);
	int (*compress)(Bytef *, uLongf *, const Bytef *, uLong, int);
	int (*uncompress)(Bytef *, uLongf *, const Bytef *, uLong);
} gz;

/* Callers serialise (the runtime writes under its lock). */
static int z_load(void)
{
	if (!gz.tried) {
		void *h = dlopen("libz.so.1", RTLD_NOW | RTLD_LOCAL);

		gz.tried = 1;
		if (h) {
			*(void **)&gz.bound = dlsym(h, "compressBound");
			*(void **)&gz.compress = dlsym(h, "compress2");
			*(void **)&gz.uncompress = dlsym(h, "uncompress");
		}
	}
	return gz.bound && gz.compress && gz.uncompress;
}
#define z_bound(n) gz.bound(n)
#define z_compress(d, dl, s, sl, lv) gz.compress(d, dl, s, sl, lv)
#define z_uncompress(d, dl, s, sl) gz.uncompress(d, dl, s, sl)
#else
static int z_load(void)
{
	return 1;
}
#define z_bound(n) compressBound(n)
#define z_compress(d, dl, s, sl, lv) compress2(d, dl, s, sl, lv)
#define z_uncompress(d, dl, s, sl) uncompress(d, dl, s, sl)
#endif

/* ---- little helpers -------------------------------------------------------------------------------- */

/* CRC-32/ISO-HDLC (zlib's), reflected polynomial 0xedb88320. */
static const uint32_t crc_table[256] = {
	0x00000000u, 0x77073096u, 0xee0e612cu, 0x990951bau, 0x076dc419u, 0x706af48fu, 0xe963a535u,
	0x9e6495a3u, 0x0edb8832u, 0x79dcb8a4u, 0xe0d5e91eu, 0x97d2d988u, 0x09b64c2bu, 0x7eb17cbdu,
	0xe7b82d07u, 0x90bf1d91u, 0x1db71064u, 0x6ab020f2u, 0xf3b97148u, 0x84be41deu, 0x1adad47du,
	0x6ddde4ebu, 0xf4d4b551u, 0x83d385c7u, 0x136c9856u, 0x646ba8c0u, 0xfd62f97au, 0x8a65c9ecu,
	0x14015c4fu, 0x63066cd9u, 0xfa0f3d63u, 0x8d080df5u, 0x3b6e20c8u, 0x4c69105eu, 0xd56041e4u,
	0xa2677172u, 0x3c03e4d1u, 0x4b04d447u, 0xd20d85fdu, 0xa50ab56bu, 0x35b5a8fau, 0x42b2986cu,
	0xdbbbc9d6u, 0xacbcf940u, 0x32d86ce3u, 0x45df5c75u, 0xdcd60dcfu, 0xabd13d59u, 0x26d930acu,
	0x51de003au, 0xc8d75180u, 0xbfd06116u, 0x21b4f4b5u, 0x56b3c423u, 0xcfba9599u, 0xb8bda50fu,
	0x2802b89eu, 0x5f058808u, 0xc60cd9b2u, 0xb10be924u, 0x2f6f7c87u, 0x58684c11u, 0xc1611dabu,
	0xb6662d3du, 0x76dc4190u, 0x01db7106u, 0x98d220bcu, 0xefd5102au, 0x71b18589u, 0x06b6b51fu,
	0x9fbfe4a5u, 0xe8b8d433u, 0x7807c9a2u, 0x0f00f934u, 0x9609a88eu, 0xe10e9818u, 0x7f6a0dbbu,
	0x086d3d2du, 0x91646c97u, 0xe6635c01u, 0x6b6b51f4u, 0x1c6c6162u, 0x856530d8u, 0xf262004eu,
	0x6c0695edu, 0x1b01a57bu, 0x8208f4c1u, 0xf50fc457u, 0x65b0d9c6u, 0x12b7e950u, 0x8bbeb8eau,
	0xfcb9887cu, 0x62dd1ddfu, 0x15da2d49u, 0x8cd37cf3u, 0xfbd44c65u, 0x4db26158u, 0x3ab551ceu,
	0xa3bc0074u, 0xd4bb30e2u, 0x4adfa541u, 0x3dd895d7u, 0xa4d1c46du, 0xd3d6f4fbu, 0x4369e96au,
	0x346ed9fcu, 0xad678846u, 0xda60b8d0u, 0x44042d73u, 0x33031de5u, 0xaa0a4c5fu, 0xdd0d7cc9u,
	0x5005713cu, 0x270241aau, 0xbe0b1010u, 0xc90c2086u, 0x5768b525u, 0x206f85b3u, 0xb966d409u,
	0xce61e49fu, 0x5edef90eu, 0x29d9c998u, 0xb0d09822u, 0xc7d7a8b4u, 0x59b33d17u, 0x2eb40d81u,
	0xb7bd5c3bu, 0xc0ba6cadu, 0xedb88320u, 0x9abfb3b6u, 0x03b6e20cu, 0x74b1d29au, 0xead54739u,
	0x9dd277afu, 0x04db2615u, 0x73dc1683u, 0xe3630b12u, 0x94643b84u, 0x0d6d6a3eu, 0x7a6a5aa8u,
	0xe40ecf0bu, 0x9309ff9du, 0x0a00ae27u, 0x7d079eb1u, 0xf00f9344u, 0x8708a3d2u, 0x1e01f268u,
	0x6906c2feu, 0xf762575du, 0x806567cbu, 0x196c3671u, 0x6e6b06e7u, 0xfed41b76u, 0x89d32be0u,
	0x10da7a5au, 0x67dd4accu, 0xf9b9df6fu, 0x8ebeeff9u, 0x17b7be43u, 0x60b08ed5u, 0xd6d6a3e8u,
	0xa1d1937eu, 0x38d8c2c4u, 0x4fdff252u, 0xd1bb67f1u, 0xa6bc5767u, 0x3fb506ddu, 0x48b2364bu,
	0xd80d2bdau, 0xaf0a1b4cu, 0x36034af6u, 0x41047a60u, 0xdf60efc3u, 0xa867df55u, 0x316e8eefu,
	0x4669be79u, 0xcb61b38cu, 0xbc66831au, 0x256fd2a0u, 0x5268e236u, 0xcc0c7795u, 0xbb0b4703u,
	0x220216b9u, 0x5505262fu, 0xc5ba3bbeu, 0xb2bd0b28u, 0x2bb45a92u, 0x5cb36a04u, 0xc2d7ffa7u,
	0xb5d0cf31u, 0x2cd99e8bu, 0x5bdeae1du, 0x9b64c2b0u, 0xec63f226u, 0x756aa39cu, 0x026d930au,
	0x9c0906a9u, 0xeb0e363fu, 0x72076785u, 0x05005713u, 0x95bf4a82u, 0xe2b87a14u, 0x7bb12baeu,
	0x0cb61b38u, 0x92d28e9bu, 0xe5d5be0du, 0x7cdcefb7u, 0x0bdbdf21u, 0x86d3d2d4u, 0xf1d4e242u,
	0x68ddb3f8u, 0x1fda836eu, 0x81be16cdu, 0xf6b9265bu, 0x6fb077e1u, 0x18b74777u, 0x88085ae6u,
	0xff0f6a70u, 0x66063bcau, 0x11010b5cu, 0x8f659effu, 0xf862ae69u, 0x616bffd3u, 0x166ccf45u,
	0xa00ae278u, 0xd70dd2eeu, 0x4e048354u, 0x3903b3c2u, 0xa7672661u, 0xd06016f7u, 0x4969474du,
	0x3e6e77dbu, 0xaed16a4au, 0xd9d65adcu, 0x40df0b66u, 0x37d83bf0u, 0xa9bcae53u, 0xdebb9ec5u,
	0x47b2cf7fu, 0x30b5ffe9u, 0xbdbdf21cu, 0xcabac28au, 0x53b39330u, 0x24b4a3a6u, 0xbad03605u,
	0xcdd70693u, 0x54de5729u, 0x23d967bfu, 0xb3667a2eu, 0xc4614ab8u, 0x5d681b02u, 0x2a6f2b94u,
	0xb40bbe37u, 0xc30c8ea1u, 0x5a05df1bu, 0x2d02ef8du,
};

uint32_t gmon_crc32(uint32_t crc, const void *buf, size_t len)
{
	const uint8_t *p = buf;

	crc = ~crc;
	while (len--)
		crc = crc_table[(crc ^ *p++) & 0xff] ^ (crc >> 8);
	return ~crc;
}

static void put_le(uint8_t *p, uint64_t v, int n)
{
	for (int i = 0; i < n; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static uint64_t get_le(const uint8_t *p, int n)
{
	uint64_t v = 0;

	for (int i = 0; i < n; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

const char *gmon_mode_name(uint32_t mode)
{
	static const char *const names[] = { "count", "arcs", "time" };

	return mode < 3 ? names[mode] : "unknown";
}

static const char *const watch_names[] = { "none", "cpu", "wall", "alloc", "allocbytes", "faults",
					    "calls" };

const char *gmon_watch_name(uint32_t watch)
{
	return watch <= GMON_WATCH_LAST ? watch_names[watch] : "unknown";
}

int gmon_watch_parse(const char *name)
{
	for (int i = 0; i <= GMON_WATCH_LAST; i++)
		if (!strcmp(name, watch_names[i]))
			return i;
	return -1;
}

const char *gmon_tag_name(uint32_t tag)
{
	switch (tag) {
	case GMON_TAG_HEADER:
		return "HEADER";
	case GMON_TAG_MODULE:
		return "MODULE";
	case GMON_TAG_FUNCS:
		return "FUNCS";
	case GMON_TAG_THREAD:
		return "THREAD";
	case GMON_TAG_COUNTERS:
		return "COUNTERS";
	case GMON_TAG_SAMPLING:
		return "SAMPLING";
	case GMON_TAG_SAMPLES:
		return "SAMPLES";
	case GMON_TAG_END:
		return "END";
	}
	return "unknown";
}

void gmon_profile_init(struct gmon_profile *p)
{
	memset(p, 0, sizeof(*p));
}

void gmon_profile_release(struct gmon_profile *p)
{
	free(p->hdr.tool);
	free(p->hdr.error);
	for (uint32_t i = 0; p->hdr.argv && i < p->hdr.argc; i++)
		free(p->hdr.argv[i]);
	free(p->hdr.argv);
	for (uint32_t i = 0; i < p->nmodules; i++) {
		free(p->modules[i].path);
		free(p->modules[i].build_id);
	}
	free(p->modules);
	for (uint32_t i = 0; i < p->nfuncsets; i++) {
		struct gmon_funcs *fs = &p->funcsets[i];

		for (uint32_t j = 0; fs->funcs && j < fs->nr; j++) {
			free(fs->funcs[j].name);
			free(fs->funcs[j].file);
		}
		free(fs->funcs);
	}
	free(p->funcsets);
	for (uint32_t i = 0; i < p->nthreads; i++) {
		free(p->threads[i].name);
		free(p->threads[i].arcs);
		free(p->threads[i].fstats);
		free(p->threads[i].counts);
	}
	free(p->threads);
	if (p->sampling) {
		free(p->sampling->target);
		free(p->sampling->start);
		free(p->sampling->stop);
		free(p->sampling);
	}
	for (uint32_t i = 0; i < p->nsamples; i++) {
		free(p->samples[i].stacks);
		free(p->samples[i].frames);
	}
	free(p->samples);
	for (uint32_t i = 0; i < p->ncounters; i++)
		free(p->counters[i].name);
	free(p->counters);
	memset(p, 0, sizeof(*p));
}

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
		uint32_t nh = GMON_HIST_BUCKETS;

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
	if (!c->bad && (s->flags & ~(uint32_t)(GMON_SAMP_FOREIGN | GMON_SAMP_NOSOURCE |
					       GMON_SAMP_THREADS_CUT)))
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
		if (!c->bad && (k->flags & ~(uint32_t)(GMON_STACK_WAITING | GMON_STACK_RUNTIME |
						       GMON_STACK_CUT)))
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

/* ---- atomic file write ----------------------------------------------------------------------------- */

static int write_all(int fd, const uint8_t *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			if (w == 0)
				errno = EIO;
			return -1;
		}
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

int gmon_write_file(const char *path, const void *buf, size_t len, char *err, size_t errsz)
{
	char tmp[PATH_MAX];
	int fd = -1, saved;

	if (!*path) {
		snprintf(err, errsz, "empty path");
		return -1;
	}
	/* the temporary file sits next to the target, so rename() never crosses a file system;
	 * O_EXCL|O_NOFOLLOW refuse a planted file or symlink, and a taken name is simply skipped */
	for (unsigned i = 0; i < 100 && fd < 0; i++) {
		if ((size_t)snprintf(tmp, sizeof(tmp), "%s.tmp%ld.%u", path, (long)getpid(), i) >=
		    sizeof(tmp)) {
			snprintf(err, errsz, "path too long");
			return -1;
		}
		fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
		if (fd < 0 && errno != EEXIST)
			break;
	}
	if (fd < 0) {
		snprintf(err, errsz, "cannot create a file next to it: %s", strerror(errno));
		return -1;
	}
	if (write_all(fd, buf, len) || fsync(fd)) {
		saved = errno;
		close(fd);
		unlink(tmp);
		snprintf(err, errsz, "write error: %s", strerror(saved));
		return -1;
	}
	if (close(fd)) {
		saved = errno;
		unlink(tmp);
		snprintf(err, errsz, "write error: %s", strerror(saved));
		return -1;
	}
	if (rename(tmp, path)) {
		saved = errno;
		unlink(tmp);
		snprintf(err, errsz, "cannot rename the new file into place: %s", strerror(saved));
		return -1;
	}
	return 0;
}
