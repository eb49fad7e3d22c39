/* Sampling's event sources, one per thread: a POSIX timer on the thread's CPU clock (cpu, wall), or a
 * software perf event that signals the thread itself on overflow (faults; the task clock when no timer
 * can be made). The SIGPROF handler that receives them is in sample.c. */
#include "spyrt.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

void spy_samp_timer_stop(struct spy_samp *s)
{
	/* the owner (retiring) and the final write may race: one deletes */
	if (__atomic_exchange_n(&s->has_timer, 0, __ATOMIC_ACQ_REL))
		timer_delete((timer_t)s->timer);
}

static int timer_start(struct spy_thread *t)
{
	struct spy_samp *s = &t->samp;
	struct sigevent ev;
	struct itimerspec its;
	timer_t tm;

	memset(&ev, 0, sizeof(ev));
	ev.sigev_notify = SIGEV_THREAD_ID;
	ev.sigev_signo = SIGPROF;
	ev._sigev_un._tid = t->tid;
	if (timer_create(CLOCK_THREAD_CPUTIME_ID, &ev, &tm))
		return -1;
	its.it_value.tv_sec = (time_t)(spy_samp_period / 1000000000u);
	its.it_value.tv_nsec = (long)(spy_samp_period % 1000000000u);
	its.it_interval = its.it_value;
	s->timer = tm;
	__atomic_store_n(&s->has_timer, 1, __ATOMIC_RELEASE);
	if (timer_settime(tm, 0, &its, NULL)) {
		spy_samp_timer_stop(s);
		return -1;
	}
	return 0;
}

int spy_no_hwcount;

/* A perf event of type and config of thread tid, disabled: software (faults, the task clock) and
 * hardware counters (SPYRT_WATCH=cycles, ...) take the same path. */
static int perf_open(pid_t tid, uint32_t type, uint64_t config, uint64_t period, int exclude_kernel,
		     uint64_t sample_type)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = type;
	a.config = config;
	a.sample_period = period;
	a.wakeup_events = 1;
	a.exclude_kernel = (unsigned)exclude_kernel;
	a.exclude_hv = 1;
	a.disabled = 1;
	a.sample_type = sample_type;
	return (int)syscall(SYS_perf_event_open, &a, tid, -1, -1, PERF_FLAG_FD_CLOEXEC);
}

/*
 * A software event of the thread that signals SIGPROF to the thread itself on every overflow. Kernel
 * mode is excluded: an overflow there would leave a signal pending inside a system call, and a sleep
 * would end early with EINTR. The count read at the next signal still includes that time.
 */
static int perf_start(struct spy_thread *t, uint32_t type, uint64_t config, uint64_t period, char *why,
		      size_t sz)
{
	struct f_owner_ex own = { F_OWNER_TID, t->tid };
	/* page faults with SPYRT_FAULT_TRACE: each sample also holds its IP and address, in a ring */
	int ftrace = type == PERF_TYPE_SOFTWARE && config == PERF_COUNT_SW_PAGE_FAULTS && spy_cfg.fault_trace;
	int fd = perf_open(t->tid, type, config, period, 1, ftrace ? PERF_SAMPLE_IP | PERF_SAMPLE_ADDR : 0);

	if (fd < 0) {
		snprintf(why, sz, "perf_event_open: %s", strerror(errno));
		return -1;
	}
	if (ftrace) {
		size_t len = (SPY_FAULT_RING_PAGES + 1) * (size_t)sysconf(_SC_PAGESIZE);
		/* read-only: a write to it could fault, and signal, again and again (offcpu.c) */
		void *ring = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);

		if (ring != MAP_FAILED) {
			t->samp.fring = ring;
			t->samp.fring_len = len;
			t->samp.fring_seen = 0;
			spy_fault_trace_start(t);
		} else {
			spy_note_error("SPYRT_FAULT_TRACE: mmap of the fault event's ring: %s",
				       strerror(errno));
		}
	}
	if (fcntl(fd, F_SETOWN_EX, &own) || fcntl(fd, F_SETSIG, SIGPROF) ||
	    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_ASYNC)) {
		snprintf(why, sz, "perf event signal set-up: %s", strerror(errno));
		close(fd);
		return -1;
	}
	t->samp.perf_last = 0;
	__atomic_store_n(&t->samp.perf_fd, fd, __ATOMIC_RELEASE);
	ioctl(fd, PERF_EVENT_IOC_RESET, 0);
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	return 0;
}

