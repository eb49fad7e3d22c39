/* The analyser's one hash map, 64-bit keys to 32-bit values (u64map.h). */
#include <stdlib.h>
#include <string.h>

#include "prof.h"
#include "u64map.h"

static size_t size_for(size_t n)
{
	size_t size = 16;
	while ((n + 1) * 2 > size)
		size *= 2;
	return size;
}

static void rehash(struct u64map *m, size_t size)
{
	struct u64map old = *m;
	m->slots = xcalloc(size, sizeof(*m->slots));
	m->size = size;
	m->shift = 64 - (unsigned)__builtin_ctzll(size);
	/* each at the end of its probe: a key held twice stays twice */
	for (size_t i = 0; i < old.size; i++)
		if (old.slots[i].used) {
			size_t s = u64map_first(m, old.slots[i].key);
			while (m->slots[s].used)
				s = u64map_step(m, s);
			m->slots[s] = old.slots[i];
		}
	free(old.slots);
}

void u64map_grow(struct u64map *m, size_t n)
{
	rehash(m, size_for(n));
}

void u64map_put(struct u64map *m, uint64_t key, uint32_t val)
{
	int added;
	u64map_add(m, key, &added)->val = val;
}

void u64map_reset(struct u64map *m, size_t n)
{
	size_t size = size_for(n);
	if (size != m->size) {
		free(m->slots);
		m->slots = xcalloc(size, sizeof(*m->slots));
		m->size = size;
		m->shift = 64 - (unsigned)__builtin_ctzll(size);
	} else {
		memset(m->slots, 0, size * sizeof(*m->slots));
	}
	m->n = 0;
}

void u64map_release(struct u64map *m)
{
	free(m->slots);
	m->slots = NULL;
	m->size = m->n = 0;
	m->shift = 0;
}
