/* unit: runtime/offcpu.c runtime/arcs.c runtime/vm.c */
/* The off-CPU accounting of mode time (offcpu.c) against a model of its rule, charged as the runtime
 * charged it before it kept the frames it has seen (each interval walked every open frame): on
 * random stacks of timed frames and frames of mode=arcs code (no time), recursion, frames that end
 * and others that take their place, switches read late, and exits whose own switch comes after them,
 * every arc's inclusive, self and preempted off-CPU time is the model's, exactly, at any moment (with
 * what the open frames are owed) and once every frame has ended. And where the kernel samples the PC
 * at each switch (waits): a sample read before the ring overran, whose own switch-out the overrun
 * took, gives its PC to no later switch (the interval after the overrun has no place, pc 0). */
#include <linux/perf_event.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "spyrt.h"

/* what offcpu.c and arcs.c take from the rest of the runtime */
uint64_t spy_start_mono_ns, spy_start_tsc;
uint32_t spy_trace_on;
void spy_note_error(const char *fmt, ...)
{
	(void)fmt;
	fail_msg("the runtime noted an error");
}
int spy_traced(uint64_t addr)
{
	(void)addr;
	return 0;
}
/* no module's code map and no hooked function: every arc takes the shadow stack's caller */
uint64_t spy_codemap_func(uint64_t pc)
{
	(void)pc;
	return 0;
}
int spy_hooked(uint64_t addr)
{
	(void)addr;
	return 0;
}
/* one clock for both: a cycle is a nanosecond, and the middle of an interval is exact */
void spy_tsc_pair(uint64_t *tsc, uint64_t *mono_ns)
{
	*tsc = *mono_ns = (uint64_t)1 << 40;
}

#define RING (1u << 16)
#define NFUNC 5
#define NSITE 4
#define MAXARC 4096

static struct spy_thread th;
static uint8_t ring[RING];
static uint64_t head;
static uint64_t now = 1000;
static uint64_t rng = 88172645463325252ull;
/* the model: each arc's off-CPU times, charged at every drain to the frames then on the stack */
static struct spy_arcoff model[MAXARC];
static uint64_t mark[MAXARC], serial;
/* the intervals written since the last drain */
static struct {
	uint64_t out, in;
	int pre;
} pend[1024];
static unsigned npend;

static uint32_t rnd(uint32_t n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)(rng % n);
}

static void put(uint32_t misc, uint64_t when)
{
	struct {
		struct perf_event_header h;
		uint64_t time;
	} r = { { PERF_RECORD_SWITCH, (uint16_t)misc, 16 }, when };

	memcpy(ring + head % RING, &r, sizeof(r));
	__atomic_store_n(&head, head + sizeof(r), __ATOMIC_RELEASE);
}

/* An interval off the CPU, from now on; the clock moves past it. */
static void switch_out(void)
{
	uint64_t out = now + 1 + rnd(5), in = out + 1 + rnd(1000);
	int pre = rnd(3) == 0;

	put(PERF_RECORD_MISC_SWITCH_OUT | (pre ? PERF_RECORD_MISC_SWITCH_OUT_PREEMPT : 0), out);
	put(0, in);
	pend[npend].out = out;
	pend[npend].in = in;
	pend[npend++].pre = pre;
	now = in + 1 + rnd(5);
}

/* The rule, as the runtime applied it interval by interval to the whole stack. */
static void model_charge(uint64_t out, uint64_t in, int pre, uint64_t top_end)
{
	uint64_t len = in - out, mid = (out + in) / 2;
	uint32_t inner = UINT32_MAX;

	serial++;
	for (uint32_t i = 0; i < th.depth; i++) {
		const struct spy_frame *f = &th.stack[i];

		if (spy_key_lazy(f->sp))
			continue;
		if (f->entry >= mid || (i + 1 == th.depth && top_end <= mid))
			break;
		inner = i;
		if (mark[f->func] != serial) {
			mark[f->func] = serial;
			model[f->arc].incl += len;
		}
	}
	if (inner != UINT32_MAX) {
		model[th.stack[inner].arc].self += len;
		if (pre)
			model[th.stack[inner].arc].self_pre += len;
	}
}

static void drain(uint64_t top_end)
{
	for (unsigned i = 0; i < npend; i++)
		model_charge(pend[i].out, pend[i].in, pend[i].pre, top_end);
	npend = 0;
	spy_offcpu_drain(&th, top_end);
}

static void push(int lazy)
{
	uint32_t n = th.depth, ai;
	struct spy_frame *f = &th.stack[n];
	uint64_t callee = 0x1000 * (1 + rnd(NFUNC)), site = 0x100000 + 16 * rnd(NSITE);

	/* a frame's key: below its caller's, bit 0 for mode=arcs code (whose entry, arc and function
	 * stay what the frame at that depth had before) */
	f->sp = (((uint64_t)1 << 40) - 64 * (n + 1)) | (uint64_t)lazy;
	f->self = callee;
	f->call_site = site;
	if (!lazy) {
		ai = spy_arcs_insert(&th.arcs, site, callee);
		assert_true(ai > 0 && ai < MAXARC);
		f->arc = ai;
		f->func = SPY_ARC_FUNC(th.arcs.arc[ai].func);
		f->entry = now;
		now += 1 + rnd(3);
	}
	th.depth = n + 1;
}

