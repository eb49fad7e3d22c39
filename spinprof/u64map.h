/* One map from 64-bit keys to 32-bit values for the analyser (git's and uftrace's hashmap): open
 * addressing with linear probing, each slot its key beside its value, so that a probe touches one
 * cache line. Addresses of functions (read-spy.c), the Spy report's procedure keys (spy-model.c) and
 * arcs' (parent, child) pairs (prof.c) are its keys. At most half the slots are used. */
#ifndef SPINPROF_U64MAP_H
#define SPINPROF_U64MAP_H

#include <stddef.h>
#include <stdint.h>

struct u64map_slot {
	uint64_t key;
	uint32_t val;
	uint32_t used;
};

struct u64map {
	struct u64map_slot *slots;
	size_t size;    /* a power of two, or 0 */
	size_t n;       /* slots used */
	unsigned shift; /* 64 - log2(size): a key's first slot is the top bits of its product */
};

#define U64MAP_INIT           \
	{                     \
		NULL, 0, 0, 0 \
	}

/* The first slot of key's probe (size must not be 0): Fibonacci hashing, the top bits of the key
 * times 2^64 / phi, which every bit of the key moves (keys that differ only in their high bits, as
 * arc pairs of one callee do, spread as well as addresses). The probe goes on at u64map_step until
 * an unused slot. A map whose keys are hashes of larger ones (spy-model.c's edges) may hold one key
 * more than once: u64map_claim adds it at the end of its probe, and the probe meets each. */
static inline size_t u64map_first(const struct u64map *m, uint64_t key)
{
	return (size_t)((key * 0x9e3779b97f4a7c15ull) >> m->shift);
}

static inline size_t u64map_step(const struct u64map *m, size_t s)
{
	return (s + 1) & (m->size - 1);
}

/* The slot that holds key, or the empty one where it would go (size must not be 0). */
static inline struct u64map_slot *u64map_slot(const struct u64map *m, uint64_t key)
{
	size_t s = u64map_first(m, key);
	while (m->slots[s].used && m->slots[s].key != key)
		s = u64map_step(m, s);
	return &m->slots[s];
}

/* Fill the unused slot s, the end of key's probe, with key and val (after u64map_reserve). */
static inline void u64map_claim(struct u64map *m, size_t s, uint64_t key, uint32_t val)
{
	m->slots[s].key = key;
	m->slots[s].val = val;
	m->slots[s].used = 1;
	m->n++;
}

/* key's value, or none when key is not in m. */
static inline uint32_t u64map_get(const struct u64map *m, uint64_t key, uint32_t none)
{
	if (!m->size)
		return none;
	const struct u64map_slot *s = u64map_slot(m, key);
	return s->used ? s->val : none;
}

/* Grow m to room for n keys (u64map_reserve's slow path). */
void u64map_grow(struct u64map *m, size_t n);

/* Room for n keys in all without growing. */
static inline void u64map_reserve(struct u64map *m, size_t n)
{
	if ((n + 1) * 2 > m->size)
		u64map_grow(m, n);
}

/* key's slot, added (its value 0, *added 1) when key was not in m; valid until m next grows. */
static inline struct u64map_slot *u64map_add(struct u64map *m, uint64_t key, int *added)
{
	u64map_reserve(m, m->n + 1);
	struct u64map_slot *s = u64map_slot(m, key);
	*added = !s->used;
	if (!s->used) {
		s->used = 1;
		s->key = key;
		s->val = 0;
		m->n++;
	}
	return s;
}

/* Set key's value (added, or replaced). */
void u64map_put(struct u64map *m, uint64_t key, uint32_t val);

/* Empty m, keeping room for n keys. */
void u64map_reset(struct u64map *m, size_t n);

/* A prefetch of the first slot key's probe reads. */
static inline void u64map_prefetch(const struct u64map *m, uint64_t key)
{
	if (m->size)
		__builtin_prefetch(&m->slots[u64map_first(m, key)]);
}

/* Free m's slots; m is empty after. */
void u64map_release(struct u64map *m);

#endif
