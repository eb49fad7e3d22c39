/* Start-up, the control word the hooks watch, the public API of spy.h (on, off, flush, enabled, dump),
 * SPYRT_START/STOP, fork, and the end of the run: the final write and the Multics ready message. */
#include "spyrt.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

uint64_t spy_ctl;
pthread_mutex_t spy_lock = PTHREAD_MUTEX_INITIALIZER;
int spy_ready;
uint32_t spy_mode = SPY_MODE_TIME;
int spy_forked;
int spy_forking;
uint64_t spy_start_ns, spy_start_mono_ns, spy_start_tsc, spy_calib_cpu_ns;
uint64_t spy_hook_out_mcyc, spy_hook_in_mcyc, spy_hook_arc_mcyc, spy_tsc_read_mcyc;
int64_t spy_hook_tail_in_mcyc, spy_hook_tail_out_mcyc;
uint64_t spy_start_addr, spy_stop_addr;
char spy_first_error[256];
int spy_first_error_said;

/* Whether the mode may still be lowered to count (units.c): 0 open, 1 fixed (a thread's hooks set up
 * their tables), 2 lowered. A thread about to set up its tables and a registration lowering the mode
 * race for it by one compare-and-swap. */
enum {
	MODE_OPEN,
	MODE_FIXED,
	MODE_LOWERED
};
static uint32_t mode_state;

