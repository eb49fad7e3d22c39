/* Structure-aware mutation of spy profiles for the fuzzers: an input (after a few prefix bytes of
 * options, for the harnesses that take them) is one or more profiles back to back, each parsed into
 * its records; a mutation changes a record's payload (inflated first when it is compressed, deflated
 * again after), a record header's field, the records' order or number, or splices records from
 * another input, and then seals everything again: each record's CRC, the END record's count and
 * length, the file header's CRC. So most mutants get past the checksums and exercise the decoding
 * behind them, which byte-level mutation alone almost never reaches. A few mutants are left unsealed
 * or cut, so the checks themselves stay covered. Used by the libFuzzer harnesses (with
 * LLVMFuzzerMutate for the bytes) and by AFL++ through afl-spy-mutator.c. */
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "gmon-format.h"
#include "spy-mutate.h"

#define MAX_RAW (4u << 20) /* a compressed payload inflated for mutation, at most */
#define MAX_RECS 4096

struct rec {
	uint16_t tag, flags;
	uint8_t *stored; /* the payload as stored */
	size_t slen;
	uint8_t *raw; /* inflated (or a copy of a plain one), NULL until needed */
	size_t rlen, rcap;
	int dirty; /* raw changed: stored is made again from it */
};

struct file {
	uint8_t head[GMON_FILE_HEADER_SIZE];
	struct rec *recs;
	size_t nr;
	uint8_t *tail; /* bytes that parse as no record (kept as they are) */
	size_t tlen;
};

struct input {
	struct file *files;
	size_t nr;
};

static uint64_t rnd_state;

static uint64_t rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return rnd_state;
}

static size_t below(size_t n)
{
	return n ? (size_t)(rnd() % n) : 0;
}

