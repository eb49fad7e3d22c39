/* Sampling (SPYRT_WATCH), as Cedar's Spy watched and SPIN sampled the PC: a SIGPROF handler records the
 * interrupted PC and the thread's shadow stack (no unwinding) into a per-thread table of distinct
 * stacks. cpu: one POSIX timer per thread on its CPU clock. wall: the same, plus a sampler thread that
 * charges the time a thread spends off the CPU to its stack as waiting, without ever signalling it (a
 * signal would cut a sleep short). faults: a software perf event per thread that signals on overflow.
 * alloc, allocbytes: the malloc wrappers of alloc.c. calls:FUNC: the control slow path of the hooks.
 * Everything a handler touches is mapped at set-up or committed from a reservation: no malloc, no
 * lock but a per-thread try-lock, no printing. Here: the tables, the handler, a thread's sampling from
 * start to retirement, set-up; sample-src.c the sources, sample-wall.c the sampler thread,
 * sample-events.c calls and allocations, sample-file.c the file's part, sample-sig.c SIGPROF's owner. */
#include "spyrt.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

uint32_t spy_watch;
uint32_t spy_samp_flags;
uint64_t spy_watch_addr;
SPY_TLS int spy_samp_quiet;

/* alloc.c may be left out of a static link (a program with its own malloc): then nothing to switch */
#pragma weak spy_alloc_on

SPY_TLS struct spy_thread *spy_samp_self;
uint64_t spy_samp_period;
int spy_samp_stopped;
int spy_samp_handler_on;

#define FRAMES_START 4096u
#define STACKS_START 1024u

static void lock_wait(struct spy_samp *s)
{
	while (!spy_samp_trylock(s))
		sched_yield();
}

