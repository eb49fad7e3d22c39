/* The call sites of tail calls, for the file's TAILS record (revision 4): a site is a tail call's or a
 * call's, never both (it is code), so the set tells spinprof which arcs count tail calls, whose hooks
 * cost what the header's hook_tail_in and hook_tail_out add to a call's. A site enters when a tail
 * call's arc is made (tail_enter, a slow path of any thread); the writer reads the set. Open
 * addressing of fixed size, lock-free; past it sites are lost, counted (tail_sites_lost). */
#include "spyrt.h"

#include <stdlib.h>

#define TAIL_BITS 14
#define TAIL_SIZE (1u << TAIL_BITS)

static uint64_t tail_tab[TAIL_SIZE];
static uint32_t tail_nr;
uint64_t spy_tail_sites_lost;

void spy_tail_site_add(uint64_t site)
{
	uint32_t i = (uint32_t)((site * 0x9e3779b97f4a7c15ull) >> (64 - TAIL_BITS));

	if (!site)
		return;
	for (uint32_t k = 0; k < TAIL_SIZE / 2; k++, i = (i + 1) & (TAIL_SIZE - 1)) {
		uint64_t v = __atomic_load_n(&tail_tab[i], __ATOMIC_ACQUIRE), zero = 0;

		if (v == site)
			return;
		if (v)
			continue;
		if (__atomic_compare_exchange_n(&tail_tab[i], &zero, site, 0, __ATOMIC_ACQ_REL,
						__ATOMIC_ACQUIRE)) {
			__atomic_fetch_add(&tail_nr, 1, __ATOMIC_RELAXED);
			return;
		}
		if (zero == site) /* another thread put it there first */
			return;
	}
	/* half full: a table that no longer finds its entries fast */
	__atomic_fetch_add(&spy_tail_sites_lost, 1, __ATOMIC_RELAXED);
}

static int site_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

int spy_tail_sites(uint64_t **sites, uint64_t *n)
{
	uint32_t cap = __atomic_load_n(&tail_nr, __ATOMIC_ACQUIRE) + 64, k = 0;
	uint64_t *v;

	*sites = NULL;
	*n = 0;
	if (cap == 64)
		return 0;
	v = malloc((size_t)cap * sizeof(*v));
	if (!v)
		return -1;
	for (uint32_t i = 0; i < TAIL_SIZE && k < cap; i++) {
		uint64_t s = __atomic_load_n(&tail_tab[i], __ATOMIC_ACQUIRE);

		if (s)
			v[k++] = s;
	}
	qsort(v, k, sizeof(*v), site_cmp);
	*sites = v;
	*n = k;
	return 0;
}
