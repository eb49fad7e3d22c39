/* unit: spinprof/waits.c */
/* spinprof/waits.c: Cedar's process states from the waits of a profile. glibc's decorated names made
 * bare ("__GI___clock_nanosleep", "__libc_read", "__read_nocancel", "@GLIBC_2.2.5"); the state of each
 * blocking call glibc 2.36 makes a thread wait in (its lock, futex, sleep and I/O paths); and the
 * places of a made-up profile of two threads whose waits name, through stubbed symbols, the same call
 * under the same function (one place, summed), an unnamed PC, a fault, the rest of a full table and a
 * wait with no PC: by state, by place, most cycles first, and the call as the report prints it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "common/esc.h"
#include "spinprof/pcname.h"
#include "spinprof/prof.h"
#include "spinprof/waits.h"

/* stubs for what waits.c uses of spinprof: one module, libc.so.6 at [0x1000, 0x9000), its
 * functions by PC range; instrumented functions at 0x100 ("locker") and 0x200 ("reader") */
static const struct {
	uint64_t lo, hi;
	const char *name;
} syms[] = {
	{ 0x1000, 0x1100, "__GI___clock_nanosleep" },
	{ 0x2000, 0x2100, "__lll_lock_wait" },
	{ 0x3000, 0x3100, "__libc_read" },
	{ 0x4000, 0x4100, "__futex_abstimed_wait_common64" },
	{ 0x5000, 0x5100, "waitpid" },
};

void pcname_init(struct pcname *n, const struct gmon_profile *g, int warn)
{
	memset(n, 0, sizeof(*n));
	n->g = g;
	(void)warn;
}

void pcname_release(struct pcname *n)
{
	(void)n;
}

const char *pcname_func(struct pcname *n, int mi, uint64_t a, uint64_t *start)
{
	(void)n;
	assert_int_equal(mi, 0);
	for (size_t i = 0; i < sizeof(syms) / sizeof(syms[0]); i++)
		if (a >= syms[i].lo && a < syms[i].hi) {
			*start = syms[i].lo;
			return syms[i].name;
		}
	return NULL;
}

const char *pcname_module(const struct pcname *n, int mi)
{
	(void)n;
	return mi == 0 ? "libc.so.6" : "?";
}

int gmon_module_at(const struct gmon_profile *p, uint64_t addr)
{
	(void)p;
	return addr >= 0x1000 && addr < 0x9000 ? 0 : -1;
}

uint32_t prof_at(const struct prof *p, uint64_t a)
{
	(void)p;
	return a == 0x100 ? 0 : a == 0x200 ? 1 : PROF_NONE;
}

void *xrealloc(void *ptr, size_t n)
{
	void *q = realloc(ptr, n);

	assert_non_null(q);
	return q;
}

const char *esc_text(const char *s)
{
	return s;
}

static void bare(const char *in, const char *want)
{
	char out[64];

	wait_bare_name(in, out, sizeof(out));
	if (strcmp(out, want))
		fail_msg("%s: %s, not %s", in, out, want);
}

static void test_bare_names(void **state)
{
	(void)state;
	bare("__GI___clock_nanosleep", "clock_nanosleep");
	bare("__clock_nanosleep_time64", "clock_nanosleep");
	bare("__libc_read", "read");
	bare("__read_nocancel", "read");
	bare("read@GLIBC_2.2.5", "read");
	bare("__GI___pthread_mutex_lock", "pthread_mutex_lock");
	bare("epoll_wait", "epoll_wait");
	bare("__futex_abstimed_wait_common64", "futex_abstimed_wait_common64");
	bare("_", "");
	bare("_ZN11__sanitizer9FutexWaitEPNS_15atomic_uint32_tEj",
	     "_ZN11__sanitizer9FutexWaitEPNS_15atomic_uint32_tEj");
}

static void test_states(void **state)
{
	static const struct {
		const char *name;
		enum wait_state st;
	} c[] = {
		{ "lll_lock_wait", WAIT_LOCK },
		{ "lll_lock_wait_private", WAIT_LOCK },
		{ "pthread_mutex_lock", WAIT_LOCK },
		{ "pthread_rwlock_rdlock", WAIT_LOCK },
		{ "flock", WAIT_LOCK },
		{ "futex_abstimed_wait_common", WAIT_COND },
		{ "futex_abstimed_wait_common64", WAIT_COND },
		{ "pthread_cond_wait", WAIT_COND },
		{ "sem_wait", WAIT_COND },
		{ "pthread_join", WAIT_COND },
		{ "clock_nanosleep", WAIT_SLEEP },
		{ "nanosleep", WAIT_SLEEP },
		{ "pause", WAIT_SLEEP },
		{ "sigtimedwait", WAIT_SLEEP },
		{ "read", WAIT_IO },
		{ "recvmsg", WAIT_IO },
		{ "epoll_wait", WAIT_IO },
		{ "poll", WAIT_IO },
		{ "select", WAIT_IO },
		{ "fsync", WAIT_IO },
		{ "accept4", WAIT_IO },
		{ "waitpid", WAIT_OTHER },
		{ "readlink", WAIT_OTHER }, /* a whole name, not a part: not read */
		{ "sched_yield", WAIT_OTHER },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++)
		if (wait_state_of(c[i].name) != c[i].st)
			fail_msg("%s: %s, not %s", c[i].name, wait_state_name[wait_state_of(c[i].name)],
				 wait_state_name[c[i].st]);
}

