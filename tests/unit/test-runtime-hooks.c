/* unit: runtime/hooks.c runtime/arcs.c runtime/vm.c runtime/thread.c runtime/offcpu.c runtime/counters.c runtime/counts.c runtime/control.c runtime/env.c runtime/units.c runtime/modules.c runtime/write.c runtime/tsc.c renamed:common/gmon-io.c renamed:common/gmon-encode.c renamed:common/gmon-write.c renamed:common/gmon-decode.c renamed:common/gmon-read.c runtime/sample.c runtime/sample-src.c runtime/sample-wall.c runtime/sample-events.c runtime/sample-file.c runtime/sample-sig.c runtime/signals.c runtime/nodes.c runtime/trace.c runtime/sig-nest.c runtime/fold.c runtime/codemap.c runtime/stackmap.c runtime/tailsites.c runtime/secure.c runtime/stacks.c runtime/loads.c -lz */
/* The whole runtime, driven as the plugin drives it: functions here call __spy_enter and __spy_exit by
 * hand, and count through __spy_counts. Checked through the profile spy_dump() writes and the shared
 * reader: arc counts, recursion counted once, frames abandoned by longjmp, unmatched exits, frames of
 * __spy_arc (mode=arcs code) among frames with exit hooks,
 * registration (slots, dedupe, names that outlive the unit), exact counts across threads, and
 * spy_on/spy_off/spy_flush. */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <cmocka.h>

#include "spyrt.h"

#define NOINL __attribute__((noinline, noipa))
#define BARRIER() __asm__ volatile("" ::: "memory")
/* as the plugin inserts them; the barrier after the exit hook keeps it from becoming a tail call */
#define ENTER(fn) __spy_enter((void *)(fn), __builtin_return_address(0))
#define EXIT(fn)                          \
	do {                              \
		__spy_exit((void *)(fn)); \
		BARRIER();                \
	} while (0)

static char path[64];

static void load(struct gmon_profile *p)
{
	char err[256];

	assert_int_equal(spy_dump(path), 0);
	if (gmon_read_file(path, p, err, sizeof(err)))
		fail_msg("%s: %s", path, err);
}

/* Sum of the arcs caller -> callee over threads and call sites (caller 0: spontaneous). */
static uint64_t arcs(const struct gmon_profile *p, const void *caller, const void *callee, uint64_t *incl)
{
	uint64_t n = 0, in = 0;

	for (uint32_t t = 0; t < p->nthreads; t++)
		for (uint64_t i = 0; i < p->threads[t].narcs; i++) {
			const struct gmon_arc *a = &p->threads[t].arcs[i];

			if (a->caller == (uint64_t)(uintptr_t)caller &&
			    a->callee == (uint64_t)(uintptr_t)callee) {
				n += a->count;
				in += a->incl;
			}
		}
	if (incl)
		*incl = in;
	return n;
}

static const struct gmon_fstat *fstat(const struct gmon_profile *p, const void *fn)
{
	for (uint32_t t = 0; t < p->nthreads; t++)
		for (uint64_t i = 0; i < p->threads[t].nfstats; i++)
			if (p->threads[t].fstats[i].addr == (uint64_t)(uintptr_t)fn)
				return &p->threads[t].fstats[i];
	return NULL;
}

static __thread volatile uint64_t sink; /* per thread: the test's threads do not race on it */

static NOINL void leaf(void)
{
	ENTER(leaf);
	for (int i = 0; i < 50; i++)
		sink += (uint64_t)i;
	EXIT(leaf);
}

static NOINL void mid(int n)
{
	ENTER(mid);
	for (int i = 0; i < n; i++) {
		leaf();
		BARRIER();
	}
	EXIT(mid);
}

static NOINL void top(int n)
{
	ENTER(top);
	mid(n);
	BARRIER();
	leaf();
	EXIT(top);
}

