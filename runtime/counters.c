/* Counters in mode time (SPYRT_COUNTERS): each thread opens its own perf_event counters and its hooks
 * read them at every entry and exit, so that each arc gets its calls' inclusive and self counts (page
 * faults, instructions...) as it gets their cycles. A thread with counters takes the hooks' slow paths
 * (SPY_TIMED_CTRS): the fast paths of every other run stay as they are. A hardware counter is read
 * with rdpmc from its mmap page where the kernel allows it, anything else with read() of its fd. */
#include "spyrt.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

/* perf_event type and config of each of spy_ctr_names (env.c), in its order, and whether it counts in
 * kernel mode too: context switches happen nowhere else, and a thread's task clock runs there too.
 * The rest count the program's own code (user mode, as perf's ":u"): page faults the kernel takes on
 * its own behalf in a system call are not the function's, and they made a function that wrote N
 * fresh pages count a few more now and then. */
static const struct {
	uint32_t type;
	uint64_t config;
	int kernel;
} events[SPY_CTR_EVENTS] = {
	{ PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, 0 },
	{ PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, 0 },
	{ PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES, 0 },
	{ PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES, 0 },
	{ PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, 0 },
	{ PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES, 1 },
	{ PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, 1 },
	{ PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MIN, 0 },
	{ PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MAJ, 0 },
};

uint32_t spy_ctr_n;
int spy_no_hwctr;
static uint32_t ctr_ev[GMON_CTR_MAX]; /* the run's counters: indices into events */
static int ctr_failed;                /* some thread could not open its counters */

const char *spy_ctr_name(uint32_t k)
{
	return k < spy_ctr_n ? spy_ctr_names[ctr_ev[k]] : "";
}

/* A counting event of the calling thread: kernel mode excluded unless the event is of the kernel
 * (events[].kernel) and perf_event_paranoid allows it; *user says whether it was excluded. */
static int ctr_open(uint32_t e, int *user)
{
	struct perf_event_attr a;
	int fd;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = events[e].type;
	a.config = events[e].config;
	a.exclude_hv = 1;
	a.exclude_kernel = (unsigned)(*user = !events[e].kernel);
	fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0 && !a.exclude_kernel && (errno == EACCES || errno == EPERM)) {
		a.exclude_kernel = 1;
		*user = 1;
		fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	}
	return fd;
}

void spy_ctr_init(void)
{
	spy_ctr_n = 0;
	if (!spy_cfg.nctr)
		return;
	if (spy_mode != SPY_MODE_TIME) {
		spy_warn(
			"spy: SPYRT_COUNTERS needs SPYRT_MODE=time (counters are read where calls are timed); "
			"no counters");
		return;
	}
	for (uint32_t k = 0; k < spy_cfg.nctr; k++) {
		uint32_t e = spy_cfg.ctr[k];
		int user, fd = ctr_open(e, &user);

		if (fd < 0) {
			const char *why = strerror(errno);

			if (events[e].type == PERF_TYPE_HARDWARE) {
				/* a virtual machine, often: said once, and in the header */
				spy_warn("spy: SPYRT_COUNTERS: no hardware counter for %s on this machine "
					 "(perf_event_open: %s); left out",
					 spy_ctr_names[e], why);
				spy_no_hwctr = 1;
			} else {
				spy_warn(
					"spy: SPYRT_COUNTERS: %s cannot be counted (perf_event_open: %s); left out",
					spy_ctr_names[e], why);
				spy_note_error("SPYRT_COUNTERS: %s: perf_event_open: %s", spy_ctr_names[e],
					       why);
			}
			continue;
		}
		close(fd);
		if (user && events[e].kernel)
			spy_warn("spy: SPYRT_COUNTERS: %s counted in user mode only (perf_event_paranoid)",
				 spy_ctr_names[e]);
		ctr_ev[spy_ctr_n++] = e;
	}
}

