/* SPYRT_TRACE=FUNC,...: Cedar's SetTrace for C. Each thread keeps the last SPY_TRACE_EVENTS entries
 * and exits of those functions, with time stamps, call sites and durations, in a ring mapped at its
 * first hook; the write turns each ring into a TRACE record (docs/FORMAT.md). The hooks find a traced
 * call by a bit of its arc (SPY_ARC_TRACED), set here when the arc is made: other calls pay one test
 * of a word in a line the hooks load anyway. Mode time only: the events are timed. */
#include "spyrt.h"

#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

uint64_t spy_trace_addr[SPY_TRACE_FUNCS];
uint32_t spy_trace_on;

void spy_trace_init(void)
{
	if (!spy_cfg.trace)
		return;
	if (spy_cfg.mode != SPY_MODE_TIME) {
		spy_warn("spy: SPYRT_TRACE needs SPYRT_MODE=time (its events are timed); no trace");
		return;
	}
	spy_trace_on = 1;
}

/* the i-th name of SPYRT_TRACE is name */
static int trace_name_is(uint32_t i, const char *name)
{
	const char *p = spy_cfg.trace;
	size_t n = strlen(name);

	for (; i && p; i--) {
		p = strchr(p, ',');
		p = p ? p + 1 : NULL;
	}
	return p && !strncmp(p, name, n) && (p[n] == ',' || !p[n]);
}

void spy_trace_names(const char *name, uint64_t addr)
{
	for (uint32_t i = 0; i < spy_cfg.ntrace; i++)
		if (!spy_trace_addr[i] && trace_name_is(i, name))
			__atomic_store_n(&spy_trace_addr[i], addr, __ATOMIC_RELEASE);
}

int spy_traced(uint64_t addr)
{
	for (uint32_t i = 0; i < spy_cfg.ntrace; i++)
		if (__atomic_load_n(&spy_trace_addr[i], __ATOMIC_ACQUIRE) == addr)
			return 1;
	return 0;
}

void spy_trace_check(void)
{
	for (uint32_t i = 0; i < spy_cfg.ntrace; i++)
		if (!spy_trace_addr[i]) {
			const char *p = spy_cfg.trace;

			for (uint32_t k = i; k; k--)
				p = strchr(p, ',') + 1;
			spy_note_error("SPYRT_TRACE=%.*s: no instrumented function has that name",
				       (int)strcspn(p, ","), p);
			return;
		}
}

void spy_trace_thread_start(struct spy_thread *t)
{
	if (spy_trace_on && !t->trace.ev)
		t->trace.ev = spy_map(SPY_TRACE_EVENTS * sizeof(*t->trace.ev));
	if (spy_cfg.signal_trace && !t->strace.ev)
		t->strace.ev = spy_map((size_t)spy_cfg.signal_trace * sizeof(*t->strace.ev));
}

/* spy_flush and a fork child: every trace of the thread starts empty */
void spy_trace_reset(struct spy_thread *t)
{
	t->trace.n = t->trace.lost = 0;
	t->ftrace.n = t->ftrace.lost = 0;
	t->strace.n = t->strace.lost = 0;
}

/* Filled before the count moves past it, so a write on another thread reads whole events (it
 * holds the owner parked or asleep, spy_freeze, as it reads the tables). */
static inline void record(struct spy_thread *t, uint32_t what, const struct spy_frame *f, uint64_t time,
			  uint64_t value)
{
	struct gmon_tevent *e;

	if (unlikely(!t->trace.ev)) {
		t->trace.lost++;
		return;
	}
	e = &t->trace.ev[t->trace.n & (SPY_TRACE_EVENTS - 1)];
	e->time = time;
	e->func = f->self;
	e->addr = f->call_site;
	e->value = value;
	e->what = what;
	barrier();
	t->trace.n++;
}

void spy_trace_enter(struct spy_thread *t)
{
	const struct spy_frame *f = &t->stack[t->depth - 1];

	record(t, GMON_TEV_ENTER, f, f->entry, 0);
}

void spy_trace_exit(struct spy_thread *t, uint64_t now)
{
	/* the frame just popped: still there, above the depth */
	const struct spy_frame *f = &t->stack[t->depth];

	record(t, GMON_TEV_EXIT, f, now, now > f->entry ? now - f->entry : 0);
}

