/* unit: spinprof/prof.c spinprof/u64map.c common/gmon-io.c common/gmon-encode.c common/gmon-write.c common/gmon-decode.c common/gmon-read.c common/gmon-dump.c common/esc.c -lz */
/* prof_sort_keyed_r, the index sort of the big orders (the call graph's index order, the flat profile,
 * the index by name, a cycle's members), against qsort_r with the same comparison, its reference: random doubles with many ties, -0.0 beside 0.0, infinities,
 * negative values, decreasing and increasing; strings with long common prefixes, short ones, empty
 * ones and bytes above 127; every result must be the reference's, element for element. */
#define _GNU_SOURCE /* qsort_r */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "prof.h"

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* decreasing value, ties by index: as the call graph's and the flat profile's orders */
static int cmp_down(const void *a, const void *b, void *arg)
{
	const double *vals = arg;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	double d = vals[x] - vals[y];
	if (d < 0.0)
		return 1;
	if (d > 0.0)
		return -1;
	return x < y ? -1 : x > y;
}

/* cmp_down by comparison instead of difference, as the call graph's cycle members are sorted */
static int cmp_down_r(const void *a, const void *b, void *arg)
{
	const double *v = arg;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	if (v[x] != v[y])
		return v[x] > v[y] ? -1 : 1;
	return x < y ? -1 : x > y;
}

/* increasing value, ties by decreasing index */
static int cmp_up(const void *a, const void *b, void *arg)
{
	const double *vals = arg;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	if (vals[x] != vals[y])
		return vals[x] < vals[y] ? -1 : 1;
	return x > y ? -1 : x < y;
}

/* strcmp, ties by index: as the index by name */
static int cmp_str(const void *a, const void *b, void *arg)
{
	const char *const *strs = arg;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	int c = strcmp(strs[x], strs[y]);
	return c ? c : x < y ? -1 : x > y;
}

static double pick(int kind)
{
	static const double special[] = { 0.0, -0.0, INFINITY, -INFINITY, 1.0, -1.0, 1e-300, 5e-324 };
	switch (kind) {
	case 0: /* few distinct values: long runs of ties */
		return (double)(next() % 7);
	case 1: /* the special ones among ordinary ones */
		return next() % 3 ? special[next() % 8] : (double)(int64_t)next() / 1e9;
	default: /* mostly distinct */
		return (double)(int64_t)(next() >> 11) * (next() & 1 ? 1e-6 : -1e3);
	}
}

static void check_doubles(size_t n, int kind, int down)
{
	double *v = malloc((n + 1) * sizeof(*v));
	uint32_t *want = malloc((n + 1) * sizeof(*want)), *got = malloc((n + 1) * sizeof(*got));
	uint64_t *keys = malloc((n + 1) * sizeof(*keys));
	assert_true(v && want && got && keys);
	for (size_t i = 0; i < n; i++) {
		v[i] = pick(kind);
		/* not the identity: the keys go with the indices where they are */
		want[i] = got[i] = (uint32_t)(n - 1 - i);
	}
	for (size_t i = 0; i < n; i++)
		keys[i] = down ? ~prof_key_up(v[got[i]]) : prof_key_up(v[got[i]]);
	qsort_r(want, n, sizeof(uint32_t), down ? cmp_down : cmp_up, v);
	prof_sort_keyed_r(got, keys, n, down ? cmp_down : cmp_up, v);
	assert_memory_equal(want, got, n * sizeof(uint32_t));
	if (down) { /* the other formulation of the same order */
		for (size_t i = 0; i < n; i++) {
			want[i] = got[i] = (uint32_t)(n - 1 - i);
			keys[i] = ~prof_key_up(v[got[i]]);
		}
		qsort_r(want, n, sizeof(uint32_t), cmp_down_r, v);
		prof_sort_keyed_r(got, keys, n, cmp_down_r, v);
		assert_memory_equal(want, got, n * sizeof(uint32_t));
	}
	free(v);
	free(want);
	free(got);
	free(keys);
}

static void doubles(void **state)
{
	(void)state;
	static const size_t sizes[] = { 0, 1, 2, 3, 17, 256, 1000, 100000 };
	for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++)
		for (int kind = 0; kind < 3; kind++)
			for (int down = 0; down < 2; down++)
				check_doubles(sizes[s], kind, down);
}

/* the key keeps the order of the values it is made of, and -0.0 is 0.0 */
static void double_keys(void **state)
{
	(void)state;
	static const double v[] = { -INFINITY, -1e300, -1.0, -5e-324, 0.0, 5e-324, 1.0, 1e300, INFINITY };
	for (size_t i = 0; i + 1 < sizeof(v) / sizeof(v[0]); i++)
		assert_true(prof_key_up(v[i]) < prof_key_up(v[i + 1]));
	assert_true(prof_key_up(-0.0) == prof_key_up(0.0));
}

static void strings(void **state)
{
	(void)state;
	static const char *const stems[] = {
		"",   "a",   "ab",        "main", "_ZN4spy6detail", "_ZN4spy6detailE", "\xc3\xa9t\xc3\xa9",
		"f1", "f10", "f100000000"
	};
	size_t n = 50000;
	char **s = malloc(n * sizeof(*s));
	uint32_t *want = malloc(n * sizeof(*want)), *got = malloc(n * sizeof(*got));
	uint64_t *keys = malloc(n * sizeof(*keys));
	assert_true(s && want && got && keys);
	for (size_t i = 0; i < n; i++) {
		char b[64];
		const char *stem = stems[next() % (sizeof(stems) / sizeof(stems[0]))];
		if (next() % 4)
			snprintf(b, sizeof(b), "%s%u", stem, (unsigned)(next() % 50));
		else
			snprintf(b, sizeof(b), "%s", stem);
		s[i] = strdup(b);
		assert_non_null(s[i]);
		want[i] = got[i] = (uint32_t)i;
		keys[i] = prof_key_str(s[i]);
	}
	qsort_r(want, n, sizeof(uint32_t), cmp_str, s);
	prof_sort_keyed_r(got, keys, n, cmp_str, s);
	assert_memory_equal(want, got, n * sizeof(uint32_t));
	for (size_t i = 0; i < n; i++)
		free(s[i]);
	free(s);
	free(want);
	free(got);
	free(keys);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(doubles),
		cmocka_unit_test(double_keys),
		cmocka_unit_test(strings),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
