/* The AFL++ custom mutator for spy profiles (AFL_CUSTOM_MUTATOR_LIBRARY, built by tests/fuzz/afl.sh):
 * afl_custom_fuzz mutates with spy-mutate.c (records, their payloads, splices with AFL's other input),
 * and afl_custom_post_process seals every input AFL's own mutations made, so that they too get past
 * the checksums. SPY_FUZZ_PREFIX is the harness's count of option bytes before the profiles. Inside a
 * record it needs a byte-level mutator of its own (libFuzzer's is not here): havoc() below. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "spy-mutate.h"

struct state {
	uint64_t rnd;
	size_t prefix;
	uint8_t *buf, *post;
	size_t cap, postcap;
};

void *afl_custom_init(void *afl, unsigned int seed);
size_t afl_custom_fuzz(void *data, uint8_t *buf, size_t buf_size, uint8_t **out_buf, uint8_t *add_buf,
		       size_t add_buf_size, size_t max_size);
size_t afl_custom_post_process(void *data, uint8_t *buf, size_t buf_size, uint8_t **out_buf);
void afl_custom_deinit(void *data);

static uint64_t havoc_rnd = 1;

static size_t rn(size_t n)
{
	havoc_rnd ^= havoc_rnd << 13;
	havoc_rnd ^= havoc_rnd >> 7;
	havoc_rnd ^= havoc_rnd << 17;
	return n ? (size_t)(havoc_rnd % n) : 0;
}

/* A few of AFL's havoc steps: bits, bytes, interesting words, small sums, inserted, dropped or copied runs. */
static size_t havoc(uint8_t *d, size_t n, size_t max)
{
	static const uint64_t interesting[] = { 0,
						1,
						0x7f,
						0x80,
						0xff,
						0x7fff,
						0xffff,
						0x7fffffff,
						0xffffffff,
						1ull << 32,
						0x7fffffffffffffffull,
						~0ull };

	for (size_t steps = 1 + rn(4); steps; steps--) {
		size_t k = rn(7), at = rn(n), w = (size_t)1 << rn(4), len;
		uint64_t v;

		switch (k) {
		case 0:
			if (n)
				d[at] ^= (uint8_t)(1u << rn(8));
			break;
		case 1:
			if (n)
				d[at] = (uint8_t)rn(256);
			break;
		case 2:
		case 3:
			if (at + w > n)
				break;
			v = k == 2 ? interesting[rn(sizeof(interesting) / sizeof(*interesting))] : 0;
			if (k == 3) {
				for (size_t i = 0; i < w; i++)
					v |= (uint64_t)d[at + i] << (8 * i);
				v += rn(2) ? rn(35) + 1 : -(uint64_t)(rn(35) + 1);
			}
			for (size_t i = 0; i < w; i++)
				d[at + i] = (uint8_t)(v >> (8 * i));
			break;
		case 4: /* insert random bytes */
			len = 1 + rn(16);
			if (n + len > max)
				break;
			memmove(d + at + len, d + at, n - at);
			for (size_t i = 0; i < len; i++)
				d[at + i] = (uint8_t)rn(256);
			n += len;
			break;
		case 5: /* drop a run */
			len = rn(n - at + 1);
			memmove(d + at, d + at + len, n - at - len);
			n -= len;
			break;
		case 6: { /* copy a run over another place */
			size_t from = rn(n);

			len = rn(n - (from > at ? from : at) + 1);
			memmove(d + at, d + from, len);
			break;
		}
		}
	}
	return n;
}

void *afl_custom_init(void *afl, unsigned int seed)
{
	struct state *s = calloc(1, sizeof(*s));
	const char *p = getenv("SPY_FUZZ_PREFIX");

	(void)afl;
	if (!s)
		return NULL;
	s->rnd = seed;
	havoc_rnd = seed | 1;
	s->prefix = p ? (size_t)atoi(p) : 0;
	return s;
}

static uint8_t *room(uint8_t **buf, size_t *cap, size_t n)
{
	if (n > *cap) {
		uint8_t *b = realloc(*buf, n);

		if (!b)
			return NULL;
		*buf = b;
		*cap = n;
	}
	return *buf;
}

size_t afl_custom_fuzz(void *data, uint8_t *buf, size_t buf_size, uint8_t **out_buf, uint8_t *add_buf,
		       size_t add_buf_size, size_t max_size)
{
	struct state *s = data;
	size_t n = 0;

	if (!room(&s->buf, &s->cap, max_size > buf_size ? max_size : buf_size)) {
		*out_buf = buf;
		return buf_size;
	}
	s->rnd++;
	if (add_buf && s->rnd % 4 == 0)
		n = spy_cross(buf, buf_size, add_buf, add_buf_size, s->buf, max_size, (unsigned)s->rnd,
			      s->prefix);
	if (!n) {
		memcpy(s->buf, buf, buf_size);
		n = spy_mutate(s->buf, buf_size, max_size, (unsigned)s->rnd, havoc, s->prefix);
	}
	*out_buf = s->buf;
	return n;
}

size_t afl_custom_post_process(void *data, uint8_t *buf, size_t buf_size, uint8_t **out_buf)
{
	struct state *s = data;

	if (!room(&s->post, &s->postcap, buf_size ? buf_size : 1)) {
		*out_buf = buf;
		return buf_size;
	}
	memcpy(s->post, buf, buf_size);
	*out_buf = s->post;
	return spy_repair(s->post, buf_size, s->prefix);
}

void afl_custom_deinit(void *data)
{
	struct state *s = data;

	free(s->buf);
	free(s->post);
	free(s);
}