/* Every arc's times now, with what the open frames are owed, are the model's. */
static void compare(void)
{
	static struct spy_offowed owed[SPY_STACK_MAX];
	static uint64_t extra[MAXARC];
	uint32_t n = spy_offcpu_owed(&th, owed, SPY_STACK_MAX);

	memset(extra, 0, sizeof(extra));
	for (uint32_t i = 0; i < n; i++)
		extra[owed[i].arc] += owed[i].incl;
	for (uint32_t i = 0; i < th.arcs.narc; i++) {
		struct spy_arcoff got = { 0, 0, 0 };

		if (i < th.off.narcs)
			got = th.off.arcs[i];
		got.incl += extra[i];
		if (got.incl != model[i].incl || got.self != model[i].self ||
		    got.self_pre != model[i].self_pre)
			fail_msg("arc %u: incl %llu self %llu pre %llu, the model's %llu %llu %llu", i,
				 (unsigned long long)got.incl, (unsigned long long)got.self,
				 (unsigned long long)got.self_pre, (unsigned long long)model[i].incl,
				 (unsigned long long)model[i].self, (unsigned long long)model[i].self_pre);
	}
}

static void setup_thread(void)
{
	memset(&th, 0, sizeof(th));
	assert_int_equal(spy_arcs_init(&th.arcs, 64, MAXARC, 1), 0);
	/* the shadow stack, with the sentinel frame below it (the highest key), as thread.c makes it */
	th.stack = spy_map((size_t)(SPY_STACK_MAX + 1) * sizeof(*th.stack));
	assert_non_null(th.stack);
	th.stack->sp = UINT64_MAX;
	th.stack++;
	th.stack_max = SPY_STACK_MAX;
	th.timed = 1;
	/* a ring of our own, which the test writes as the kernel would */
	th.off.base = ring;
	th.off.data = ring;
	th.off.size = RING;
	th.off.on = 1;
	th.sw_head = &head;
	th.sw_seen = head;
	assert_int_equal(spy_vm_reserve(&th.off.vm, MAXARC * sizeof(struct spy_arcoff)), 0);
	th.off.arcs = th.off.vm.base;
	th.off.side = spy_map((size_t)(SPY_STACK_MAX + 1) * sizeof(*th.off.side));
	assert_non_null(th.off.side);
}

static void run(uint32_t steps, uint32_t max_depth)
{
	for (uint32_t step = 0; step < steps; step++) {
		uint32_t op = rnd(100);

		if (op < 35 && th.depth < max_depth) {
			push(rnd(6) == 0);
		} else if (op < 60 && th.depth) {
			th.depth--; /* an exit without a switch pending: the fast path */
		} else if (op < 75) {
			switch_out();
		} else if (op < 85 && th.depth) {
			/* an exit's slow path: its time stamp, perhaps a switch after it, the drain, the pop */
			uint64_t end = now++;

			if (rnd(3) == 0)
				switch_out();
			drain(spy_key_lazy(th.stack[th.depth - 1].sp) ? UINT64_MAX : end);
			th.depth--;
		} else if (op < 95) {
			drain(UINT64_MAX); /* an entry's slow path */
		} else {
			compare();
		}
	}
}

static void test_offcpu_model(void **state)
{
	(void)state;
	setup_thread();
	for (int round = 0; round < 200; round++) {
		/* deep stacks now and then: intervals charged far below the frames entered since */
		uint32_t max = 2 + rnd(round % 4 == 3 ? 3000 : 60);

		while (th.depth < max / 2)
			push(rnd(6) == 0);
		run(5000, max);
		compare();
	}
	/* the thread ends: its frames close, and nothing is left owed */
	drain(UINT64_MAX);
	th.depth = 0;
	spy_offcpu_settle(&th);
	assert_int_equal(th.off.nside, 0);
	compare();
	{
		uint64_t any = 0;

		for (uint32_t i = 0; i < MAXARC; i++)
			any += model[i].incl;
		assert_true(any > 0); /* the run charged something */
	}
}

static void put_sample(uint64_t pc)
{
	struct {
		struct perf_event_header h;
		uint64_t time, abi, pc;
	} r = { { PERF_RECORD_SAMPLE, 0, 32 }, now, 2, pc };

	memcpy(ring + head % RING, &r, sizeof(r));
	__atomic_store_n(&head, head + sizeof(r), __ATOMIC_RELEASE);
}

static void test_overrun_forgets_pc(void **state)
{
	const uint64_t stale = 0x5a5a0000; /* a PC no later switch may be charged to */

	(void)state;
	setup_thread();
	th.off.waits = 1;
	push(0);
	/* the sample of a switch-out, read; its switch-out not yet written */
	put_sample(stale);
	spy_offcpu_drain(&th, UINT64_MAX);
	/* blocked intervals without samples, more than the ring holds: the switch-out that went with
	 * the sample is overwritten before the next read */
	for (uint32_t k = 0; k < RING / 32 + 8; k++) {
		put(PERF_RECORD_MISC_SWITCH_OUT, now + 1);
		put(0, now + 2);
		now += 3;
	}
	spy_offcpu_drain(&th, UINT64_MAX);
	assert_true(th.off.lost > 0);
	assert_true(th.off.nwait > 0); /* the intervals read were charged as waits */
	for (uint32_t i = 0; i < th.off.nwait; i++)
		if (th.off.wait[i].pc == stale)
			fail_msg("wait %u: %llu intervals at the PC of a sample whose switch was lost", i,
				 (unsigned long long)th.off.wait[i].count);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_offcpu_model),
		cmocka_unit_test(test_overrun_forgets_pc),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
