/* unit: spinprof/u64map.c spinprof/prof.c common/gmon-io.c common/gmon-encode.c common/gmon-write.c common/gmon-decode.c common/gmon-read.c common/gmon-dump.c common/esc.c -lz */
/* u64map, the analyser's one hash map (read-spy.c's function addresses, spy-model.c's procedures and
 * edges, prof.c's arcs), against a plain array searched from end to end: keys of every shape (0,
 * UINT64_MAX, addresses 16 bytes apart, keys equal in their low 44 bits, arc pairs parent << 32 |
 * child), no probe longer than 200 slots (a hash of the low bits alone puts keys equal in them in one
 * run), values replaced, absent keys, growth from empty and after u64map_reserve and u64map_reset; a
 * key claimed twice (spy-model.c's edges) is met twice by its probe, before and after the map grows; at
 * most half the slots are ever used. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "u64map.h"
#include "xorshift.h"

static uint64_t rng = 0x243f6a8885a308d3ull;

static uint64_t next(void)
{
	return xorshift64(&rng);
}

/* key number i of a shape */
static uint64_t key_of(int shape, size_t i)
{
	switch (shape) {
	case 0: /* addresses of functions, 16 bytes apart */
		return 0x401000 + 16 * (uint64_t)i;
	case 1: /* the same low 44 bits */
		return (uint64_t)i << 44 | 0x123;
	case 2: /* arc pairs */
		return (uint64_t)(i % 97) << 32 | (uint32_t)(i / 97);
	default: /* anything, 0 and UINT64_MAX first */
		return i == 0 ? 0 : i == 1 ? UINT64_MAX : next();
	}
}

/* the reference: the value of key among ks[0..n), or none */
static uint32_t ref_get(const uint64_t *ks, const uint32_t *vs, size_t n, uint64_t key, uint32_t none)
{
	for (size_t i = 0; i < n; i++)
		if (ks[i] == key)
			return vs[i];
	return none;
}

/* the longest probe: how far a used slot lies past its key's first slot */
static size_t max_probe(const struct u64map *m)
{
	size_t most = 0;
	for (size_t s = 0; s < m->size; s++)
		if (m->slots[s].used) {
			size_t d = (s - u64map_first(m, m->slots[s].key)) & (m->size - 1);
			most = d > most ? d : most;
		}
	return most;
}

static void check_all(const struct u64map *m, const uint64_t *ks, const uint32_t *vs, size_t n)
{
	/* every shape spreads: a hash of the low bits alone put all of shape 1 in one run (70000 long) */
	assert_true(max_probe(m) <= 200);
	assert_int_equal(m->n, n);
	assert_true(m->size == 0 || (m->size & (m->size - 1)) == 0);
	assert_true(2 * m->n < m->size || m->size == 0);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(u64map_get(m, ks[i], UINT32_MAX), vs[i]);
}

