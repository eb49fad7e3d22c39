/* SPYRT_WATCH=wall: the sampler thread. Running threads are sampled by their own CPU timers (sample-src.c);
 * the real time a thread spends off the CPU is charged here, as waiting samples of its stack, read from
 * another thread without stopping or signalling it (a signal would cut its sleep short). */
#include "spyrt.h"

#include <errno.h>
#include <signal.h>
#include <time.h>

static pthread_t sampler;

/* A waiting sample of n periods for t, taken from another thread: the stack is copied while its
 * owner may run, so the depth is read before and after, and a copy that raced is taken again. */
static void record_waiting(struct spy_thread *t, uint64_t n)
{
	struct spy_samp *s = &t->samp;
	uint32_t flags = GMON_STACK_WAITING, k = 0, d = 0;
	uint64_t c0 = spy_cycles();
	int tries;

	if (!spy_samp_lock(t)) {
		__atomic_fetch_add(&s->dropped, n, __ATOMIC_RELAXED);
		return;
	}
	if (!spy_recording(t)) {
		SPY_SET(s->skipped, s->skipped + n);
		goto out;
	}
	for (tries = 0; tries < 4; tries++) {
		flags = GMON_STACK_WAITING;
		if (!__atomic_load_n(&t->tables, __ATOMIC_ACQUIRE) || !t->stack) {
			k = 0;
			break;
		}
		d = __atomic_load_n(&t->depth, __ATOMIC_ACQUIRE);
		if (d > t->stack_max)
			d = t->stack_max;
		k = spy_samp_copy(t, d, &flags);
		if (__atomic_load_n(&t->depth, __ATOMIC_ACQUIRE) == d)
			break;
	}
	if (tries == 4) {
		SPY_SET(s->dropped, s->dropped + n);
		goto out;
	}
	if (__atomic_load_n(&t->busy, __ATOMIC_RELAXED))
		flags |= GMON_STACK_RUNTIME;
	spy_samp_add(s, 0, flags, k, n, n * spy_samp_period);
	if (flags & GMON_STACK_RUNTIME)
		SPY_SET(s->in_runtime, s->in_runtime + n);
	SPY_SET(s->handler_cycles, s->handler_cycles + spy_cycles() - c0);
out:
	spy_samp_unlock(s);
}

/*
 * Every period: for each sampled thread, the real time that passed less the CPU time it used is time
 * off the CPU (blocked, or waiting for a CPU); each whole period of it is one waiting sample of its
 * stack. Its running time is sampled by its own CPU timer, so no thread is ever signalled from here.
 */
static void *sampler_main(void *arg)
{
	struct timespec next;

	(void)arg;
	clock_gettime(CLOCK_MONOTONIC, &next);
	while (!__atomic_load_n(&spy_samp_stopped, __ATOMIC_ACQUIRE)) {
		uint64_t now;

		next.tv_nsec += (long)(spy_samp_period % 1000000000u);
		next.tv_sec += (time_t)(spy_samp_period / 1000000000u) + next.tv_nsec / 1000000000;
		next.tv_nsec %= 1000000000;
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL) == EINTR)
			;
		now = spy_now_ns(CLOCK_MONOTONIC);
		/* a late wake-up (a loaded machine) does not make a burst of ticks */
		if ((uint64_t)next.tv_sec * 1000000000u + (uint64_t)next.tv_nsec + spy_samp_period < now) {
			next.tv_sec = (time_t)(now / 1000000000u);
			next.tv_nsec = (long)(now % 1000000000u);
		}
		for (struct spy_thread *t = __atomic_load_n(&spy_threads, __ATOMIC_ACQUIRE); t; t = t->next) {
			struct spy_samp *s = &t->samp;
			uint64_t cpu, el, used;

			/* the state first: a folded thread's record may be being made new */
			if (__atomic_load_n(&t->state, __ATOMIC_ACQUIRE) != SPY_THREAD_LIVE ||
			    !__atomic_load_n(&s->active, __ATOMIC_ACQUIRE))
				continue;
			cpu = spy_thread_cpu_ns(t->tid);
			if (!cpu)
				continue;
			el = now > s->last_mono ? now - s->last_mono : 0;
			used = cpu > s->last_cpu ? cpu - s->last_cpu : 0;
			s->last_mono = now;
			s->last_cpu = cpu;
			s->debt += el > used ? el - used : 0;
			if (s->debt >= spy_samp_period) {
				uint64_t n = s->debt / spy_samp_period;

				s->debt -= n * spy_samp_period;
				record_waiting(t, n);
			}
		}
	}
	return NULL;
}

void spy_samp_sampler_start(void)
{
	sigset_t all, old;

	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old); /* the sampler takes none of the program's signals */
	if (pthread_create(&sampler, NULL, sampler_main, NULL) == 0) {
		pthread_detach(sampler);
	} else {
		spy_samp_flags |= GMON_SAMP_NOSOURCE;
		spy_note_error("SPYRT_WATCH=wall: no sampler thread: blocked threads are not sampled");
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}