void spy_samp_perf_stop(struct spy_samp *s)
{
	int fd = s->perf_fd;

	if (fd >= 0) {
		SPY_SET(s->perf_fd, -1); /* spy_samp_stop may be reading it */
		barrier();
		ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
		close(fd);
	}
	spy_fault_ring_close(s);
}

/*
 * cpu and wall: a POSIX timer on the thread's CPU clock. The kernel checks CPU timers on its tick, so
 * with a tick slower than SPYRT_HZ (250 Hz kernels) one signal stands for several periods: they are
 * in its weight and counted as missed. The thread's task clock as a perf event would meet any rate
 * (an hrtimer), but each of its interrupts costs ~25 us in a virtual machine, 3 to 4 % of the CPU at
 * 1000 Hz against the goal of 1 %: it is only the fallback when no timer can be made.
 */
/* The perf event of an event watch: a software event's or a hardware counter's config. */
static uint64_t hw_config(uint32_t watch)
{
	switch (watch) {
	case GMON_WATCH_CYCLES:
		return PERF_COUNT_HW_CPU_CYCLES;
	case GMON_WATCH_INSTRUCTIONS:
		return PERF_COUNT_HW_INSTRUCTIONS;
	case GMON_WATCH_CACHE_MISSES:
		return PERF_COUNT_HW_CACHE_MISSES;
	}
	return PERF_COUNT_SW_PAGE_FAULTS;
}

int spy_samp_hw_probe(uint32_t watch, char *why, size_t sz)
{
	int fd = perf_open(0, PERF_TYPE_HARDWARE, hw_config(watch), 1000000, 1, 0);

	if (fd < 0) {
		snprintf(why, sz, "perf_event_open: %s", strerror(errno));
		return -1;
	}
	close(fd);
	return 0;
}

/* Sources of t's thread, made on that thread (a timer on its own CPU clock). */
void spy_samp_sources_start(struct spy_thread *t)
{
	char why[256];

	if (SPY_GET(spy_samp_stopped))
		return;
	if (spy_watch == GMON_WATCH_CPU || spy_watch == GMON_WATCH_WALL) {
		SPY_SET(t->samp.sampled, 1); /* spy_samp_totals may be reading it */
		if (timer_start(t) && perf_start(t, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK,
						 spy_samp_period, why, sizeof(why))) {
			SPY_SET(t->samp.sampled, 0);
			__atomic_fetch_or(&spy_samp_flags, GMON_SAMP_THREADS_CUT, __ATOMIC_RELAXED);
			spy_note_error("thread %d has no timer (%s): it is not sampled", (int)t->tid, why);
		}
	} else if ((spy_watch == GMON_WATCH_FAULTS || GMON_WATCH_HARDWARE(spy_watch)) &&
		   !(spy_samp_flags & GMON_SAMP_NOSOURCE)) {
		/* an event counted by the kernel that signals every divisor events: page faults, or a
		 * hardware counter (found to exist at start-up) */
		uint32_t type = spy_watch == GMON_WATCH_FAULTS ? PERF_TYPE_SOFTWARE : PERF_TYPE_HARDWARE;

		if (perf_start(t, type, hw_config(spy_watch), spy_cfg.divisor, why, sizeof(why))) {
			/* the first failure says why, once; later threads stay unsampled */
			if (!(__atomic_fetch_or(&spy_samp_flags, GMON_SAMP_NOSOURCE, __ATOMIC_RELAXED) &
			      GMON_SAMP_NOSOURCE)) {
				spy_warn("spy: SPYRT_WATCH=%s: %s; not sampled", gmon_watch_name(spy_watch),
					 why);
				spy_note_error("SPYRT_WATCH=%s: %s", gmon_watch_name(spy_watch), why);
			}
		}
	}
}
