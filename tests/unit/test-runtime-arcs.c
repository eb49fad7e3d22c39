/* unit: runtime/arcs.c runtime/vm.c */
/* The three-level arc tables: lookups, call sites whose 16-bit hashes collide, growth of the pools
 * (entries keep their indices and contents), the hard limit (updates go to the sink and are
 * counted), the function table, reset, and the SPYRT_TRACE bit of the arcs of traced callees. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "spyrt.h"

/* trace.c's, which this test does not link: one traced function */
uint32_t spy_trace_on;
int spy_traced(uint64_t addr)
{
	return addr == 0x402000;
}

/* codemap.c's and units.c's: one instrumented function at 0x500000 (256 bytes), with hooks, and one
 * at 0x600000 without */
uint64_t spy_codemap_func(uint64_t pc)
{
	if (pc >= 0x500000 && pc < 0x500100)
		return 0x500000;
	if (pc >= 0x600000 && pc < 0x600100)
		return 0x600000;
	return 0;
}
int spy_hooked(uint64_t addr)
{
	return addr == 0x500000;
}

static void test_find_insert(void **state)
{
	struct spy_arcs a;
	uint32_t i, j, k;

	(void)state;
	assert_int_equal(spy_arcs_init(&a, 16, 1024, 0), 0);
	i = spy_arcs_find(&a, 0x401000, 0x402000);
	assert_true(i > 0);
	a.arc[i].count = 7;
	assert_int_equal(spy_arcs_find(&a, 0x401000, 0x402000), i);
	/* same call site, another callee (a call through a pointer): a second arc of the site */
	j = spy_arcs_find(&a, 0x401000, 0x403000);
	assert_true(j > 0 && j != i);
	/* same callee from another site */
	k = spy_arcs_find(&a, 0x401010, 0x402000);
	assert_true(k > 0 && k != i && k != j);
	assert_int_equal(a.arc[i].count, 7);
	assert_int_equal(a.arc[j].callee, 0x403000);
	assert_int_equal(a.nsite, 3); /* sink + 2 sites */
	assert_int_equal(a.narc, 4);  /* sink + 3 arcs */
	assert_null(a.fstat);         /* not timed */
	assert_int_equal(a.arc[i].func, 0);
	spy_arcs_release(&a);
}

/* an arc into a traced function carries SPY_ARC_TRACED beside its function-table index (mode time) */
static void test_traced(void **state)
{
	struct spy_arcs a;
	uint32_t i, j;

	(void)state;
	spy_trace_on = 1;
	assert_int_equal(spy_arcs_init(&a, 16, 1024, 1), 0);
	i = spy_arcs_find(&a, 0x401000, 0x402000);
	j = spy_arcs_find(&a, 0x401000, 0x403000);
	assert_true(a.arc[i].func & SPY_ARC_TRACED);
	assert_false(a.arc[j].func & SPY_ARC_TRACED);
	assert_int_equal(a.fstat[SPY_ARC_FUNC(a.arc[i].func)].addr, 0x402000);
	assert_int_equal(a.fstat[SPY_ARC_FUNC(a.arc[j].func)].addr, 0x403000);
	spy_arcs_release(&a);
	spy_trace_on = 0;
}

/* An arc whose call site lies in a function with hooks has that function as its caller from the
 * start (SITED, kept apart from the callee's index); one from code without hooks has none yet. */
static void test_sited(void **state)
{
	struct spy_arcs a;
	uint32_t i, j, k;

	(void)state;
	assert_int_equal(spy_arcs_init(&a, 16, 1024, 1), 0);
	i = spy_arcs_find(&a, 0x500040, 0x402000);
	j = spy_arcs_find(&a, 0x600040, 0x402000);
	k = spy_arcs_find(&a, 0x700040, 0x402000);
	assert_true(i && j && k);
	assert_true(a.arc[i].func & SPY_ARC_SITED);
	assert_int_equal(a.arc[i].caller, 0x500000);
	assert_false(a.arc[j].func & SPY_ARC_SITED);
	assert_false(a.arc[k].func & SPY_ARC_SITED);
	assert_int_equal(a.arc[j].caller, 0);
	/* the callee's entry in the function table is the same for all three */
	assert_int_equal(SPY_ARC_FUNC(a.arc[i].func), SPY_ARC_FUNC(a.arc[k].func));
	assert_true(SPY_ARC_FUNC(a.arc[i].func) > 0);
	spy_arcs_release(&a);
}

static void test_collisions(void **state)
{
	enum {
		N = 64
	};
	uint64_t pcs[N];
	uint32_t idx[N];
	struct spy_arcs a;
	int n = 0;

	(void)state;
	/* call sites with one 16-bit hash: they share a level-1 slot and chain in level 2 */
	for (uint64_t pc = 0x555555554000; n < N; pc += 0x10001)
		if (spy_site_hash(pc) == spy_site_hash(0x555555554000))
			pcs[n++] = pc;
	assert_int_equal(spy_arcs_init(&a, 16, 4096, 0), 0);
	for (int i = 0; i < N; i++) {
		idx[i] = spy_arcs_find(&a, pcs[i], 0x1000 + (uint64_t)i);
		assert_true(idx[i] > 0);
		a.arc[idx[i]].count = (uint64_t)i + 1;
	}
	for (int i = 0; i < N; i++) {
		assert_int_equal(spy_arcs_find(&a, pcs[i], 0x1000 + (uint64_t)i), idx[i]);
		assert_int_equal(a.arc[idx[i]].count, i + 1);
	}
	assert_int_equal(a.nsite, N + 1);
	/* one chain: a single level-1 slot is used */
	{
		int used = 0;

		for (uint32_t h = 0; h < (1u << SPY_L1_BITS); h++)
			used += a.head[h] != 0;
		assert_int_equal(used, 1);
	}
	spy_arcs_release(&a);
}

