/* Structure-aware mutation of glibc's gmon.out for the GNU harnesses (gnu-mutate.h): it changes a
 * record's fields, adds, drops or copies records, and points arcs at addresses the input already names
 * (another arc's, or inside a histogram), so that arcs land on the program's functions. */
#include <stdint.h>
#include <string.h>

#include "gnu-mutate.h"

struct grec {
	size_t off, len; /* in the input, the tag included */
};

static uint64_t rs;

static size_t below(size_t n)
{
	rs ^= rs << 13;
	rs ^= rs >> 7;
	rs ^= rs << 17;
	return n ? (size_t)(rs % n) : 0;
}

static uint64_t le(const uint8_t *p, int n)
{
	uint64_t v = 0;

	for (int i = n - 1; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static void put(uint8_t *p, uint64_t v, int n)
{
	for (int i = 0; i < n; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/* The records of a gmon.out (after its 20-byte header); how many, at most max. */
static size_t records(const uint8_t *d, size_t n, struct grec *r, size_t max)
{
	size_t pos = 20, k = 0;

	while (pos < n && k < max) {
		size_t len;

		if (d[pos] == 0 && n - pos >= 41)
			len = 41 + 2 * (size_t)le(d + pos + 17, 4);
		else if (d[pos] == 1)
			len = 21;
		else if (d[pos] == 2 && n - pos >= 5)
			len = 5 + 16 * (size_t)le(d + pos + 1, 4);
		else
			break;
		if (len > n - pos)
			break;
		r[k++] = (struct grec){ pos, len };
		pos += len;
	}
	return k;
}

size_t gnu_mutate(uint8_t *data, size_t size, size_t max, unsigned seed, gnu_bytes_fn bytes, size_t prefix)
{
	static struct grec r[4096];
	uint8_t *d = data + prefix;
	size_t n = size - prefix, nr, k;

	rs = seed * 0x9e3779b97f4a7c15ull + 3;
	if (size < 20 + prefix || max < 20 + prefix || below(8) == 0 || !(nr = records(d, n, r, 4096)))
		return bytes(data, size, max);
	if (prefix && below(8) == 0)
		data[below(prefix)] ^= (uint8_t)(1u << below(8));
	k = below(nr);
	switch (below(6)) {
	case 0: { /* an arc points at addresses the input names: another arc's, or in a histogram */
		struct grec *a = &r[k], *b = &r[below(nr)];
		uint64_t addr;

		if (d[a->off] != 1)
			break;
		if (d[b->off] == 1)
			addr = le(d + b->off + 1 + 8 * below(2), 8) + below(64) - 32;
		else if (d[b->off] == 0)
			addr = le(d + b->off + 1, 8) +
			       below(1 + (size_t)(le(d + b->off + 9, 8) - le(d + b->off + 1, 8)));
		else
			break;
		put(d + a->off + 1 + 8 * below(2), addr, 8);
		return size;
	}
	case 1: /* a copy of a record, somewhere */
		if (size + r[k].len <= max) {
			size_t at = r[below(nr)].off;

			memmove(d + at + r[k].len, d + at, n - at);
			memcpy(d + at, d + (r[k].off >= at ? r[k].off + r[k].len : r[k].off), r[k].len);
			return size + r[k].len;
		}
		break;
	case 2: /* one record fewer */
		memmove(d + r[k].off, d + r[k].off + r[k].len, n - r[k].off - r[k].len);
		return size - r[k].len;
	case 3: { /* a record's fields */
		uint8_t tmp[64];
		size_t len = r[k].len < sizeof(tmp) ? r[k].len : sizeof(tmp);

		memcpy(tmp, d + r[k].off + 1, len - 1);
		bytes(tmp, len - 1, len - 1);
		memcpy(d + r[k].off + 1, tmp, len - 1);
		return size;
	}
	}
	return bytes(data, size, max);
}