static void test_arcs_and_times(void **state)
{
	struct gmon_profile p;
	uint64_t in_top, in_mid, in_leaf;
	const struct gmon_fstat *f;

	(void)state;
	spy_flush();
	for (int i = 0; i < 10; i++)
		top(3);
	load(&p);
	assert_int_equal(arcs(&p, NULL, top, &in_top), 10);
	assert_int_equal(arcs(&p, top, mid, &in_mid), 10);
	assert_int_equal(arcs(&p, mid, leaf, &in_leaf), 30);
	assert_int_equal(arcs(&p, top, leaf, NULL), 10);
	assert_true(in_top > in_mid && in_mid > in_leaf && in_leaf > 0);
	f = fstat(&p, leaf);
	assert_non_null(f);
	assert_int_equal(f->calls, 40);
	assert_true(f->min > 0 && f->min <= f->max && f->self == f->incl);
	{
		uint64_t h = 0;

		for (uint32_t k = 0; k < f->nhist; k++)
			h += f->hist[k];
		assert_int_equal(h, 40);
	}
	f = fstat(&p, top);
	assert_true(f->incl == in_top && f->self < f->incl);
	{
		uint64_t h = 0;

		/* top's last call was the last to end: its count is still pending (hooks.c) */
		for (uint32_t k = 0; k < f->nhist; k++)
			h += f->hist[k];
		assert_int_equal(h, 10);
	}
	assert_int_equal(p.hdr.mode, SPY_MODE_TIME);
	assert_true(p.hdr.tsc_hz > 0);
	assert_true(p.hdr.hook_out_mcyc > 0);
	gmon_profile_release(&p);
}

static NOINL void rec(int n)
{
	ENTER(rec);
	if (n > 0) {
		rec(n - 1);
		BARRIER();
		rec(n - 1);
		BARRIER();
	} else {
		leaf();
	}
	EXIT(rec);
}

static void test_recursion_counted_once(void **state)
{
	struct gmon_profile p;
	uint64_t outer, inner;
	const struct gmon_fstat *f;

	(void)state;
	spy_flush();
	rec(8);
	load(&p);
	assert_int_equal(arcs(&p, NULL, rec, &outer), 1);
	assert_int_equal(arcs(&p, rec, rec, &inner), 510);
	/* inner activations add no inclusive time: rec's is its outermost call's */
	assert_int_equal(inner, 0);
	f = fstat(&p, rec);
	assert_int_equal(f->calls, 511);
	assert_int_equal(f->incl, outer);
	/* its self time is its inclusive time less leaf's */
	assert_true(f->self < f->incl);
	gmon_profile_release(&p);
}

static jmp_buf env;

static NOINL void jump3(void)
{
	ENTER(jump3);
	longjmp(env, 1);
}

static NOINL void jump2(void)
{
	ENTER(jump2);
	jump3();
	EXIT(jump2);
}

static NOINL void jump1(void)
{
	ENTER(jump1);
	jump2();
	EXIT(jump1);
}

static NOINL void after(void)
{
	ENTER(after);
	EXIT(after);
}

static NOINL void longjmp_body(void)
{
	volatile int n = 0;

	ENTER(longjmp_body);
	if (setjmp(env) == 0)
		jump1();
	n++;
	after();
	EXIT(longjmp_body);
}

static void test_longjmp_repaired(void **state)
{
	struct gmon_profile p;

	(void)state;
	spy_flush();
	for (int i = 0; i < 5; i++)
		longjmp_body();
	load(&p);
	/* three frames abandoned by each longjmp, found dead at after()'s enter */
	assert_int_equal(p.hdr.abandoned, 15);
	assert_int_equal(p.hdr.unmatched, 0);
	assert_int_equal(arcs(&p, longjmp_body, jump1, NULL), 5);
	assert_int_equal(arcs(&p, jump2, jump3, NULL), 5);
	/* after() was called by longjmp_body, not by the dead jump3 */
	assert_int_equal(arcs(&p, longjmp_body, after, NULL), 5);
	assert_int_equal(arcs(&p, NULL, longjmp_body, NULL), 5);
	gmon_profile_release(&p);
}

/* ---- mode=arcs code (__spy_arc alone) called from code with exit hooks ---- */

#define ARC(fn) __spy_arc((void *)(fn), __builtin_dwarf_cfa())

static NOINL void aleaf(void)
{
	ARC(aleaf);
	sink++;
}

static NOINL void amid(int n)
{
	ARC(amid);
	for (int i = 0; i < n; i++) {
		aleaf();
		BARRIER();
	}
}

