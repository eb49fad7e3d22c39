/* unit: spinprof/read-spy.c spinprof/spy-model.c spinprof/prof.c spinprof/graph.c spinprof/u64map.c spinprof/symspec.c spinprof/pcname.c spinprof/symtab.c spinprof/modsym.c spinprof/sorted.c spinprof/linkmap.c spinprof/waits.c spinprof/librows.c common/gmon-io.c common/gmon-encode.c common/gmon-write.c common/gmon-decode.c common/gmon-read.c common/gmon-dump.c common/esc.c -lz */
/* spinprof/read-spy.c (a spy profile into the model) and spinprof/spy-model.c (the Spy report's numbers)
 * on the synthetic wall-clock profile of t206 (tests/e2e/spygen.h), known by construction: functions
 * main A B C D U T of an executable whose binary is gone (the plugin's names, files and lines), libc and
 * the runtime as modules without symbols, main called once from libc. Thread 100: 30 ticks C <- B <- A
 * <- main, 20 C <- D <- A <- main, 10 A <- main, 15 in libc <- U <- B <- A <- main, 5 in the profiler
 * over D <- A <- main, 8 waiting in U <- D <- A <- main; thread 101: 12 U <- T. So the program's 100 %
 * is 95 ticks (the profiler's 5 apart), 8 of them waiting; C has 50 self and total, A 10 self and 83
 * total (recursion none), U 20 self (12 running, 8 waiting) and 35 total, libc's module 15, main 83
 * total; thread 100 weighs 83, thread 101 12. The executable's last function ends with its module's
 * text, not at the next row above it (libc's). The same file read twice is summed: every weight and the
 * call of main doubles. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "../e2e/spygen.h"
#include "read.h"
#include "spy-model.h"

static char path[] = "/tmp/spy-model-XXXXXX";

/* the wall profile of t206, written to path */
static int setup(void **state)
{
	struct gmon_profile p;
	uint64_t ms = LIBC + 0x1500; /* main's call site in libc */
	int fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	close(fd);
	syn_profile(&p, 2, ms);
	sampling(&p, GMON_WATCH_WALL, 1000, 1, "");
	p.sampling->taken = 100;
	p.sampling->in_runtime = 5;
	thread(&p, 100);
	stack(30, 30000000, fa(C) + 0x10, 0, 4, C, fa(B) + 0x10, B, fa(A) + 0x10, A, fa(MAIN) + 0x10, MAIN,
	      ms);
	stack(20, 20000000, fa(C) + 0x20, 0, 4, C, fa(D) + 0x10, D, fa(A) + 0x20, A, fa(MAIN) + 0x10, MAIN,
	      ms);
	stack(10, 10000000, fa(A) + 0x30, 0, 2, A, fa(MAIN) + 0x10, MAIN, ms);
	stack(15, 15000000, LIBC + 0x1234, 0, 4, U, fa(B) + 0x20, B, fa(A) + 0x10, A, fa(MAIN) + 0x10, MAIN,
	      ms);
	stack(5, 5000000, SPYRT + 0x100, GMON_STACK_RUNTIME, 3, D, fa(A) + 0x20, A, fa(MAIN) + 0x10, MAIN,
	      ms);
	stack(8, 8000000, 0, GMON_STACK_WAITING, 4, U, fa(D) + 0x20, D, fa(A) + 0x20, A, fa(MAIN) + 0x10,
	      MAIN, ms);
	thread(&p, 101);
	stack(12, 12000000, fa(U) + 0x10, 0, 2, U, fa(T) + 0x10, T, LIBC + 0x2000);
	thread(&p, 0);
	assert_int_equal(syn_write(&p, path), 0);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	unlink(path);
	return 0;
}

static const struct sp_proc *proc(const struct sp_model *m, const char *name)
{
	for (size_t i = 0; i < m->nprocs; i++)
		if (m->procs[i].name && !strcmp(m->procs[i].name, name))
			return &m->procs[i];
	fail_msg("no procedure %s", name);
	return NULL;
}