/* A thread's CPU clock from any thread of the process (the kernel's encoding of a tid's clock). */
uint64_t spy_thread_cpu_ns(pid_t tid)
{
	struct timespec ts;
	clockid_t c = (clockid_t)((~(unsigned)tid << 3) | 6u);

	if (clock_gettime(c, &ts))
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* ---- the table ---- */

static int table_init(struct spy_samp *s)
{
	if (spy_vm_reserve(&s->vm_head, sizeof(uint32_t) << SPY_SAMP_HASH_BITS) ||
	    spy_vm_commit(&s->vm_head, sizeof(uint32_t) << SPY_SAMP_HASH_BITS) ||
	    spy_vm_reserve(&s->vm_stk, (size_t)SPY_SAMP_STACKS * sizeof(struct spy_sstack)) ||
	    spy_vm_commit(&s->vm_stk, (size_t)STACKS_START * sizeof(struct spy_sstack)) ||
	    /* the scratch frames of one stack sit below the pool */
	    spy_vm_reserve(&s->vm_frm,
			   (size_t)(SPY_SAMP_FRAMES + SPY_SAMP_DEPTH) * sizeof(struct gmon_frame)) ||
	    spy_vm_commit(&s->vm_frm, (size_t)(FRAMES_START + SPY_SAMP_DEPTH) * sizeof(struct gmon_frame))) {
		spy_vm_release(&s->vm_head);
		spy_vm_release(&s->vm_stk);
		spy_vm_release(&s->vm_frm);
		return -1;
	}
	s->head = s->vm_head.base;
	s->stk = s->vm_stk.base;
	s->frm = (struct gmon_frame *)s->vm_frm.base + SPY_SAMP_DEPTH;
	s->stk_alloc = STACKS_START;
	s->frm_alloc = FRAMES_START;
	s->nstk = 1; /* entry 0 ends chains */
	s->nfrm = 0;
	return 0;
}

static void table_release(struct spy_samp *s)
{
	spy_vm_release(&s->vm_head);
	spy_vm_release(&s->vm_stk);
	spy_vm_release(&s->vm_frm);
	s->head = NULL;
	s->stk = NULL;
	s->frm = NULL;
	s->nstk = s->nfrm = s->stk_alloc = s->frm_alloc = 0;
}

static struct gmon_frame *scratch(struct spy_samp *s)
{
	return s->frm - SPY_SAMP_DEPTH;
}

/* Empty the table and the totals of the epoch (spy_flush, fork). Caller holds the lock. */
static void table_reset(struct spy_samp *s, uint64_t cpu_now)
{
	if (s->nstk > 1)
		memset(s->head, 0, sizeof(uint32_t) << SPY_SAMP_HASH_BITS);
	__atomic_store_n(&s->nstk, 1, __ATOMIC_RELEASE);
	s->nfrm = 0;
	s->taken = s->missed = s->in_runtime = s->dropped = s->skipped = s->handler_cycles = 0;
	s->allocs = s->alloc_bytes = 0;
	s->cpu0_ns = cpu_now;
	s->wall0_ns = spy_now_ns(CLOCK_MONOTONIC);
	s->debt = 0;
}

/* The lock, with the table brought to the current epoch; 0 when busy (the sample is dropped). */
int spy_samp_lock(struct spy_thread *t)
{
	struct spy_samp *s = &t->samp;
	uint32_t e;

	if (!spy_samp_trylock(s))
		return 0;
	if (!s->active) {
		spy_samp_unlock(s);
		return 0;
	}
	e = SPY_CTL_EPOCH(__atomic_load_n(&spy_ctl, __ATOMIC_ACQUIRE));
	if (s->epoch != e) {
		table_reset(s, spy_thread_cpu_ns(t->tid));
		s->epoch = e;
	}
	/* a module dlclose'd since: its stacks move apart before this sample lands (loads.c) */
	if (unlikely(spy_loads_pending(s->loads_at)))
		spy_loads_samp(s);
	return 1;
}

/* For a write: t's table with the moves it has not applied yet (the owner's handler may be adding). */
void spy_samp_loads(struct spy_thread *t)
{
	struct spy_samp *s = &t->samp;

	if (!spy_loads_pending(__atomic_load_n(&s->loads_at, __ATOMIC_ACQUIRE)))
		return;
	lock_wait(s);
	if (s->active)
		spy_loads_samp(s);
	spy_samp_unlock(s);
}

static inline uint64_t mix(uint64_t h, uint64_t v)
{
	h ^= v;
	h *= 0x9e3779b97f4a7c15ull;
	return h ^ (h >> 29);
}

/* Add count samples of weight to the stack (pc, flags, the n frames in scratch). Caller holds the lock. */
void spy_samp_add(struct spy_samp *s, uint64_t pc, uint32_t flags, uint32_t n, uint64_t count,
		  uint64_t weight)
{
	const struct gmon_frame *f = scratch(s);
	uint64_t h = mix(mix(0x5350590a, pc), (uint64_t)flags << 32 | n);
	uint32_t b, i;
	struct spy_sstack *e;

	for (uint32_t k = 0; k < n; k++)
		h = mix(mix(h, f[k].func), f[k].call_site);
	b = (uint32_t)h & ((1u << SPY_SAMP_HASH_BITS) - 1);
	for (i = s->head[b]; i; i = s->stk[i].next) {
		e = &s->stk[i];
		if (e->hash == h && e->pc == pc && e->flags == flags && e->depth == n &&
		    !memcmp(&s->frm[e->frames], f, (size_t)n * sizeof(*f))) {
			SPY_SET(e->count, e->count + count); /* a write may be copying the table */
			SPY_SET(e->weight, e->weight + weight);
			SPY_SET(s->taken, s->taken + count);
			return;
		}
	}
	if (s->nstk >= s->stk_alloc) {
		uint32_t want = s->stk_alloc * 2 > SPY_SAMP_STACKS ? SPY_SAMP_STACKS : s->stk_alloc * 2;

		if (want <= s->stk_alloc || spy_vm_commit(&s->vm_stk, (size_t)want * sizeof(*e)))
			goto full;
		s->stk_alloc = want;
	}
	if (s->nfrm + n > s->frm_alloc) {
		uint64_t want = (uint64_t)s->frm_alloc * 2;

		while (want < (uint64_t)s->nfrm + n)
			want *= 2;
		if (want > SPY_SAMP_FRAMES)
			want = SPY_SAMP_FRAMES;
		if (s->nfrm + n > want ||
		    spy_vm_commit(&s->vm_frm, (size_t)(want + SPY_SAMP_DEPTH) * sizeof(struct gmon_frame)))
			goto full;
		s->frm_alloc = (uint32_t)want;
	}
	i = s->nstk;
	e = &s->stk[i];
	memcpy(&s->frm[s->nfrm], f, (size_t)n * sizeof(*f));
	e->hash = h;
	e->count = count;
	e->weight = weight;
	e->pc = pc;
	e->flags = flags;
	e->depth = n;
	e->frames = s->nfrm;
	e->next = s->head[b];
	s->nfrm += n;
	__atomic_store_n(&s->nstk, i + 1, __ATOMIC_RELEASE);
	__atomic_store_n(&s->head[b], i, __ATOMIC_RELEASE);
	SPY_SET(s->taken, s->taken + count);
	return;
full:
	SPY_SET(s->dropped, s->dropped + count);
}

/* Copy the innermost frames of t's shadow stack below depth d into scratch, innermost first;
 * *flags gets CUT when frames were left out. Returns how many. */
uint32_t spy_samp_copy(struct spy_thread *t, uint32_t d, uint32_t *flags)
{
	struct gmon_frame *f = scratch(&t->samp);
	const struct spy_frame *st = t->stack;
	uint32_t n = d > SPY_SAMP_DEPTH ? SPY_SAMP_DEPTH : d, k = 0;

	if (d > n)
		*flags |= GMON_STACK_CUT;
	for (uint32_t i = d; k < n && i > 0; i--) {
		/* the mark under a program's signal handler (sig-nest.c) is no call */
		if (unlikely(SPY_GET(st[i - 1].self) == GMON_CALLER_NONE))
			continue;
		f[k].func = SPY_GET(st[i - 1].self);
		f[k].call_site = SPY_GET(st[i - 1].call_site);
		k++;
	}
	return k;
}

static uint64_t page_mask = ~(uint64_t)4095;

/* Whether the word at addr can be read: a returned call's slot may lie in a stack since freed (a
 * coroutine's). One system call, only for frames of mode=arcs code on top of the stack. */
static int readable(uint64_t addr)
{
	unsigned char v;

	return mincore((void *)(uintptr_t)(addr & page_mask), 1, &v) == 0;
}

/* The word at addr of the thread's own stack, read as an unwinder reads it: under AddressSanitizer it
 * may lie in a redzone of the live frame that now holds the slot, which is no error here. */
__attribute__((noinline, no_sanitize_address)) static uint64_t stack_word(uint64_t addr)
{
	return *(const volatile uint64_t *)(uintptr_t)addr;
}

/*
 * The calling thread's own stack (a handler or a wrapper on t's thread: frames are written before
 * the depth is raised, so depth then frames is consistent), at stack pointer sp (0: here). Frames
 * of code built with mode=arcs stay on the stack after they return, until a later call drops them:
 * one is dead when its return-address slot (its key, less bit 0) lies below sp, is no longer mapped
 * (a coroutine's stack, freed), or no longer holds its return address (a later call from its caller
 * wrote another). One reached by a tail call (key slot - 1, hooks.c) holds its chain's first call's
 * return address, not its own call site: the slot's place alone tells. Caller holds the lock.
 */
uint32_t spy_samp_own(struct spy_thread *t, uint32_t *flags, uint64_t sp)
{
	const struct spy_frame *st = t->stack;
	uint32_t d;

	if (!t->tables || !st)
		return 0;
	d = __atomic_load_n(&t->depth, __ATOMIC_RELAXED);
	if (d > t->stack_max)
		d = t->stack_max;
	if (!sp)
		sp = (uint64_t)(uintptr_t)__builtin_frame_address(0);
	while (d && spy_key_lazy(st[d - 1].sp) &&
	       (st[d - 1].sp < sp || !readable(st[d - 1].sp + 1) ||
		((st[d - 1].sp & 7) == 1 && stack_word(st[d - 1].sp - 1) != st[d - 1].call_site)))
		d--;
	return spy_samp_copy(t, d, flags);
}

/* ---- the SIGPROF handler: cpu and wall ticks, fault overflows ---- */

uint64_t spy_uc_pc(void *ucv)
{
	ucontext_t *uc = ucv;

#if defined(__x86_64__)
	return (uint64_t)uc->uc_mcontext.gregs[REG_RIP];
#elif defined(__aarch64__)
	return (uint64_t)uc->uc_mcontext.pc;
#else
#error "spy sampling needs the PC from a ucontext: x86-64 or aarch64"
#endif
}

static uint64_t uc_sp(void *ucv)
{
	ucontext_t *uc = ucv;

#if defined(__x86_64__)
	return (uint64_t)uc->uc_mcontext.gregs[REG_RSP];
#elif defined(__aarch64__)
	return (uint64_t)uc->uc_mcontext.sp;
#endif
}

/*
 * The events this handler itself caused, such as a fault on a fresh page of the stack tables: the
 * event stays enabled while the handler runs, so they would be the weight of the next signal, which
 * comes right after the handler returns, at the program's PC (a function touching 1000 new pages had
 * 1002-1004 fault samples). Read once more and charged to the profiler, at the handler. Not for cpu
 * and wall, whose period is the scheduler's tick: the handler's few microseconds there are already
 * counted by handler_cycles.
 */
static void handler_events(struct spy_samp *s)
{
	uint64_t v = 0;
	int fd = s->perf_fd;

	if (fd < 0 || spy_watch == GMON_WATCH_CPU || spy_watch == GMON_WATCH_WALL ||
	    read(fd, &v, sizeof(v)) != sizeof(v) || v <= s->perf_last)
		return;
	spy_samp_add(s, (uint64_t)(uintptr_t)spy_samp_on_sigprof, GMON_STACK_RUNTIME, 0, 1, v - s->perf_last);
	SPY_SET(s->in_runtime, s->in_runtime + 1);
	s->perf_last = v;
}

void spy_samp_on_sigprof(int sig, siginfo_t *si, void *uc)
{
	uint64_t c0 = spy_cycles(), pc, weight = spy_samp_period, missed = 0;
	struct spy_thread *t = spy_samp_self;
	struct spy_samp *s;
	uint32_t flags = 0, n;
	int saved = errno;
	/* SPYRT_COUNTERS: this handler's own events are not the interrupted function's */
	uint64_t ctr[GMON_CTR_MAX];
	int ctr_on = spy_ctr_handler_begin(spy_tls_thread, ctr);

	(void)sig;
	if (!t || !__atomic_load_n(&t->samp.active, __ATOMIC_ACQUIRE) || SPY_GET(spy_samp_stopped) ||
	    SPY_GET(spy_forking))
		goto out;
	s = &t->samp;
	if (s->perf_fd >= 0) {
		/* the event's count since the last signal: CPU ns or faults, exact even when
		 * signals merged */
		uint64_t v = 0;
		int fd = s->perf_fd;

		if (si->si_code <= 0 || si->si_fd != fd || read(fd, &v, sizeof(v)) != sizeof(v))
			goto out;
		weight = v - s->perf_last;
		s->perf_last = v;
		if (s->fring)
			spy_fault_trace_drain(t, c0);
		if (!weight)
			goto out;
		if ((spy_watch == GMON_WATCH_CPU || spy_watch == GMON_WATCH_WALL) &&
		    weight >= 2 * spy_samp_period)
			missed = weight / spy_samp_period - 1;
	} else if (si->si_code == SI_TIMER) {
		/* a CPU timer fires on the scheduler's tick: the periods it merged are in the weight */
		if (si->si_overrun > 0) {
			missed = (uint64_t)si->si_overrun;
			weight += missed * spy_samp_period;
		}
	} else {
		goto out; /* not ours: a kill(SIGPROF) while our handler is installed */
	}
	if (!spy_samp_lock(t)) {
		__atomic_fetch_add(&s->dropped, 1, __ATOMIC_RELAXED);
		goto out;
	}
	SPY_SET(s->missed, s->missed + missed);
	if (!spy_recording(t)) {
		SPY_SET(s->skipped, s->skipped + 1 + missed);
		spy_samp_unlock(s);
		goto out;
	}
	pc = spy_uc_pc(uc);
	if (t->busy || spy_in_runtime(pc))
		flags |= GMON_STACK_RUNTIME;
	n = spy_samp_own(t, &flags, uc_sp(uc));
	spy_samp_add(s, pc, flags, n, 1, weight);
	if (flags & GMON_STACK_RUNTIME)
		SPY_SET(s->in_runtime, s->in_runtime + 1);
	handler_events(s);
	SPY_SET(s->handler_cycles, s->handler_cycles + spy_cycles() - c0);
	spy_samp_unlock(s);
out:
	if (ctr_on)
		spy_ctr_handler_end(spy_tls_thread, ctr);
	errno = saved;
}

/* ---- retirement, flush, fork ---- */

/* Copy the table's current stacks into malloc'ed arrays (frames pointers into *frames). */
int spy_samp_table_copy(struct spy_samp *s, struct gmon_stack **stacks, uint64_t *nstacks,
			struct gmon_frame **frames, uint64_t *nframes)
{
	uint32_t n = __atomic_load_n(&s->nstk, __ATOMIC_ACQUIRE), nf = 0;
	struct gmon_stack *k;
	struct gmon_frame *f;

	*stacks = NULL;
	*frames = NULL;
	*nstacks = *nframes = 0;
	if (n <= 1)
		return 0;
	for (uint32_t i = 1; i < n; i++)
		nf += s->stk[i].depth;
	k = calloc(n - 1, sizeof(*k));
	f = malloc((nf ? nf : 1) * sizeof(*f));
	if (!k || !f) {
		free(k);
		free(f);
		return -1;
	}
	nf = 0;
	for (uint32_t i = 1; i < n; i++) {
		const struct spy_sstack *e = &s->stk[i];

		k[i - 1] = (struct gmon_stack){ SPY_GET(e->count), SPY_GET(e->weight), e->pc,
						e->flags,          e->depth,           NULL };
		memcpy(f + nf, &s->frm[e->frames], (size_t)e->depth * sizeof(*f));
		k[i - 1].frames = e->depth ? f + nf : NULL;
		nf += e->depth;
	}
	*stacks = k;
	*frames = f;
	*nstacks = n - 1;
	*nframes = nf;
	return 0;
}

int spy_samp_epoch_current(const struct spy_samp *s)
{
	return s->epoch == SPY_CTL_EPOCH(__atomic_load_n(&spy_ctl, __ATOMIC_ACQUIRE));
}

/* Totals of a thread whose table is of an older epoch (flushed, nothing since) are zero. */
static void forget_totals(struct spy_samp *s)
{
	s->taken = s->missed = s->in_runtime = s->dropped = s->skipped = s->handler_cycles = 0;
	s->allocs = s->alloc_bytes = 0;
	s->cpu_ns = s->wall_ns = 0;
}

/* On the retiring thread, with spy_lock held: end its sources, keep its stacks, return the memory. */
void spy_samp_thread_retire(struct spy_thread *t)
{
	struct spy_samp *s = &t->samp;
	uint64_t cpu, wall;

	if (!s->active)
		return;
	lock_wait(s); /* the wall sampler may be reading this thread */
	__atomic_store_n(&s->active, 0, __ATOMIC_RELEASE);
	spy_samp_unlock(s);
	spy_samp_timer_stop(s);
	spy_samp_perf_stop(s);
	cpu = spy_thread_cpu_ns(t->tid);
	wall = spy_now_ns(CLOCK_MONOTONIC);
	spy_samp_quiet++;
	if (!spy_samp_epoch_current(s)) {
		forget_totals(s);
	} else {
		s->cpu_ns = cpu > s->cpu0_ns ? cpu - s->cpu0_ns : 0;
		s->wall_ns = wall > s->wall0_ns ? wall - s->wall0_ns : 0;
		if (spy_samp_table_copy(s, &s->kept, &s->nkept, &s->kept_frames, &s->nkept_frames))
			spy_note_error("out of memory keeping the samples of thread %d", (int)t->tid);
	}
	spy_samp_quiet--;
	table_release(s);
	if (spy_samp_self == t)
		spy_samp_self = NULL;
}

/* spy_flush() of an exited thread, or a thread gone in a fork child: its stacks and totals go. */
void spy_samp_forget(struct spy_thread *t)
{
	struct spy_samp *s = &t->samp;

	if (s->active) { /* fork child: a thread that does not exist here */
		s->active = 0;
		s->lock = 0;
		s->has_timer = 0; /* timers are not inherited */
		if (s->perf_fd >= 0)
			close(s->perf_fd); /* the parent's thread's event */
		s->perf_fd = -1;
		spy_fault_ring_close(s);
		table_release(s);
	}
	free(s->kept);
	free(s->kept_frames);
	s->kept = NULL;
	s->kept_frames = NULL;
	s->nkept = s->nkept_frames = 0;
	forget_totals(s);
}

/* The fork child: only the forking thread exists; it starts empty with new sources. */
void spy_samp_atfork_child(struct spy_thread *self)
{
	if (!self)
		return;
	if (self->samp.active) {
		struct spy_samp *s = &self->samp;

		s->lock = 0;
		s->has_timer = 0;
		if (s->perf_fd >= 0)
			close(s->perf_fd);
		s->perf_fd = -1;
		spy_fault_ring_close(s);
		self->ftrace.n = self->ftrace.lost = 0;
		table_reset(s, spy_thread_cpu_ns(self->tid));
		s->epoch = SPY_CTL_EPOCH(spy_ctl);
		s->last_cpu = s->cpu0_ns;
		s->last_mono = s->wall0_ns;
		spy_samp_self = self;
		spy_samp_sources_start(self);
	}
	if (spy_watch == GMON_WATCH_WALL && !SPY_GET(spy_samp_stopped))
		spy_samp_sampler_start();
}

/* Every source off: the final write (the totals then stay as written), or a foreign handler. */
void spy_samp_stop(void)
{
	__atomic_store_n(&spy_samp_stopped, 1, __ATOMIC_SEQ_CST);
	if (&spy_alloc_on)
		__atomic_store_n(&spy_alloc_on, 0, __ATOMIC_RELAXED);
	/* a retired thread's sources ended with it; a folded thread's record may be being made new */
	for (struct spy_thread *t = __atomic_load_n(&spy_threads, __ATOMIC_ACQUIRE); t; t = t->next) {
		int fd;

		if (__atomic_load_n(&t->state, __ATOMIC_ACQUIRE) != SPY_THREAD_LIVE)
			continue;
		spy_samp_timer_stop(&t->samp);
		fd = SPY_GET(t->samp.perf_fd);
		if (fd >= 0)
			ioctl(fd, PERF_EVENT_IOC_DISABLE, 0); /* closed by its thread */
	}
}

/* ---- set-up ---- */

static int signal_watch(void)
{
	return spy_watch == GMON_WATCH_CPU || spy_watch == GMON_WATCH_WALL ||
	       spy_watch == GMON_WATCH_FAULTS || GMON_WATCH_HARDWARE(spy_watch);
}

void spy_samp_thread_start(struct spy_thread *t)
{
	struct spy_samp *s = &t->samp;

	SPY_SET(s->perf_fd, -1); /* already so since thread_make: spy_samp_stop may be reading it */
	if (spy_watch == GMON_WATCH_NONE)
		return;
	if (table_init(s)) {
		spy_samp_flags |= GMON_SAMP_THREADS_CUT;
		return;
	}
	s->epoch = SPY_CTL_EPOCH(__atomic_load_n(&spy_ctl, __ATOMIC_ACQUIRE));
	s->cpu0_ns = spy_thread_cpu_ns(t->tid);
	s->wall0_ns = s->last_mono = spy_now_ns(CLOCK_MONOTONIC);
	s->last_cpu = s->cpu0_ns;
	spy_samp_self = t;
	__atomic_store_n(&s->active, 1, __ATOMIC_RELEASE);
	spy_samp_sources_start(t);
}

void spy_samp_init(void)
{
	struct sigaction sa, old;
	int rc;

	spy_watch = spy_cfg.watch;
	if (GMON_WATCH_HARDWARE(spy_watch)) {
		char why[256];

		if (spy_samp_hw_probe(spy_watch, why, sizeof(why))) {
			/* this machine has no such counter (a virtual machine, often): say so once, and
			 * in the header, and sample by CPU time as by default */
			spy_warn(
				"spy: SPYRT_WATCH=%s: no hardware counter for it on this machine (%s); using "
				"cpu",
				gmon_watch_name(spy_watch), why);
			spy_no_hwcount = 1;
			spy_watch = spy_cfg.watch = GMON_WATCH_CPU;
			spy_cfg.divisor = 1;
		}
	}
	if (sysconf(_SC_PAGESIZE) > 0)
		page_mask = ~((uint64_t)sysconf(_SC_PAGESIZE) - 1);
	spy_samp_period = (uint64_t)1000000000u * spy_cfg.divisor / spy_cfg.hz;
	if (!spy_samp_period)
		spy_samp_period = 1;
	spy_samp_find_text();
	spy_samp_resolve_real();
	if (spy_watch == GMON_WATCH_CALLS) {
		if (spy_mode == SPY_MODE_COUNT) {
			spy_samp_flags |= GMON_SAMP_NOSOURCE;
			spy_warn(
				"spy: SPYRT_WATCH=calls:%s needs the hooks: SPYRT_MODE is count; nothing sampled",
				spy_cfg.target);
			/* in the file too, but said once: the line above is the one on stderr */
			if (!spy_first_error[0]) {
				spy_note_error("SPYRT_WATCH=calls: SPYRT_MODE=count has no hooks");
				spy_first_error_said = 1;
			}
			spy_watch = GMON_WATCH_NONE;
		}
		return;
	}
	if (spy_watch == GMON_WATCH_ALLOC || spy_watch == GMON_WATCH_ALLOCBYTES) {
		if (!&spy_alloc_on) {
			spy_samp_flags |= GMON_SAMP_NOSOURCE;
			spy_warn("spy: SPYRT_WATCH=%s: malloc is not the runtime's (a sanitizer's, or the "
				 "program's own); nothing sampled",
				 spy_watch == GMON_WATCH_ALLOC ? "alloc" : "allocbytes");
			spy_watch = GMON_WATCH_NONE;
			return;
		}
		__atomic_store_n(&spy_alloc_on, 1, __ATOMIC_RELEASE);
		return;
	}
	if (!signal_watch())
		return;
	memset(&old, 0, sizeof(old));
	rc = spy_real_sigaction ? spy_real_sigaction(SIGPROF, NULL, &old) : sigaction(SIGPROF, NULL, &old);
	if (!rc && (old.sa_flags & SA_SIGINFO ? old.sa_sigaction != NULL :
						old.sa_handler != SIG_DFL && old.sa_handler != SIG_IGN)) {
		spy_samp_say_foreign(old.sa_handler); /* sa_sigaction's too: one union */
		spy_watch = GMON_WATCH_NONE;
		return;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = spy_samp_on_sigprof;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	rc = spy_real_sigaction ? spy_real_sigaction(SIGPROF, &sa, NULL) : sigaction(SIGPROF, &sa, NULL);
	if (rc) {
		spy_samp_flags |= GMON_SAMP_NOSOURCE;
		spy_note_error("sigaction(SIGPROF): %s: nothing sampled", strerror(errno));
		spy_watch = GMON_WATCH_NONE;
		return;
	}
	spy_samp_handler_on = 1;
	if (spy_watch == GMON_WATCH_WALL)
		spy_samp_sampler_start();
}