void spy_ctr_close(struct spy_thread *t)
{
	struct spy_ctrs *c = &t->ctr;
	long ps = sysconf(_SC_PAGESIZE);

	SPY_SET(t->timed, t->timed & ~SPY_TIMED_CTRS);
	for (uint32_t k = 0; k < c->nfd; k++) {
		if (c->pg[k])
			munmap(c->pg[k], (size_t)(ps > 0 ? ps : 4096));
		c->pg[k] = NULL;
		close(c->fd[k]);
		c->fd[k] = -1;
	}
	c->nfd = 0;
	if (c->frames)
		spy_unmap(c->frames - 1, (size_t)(SPY_STACK_MAX + 1) * sizeof(*c->frames));
	c->frames = NULL;
	if (c->arcs)
		spy_vm_release(&c->vm);
	c->arcs = NULL;
	c->narcs = 0;
}

void spy_ctr_open(struct spy_thread *t)
{
	struct spy_ctrs *c = &t->ctr;
	long ps = sysconf(_SC_PAGESIZE);
	int saved = errno; /* reached from a hook: the program's errno is left alone */
	const char *what = "perf_event_open";

	memset(c, 0, sizeof(*c));
	for (uint32_t k = 0; k < GMON_CTR_MAX; k++)
		c->fd[k] = -1;
	if (!spy_ctr_n || !t->timed)
		return;
	for (uint32_t k = 0; k < spy_ctr_n; k++) {
		int user;

		c->fd[k] = ctr_open(ctr_ev[k], &user);
		if (c->fd[k] < 0)
			goto fail;
		c->nfd = k + 1;
		/* a hardware counter's page says whether rdpmc may read it (cap_user_rdpmc) */
		if (events[ctr_ev[k]].type == PERF_TYPE_HARDWARE) {
			void *pg =
				mmap(NULL, (size_t)(ps > 0 ? ps : 4096), PROT_READ, MAP_SHARED, c->fd[k], 0);

			c->pg[k] = pg == MAP_FAILED ? NULL : pg;
		}
	}
	what = "memory";
	c->frames = spy_map((size_t)(SPY_STACK_MAX + 1) * sizeof(*c->frames));
	if (!c->frames)
		goto fail;
	c->frames++; /* [-1]: the sentinel's, where depth 0's calls add their counts */
	if (spy_vm_reserve(&c->vm, (size_t)t->arcs.arc_max * sizeof(struct gmon_arcctr)))
		goto fail;
	c->arcs = c->vm.base;
	c->on = 1;
	SPY_SET(t->timed, t->timed | SPY_TIMED_CTRS);
	errno = saved;
	return;
fail:
	if (!__atomic_exchange_n(&ctr_failed, 1, __ATOMIC_RELAXED))
		spy_note_error("thread %d has no counters (%s: %s)", (int)t->tid, what, strerror(errno));
	spy_ctr_close(t);
	errno = saved;
}

#if defined(__x86_64__)
static inline uint64_t rdpmc(uint32_t i)
{
	uint32_t lo, hi;

	__asm__ volatile("rdpmc" : "=a"(lo), "=d"(hi) : "c"(i));
	return (uint64_t)hi << 32 | lo;
}
#endif

/* Counter k of t now, the runtime's sampling handler's events included: rdpmc on the thread itself
 * when its page allows it, else read(). */
static uint64_t ctr_raw(struct spy_thread *t, uint32_t k)
{
	uint64_t v = 0;

#if defined(__x86_64__)
	const volatile struct perf_event_mmap_page *pc = t->ctr.pg[k];

	if (pc && t == spy_tls_thread) {
		uint32_t seq, idx;
		uint64_t count;

		do {
			seq = pc->lock;
			barrier();
			idx = pc->index;
			count = (uint64_t)pc->offset;
			if (pc->cap_user_rdpmc && idx) {
				uint32_t w = (uint32_t)pc->pmc_width;
				int64_t pmc = (int64_t)rdpmc(idx - 1);

				/* the counter's width, sign-extended */
				pmc = (int64_t)((uint64_t)pmc << (64 - w)) >> (64 - w);
				count += (uint64_t)pmc;
			}
			barrier();
		} while (pc->lock != seq);
		if (pc->cap_user_rdpmc && idx)
			return count;
	}
#endif
	if (k >= t->ctr.nfd || read(t->ctr.fd[k], &v, sizeof(v)) != (ssize_t)sizeof(v))
		return 0;
	return v;
}

/* Counter k of t now, less what the runtime's sampling handler counted (spy_ctr_handler_end). */
static uint64_t ctr_read(struct spy_thread *t, uint32_t k)
{
	return ctr_raw(t, k) - SPY_GET(t->ctr.own[k]);
}