static void test_growth(void **state)
{
	enum {
		N = 3000
	};
	static uint32_t idx[N];
	struct spy_arcs a;

	(void)state;
	assert_int_equal(spy_arcs_init(&a, 4, 8192, 1), 0);
	assert_int_equal(a.arc_alloc, 4);
	for (int i = 0; i < N; i++) {
		/* 3 callees per site */
		idx[i] =
			spy_arcs_find(&a, 0x10000 + (uint64_t)(i / 3) * 7, 0x900000 + (uint64_t)(i % 3) * 16);
		assert_true(idx[i] > 0);
		a.arc[idx[i]].count += (uint64_t)i;
	}
	assert_true(a.arc_alloc >= N + 1);
	assert_int_equal(a.narc, N + 1);
	assert_int_equal(a.nsite, N / 3 + 1);
	assert_int_equal(a.nfstat, 4); /* sink + 3 callees */
	for (int i = 0; i < N; i++) {
		uint32_t j =
			spy_arcs_find(&a, 0x10000 + (uint64_t)(i / 3) * 7, 0x900000 + (uint64_t)(i % 3) * 16);

		assert_int_equal(j, idx[i]);
		assert_int_equal(a.arc[j].count, i);
		assert_int_equal(a.fstat[a.arc[j].func].addr, 0x900000 + (uint64_t)(i % 3) * 16);
	}
	assert_int_equal(a.dropped_arcs, 0);
	spy_arcs_release(&a);
}

static void test_overflow(void **state)
{
	struct spy_arcs a;
	uint32_t first;

	(void)state;
	assert_int_equal(spy_arcs_init(&a, 4, 64, 1), 0);
	first = spy_arcs_find(&a, 0x5000, 0x6000);
	for (uint64_t i = 1; i < 63; i++)
		assert_true(spy_arcs_find(&a, 0x5000 + i, 0x6000) > 0);
	assert_int_equal(a.narc, 64);
	/* full: new arcs go to the sink, each update counted */
	for (int k = 0; k < 10; k++)
		assert_int_equal(spy_arcs_find(&a, 0x9000, 0x6000), 0);
	assert_int_equal(a.dropped_arcs, 10);
	/* what is there is still found, and costs nothing */
	assert_int_equal(spy_arcs_find(&a, 0x5000, 0x6000), first);
	assert_int_equal(a.dropped_arcs, 10);
	/* a new callee of an existing site is dropped too */
	assert_int_equal(spy_arcs_find(&a, 0x5000, 0x7000), 0);
	assert_int_equal(a.dropped_arcs, 11);
	/* the function table has its own limit (min(max, its hard limit)) */
	for (uint64_t i = 0; i < 100; i++)
		spy_fstat_get(&a, 0x100000 + i);
	assert_int_equal(a.nfstat, 64);
	assert_int_equal(a.dropped_funcs, 100 - 62);
	assert_int_equal(spy_fstat_get(&a, 0x100000 + 99), 0);
	spy_arcs_release(&a);
}

static void test_fstat(void **state)
{
	struct spy_arcs a;
	uint32_t f, g;

	(void)state;
	assert_int_equal(spy_arcs_init(&a, 16, 1024, 1), 0);
	f = spy_fstat_get(&a, 0xabc0);
	g = spy_fstat_get(&a, 0xdef0);
	assert_true(f > 0 && g > 0 && f != g);
	assert_int_equal(spy_fstat_get(&a, 0xabc0), f);
	assert_int_equal(a.fstat[f].min, UINT64_MAX); /* no call yet */
	assert_int_equal(a.fstat[f].depth, 0);
	/* arcs into one callee share its entry */
	assert_int_equal(a.arc[spy_arcs_find(&a, 1, 0xabc0)].func, f);
	assert_int_equal(a.arc[spy_arcs_find(&a, 2, 0xabc0)].func, f);
	spy_arcs_release(&a);
}

static void test_reset(void **state)
{
	struct spy_arcs a;
	uint32_t i;

	(void)state;
	assert_int_equal(spy_arcs_init(&a, 8, 1024, 1), 0);
	for (uint64_t k = 0; k < 100; k++)
		a.arc[spy_arcs_find(&a, 0x100 + k, 0x200)].count++;
	spy_arcs_reset(&a);
	assert_int_equal(a.narc, 1);
	assert_int_equal(a.nsite, 1);
	assert_int_equal(a.nfstat, 1);
	for (uint32_t h = 0; h < (1u << SPY_L1_BITS); h++)
		assert_int_equal(a.head[h], 0);
	i = spy_arcs_find(&a, 0x150, 0x200);
	assert_int_equal(i, 1);
	assert_int_equal(a.arc[i].count, 0); /* entries are made afresh */
	spy_arcs_release(&a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_find_insert), cmocka_unit_test(test_collisions),
		cmocka_unit_test(test_traced),      cmocka_unit_test(test_growth),
		cmocka_unit_test(test_overflow),    cmocka_unit_test(test_fstat),
		cmocka_unit_test(test_reset),       cmocka_unit_test(test_sited),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