int spy_trace_collect(struct spy_thread *t, uint32_t kind, struct gmon_trace *out)
{
	const struct spy_tring *r = kind == GMON_TRACE_FAULTS  ? &t->ftrace :
				    kind == GMON_TRACE_SIGNALS ? &t->strace :
								 &t->trace;
	uint64_t cap = kind == GMON_TRACE_FAULTS  ? spy_cfg.fault_trace :
		       kind == GMON_TRACE_SIGNALS ? spy_cfg.signal_trace :
						    SPY_TRACE_EVENTS;
	uint64_t n = __atomic_load_n(&r->n, __ATOMIC_ACQUIRE), keep, first;

	memset(out, 0, sizeof(*out));
	out->kind = kind;
	out->tid = (uint32_t)t->tid;
	keep = n < cap ? n : cap;
	first = n - keep;
	out->dropped = first + r->lost;
	if (!keep || !r->ev)
		return 0;
	out->ev = malloc(keep * sizeof(*out->ev));
	if (!out->ev)
		return -1;
	for (uint64_t i = 0; i < keep; i++)
		out->ev[i] = r->ev[(first + i) % cap];
	out->n = keep;
	/* a live thread's ring moves on its next slow path (loads.c): the copy now */
	spy_loads_events(out->ev, keep, kind, __atomic_load_n(&t->loads_at, __ATOMIC_ACQUIRE),
			 __atomic_load_n(&spy_loads_tail, __ATOMIC_ACQUIRE));
	return 0;
}

/* ---- the interruption trace (Multics): SPYRT_SIGNAL_TRACE, signals the program handles ---- */

/* A signal the program handles, as sig-nest.c's trampoline runs its handler: recorded in the thread's
 * ring (SPYRT_SIGNAL_TRACE). */
void spy_sigtrace_event(struct spy_thread *t, int sig, void *uc)
{
	struct spy_tring *r = &t->strace;
	struct gmon_tevent *e;
	uint64_t pc = spy_uc_pc(uc);

	if (!r->ev) {
		r->lost++;
		return;
	}
	e = &r->ev[r->n % spy_cfg.signal_trace];
	e->time = spy_cycles();
	e->func = t->stack && t->depth && !spy_in_runtime(pc) ? t->stack[t->depth - 1].self : 0;
	e->addr = pc;
	e->value = 0;
	e->what = (uint32_t)sig;
	barrier();
	r->n++;
}

/* ---- the missing-page trace (Multics): SPYRT_WATCH=faults, the last SPYRT_FAULT_TRACE faults ---- */

void spy_fault_trace_start(struct spy_thread *t)
{
	if (!t->ftrace.ev)
		t->ftrace.ev = spy_map((size_t)spy_cfg.fault_trace * sizeof(*t->ftrace.ev));
}

void spy_fault_ring_close(struct spy_samp *s)
{
	if (s->fring)
		munmap(s->fring, s->fring_len);
	s->fring = NULL;
}

static void fault_event(struct spy_thread *t, uint64_t now, uint64_t ip, uint64_t addr)
{
	struct spy_tring *r = &t->ftrace;
	struct gmon_tevent *e;

	if (!r->ev) {
		r->lost++;
		return;
	}
	e = &r->ev[r->n % spy_cfg.fault_trace];
	e->time = now;
	/* the thread's innermost instrumented call (the PC may be in code without hooks); none for a
	 * fault of the profiler's own, its PC in the runtime (the sampling handler's tables) */
	e->func = t->stack && t->depth && !spy_in_runtime(ip) ? t->stack[t->depth - 1].self : 0;
	e->addr = addr;
	e->value = ip;
	e->what = 0;
	barrier();
	r->n++;
}

/*
 * From the sampling signal handler on t's own thread: the fault event's new samples (24 bytes each:
 * header, IP, address), stamped now, the time of the signal. The ring is read-only, so the kernel
 * overwrites what was not read in time: the head running more than the ring ahead says how much.
 */
void spy_fault_trace_drain(struct spy_thread *t, uint64_t now)
{
	struct spy_samp *s = &t->samp;
	const struct perf_event_mmap_page *mp = s->fring;
	size_t ps = s->fring_len / (SPY_FAULT_RING_PAGES + 1), size = SPY_FAULT_RING_PAGES * ps;
	const uint8_t *data = (const uint8_t *)s->fring + ps;
	uint64_t head = __atomic_load_n(&mp->data_head, __ATOMIC_ACQUIRE), tail = s->fring_seen;

	if (head - tail > size) {
		t->ftrace.lost += (head - tail - size) / 24;
		tail = head - size;
	}
	while (tail < head) {
		uint64_t rec[4], at = tail % size; /* records are 8-aligned: the header never splits */
		struct perf_event_header h;

		memcpy(&h, data + at, sizeof(h));
		if (h.size < sizeof(h) || h.size > head - tail) {
			t->ftrace.lost += (head - tail) / 24;
			tail = head;
			break;
		}
		if (h.size <= sizeof(rec)) {
			uint64_t first = size - at < h.size ? size - at : h.size;

			memcpy(rec, data + at, first);
			memcpy((uint8_t *)rec + first, data, h.size - first);
			if (h.type == PERF_RECORD_SAMPLE && h.size == 24)
				fault_event(t, now, rec[1], rec[2]);
			else if (h.type == PERF_RECORD_LOST && h.size >= 24)
				t->ftrace.lost += rec[2];
		}
		tail += h.size;
	}
	s->fring_seen = tail;
}