/*
 * The runtime's SIGPROF handler runs inside the function it interrupts: its events (its first page
 * faults, its instructions) are taken off every later read, as if it had not run. Not when it
 * interrupts a hook (busy), which may be between reading a counter and taking own off: then they
 * count where they land, as they would without this.
 */
int spy_ctr_handler_begin(struct spy_thread *t, uint64_t *v)
{
	/* the gate's word, which spy_freeze's stores to stale share: loaded as the atomic it is */
	if (!(SPY_GET(t->timed) & SPY_TIMED_CTRS) || SPY_GET(t->busy))
		return 0;
	for (uint32_t k = 0; k < spy_ctr_n; k++)
		v[k] = ctr_raw(t, k);
	return 1;
}

void spy_ctr_handler_end(struct spy_thread *t, const uint64_t *v)
{
	for (uint32_t k = 0; k < spy_ctr_n; k++) {
		uint64_t now = ctr_raw(t, k);

		if (now > v[k])
			SPY_SET(t->ctr.own[k], t->ctr.own[k] + (now - v[k]));
	}
}

void spy_ctr_push(struct spy_thread *t, uint32_t n)
{
	struct spy_ctrframe *f = &t->ctr.frames[n];
	int saved = errno;

	for (uint32_t k = 0; k < spy_ctr_n; k++) {
		f->entry[k] = ctr_read(t, k);
		f->children[k] = 0;
	}
	errno = saved;
}

void spy_ctr_stamp(struct spy_thread *t)
{
	int saved = errno;

	for (uint32_t k = 0; k < spy_ctr_n; k++)
		t->ctr.stamp[k] = ctr_read(t, k);
	t->ctr.stamped = 1;
	errno = saved;
}

/* Arc ai's totals, committing the table's pages up to it; NULL when that failed. */
static struct gmon_arcctr *arc_ctr(struct spy_thread *t, uint32_t ai)
{
	struct spy_ctrs *c = &t->ctr;

	if (ai >= c->narcs) {
		if (!c->arcs || spy_vm_commit(&c->vm, ((size_t)ai + 1) * sizeof(struct gmon_arcctr))) {
			spy_note_error("out of memory: some calls' counters not kept");
			return NULL;
		}
		/* a write reads this many while the thread runs */
		__atomic_store_n(&c->narcs, (uint32_t)(c->vm.committed / sizeof(struct gmon_arcctr)),
				 __ATOMIC_RELEASE);
	}
	return &c->arcs[ai];
}

/*
 * The top frame ends: its counts since entry are its inclusive counts, less its callees' its self
 * counts, and its caller's callees' counts grow by them. As the cycles (hooks.c), the inclusive
 * counts are added at the function's outermost activation only, so recursion counts once.
 */
void spy_ctr_pop(struct spy_thread *t)
{
	uint32_t n = t->depth - 1;
	const struct spy_frame *fr = &t->stack[n];
	struct spy_ctrframe *f = &t->ctr.frames[n];
	int outer = t->arcs.fstat[fr->func].depth == 1, saved = errno;
	struct gmon_arcctr *a;
	uint64_t d[GMON_CTR_MAX];

	for (uint32_t k = 0; k < spy_ctr_n; k++) {
		uint64_t now = t->ctr.stamped ? t->ctr.stamp[k] : ctr_read(t, k);

		d[k] = now > f->entry[k] ? now - f->entry[k] : 0;
	}
	a = arc_ctr(t, fr->arc);
	for (uint32_t k = 0; k < spy_ctr_n; k++) {
		if (a) {
			/* read by a write while the thread runs (SPY_GET) */
			SPY_SET(a->self[k], a->self[k] + (d[k] > f->children[k] ? d[k] - f->children[k] : 0));
			if (outer)
				SPY_SET(a->incl[k], a->incl[k] + d[k]);
		}
		f[-1].children[k] += d[k];
	}
	errno = saved;
}

void spy_ctr_reset(struct spy_thread *t)
{
	struct spy_ctrs *c = &t->ctr;

	if (!(t->timed & SPY_TIMED_CTRS))
		return;
	if (c->arcs)
		memset(c->arcs, 0, (size_t)c->narcs * sizeof(*c->arcs));
	for (uint32_t i = 0; i < t->depth; i++)
		spy_ctr_push(t, i);
}