int spy_mode_fix(void)
{
	uint32_t s = MODE_OPEN;

	if (__atomic_compare_exchange_n(&mode_state, &s, MODE_FIXED, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
		return 0;
	return s == MODE_LOWERED ? -1 : 0;
}

int spy_mode_lower_count(void)
{
	uint32_t s = MODE_OPEN;

	if (!__atomic_compare_exchange_n(&mode_state, &s, MODE_LOWERED, 0, __ATOMIC_SEQ_CST,
					 __ATOMIC_SEQ_CST) &&
	    s != MODE_LOWERED)
		return 0;
	spy_mode = SPY_MODE_COUNT;
	__atomic_store_n(&__spy_hooks, 0, __ATOMIC_RELAXED);
	return 1;
}

/* SPYRT_START/STOP: recording while starts exceed stops */
static uint64_t starts, stops;
/* SPYRT_START_THREAD=1: the thread that hit the start trigger first (Cedar's breakProcess); only its
 * triggers count, and only it records */
static struct spy_thread *followed;

/*
 * The add-one counters cannot test anything (they are inline): under SPYRT_START/STOP each thread's
 * hooks switch its slab pointer with its recording (spy_counts_window), and what spy_off() and
 * spy_flush() take away is subtracted when writing: excl holds the counts to forget, off_base the
 * totals at the last spy_off() (everything counted after it is forgotten too, while off).
 */
static uint64_t *excl, *off_base;
static uint32_t excl_n, off_base_n;
static int any_excluded;

static pthread_once_t init_once_ctl = PTHREAD_ONCE_INIT;
static int fini_done;

void spy_note_error(const char *fmt, ...)
{
	va_list ap;

	if (spy_first_error[0])
		return;
	char text[2048];
	size_t n, max = sizeof(spy_first_error) - 1, tail = 90;
	int r;

	va_start(ap, fmt);
	r = vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	if (r < 0)
		return;
	n = (size_t)r < sizeof(text) ? (size_t)r : sizeof(text) - 1;
	if (n <= max) {
		memcpy(spy_first_error, text, n + 1);
		return;
	}
	/* too long (a long name in it): its start and its end, which says what is wrong */
	r = snprintf(spy_first_error, max + 1, "%.*s [...] ", (int)(max - tail - 7), text);
	memcpy(spy_first_error + r, text + n - tail, tail + 1);
}

/* Totals of every slot now, malloc'ed; *n gets the slot count. */
static uint64_t *totals_now(uint32_t *n)
{
	uint64_t *t;

	*n = spy_nslots;
	t = malloc((size_t)*n * sizeof(*t));
	if (t)
		spy_counts_total(t, *n);
	else
		spy_note_error("out of memory: counts could not be excluded");
	return t;
}

int spy_counts_recorded(uint64_t *out, uint32_t n)
{
	int off = !(spy_ctl & SPY_CTL_ON);

	spy_counts_total(out, n);
	for (uint32_t i = 0; i < n; i++) {
		uint64_t v = out[i];

		if (off)
			v = i < off_base_n ? off_base[i] : 0;
		v -= i < excl_n ? excl[i] : 0;
		out[i] = v;
	}
	return any_excluded || off;
}

/* The fork handlers, like every entry from the program's code, keep its errno (SPY_KEEP_ERRNO). */
static void atfork_prepare(void)
{
	SPY_KEEP_ERRNO;

	SPY_SET(spy_forking, 1);
	pthread_mutex_lock(&spy_lock);
}

static void atfork_parent(void)
{
	SPY_KEEP_ERRNO;

	pthread_mutex_unlock(&spy_lock);
	SPY_SET(spy_forking, 0);
}

/* The child starts empty: its own run, from the fork on, written to its own file. */
static void atfork_child(void)
{
	SPY_KEEP_ERRNO;

	spy_forked = 1;
	spy_start_ns = spy_now_ns(CLOCK_REALTIME);
	spy_tsc_pair(&spy_start_tsc, &spy_start_mono_ns);
	spy_thread_atfork_child();
	spy_nodes_forked();
	memset(spy_graveyard, 0, (size_t)spy_nslots * sizeof(uint64_t));
	free(excl);
	excl = NULL;
	excl_n = 0;
	any_excluded = 0;
	if (off_base)
		memset(off_base, 0, (size_t)off_base_n * sizeof(uint64_t));
	spy_first_error[0] = 0;
	spy_first_error_said = 0;
	fini_done = 0;
	spy_stacks_atfork_child();
	pthread_mutex_unlock(&spy_lock);
	SPY_SET(spy_forking, 0);
}

static void init_once(void)
{
	SPY_KEEP_ERRNO;
	char **env = spy_env_trusted(environ, getauxval(AT_SECURE) != 0);
	uint64_t w = 0;

	spy_env_load(&spy_cfg, env);
	spy_out_anchor(&spy_cfg);
	spy_nodes_env(env);
	spy_mode = spy_cfg.mode;
	if (spy_mode == SPY_MODE_COUNT)
		__atomic_store_n(&__spy_hooks, 0, __ATOMIC_RELAXED);
	spy_trace_init();
	spy_thread_init();
	if (pthread_atfork(atfork_prepare, atfork_parent, atfork_child))
		spy_note_error("pthread_atfork failed: a forked child would not start empty");
	/* calibrate while the word says on, so the scratch thread takes the fast path; the run and
	 * its CPU time start after it: the profiler's start-up is not the program's */
	spy_ctl = SPY_CTL_ON;
	spy_calib_cpu_ns = spy_now_ns(CLOCK_PROCESS_CPUTIME_ID);
	spy_hooks_calibrate();
	spy_calib_cpu_ns = spy_now_ns(CLOCK_PROCESS_CPUTIME_ID) - spy_calib_cpu_ns;
	spy_start_ns = spy_now_ns(CLOCK_REALTIME);
	spy_tsc_pair(&spy_start_tsc, &spy_start_mono_ns);
	if (!spy_cfg.off)
		w |= SPY_CTL_ON;
	if (spy_cfg.start || spy_cfg.stop) {
		w |= SPY_CTL_WATCH;
		starts = spy_cfg.start ? 0 : 1; /* STOP alone: record until it is called */
	}
	/* calls:FUNC: every hook reaches spy_ctl_sync, which records FUNC's calls */
	if (spy_cfg.watch == GMON_WATCH_CALLS && spy_mode != SPY_MODE_COUNT) {
		if (!(w & SPY_CTL_WATCH))
			starts = 1; /* no START/STOP: recording is as spy_on/spy_off say */
		w |= SPY_CTL_WATCH;
	}
	spy_ctr_init();
	spy_samp_init();
	spy_sig_init();
	if (spy_cfg.off)
		off_base = totals_now(&off_base_n);
	spy_ctl_set(w);
	__atomic_store_n(&spy_ready, 1, __ATOMIC_RELEASE);
}

void spy_init(void)
{
	pthread_once(&init_once_ctl, init_once);
}

/* Also from a constructor: a program whose instrumented code runs no constructor still starts the
 * clock and validates its environment at start-up, not at the first call. */
__attribute__((constructor(101))) static void spy_ctor(void)
{
	SPY_KEEP_ERRNO;

	spy_may_init = 1;
	spy_init();
	/* the main thread is sampled from the start, even before its first instrumented call */
	if (spy_watch != GMON_WATCH_NONE)
		spy_thread_self();
}

/* Before any constructor has run, instrumented code may be called by the dynamic loader's or a
 * sanitizer's start-up (ASan's __asan_default_options), when even clock_gettime may not work yet:
 * such calls are not recorded, and set-up waits for a constructor. */
int spy_may_init;

int spy_try_init(void)
{
	if (likely(spy_ready))
		return 1;
	if (!__atomic_load_n(&spy_may_init, __ATOMIC_ACQUIRE))
		return 0;
	spy_init();
	return 1;
}

/*
 * A hook of a stale thread: clear stale, then read the word (a full fence between). spy_ctl_set()
 * stores the word, then sets stale: whichever order the two threads' stores land in, either the word
 * read here is the new one or stale ends up set again, so no change is missed.
 */
int spy_ctl_sync(struct spy_thread *t, uint64_t self, int enter)
{
	uint64_t w;
	int rec;

	__atomic_store_n(&t->stale, 0, __ATOMIC_SEQ_CST);
	w = __atomic_load_n(&spy_ctl, __ATOMIC_SEQ_CST);
	rec = (w & SPY_CTL_ON) != 0;
	if (SPY_CTL_EPOCH(w) != t->epoch) {
		/* spy_flush(): each thread empties its own tables, on its own next hook */
		spy_thread_reset(t);
		t->epoch = SPY_CTL_EPOCH(w);
	}
	/* a module dlclose'd: what this thread recorded at its addresses moves apart (loads.c) */
	if (unlikely(spy_loads_pending(t->loads_at)))
		spy_loads_sync(t);
	/* slots given to other functions (spy_acache_reslot) */
	if (unlikely(t->acache_gen != __atomic_load_n(&spy_acache_gen, __ATOMIC_SEQ_CST)))
		spy_acache_clear(t);
	if (w & SPY_CTL_WATCH) {
		/* Cedar: a stop break on the start's own procedure (or none) breaks at its exit, so
		 * START=STOP=f records f's activations, the outermost of a recursion from entry to exit */
		int at_exit = !spy_cfg.stop || spy_stop_addr == spy_start_addr, mine = 1;

		if (spy_cfg.start_thread) {
			struct spy_thread *f = __atomic_load_n(&followed, __ATOMIC_ACQUIRE);

			/* the first start hit picks the thread; a lost race reads the winner into f */
			if (!f && enter && self == spy_start_addr &&
			    __atomic_compare_exchange_n(&followed, &f, t, 0, __ATOMIC_ACQ_REL,
							__ATOMIC_ACQUIRE))
				f = t;
			mine = f == t;
		}
		if (mine && enter && self == spy_start_addr)
			__atomic_fetch_add(&starts, 1, __ATOMIC_RELAXED);
		else if (mine && enter == !at_exit && self == (at_exit ? spy_start_addr : spy_stop_addr))
			__atomic_fetch_add(&stops, 1, __ATOMIC_RELAXED);
		rec = rec && mine &&
		      __atomic_load_n(&starts, __ATOMIC_RELAXED) > __atomic_load_n(&stops, __ATOMIC_RELAXED);
		if (spy_watch == GMON_WATCH_CALLS)
			spy_samp_call_hook(t, self, enter, rec);
		/* the add-one counters are switched with the arcs, at every hook while watching (spy_off()
		 * alone subtracts its counts when writing: a thread may run no hook between it and
		 * spy_on()) */
		if (unlikely(rec == t->counts_off))
			spy_counts_window(t, self, enter, rec);
	}
	/* off or watching: every hook must come back here */
	if (!rec || (w & SPY_CTL_WATCH))
		t->stale = 1;
	return rec;
}

void spy_ctl_set(uint64_t w)
{
	__atomic_store_n(&spy_ctl, w, __ATOMIC_SEQ_CST);
	/* a folded thread's record (gone) may be being made new: stale already when it is live again */
	for (struct spy_thread *t = __atomic_load_n(&spy_threads, __ATOMIC_ACQUIRE); t; t = t->next)
		if (__atomic_load_n(&t->state, __ATOMIC_ACQUIRE) == SPY_THREAD_LIVE)
			__atomic_store_n(&t->stale, 1, __ATOMIC_SEQ_CST);
}

SPY_EXPORT void spy_on(void)
{
	SPY_KEEP_ERRNO;

	spy_init();
	pthread_mutex_lock(&spy_lock);
	if (!(spy_ctl & SPY_CTL_ON)) {
		uint32_t n;
		uint64_t *now = totals_now(&n);

		if (now && n > excl_n) {
			uint64_t *e = realloc(excl, (size_t)n * sizeof(*e));

			if (e) {
				memset(e + excl_n, 0, (size_t)(n - excl_n) * sizeof(*e));
				excl = e;
				excl_n = n;
			}
		}
		for (uint32_t i = 0; now && i < excl_n && i < n; i++)
			excl[i] += now[i] - (i < off_base_n ? off_base[i] : 0);
		free(now);
		any_excluded = 1;
		spy_ctl_set(spy_ctl | SPY_CTL_ON);
	}
	pthread_mutex_unlock(&spy_lock);
}

SPY_EXPORT void spy_off(void)
{
	SPY_KEEP_ERRNO;

	spy_init();
	pthread_mutex_lock(&spy_lock);
	if (spy_ctl & SPY_CTL_ON) {
		spy_ctl_set(spy_ctl & ~(uint64_t)SPY_CTL_ON);
		free(off_base);
		off_base = totals_now(&off_base_n);
	}
	pthread_mutex_unlock(&spy_lock);
}

SPY_EXPORT void spy_flush(void)
{
	SPY_KEEP_ERRNO;
	uint32_t n;
	uint64_t *now;

	spy_init();
	pthread_mutex_lock(&spy_lock);
	now = totals_now(&n);
	if (now) {
		free(excl);
		excl = now;
		excl_n = n;
		any_excluded = 1;
		if (!(spy_ctl & SPY_CTL_ON)) {
			free(off_base);
			off_base = malloc((size_t)n * sizeof(*off_base));
			off_base_n = off_base ? n : 0;
			if (off_base)
				memcpy(off_base, now, (size_t)n * sizeof(*off_base));
		}
	}
	spy_nodes_reset();
	/* exited threads' arcs and times go now; live threads drop theirs at their next hook */
	for (struct spy_thread *t = __atomic_load_n(&spy_threads, __ATOMIC_ACQUIRE); t; t = t->next)
		if (__atomic_load_n(&t->state, __ATOMIC_ACQUIRE) == SPY_THREAD_EXITED) {
			free(t->data.arcs);
			free(t->data.fstats);
			t->data.arcs = NULL;
			t->data.fstats = NULL;
			t->data.narcs = t->data.nfstats = 0;
			t->dropped_frames = t->abandoned = t->unmatched = 0;
			t->arcs.dropped_arcs = t->arcs.dropped_funcs = 0;
			spy_samp_forget(t); /* live threads empty their stack tables at their next sample */
		}
	spy_fold_forget();
	spy_ctl_set(spy_ctl + (1ull << 8));
	pthread_mutex_unlock(&spy_lock);
}

int spy_recording(const struct spy_thread *t)
{
	uint64_t w = __atomic_load_n(&spy_ctl, __ATOMIC_ACQUIRE);

	if (!(w & SPY_CTL_ON))
		return 0;
	if (w & SPY_CTL_WATCH) {
		if (spy_cfg.start_thread && __atomic_load_n(&followed, __ATOMIC_ACQUIRE) != t)
			return 0;
		return __atomic_load_n(&starts, __ATOMIC_RELAXED) > __atomic_load_n(&stops, __ATOMIC_RELAXED);
	}
	return 1;
}

SPY_EXPORT int spy_enabled(void)
{
	SPY_KEEP_ERRNO;

	spy_init();
	return spy_recording(spy_tls_thread);
}

SPY_EXPORT int spy_dump(const char *path)
{
	SPY_KEEP_ERRNO;

	spy_init();
	return spy_write(path, 0);
}

/* Multics' ready message: time of day, CPU seconds, page faults. */
static void ready_message(void)
{
	struct rusage ru;
	struct tm tm;
	time_t now = time(NULL);
	long cpu_us, cpu_ms;

	if (getrusage(RUSAGE_SELF, &ru) || !localtime_r(&now, &tm))
		return;
	/* less the start-up calibration, which is the profiler's */
	cpu_us = (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000L + ru.ru_utime.tv_usec +
		 ru.ru_stime.tv_usec;
	cpu_us -= cpu_us > (long)(spy_calib_cpu_ns / 1000u) ? (long)(spy_calib_cpu_ns / 1000u) : cpu_us;
	cpu_ms = cpu_us / 1000;
	spy_warn("r %02d:%02d:%02d %ld.%03ld cpu %ld faults (%ld major)", tm.tm_hour, tm.tm_min, tm.tm_sec,
		 cpu_ms / 1000, cpu_ms % 1000, ru.ru_minflt + ru.ru_majflt, ru.ru_majflt);
}

int spy_final_written(void)
{
	return __atomic_load_n(&fini_done, __ATOMIC_ACQUIRE);
}

void spy_write_final(void)
{
	__atomic_store_n(&fini_done, 1, __ATOMIC_RELEASE);
	spy_write(NULL, 1);
}

/* After the program's own destructors and atexit handlers (a shared library's destructors run
 * after the executable's; in a static link, priority 101 runs after the default ones). */
__attribute__((destructor(101))) static void spy_fini(void)
{
	SPY_KEEP_ERRNO; /* later destructors are the program's too */

	if (!spy_ready || fini_done)
		return;
	/* linked with libspyrt, but nothing instrumented registered (clang, no plugin): an empty
	 * profile would look like a run that called nothing */
	if (!spy_units && !spy_first_error[0] && !spy_nodes_passed()) {
		__atomic_store_n(&fini_done, 1, __ATOMIC_RELEASE);
		spy_warn("spy: no instrumented code registered (compiled without the spyinstr plugin, or by "
			 "another compiler): no profile written");
		if (spy_cfg.ready)
			ready_message();
		return;
	}
	if (spy_cfg.start && !spy_start_addr)
		spy_note_error("SPYRT_START=%s: no instrumented function has that name", spy_cfg.start);
	else if (spy_cfg.stop && !spy_stop_addr)
		spy_note_error("SPYRT_STOP=%s: no instrumented function has that name", spy_cfg.stop);
	else if (spy_watch == GMON_WATCH_CALLS && !spy_watch_addr)
		spy_note_error("SPYRT_WATCH=calls:%s: no instrumented function has that name",
			       spy_cfg.target);
	else if (spy_trace_on)
		spy_trace_check();
	/* the program's buffered output goes out first, whatever becomes of the profile (not if
	 * another thread holds stdout: exit's own flush does not wait for it either) */
	if (!ftrylockfile(stdout)) {
		fflush_unlocked(stdout);
		funlockfile(stdout);
	}
	spy_write_final();
	if (spy_cfg.ready)
		ready_message();
}
