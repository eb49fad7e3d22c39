/* unit: spinprof/sorted.c spinprof/prof.c spinprof/u64map.c common/gmon-io.c common/gmon-encode.c common/gmon-write.c common/gmon-decode.c common/gmon-read.c common/gmon-dump.c common/esc.c -lz */
/* sorted.h: the one search by address (sorted_upper, sorted_lower: the floor and the first at an
 * address, in prof.c, spy-model.c, symtab.c, modsym.c, read-gnu.c) against a count from end to end,
 * on structs whose key is not their first field, with runs of equal keys, 0 and UINT64_MAX, queries
 * below, at, between and above the keys, and on bare uint64_t arrays; and sort_stable (linkmap.c's
 * -R map by name, print-order.c's arcs by count) against an insertion sort, stable by construction,
 * for element sizes 4 and 24, sizes 0 to 2^15 + 3, keys with many ties. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "sorted.h"
#include "xorshift.h"

static uint64_t rng = 0x13198a2e03707344ull;

static uint64_t next(void)
{
	return xorshift64(&rng);
}

struct rec {
	uint32_t tag;
	uint64_t addr; /* at offset 8 */
	char pad[7];
};

static int u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static void check_search(const uint64_t *k, size_t n, uint64_t a)
{
	size_t le = 0, lt = 0;
	for (size_t i = 0; i < n; i++) {
		le += k[i] <= a;
		lt += k[i] < a;
	}
	struct rec *r = malloc((n + 1) * sizeof(*r));
	assert_non_null(r);
	for (size_t i = 0; i < n; i++)
		r[i] = (struct rec){ (uint32_t)i, k[i], "" };
	assert_int_equal(sorted_upper(r, n, sizeof(*r), offsetof(struct rec, addr), a), le);
	assert_int_equal(sorted_lower(r, n, sizeof(*r), offsetof(struct rec, addr), a), lt);
	assert_int_equal(sorted_upper(k, n, sizeof(*k), 0, a), le);
	assert_int_equal(sorted_lower(k, n, sizeof(*k), 0, a), lt);
	free(r);
}

static void search(void **state)
{
	(void)state;
	static const size_t sizes[] = { 0, 1, 2, 3, 5, 16, 17, 100, 1001 };
	for (size_t z = 0; z < sizeof(sizes) / sizeof(sizes[0]); z++)
		for (int ties = 0; ties < 2; ties++) {
			size_t n = sizes[z];
			uint64_t *k = malloc((n + 1) * sizeof(*k));
			assert_non_null(k);
			for (size_t i = 0; i < n; i++)
				k[i] = ties ? next() % 7 * 1000 : next();
			if (n > 2) {
				k[0] = 0;
				k[1] = UINT64_MAX;
			}
			qsort(k, n, sizeof(*k), u64_cmp);
			check_search(k, n, 0);
			check_search(k, n, UINT64_MAX);
			check_search(k, n, UINT64_MAX - 1);
			for (size_t i = 0; i < n; i++) {
				check_search(k, n, k[i]);
				check_search(k, n, k[i] + 1);
				check_search(k, n, k[i] - 1);
			}
			for (int q = 0; q < 50; q++)
				check_search(k, n, next());
			free(k);
		}
}

struct wide {
	uint64_t key;
	uint64_t place; /* where it was before the sort */
	uint64_t more;
};

static int narrow_cmp(const void *a, const void *b, void *arg)
{
	const uint32_t *keys = arg;
	uint32_t x = keys[*(const uint32_t *)a], y = keys[*(const uint32_t *)b];
	return x < y ? -1 : x > y;
}

static int wide_cmp(const void *a, const void *b, void *arg)
{
	(void)arg;
	uint64_t x = ((const struct wide *)a)->key, y = ((const struct wide *)b)->key;
	return x > y ? -1 : x < y; /* decreasing, as the arcs by count */
}

/* the reference: an insertion sort, which moves an element only past greater ones */
static void insertion(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *, void *),
		      void *arg)
{
	char *a = base, t[64];
	assert_true(size <= sizeof(t));
	for (size_t i = 1; i < n; i++) {
		memcpy(t, a + i * size, size);
		size_t j = i;
		for (; j > 0 && cmp(t, a + (j - 1) * size, arg) < 0; j--)
			memcpy(a + j * size, a + (j - 1) * size, size);
		memcpy(a + j * size, t, size);
	}
}

static void stable(void **state)
{
	(void)state;
	static const size_t sizes[] = { 0, 1, 2, 3, 4, 5, 7, 8, 9, 31, 32, 33, 1000, 4099, 32771 };
	for (size_t z = 0; z < sizeof(sizes) / sizeof(sizes[0]); z++)
		for (unsigned distinct = 1; distinct <= 1000; distinct *= 10) {
			size_t n = sizes[z];
			if (n > 5000 && distinct < 100)
				continue; /* the reference is quadratic in the length of runs out of order */
			uint32_t *keys = malloc((n + 1) * sizeof(*keys)),
				 *want = malloc((n + 1) * sizeof(*want)),
				 *got = malloc((n + 1) * sizeof(*got));
			struct wide *wa = malloc((n + 1) * sizeof(*wa)), *wb = malloc((n + 1) * sizeof(*wb));
			assert_true(keys && want && got && wa && wb);
			for (size_t i = 0; i < n; i++) {
				keys[i] = (uint32_t)(next() % distinct);
				want[i] = got[i] = (uint32_t)i;
				wa[i] = wb[i] = (struct wide){ next() % distinct, i, next() };
			}
			if (n <= 5000) {
				insertion(want, n, sizeof(*want), narrow_cmp, keys);
				insertion(wa, n, sizeof(*wa), wide_cmp, NULL);
			} else { /* a counting sort, stable by construction too */
				uint32_t *cnt = calloc(distinct + 1, sizeof(*cnt)),
					 *tmp = malloc(n * sizeof(*tmp));
				assert_true(cnt && tmp);
				for (size_t i = 0; i < n; i++)
					cnt[keys[i] + 1]++;
				for (unsigned d = 0; d < distinct; d++)
					cnt[d + 1] += cnt[d];
				for (size_t i = 0; i < n; i++)
					tmp[cnt[keys[i]]++] = (uint32_t)i;
				memcpy(want, tmp, n * sizeof(*tmp));
				free(tmp);
				free(cnt);
			}
			sort_stable(got, n, sizeof(*got), narrow_cmp, keys);
			assert_memory_equal(want, got, n * sizeof(*got));
			sort_stable(wb, n, sizeof(*wb), wide_cmp, NULL);
			for (size_t i = 0; i + 1 < n; i++) /* decreasing keys, ties in their first order */
				assert_true(wb[i].key > wb[i + 1].key ||
					    (wb[i].key == wb[i + 1].key && wb[i].place < wb[i + 1].place));
			if (n <= 5000)
				assert_memory_equal(wa, wb, n * sizeof(*wb));
			free(keys);
			free(want);
			free(got);
			free(wa);
			free(wb);
		}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(search),
		cmocka_unit_test(stable),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