static NOINL void tparent(int n)
{
	ENTER(tparent);
	amid(n);
	BARRIER();
	aleaf();
	EXIT(tparent);
}

static void test_arc_hook_frames(void **state)
{
	struct gmon_profile p;
	const struct gmon_fstat *f;

	(void)state;
	spy_flush();
	for (int i = 0; i < 3; i++)
		tparent(4);
	load(&p);
	assert_int_equal(arcs(&p, tparent, amid, NULL), 3);
	assert_int_equal(arcs(&p, amid, aleaf, NULL), 12);
	/* amid returned: the aleaf() after it finds amid's frame at its own key and drops it */
	assert_int_equal(arcs(&p, tparent, aleaf, NULL), 3);
	/* frames without exit hooks end silently: tparent's exit drops them, nothing abandoned */
	assert_int_equal(p.hdr.abandoned, 0);
	assert_int_equal(p.hdr.unmatched, 0);
	f = fstat(&p, tparent);
	assert_non_null(f);
	assert_true(f->max >= f->min && f->max > 0);
	/* no times for functions without exit hooks: their calls only */
	f = fstat(&p, amid);
	assert_true(!f || (f->max == 0 && f->incl == 0));
	f = fstat(&p, aleaf);
	assert_true(!f || (f->max == 0 && f->incl == 0));
	gmon_profile_release(&p);
}

static NOINL void stray(void)
{
	EXIT(stray);
}

static void test_unmatched_exit(void **state)
{
	struct gmon_profile p;

	(void)state;
	spy_flush();
	stray();
	stray();
	load(&p);
	assert_int_equal(p.hdr.unmatched, 2);
	assert_int_equal(p.hdr.abandoned, 0);
	gmon_profile_release(&p);
}

/* ---- registration and counting, as a module's constructor and counters do ---- */

static uint64_t slot_a, slot_b;
static NOINL void func_a(void)
{
}
static NOINL void func_b(void)
{
}
static struct spy_func unit[2];
static char name_a[] = "func_a", name_b[] = "func_b", file_c[] = "unit.c";

static void count(uint64_t *slot, int n)
{
	for (int i = 0; i < n; i++) {
		uint64_t *c = __spy_counts;

		if (!c)
			c = __spy_counts_slow();
		c[*slot]++;
	}
}

static const struct gmon_func *func(const struct gmon_profile *p, const char *name)
{
	const struct gmon_func *found = NULL;

	for (uint32_t i = 0; i < p->nfuncsets; i++)
		for (uint32_t j = 0; j < p->funcsets[i].nr; j++)
			if (!strcmp(p->funcsets[i].funcs[j].name, name))
				found = &p->funcsets[i].funcs[j];
	return found;
}

static void register_unit(void)
{
	unit[0] = (struct spy_func){ (void *)func_a, name_a, file_c, &slot_a, 10, SPY_FUNC_HOOKS, 0 };
	unit[1] = (struct spy_func){ (void *)func_b, name_b, file_c, &slot_b, 20, SPY_FUNC_HOOKS, 0 };
	__spy_register_unit(unit, unit + 2, SPY_UNIT_TAG(SPY_MODE_TIME), NULL);
}

static void test_register(void **state)
{
	struct gmon_profile p;
	const struct gmon_func *f;
	uint32_t units = 0;

	(void)state;
	spy_flush();
	count(&slot_a, 3); /* before registration: slot 0, the unregistered count */
	register_unit();
	assert_true(slot_a > 0 && slot_b > 0 && slot_a != slot_b);
	/* another unit of the same module: the same records again, ignored */
	__spy_register_unit(unit, unit + 2, SPY_UNIT_TAG(SPY_MODE_TIME), NULL);
	count(&slot_a, 5);
	count(&slot_b, 7);
	/* the unit goes away (dlclose) and its strings with it: the names were copied */
	__spy_unregister_unit(unit, unit + 2);
	strcpy(name_a, "XXXXXX");
	load(&p);
	f = func(&p, "func_a");
	assert_non_null(f);
	assert_int_equal(f->count, 5);
	assert_int_equal(f->line, 10);
	assert_string_equal(f->file, "unit.c");
	assert_int_equal(f->addr, (uint64_t)(uintptr_t)func_a);
	assert_int_equal(func(&p, "func_b")->count, 7);
	assert_null(func(&p, "XXXXXX"));
	assert_int_equal(p.hdr.unregistered, 3);
	for (uint32_t i = 0; i < p.nfuncsets; i++)
		for (uint32_t j = 0; j < p.funcsets[i].nr; j++)
			units += !strcmp(p.funcsets[i].funcs[j].name, "func_a");
	assert_int_equal(units, 1);
	gmon_profile_release(&p);
	/* registered again (dlopen after dlclose): the same slots back */
	{
		uint64_t a = slot_a;

		strcpy(name_a, "func_a");
		slot_a = slot_b = 0;
		register_unit();
		assert_int_equal(slot_a, a);
	}
}