static void test_places(void **state)
{
	struct gmon_wait w1[] = {
		{ 0x1010, 0x100, GMON_WAIT_SYSCALL, 1, 300 }, /* clock_nanosleep under locker */
		{ 0x2020, 0x100, GMON_WAIT_SYSCALL, 2, 500 }, /* lll_lock_wait under locker */
		{ 0x8000, 0x200, GMON_WAIT_SYSCALL, 1, 70 },  /* unnamed, in libc */
		{ 0x7777, 0x200, GMON_WAIT_FAULT, 3, 40 },    /* a fault, named nowhere */
		{ 0, 0, GMON_WAIT_OTHER, 9, 20 },             /* the rest */
	};
	struct gmon_wait w2[] = {
		{ 0x2030, 0x100, GMON_WAIT_SYSCALL, 1, 250 }, /* lll_lock_wait under locker again */
		{ 0x3010, 0x200, GMON_WAIT_SYSCALL, 4, 100 }, /* read under reader */
		{ 0x4000, 0, GMON_WAIT_SYSCALL, 1, 90 },      /* a futex wait, no function */
		{ 0x5050, 0x200, GMON_WAIT_SYSCALL, 1, 10 },  /* waitpid */
		{ 0, 0x200, GMON_WAIT_UNREAD, 1, 5 },         /* no PC */
	};
	struct gmon_thread th[2];
	struct prof_func items[2];
	struct prof *p = calloc(1, sizeof(*p));
	struct wait_place *w;
	uint64_t by[WAIT_NSTATES];
	char call[128];
	size_t n;

	(void)state;
	assert_non_null(p);
	memset(th, 0, sizeof(th));
	memset(items, 0, sizeof(items));
	items[0].name = "locker";
	items[1].name = "reader";
	p->items = items;
	th[0].flags = th[1].flags = GMON_THREAD_WAITS;
	th[0].waits = w1;
	th[0].nwaits = 5;
	th[1].waits = w2;
	th[1].nwaits = 5;
	p->spy.threads = th;
	p->spy.nthreads = 2;

	n = wait_places(p, NULL, &w, by);
	assert_int_equal(n, 9);
	assert_int_equal(by[WAIT_LOCK], 750);
	assert_int_equal(by[WAIT_SLEEP], 300);
	assert_int_equal(by[WAIT_IO], 100);
	assert_int_equal(by[WAIT_COND], 90);
	assert_int_equal(by[WAIT_FAULT], 40);
	assert_int_equal(by[WAIT_OTHER], 70 + 20 + 10 + 5);
	/* most cycles first; the two lock waits of one call under one function are one place */
	assert_string_equal(w[0].name, "lll_lock_wait");
	assert_string_equal(w[0].under, "locker");
	assert_int_equal(w[0].count, 3);
	assert_int_equal(w[0].cycles, 750);
	wait_call(&w[0], call, sizeof(call));
	assert_string_equal(call, "lll_lock_wait [libc.so.6]");
	assert_int_equal(w[1].st, WAIT_SLEEP);
	assert_int_equal(w[2].st, WAIT_IO);
	assert_int_equal(w[2].count, 4);
	assert_int_equal(w[3].st, WAIT_COND);
	assert_string_equal(w[3].under, "-");
	assert_int_equal(w[4].st, WAIT_OTHER); /* the unnamed PC */
	wait_call(&w[4], call, sizeof(call));
	assert_string_equal(call, "0x8000 [libc.so.6]");
	assert_int_equal(w[5].st, WAIT_FAULT);
	wait_call(&w[5], call, sizeof(call));
	assert_string_equal(call, "at 0x7777 [libc.so.6]");
	wait_call(&w[6], call, sizeof(call));
	assert_string_equal(call, "(the rest: more places than the thread's table holds)");
	assert_string_equal(w[7].name, "waitpid");
	assert_int_equal(w[7].st, WAIT_OTHER);
	wait_call(&w[8], call, sizeof(call));
	assert_string_equal(call, "(no sample said where)");
	free(w);

	/* one thread's */
	n = wait_places(p, &th[1], &w, by);
	assert_int_equal(n, 5);
	assert_int_equal(by[WAIT_LOCK], 250);
	assert_int_equal(by[WAIT_SLEEP], 0);
	free(w);
	free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bare_names),
		cmocka_unit_test(test_states),
		cmocka_unit_test(test_places),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
