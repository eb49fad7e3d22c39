/* SPYRT_TRACE=FUNC,...: Cedar's SetTrace for C. Each thread keeps the last SPY_TRACE_EVENTS entries
 * and exits of those functions, with time stamps, call sites and durations, in a ring mapped at its
 * first hook; the write turns each ring into a TRACE record (docs/FORMAT.md). The hooks find a traced
 * call by a bit of its arc (SPY_ARC_TRACED), set here when the arc is made: other calls pay one test
 * of a word in a line the hooks load anyway. Mode time only: the events are timed. */
#include "spyrt.h"

#include <stdlib.h>
#include <string.h>

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
}

void spy_trace_reset(struct spy_thread *t)
{
	t->trace.n = 0;
	t->trace.lost = 0;
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

int spy_trace_collect(struct spy_thread *t, struct gmon_trace *out)
{
	uint64_t n = __atomic_load_n(&t->trace.n, __ATOMIC_ACQUIRE), keep, first;

	memset(out, 0, sizeof(*out));
	out->kind = GMON_TRACE_CALLS;
	out->tid = (uint32_t)t->tid;
	keep = n < SPY_TRACE_EVENTS ? n : SPY_TRACE_EVENTS;
	first = n - keep;
	out->dropped = first + t->trace.lost;
	if (!keep)
		return 0;
	out->ev = malloc(keep * sizeof(*out->ev));
	if (!out->ev)
		return -1;
	for (uint64_t i = 0; i < keep; i++)
		out->ev[i] = t->trace.ev[(first + i) & (SPY_TRACE_EVENTS - 1)];
	out->n = keep;
	return 0;
}