enum {
	THREADS = 8,
	PER_THREAD = 100000
};

static void *counting_thread(void *arg)
{
	(void)arg;
	count(&slot_b, PER_THREAD);
	for (int i = 0; i < 100; i++)
		leaf();
	return NULL;
}

static void test_threads_exact(void **state)
{
	pthread_t t[THREADS];
	struct gmon_profile p;
	uint32_t exited = 0;

	(void)state;
	spy_flush();
	for (int i = 0; i < THREADS; i++)
		assert_int_equal(pthread_create(&t[i], NULL, counting_thread, NULL), 0);
	for (int i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
	load(&p);
	/* every count of every thread, though all the threads are gone */
	assert_int_equal(func(&p, "func_b")->count, (uint64_t)THREADS * PER_THREAD);
	assert_int_equal(arcs(&p, NULL, leaf, NULL), THREADS * 100);
	for (uint32_t i = 0; i < p.nthreads; i++)
		exited += !!(p.threads[i].flags & GMON_THREAD_EXITED);
	assert_true(exited >= THREADS);
	gmon_profile_release(&p);
}

static void test_on_off_flush(void **state)
{
	struct gmon_profile p;

	(void)state;
	spy_flush();
	assert_true(spy_enabled());
	count(&slot_a, 5);
	top(1);
	spy_off();
	assert_false(spy_enabled());
	count(&slot_a, 3); /* not recorded */
	top(1);
	spy_on();
	count(&slot_a, 2);
	top(1);
	load(&p);
	assert_int_equal(func(&p, "func_a")->count, 7);
	assert_int_equal(arcs(&p, NULL, top, NULL), 2);
	assert_int_equal(arcs(&p, mid, leaf, NULL), 2);
	/* per-thread counts are left out once counts were excluded */
	gmon_profile_release(&p);
	spy_flush();
	count(&slot_a, 4);
	load(&p);
	assert_int_equal(func(&p, "func_a")->count, 4);
	assert_int_equal(arcs(&p, NULL, top, NULL), 0);
	gmon_profile_release(&p);
	spy_off();
	spy_flush(); /* while off: nothing is recorded until on */
	count(&slot_a, 9);
	spy_on();
	count(&slot_a, 1);
	load(&p);
	assert_int_equal(func(&p, "func_a")->count, 1);
	gmon_profile_release(&p);
}

static void test_flush_keeps_active_frames(void **state)
{
	struct gmon_profile p;
	uint64_t incl;

	(void)state;
	/* flush from inside a call: the frames on the stack go on, charged from the flush on */
	ENTER(test_flush_keeps_active_frames);
	spy_flush();
	leaf();
	EXIT(test_flush_keeps_active_frames);
	load(&p);
	assert_int_equal(arcs(&p, test_flush_keeps_active_frames, leaf, NULL), 1);
	assert_int_equal(p.hdr.unmatched, 0);
	/* its own arc has no call (it began before the flush) but has time */
	arcs(&p, NULL, test_flush_keeps_active_frames, &incl);
	assert_true(incl > 0);
	gmon_profile_release(&p);
}

static int setup(void **state)
{
	(void)state;
	snprintf(path, sizeof(path), "/tmp/test-runtime-hooks.%ld.out", (long)getpid());
	return 0;
}

/*
 * A context switch that the thread's perf ring shows after a tail call's exit took its time stamp:
 * the tail callee and its tail caller both end at that stamp (exit_slow pops them together), so the
 * interval off the CPU is neither's, but their caller's, whose call goes on (offcpu.c's drain, told
 * how many top frames end). The ring is a fake one: two switch records (out, in) 10 s ahead of now.
 */
static NOINL void tailed(void)
{
	BARRIER();
}

static NOINL void tailer(void)
{
	BARRIER();
}

/* the calls of tailer and tailed, from a frame below tail_host's (their slot: slots[4]) */
static NOINL void tail_seq(struct spy_thread *t, void *ra)
{
	uint64_t slots[8] = { 0 }, *cfa = &slots[5], head = 32;
	struct spy_offcpu saved = t->off;
	const uint64_t *saved_head = t->sw_head, saved_seen = t->sw_seen;
	struct {
		struct perf_event_header h;
		uint64_t time;
	} ring[2];
	struct timespec ts;
	uint64_t ns;

	slots[4] = (uint64_t)(uintptr_t)ra; /* the slot below cfa: a return address */
	__spy_entry((void *)tailer, ra, cfa);
	__spy_tail((void *)tailer, (void *)tailed, cfa);
	__spy_entry((void *)tailed, ra, cfa);
	clock_gettime(CLOCK_MONOTONIC, &ts);
	ns = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec + 10000000000u;
	ring[0].h = (struct perf_event_header){ PERF_RECORD_SWITCH, PERF_RECORD_MISC_SWITCH_OUT, 16 };
	ring[0].time = ns;
	ring[1].h = (struct perf_event_header){ PERF_RECORD_SWITCH, 0, 16 };
	ring[1].time = ns + 1000000;
	t->off.base = ring;
	t->off.data = (const uint8_t *)ring;
	t->off.size = 4096;
	t->off.out = 0;
	t->sw_head = &head;
	t->sw_seen = 0;
	__spy_leave((void *)tailed, cfa);
	BARRIER();
	/* the real ring back, with what the fake one charged */
	t->sw_head = saved_head;
	t->sw_seen = saved_seen;
	t->off.base = saved.base;
	t->off.data = saved.data;
	t->off.size = saved.size;
	t->off.out = saved.out;
	t->off.out_pre = saved.out_pre;
}

static NOINL void tail_host(struct spy_thread *t)
{
	ENTER(tail_host);
	tail_seq(t, (void *)tail_host); /* a call site: any code address */
	BARRIER();
	assert_int_equal(t->stack[t->depth - 1].self, (uint64_t)(uintptr_t)tail_host);
	EXIT(tail_host);
}

static uint64_t off_incl_into(const struct gmon_profile *p, const void *callee)
{
	uint64_t n = 0;

	for (uint32_t t = 0; t < p->nthreads; t++)
		for (uint64_t i = 0; p->threads[t].arcoffs && i < p->threads[t].narcs; i++)
			if (p->threads[t].arcs[i].callee == (uint64_t)(uintptr_t)callee)
				n += p->threads[t].arcoffs[i].incl;
	return n;
}

static void test_switch_after_tail_exit(void **state)
{
	struct gmon_profile p;
	struct spy_thread *t;

	(void)state;
	ENTER(test_switch_after_tail_exit); /* the thread's tables and, in mode time, its ring */
	t = spy_tls_thread;
	if (!t->off.on || !t->timed) {
		EXIT(test_switch_after_tail_exit);
		skip();
	}
	spy_flush();
	tail_host(t);
	EXIT(test_switch_after_tail_exit);
	load(&p);
	assert_int_equal(off_incl_into(&p, tailed), 0);
	assert_int_equal(off_incl_into(&p, tailer), 0);
	/* a millisecond, give or take the conversion */
	assert_true(off_incl_into(&p, tail_host) > 0);
	gmon_profile_release(&p);
}

static int teardown(void **state)
{
	(void)state;
	unlink(path);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_arcs_and_times),   cmocka_unit_test(test_recursion_counted_once),
		cmocka_unit_test(test_longjmp_repaired), cmocka_unit_test(test_unmatched_exit),
		cmocka_unit_test(test_register),         cmocka_unit_test(test_threads_exact),
		cmocka_unit_test(test_on_off_flush),     cmocka_unit_test(test_flush_keeps_active_frames),
		cmocka_unit_test(test_arc_hook_frames),  cmocka_unit_test(test_switch_after_tail_exit),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