static const struct prof_func *fn(const struct prof *p, const char *name)
{
	for (size_t i = 0; i < p->nsyms; i++)
		if (p->items[i].name && !strcmp(p->items[i].name, name))
			return &p->items[i];
	fail_msg("no function %s", name);
	return NULL;
}

static const struct sp_thread *thr(const struct sp_model *m, uint32_t tid)
{
	for (size_t i = 0; i < m->nthreads; i++)
		if (m->threads[i].tid == tid)
			return &m->threads[i];
	fail_msg("no thread %u", tid);
	return NULL;
}

/* the profile read n times (summed), analysed, and its Spy model */
static void model(struct prof *p, struct sp_model *m, int n)
{
	char *paths[2] = { path, path };
	struct read_opts o = { .demangle = 1 };

	prof_init(p);
	assert_int_equal(read_spy(p, paths, n, &o), 0);
	graph_analyse(p);
	assert_int_equal(sp_model_build(m, p, 1), 0);
}

static void check_model(const struct prof *p, const struct sp_model *m, double k)
{
	static const struct {
		const char *name;
		double self, total;
	} want[] = { { "main", 0, 83 }, { "A", 10, 83 }, { "B", 0, 45 }, { "C", 50, 50 },
		     { "D", 0, 28 },    { "T", 0, 12 },  { "U", 20, 35 } };

	/* read-spy.c: the plugin's names, files and lines; main's one call (spontaneous, from libc) */
	assert_int_equal(p->kind, PROF_SPY);
	for (int f = 0; f < NF; f++) {
		const struct prof_func *s = fn(p, names[f]);

		assert_int_equal(s->addr, fa(f));
		assert_string_equal(s->file, "syn.c");
		assert_int_equal(s->line, 5 + 10 * f);
	}
	assert_int_equal(fn(p, "main")->ncalls, (uint64_t)k);
	/* a function's range ends with its module's text: the executable's last function (T) does not
	 * reach into the code mapped above it (a PC there, as a signal's, is in no function) */
	assert_int_equal(prof_lookup(p, fa(T) + 0x10), (uint32_t)(fn(p, "T") - p->items));
	assert_int_equal(prof_lookup(p, exe + 0x10000), PROF_NONE);
	assert_int_equal(prof_lookup(p, exe + 0x20000), PROF_NONE);
	/* spy-model.c: the samples' weights */
	assert_true(m->sampled);
	assert_string_equal(m->unit, "ticks");
	assert_true(m->grand == 95 * k);
	assert_true(m->all == 100 * k);
	assert_true(m->in_runtime == 5 * k);
	assert_true(m->waiting == 8 * k);
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		const struct sp_proc *s = proc(m, want[i].name);

		if (s->self != want[i].self * k || s->total != want[i].total * k)
			fail_msg("%s: self %g total %g, want %g %g", want[i].name, s->self, s->total,
				 want[i].self * k, want[i].total * k);
	}
	assert_true(proc(m, "U")->wait == 8 * k);
	assert_true(proc(m, "[libc.so.6]")->self == 15 * k);
	assert_int_equal(proc(m, "[libc.so.6]")->kind, SP_MODULE);
	assert_int_equal(proc(m, "C")->refs, 2); /* from B and from D */
	assert_int_equal(proc(m, "U")->refs, 3); /* from B, D and T */
	assert_true(thr(m, 100)->w == 83 * k);
	assert_true(thr(m, 100)->wait == 8 * k);
	assert_true(thr(m, 101)->w == 12 * k);
}

/* the profile read n times: every weight n times the one file's */
static void read_n(int n)
{
	struct prof p;
	struct sp_model m;

	model(&p, &m, n);
	check_model(&p, &m, n);
	sp_model_release(&m);
	prof_release(&p);
}

static void test_one(void **state)
{
	(void)state;
	read_n(1);
}

static void test_summed(void **state)
{
	(void)state;
	read_n(2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_one),
		cmocka_unit_test(test_summed),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
