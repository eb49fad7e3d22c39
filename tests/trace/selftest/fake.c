/* A hand-instrumented program: does by hand what spyinstr.so inserts, so t000 can check
 * libspytrace on its own, without the plugin. Expected report: see t000-plugin-trace-selftest.sh.
 *   main -> a x10, a -> b x3, b -> c x2     (a 10, b 30, c 60)
 *   main -> l1 x5 -> l2 -> l3 -> longjmp     (15 frames repaired, no exits for l1..l3)
 *   2 threads: worker -> work x1000 each     (work 2000, worker 2)
 *   early(): called once by a constructor before the unit registers (counted in slot 0, and
 *            a call site in an uninstrumented function: callsite bad=1), then 4 times from main
 *   one exit hook for c without an enter     (unmatched_exit 1) */
#include <pthread.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>

#include "spy-abi.h"
#include "spytrace.h"

#define NOINL __attribute__((noinline, noipa))
#define BARRIER() __asm__ volatile("" ::: "memory")

extern struct spy_func __start_spy_funcs[], __stop_spy_funcs[];

#define RECORD(fn)                                                                              \
	static uint64_t fn##_slot;                                                              \
	static struct spy_func fn##_rec                                                         \
		__attribute__((section("spy_funcs"), used, aligned(8))) = { .addr = (void *)fn, \
									    .name = #fn,        \
									    .file = __FILE__,   \
									    .slot = &fn##_slot, \
									    .line = __LINE__,   \
									    .flags = SPY_FUNC_HOOKS }
/* The entry hook of ABI 5, as the plugin inserts it: its key, the caller's CFA, does not depend on the
 * callee's frame size, so the frames longjmp abandoned are repaired at the next call from main whatever
 * the compiler (or -fsanitize=thread, which gives early a larger frame than l1) made of each frame. */
#define ENTER(fn)                                                     \
	do {                                                          \
		uint64_t *p_ = __spy_counts;                          \
		if (!p_)                                              \
			p_ = __spy_counts_slow();                     \
		p_[fn##_slot]++;                                      \
		__spy_entry((void *)fn, __builtin_return_address(0), \
			    __builtin_dwarf_cfa());                   \
	} while (0)
#define EXIT(fn) __spy_exit((void *)fn)

NOINL void c(void);
NOINL void b(void);
NOINL void a(void);
NOINL void l1(void);
NOINL void l2(void);
NOINL void l3(void);
NOINL void work(void);
NOINL void *worker(void *);
NOINL void early(void);
NOINL void never(void);
int main(void);
RECORD(a);
RECORD(b);
RECORD(c);
RECORD(l1);
RECORD(l2);
RECORD(l3);
RECORD(work);
RECORD(worker);
RECORD(early);
RECORD(never);
RECORD(main);

static volatile int sink;
static jmp_buf env;

NOINL void c(void)
{
	ENTER(c);
	sink++;
	EXIT(c);
}

NOINL void b(void)
{
	ENTER(b);
	for (int i = 0; i < 2; i++)
		c();
	BARRIER();
	EXIT(b);
}

NOINL void a(void)
{
	ENTER(a);
	for (int i = 0; i < 3; i++)
		b();
	BARRIER();
	EXIT(a);
}

NOINL void l3(void)
{
	ENTER(l3);
	longjmp(env, 1);
}

NOINL void l2(void)
{
	ENTER(l2);
	l3();
	EXIT(l2);
}

NOINL void l1(void)
{
	ENTER(l1);
	l2();
	EXIT(l1);
}

NOINL void work(void)
{
	ENTER(work);
	__atomic_fetch_add(&sink, 1, __ATOMIC_RELAXED);
	EXIT(work);
}

NOINL void *worker(void *arg)
{
	ENTER(worker);
	for (int i = 0; i < 1000; i++)
		work();
	BARRIER();
	EXIT(worker);
	return arg;
}

NOINL void early(void)
{
	ENTER(early);
	sink++;
	EXIT(early);
}

NOINL void never(void)
{
	ENTER(never);
	EXIT(never);
}

__attribute__((constructor(101))) static void before_registration(void)
{
	early();
	BARRIER();
}

__attribute__((constructor)) static void reg(void)
{
	__spy_register_unit(__start_spy_funcs, __stop_spy_funcs, SPY_UNIT_TAG(SPY_MODE_TIME), NULL);
	/* a second unit of the same module: must be ignored */
	__spy_register_unit(__start_spy_funcs, __stop_spy_funcs, SPY_UNIT_TAG(SPY_MODE_TIME), NULL);
}

__attribute__((destructor)) static void unreg(void)
{
	__spy_unregister_unit(__start_spy_funcs, __stop_spy_funcs);
	__spy_unregister_unit(__start_spy_funcs, __stop_spy_funcs);
}

int main(void)
{
	ENTER(main);
	for (int i = 0; i < 10; i++)
		a();
	for (int i = 0; i < 5; i++)
		if (setjmp(env) == 0)
			l1();
	pthread_t t[2];
	for (int i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, worker, NULL);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	for (int i = 0; i < 4; i++)
		early();
	EXIT(c);
	BARRIER();
	EXIT(main);
	return 0;
}