static void put(uint8_t *p, uint64_t v, int n)
{
	for (int i = 0; i < n; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static uint64_t get(const uint8_t *p, int n)
{
	uint64_t v = 0;

	for (int i = n - 1; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static void *dup_bytes(const void *p, size_t n)
{
	void *q = malloc(n ? n : 1);

	if (q && n)
		memcpy(q, p, n);
	return q;
}

static void free_input(struct input *in)
{
	for (size_t f = 0; f < in->nr; f++) {
		for (size_t r = 0; r < in->files[f].nr; r++) {
			free(in->files[f].recs[r].stored);
			free(in->files[f].recs[r].raw);
		}
		free(in->files[f].recs);
		free(in->files[f].tail);
	}
	free(in->files);
	memset(in, 0, sizeof(*in));
}

/* Parse data into files and records; 0 when it does not even begin like a spy profile. */
static int parse(const uint8_t *d, size_t n, struct input *in)
{
	size_t pos = 0;

	memset(in, 0, sizeof(*in));
	while (pos + GMON_FILE_HEADER_SIZE <= n && memcmp(d + pos, GMON_MAGIC, 4) == 0) {
		struct file *f;

		in->files = realloc(in->files, (in->nr + 1) * sizeof(*in->files));
		f = &in->files[in->nr++];
		memset(f, 0, sizeof(*f));
		memcpy(f->head, d + pos, GMON_FILE_HEADER_SIZE);
		pos += GMON_FILE_HEADER_SIZE;
		while (pos + GMON_RECORD_HEADER_SIZE <= n && f->nr < MAX_RECS) {
			uint64_t plen = get(d + pos + 8, 8);
			struct rec *r;

			if (plen > n - pos - GMON_RECORD_HEADER_SIZE)
				break;
			f->recs = realloc(f->recs, (f->nr + 1) * sizeof(*f->recs));
			r = &f->recs[f->nr++];
			memset(r, 0, sizeof(*r));
			r->tag = (uint16_t)get(d + pos, 2);
			r->flags = (uint16_t)get(d + pos + 2, 2);
			r->slen = (size_t)plen;
			r->stored = dup_bytes(d + pos + GMON_RECORD_HEADER_SIZE, r->slen);
			pos += GMON_RECORD_HEADER_SIZE + r->slen;
			if (r->tag == GMON_TAG_END)
				break;
		}
		/* what follows is the next profile, or bytes that are none */
		if (pos < n && !(n - pos >= GMON_FILE_HEADER_SIZE && memcmp(d + pos, GMON_MAGIC, 4) == 0 &&
				 f->nr && f->recs[f->nr - 1].tag == GMON_TAG_END)) {
			f->tail = dup_bytes(d + pos, n - pos);
			f->tlen = n - pos;
			pos = n;
		}
	}
	if (!in->nr)
		return 0;
	if (pos < n) {
		struct file *f = &in->files[in->nr - 1];

		f->tail = realloc(f->tail, f->tlen + n - pos);
		memcpy(f->tail + f->tlen, d + pos, n - pos);
		f->tlen += n - pos;
	}
	return 1;
}

/* The record's raw payload, ready to change: 0 when a compressed one does not inflate (then its
 * stored bytes are changed as they are, flags kept). */
static int raw_of(struct rec *r)
{
	if (r->raw)
		return 1;
	if (r->flags & GMON_REC_ZLIB) {
		uint64_t rl;
		uLongf got;

		if (r->slen < 8 || (rl = get(r->stored, 8)) > MAX_RAW)
			return 0;
		r->rcap = (size_t)rl + 1;
		r->raw = malloc(r->rcap);
		got = (uLongf)rl;
		if (!r->raw || uncompress(r->raw, &got, r->stored + 8, (uLong)(r->slen - 8)) != Z_OK ||
		    got != rl) {
			free(r->raw);
			r->raw = NULL;
			return 0;
		}
		r->rlen = (size_t)rl;
		return 1;
	}
	r->raw = dup_bytes(r->stored, r->slen);
	r->rlen = r->rcap = r->slen;
	return 1;
}

/* The stored payload again from a changed raw one. */
static void restore(struct rec *r)
{
	if (!r->dirty)
		return;
	r->dirty = 0;
	free(r->stored);
	if (r->flags & GMON_REC_ZLIB) {
		uLongf clen = compressBound((uLong)r->rlen);

		r->stored = malloc(8 + clen);
		put(r->stored, r->rlen, 8);
		compress2(r->stored + 8, &clen, r->raw, (uLong)r->rlen, 1 + (int)below(9));
		r->slen = 8 + clen;
	} else {
		r->stored = dup_bytes(r->raw, r->rlen);
		r->slen = r->rlen;
	}
}

static size_t file_size(const struct file *f)
{
	size_t n = GMON_FILE_HEADER_SIZE + f->tlen;

	for (size_t i = 0; i < f->nr; i++)
		n += GMON_RECORD_HEADER_SIZE + f->recs[i].slen;
	return n;
}

/* Write the input out, sealed: CRCs and END records right (unless told to leave one wrong). Returns
 * the size, or 0 when it would not fit in max. */
static size_t seal(struct input *in, uint8_t *out, size_t max, int break_one)
{
	size_t pos = 0, total = 0, victim;

	for (size_t f = 0; f < in->nr; f++) {
		for (size_t r = 0; r < in->files[f].nr; r++)
			restore(&in->files[f].recs[r]);
		total += file_size(&in->files[f]);
	}
	if (total > max)
		return 0;
	victim = break_one ? below(total) : (size_t)-1;
	for (size_t fi = 0; fi < in->nr; fi++) {
		struct file *f = &in->files[fi];
		size_t flen = file_size(f);

		memcpy(out + pos, f->head, GMON_FILE_HEADER_SIZE);
		if (get(out + pos + 4, 4) == GMON_SPY_VERSION)
			put(out + pos + 12, gmon_crc32(0, out + pos, 12), 4);
		pos += GMON_FILE_HEADER_SIZE;
		for (size_t ri = 0; ri < f->nr; ri++) {
			struct rec *r = &f->recs[ri];
			uint8_t *h = out + pos;

			if (r->tag == GMON_TAG_END && r->slen == 12) {
				put(r->stored, ri, 4);
				put(r->stored + 4, flen, 8);
			}
			put(h, r->tag, 2);
			put(h + 2, r->flags, 2);
			put(h + 4, 0, 4);
			put(h + 8, r->slen, 8);
			memcpy(h + GMON_RECORD_HEADER_SIZE, r->stored, r->slen);
			put(h + 4,
			    gmon_crc32(gmon_crc32(0, h, GMON_RECORD_HEADER_SIZE), h + GMON_RECORD_HEADER_SIZE,
				       r->slen),
			    4);
			pos += GMON_RECORD_HEADER_SIZE + r->slen;
		}
		if (f->tlen)
			memcpy(out + pos, f->tail, f->tlen);
		pos += f->tlen;
	}
	if (victim < total)
		out[victim] ^= (uint8_t)(1u << below(8));
	return pos;
}

static struct rec *pick(struct input *in, struct file **fp)
{
	struct file *f = &in->files[below(in->nr)];

	if (fp)
		*fp = f;
	return f->nr ? &f->recs[below(f->nr)] : NULL;
}

/* A copy of src (which may be one of f's own records) at f's position at. */
static void insert_rec(struct file *f, size_t at, const struct rec *src)
{
	struct rec r = { .tag = src->tag, .flags = src->flags, .slen = src->slen };

	if (f->nr >= MAX_RECS)
		return;
	r.stored = dup_bytes(src->stored, src->slen);
	f->recs = realloc(f->recs, (f->nr + 1) * sizeof(*f->recs));
	memmove(f->recs + at + 1, f->recs + at, (f->nr - at) * sizeof(*f->recs));
	f->nr++;
	f->recs[at] = r;
}

static void drop_rec(struct file *f, size_t at)
{
	free(f->recs[at].stored);
	free(f->recs[at].raw);
	memmove(f->recs + at, f->recs + at + 1, (f->nr - at - 1) * sizeof(*f->recs));
	f->nr--;
}

/* Records before END (the place a new one goes). */
static size_t body(const struct file *f)
{
	return f->nr && f->recs[f->nr - 1].tag == GMON_TAG_END ? f->nr - 1 : f->nr;
}

/* One structural change; 0 when it could not be made. */
static int mutate_once(struct input *in, size_t max, spy_bytes_fn bytes)
{
	static const uint16_t tags[] = { GMON_TAG_HEADER,  GMON_TAG_MODULE,   GMON_TAG_FUNCS,
					 GMON_TAG_THREAD,  GMON_TAG_COUNTERS, GMON_TAG_SAMPLING,
					 GMON_TAG_SAMPLES, GMON_TAG_END };
	struct file *f;
	struct rec *r = pick(in, &f);
	size_t k = below(100);

	if (!r)
		return 0;
	if (k < 70) { /* the payload's bytes */
		if (raw_of(r)) {
			size_t room = r->rlen + 256; /* the whole must still fit max: seal() sees to it */

			(void)max;
			if (room > r->rcap) {
				r->raw = realloc(r->raw, room);
				r->rcap = room;
			}
			r->rlen = bytes(r->raw, r->rlen, r->rcap);
			r->dirty = 1;
		} else {
			r->stored = realloc(r->stored, r->slen + 256);
			r->slen = bytes(r->stored, r->slen, r->slen + 256);
		}
		return 1;
	}
	if (k < 78) { /* another copy of a record, from anywhere in the input, before END */
		struct rec *src = pick(in, NULL);

		if (!src)
			return 0;
		insert_rec(f, below(body(f) + 1), src);
		return 1;
	}
	if (k < 84) { /* one record fewer */
		drop_rec(f, below(f->nr));
		return 1;
	}
	if (k < 88) { /* two records trade places */
		size_t a = below(f->nr), b = below(f->nr);
		struct rec t = f->recs[a];

		f->recs[a] = f->recs[b];
		f->recs[b] = t;
		return 1;
	}
	if (k < 93) { /* compressed or not */
		if (!raw_of(r))
			return 0;
		r->flags ^= GMON_REC_ZLIB;
		r->dirty = 1;
		return 1;
	}
	if (k < 96) { /* another tag, or unknown flags */
		if (below(4))
			r->tag = tags[below(sizeof(tags) / sizeof(*tags))];
		else
			r->flags |= (uint16_t)(1u << below(16));
		return 1;
	}
	/* the file header: another revision or version */
	if (below(2))
		put(f->head + 8, below(4), 4);
	else
		put(f->head + 4, below(2) ? GMON_SPY_VERSION + (uint32_t)below(3) - 1 : below(3), 4);
	return 1;
}

/* Options bytes before the profiles: a bit flipped now and then. */
static void mutate_prefix(uint8_t *data, size_t prefix)
{
	if (prefix && below(8) == 0)
		data[below(prefix)] ^= (uint8_t)(1u << below(8));
}

size_t spy_mutate(uint8_t *data, size_t size, size_t max, unsigned seed, spy_bytes_fn bytes, size_t prefix)
{
	struct input in;
	uint8_t *out;
	size_t n = 0;

	rnd_state = seed * 0x9e3779b97f4a7c15ull + 1;
	if (size < prefix || max <= prefix)
		return bytes(data, size, max);
	mutate_prefix(data, prefix);
	/* one in sixteen: the bytes alone, the checksums left as they fall */
	if (below(16) == 0 || !parse(data + prefix, size - prefix, &in))
		return prefix + bytes(data + prefix, size - prefix, max - prefix);
	for (size_t i = 1 + below(3); i; i--)
		mutate_once(&in, max - prefix, bytes);
	out = malloc(max);
	if (out)
		n = seal(&in, out, max - prefix, below(32) == 0);
	if (n) {
		/* now and then cut short */
		if (below(32) == 0)
			n = below(n + 1);
		memcpy(data + prefix, out, n);
		n += prefix;
	} else {
		n = size;
	}
	free(out);
	free_input(&in);
	return n;
}

size_t spy_cross(const uint8_t *a, size_t asize, const uint8_t *b, size_t bsize, uint8_t *out, size_t max,
		 unsigned seed, size_t prefix)
{
	struct input x, y;
	size_t n = 0;

	rnd_state = seed * 0x9e3779b97f4a7c15ull + 7;
	if (asize < prefix || bsize < prefix || max < prefix)
		return 0;
	if (!parse(a + prefix, asize - prefix, &x))
		return 0;
	if (parse(b + prefix, bsize - prefix, &y)) {
		/* records of b go into a: inserted before END, or in place of one of a's, or b's whole
		 * second profile appended to sum with */
		for (size_t i = 1 + below(4); i; i--) {
			struct file *f = &x.files[below(x.nr)];
			struct rec *src = pick(&y, NULL);

			if (!src)
				break;
			if (f->nr && below(3) == 0)
				drop_rec(f, below(body(f)));
			insert_rec(f, below(body(f) + 1), src);
		}
		if (x.nr < 3 && below(4) == 0) {
			struct file *g = &y.files[below(y.nr)];

			x.files = realloc(x.files, (x.nr + 1) * sizeof(*x.files));
			x.files[x.nr] = *g;
			g->recs = NULL;
			g->nr = 0;
			g->tail = NULL;
			g->tlen = 0;
			x.nr++;
		}
		free_input(&y);
	}
	memcpy(out, a, prefix);
	n = seal(&x, out + prefix, max - prefix, 0);
	free_input(&x);
	return n ? n + prefix : 0;
}

size_t spy_repair(uint8_t *data, size_t size, size_t prefix)
{
	struct input in;
	uint8_t *out;
	size_t n = 0;

	if (size < prefix || !parse(data + prefix, size - prefix, &in))
		return size;
	out = malloc(size);
	if (out)
		n = seal(&in, out, size - prefix, 0);
	if (n == size - prefix)
		memcpy(data + prefix, out, n);
	free(out);
	free_input(&in);
	return size;
}