static void shapes(void **state)
{
	(void)state;
	static const size_t sizes[] = { 0, 1, 7, 8, 9, 1000, 70000 };
	for (int shape = 0; shape < 4; shape++)
		for (size_t z = 0; z < sizeof(sizes) / sizeof(sizes[0]); z++) {
			size_t n = sizes[z], nk = 0;
			uint64_t *ks = malloc((n + 1) * sizeof(*ks));
			uint32_t *vs = malloc((n + 1) * sizeof(*vs));
			assert_true(ks && vs);
			struct u64map m = U64MAP_INIT;
			assert_int_equal(u64map_get(&m, 5, 77), 77); /* empty, no slots */
			for (size_t i = 0; i < n; i++) {
				uint64_t k = key_of(shape, i);
				uint32_t v = (uint32_t)next();
				if (ref_get(ks, vs, n < 2000 ? nk : 0, k, UINT32_MAX) == UINT32_MAX ||
				    n >= 2000) {
					ks[nk] = k;
					vs[nk++] = v;
				}
				u64map_put(&m, k, v);
			}
			check_all(&m, ks, vs, nk);
			/* replaced values, and u64map_add finds what is there */
			for (size_t i = 0; i < nk; i += 3) {
				int added = -1;
				struct u64map_slot *s = u64map_add(&m, ks[i], &added);
				assert_int_equal(added, 0);
				assert_int_equal(s->val, vs[i]);
				vs[i] = (uint32_t)i;
				u64map_put(&m, ks[i], vs[i]);
			}
			check_all(&m, ks, vs, nk);
			/* absent keys: none, and nothing added by looking */
			for (size_t i = 0; i < 1000; i++) {
				uint64_t k = next() |
					     1; /* the shapes' keys are even or small; UINT64_MAX is odd */
				if (k == UINT64_MAX || (shape == 1 && (k & 0xfffffffffffull) == 0x123))
					continue;
				assert_int_equal(u64map_get(&m, k, 12345), 12345);
			}
			assert_int_equal(m.n, nk);
			/* reset: empty, with room; the keys go in again */
			u64map_reset(&m, nk);
			size_t room = m.size;
			for (size_t i = 0; i < nk; i++)
				assert_int_equal(u64map_get(&m, ks[i], UINT32_MAX), UINT32_MAX);
			for (size_t i = 0; i < nk; i++)
				u64map_put(&m, ks[i], vs[i]);
			assert_int_equal(m.size, room); /* reset made room for them all */
			check_all(&m, ks, vs, nk);
			u64map_release(&m);
			assert_null(m.slots);
			assert_int_equal(m.size, 0);
			assert_int_equal(m.n, 0);
			free(ks);
			free(vs);
		}
}

/* u64map_reserve(n): n keys go in without the slots moving */
static void reserve(void **state)
{
	(void)state;
	struct u64map m = U64MAP_INIT;
	u64map_reserve(&m, 5000);
	const struct u64map_slot *slots = m.slots;
	size_t size = m.size;
	for (uint32_t i = 0; i < 5000; i++)
		u64map_put(&m, key_of(0, i), i);
	assert_ptr_equal(m.slots, slots);
	assert_int_equal(m.size, size);
	for (uint32_t i = 0; i < 5000; i++)
		assert_int_equal(u64map_get(&m, key_of(0, i), UINT32_MAX), i);
	u64map_reserve(&m, 100); /* less than there is: nothing moves */
	assert_ptr_equal(m.slots, slots);
	u64map_release(&m);
}

/* the values probe meets for key, in probe order */
static size_t probe(const struct u64map *m, uint64_t key, uint32_t *out, size_t max)
{
	size_t n = 0;
	for (size_t s = u64map_first(m, key); m->slots[s].used; s = u64map_step(m, s))
		if (m->slots[s].key == key && n < max)
			out[n++] = m->slots[s].val;
	return n;
}

/* a key claimed more than once, as spy-model.c's edges (a hash of their (from, to, site)) are */
static void claimed_twice(void **state)
{
	(void)state;
	struct u64map m = U64MAP_INIT;
	uint32_t got[8];
	for (uint32_t i = 0; i < 20000; i++) {
		uint64_t key = i % 3 == 0 ? 42 : key_of(3, i); /* 42 claimed 6667 times */
		u64map_reserve(&m, m.n + 1);
		size_t s = u64map_first(&m, key);
		while (m.slots[s].used)
			s = u64map_step(&m, s);
		u64map_claim(&m, s, key, i);
		if (i == 3) { /* 42 held twice, as 0 and 3, before any growth */
			assert_int_equal(probe(&m, 42, got, 8), 2);
			assert_int_equal(got[0] + got[1], 3);
		}
	}
	assert_int_equal(m.n, 20000);
	assert_true(2 * m.n < m.size);
	/* after many growths, each claim of 42 is still met, once */
	uint32_t *all = malloc(7000 * sizeof(*all));
	assert_non_null(all);
	size_t n = probe(&m, 42, all, 7000);
	assert_int_equal(n, 6667);
	unsigned char *seen = calloc(20000, 1);
	assert_non_null(seen);
	for (size_t i = 0; i < n; i++) {
		assert_true(all[i] % 3 == 0 && !seen[all[i]]);
		seen[all[i]] = 1;
	}
	free(seen);
	free(all);
	u64map_release(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(shapes),
		cmocka_unit_test(reserve),
		cmocka_unit_test(claimed_twice),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
