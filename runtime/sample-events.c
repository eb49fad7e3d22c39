/* Event watch modes: calls:FUNC (Spy's user break, from the hooks' control slow path) and alloc,
 * allocbytes (from the malloc wrappers of alloc.c): each event is recorded on its own thread, with the
 * shadow stack, at the event's call site. */
#include "spyrt.h"

/*
 * From spy_ctl_sync(), which every hook reaches while watching. FUNC's entry only marks the call:
 * its frame (whose call site is the sample's PC) is on top at the next hook, its own exit or its
 * first callee's entry, and the stack below it is the callers'.
 */
void spy_samp_call_hook(struct spy_thread *t, uint64_t self, int enter, int rec)
{
	struct spy_samp *s = &t->samp;

	if (!s->active)
		return;
	if (s->call_pending) {
		uint32_t d = t->tables && t->stack ? t->depth : 0;

		s->call_pending = 0;
		if (d && t->stack[d - 1].self == spy_watch_addr && spy_samp_lock(t)) {
			uint64_t c0 = spy_cycles();
			uint32_t flags = 0, n = spy_samp_copy(t, d - 1, &flags);

			spy_samp_add(s, t->stack[d - 1].call_site, flags, n, 1, spy_cfg.divisor);
			SPY_SET(s->handler_cycles, s->handler_cycles + spy_cycles() - c0);
			spy_samp_unlock(s);
		}
	}
	if (enter && rec && spy_watch_addr && self == spy_watch_addr && !SPY_GET(spy_samp_stopped) &&
	    ++s->every >= spy_cfg.divisor) {
		s->every = 0;
		s->call_pending = 1;
	}
}

/* A call of FUNC whose frame was on top when the program ended without another hook. */
void spy_samp_call_flush(void)
{
	struct spy_thread *t = spy_samp_self;

	if (t && spy_watch == GMON_WATCH_CALLS && t->samp.call_pending)
		spy_samp_call_hook(t, 0, 0, 0);
}

static SPY_TLS int alloc_making;

void spy_samp_alloc(uint64_t bytes, uint64_t pc)
{
	SPY_KEEP_ERRNO; /* from the program's malloc, whose errno it is */
	struct spy_thread *t = spy_samp_self;
	struct spy_samp *s;
	uint32_t flags = 0, n;
	uint64_t c0;

	if (spy_samp_quiet || spy_in_runtime(pc))
		return;
	if (!t) {
		/* a thread's first allocation: its record (mmap only, no malloc) */
		if (alloc_making)
			return;
		alloc_making = 1;
		t = spy_thread_self();
		alloc_making = 0;
		if (!t || spy_samp_self != t)
			return;
	}
	s = &t->samp;
	c0 = spy_cycles();
	if (t->busy || !s->active || !spy_recording(t) || !spy_samp_lock(t))
		return;
	SPY_SET(s->allocs, s->allocs + 1);
	SPY_SET(s->alloc_bytes, s->alloc_bytes + bytes);
	if (++s->every >= spy_cfg.divisor) {
		s->every = 0;
		n = spy_samp_own(t, &flags, 0);
		spy_samp_add(s, pc, flags, n, 1,
			     spy_watch == GMON_WATCH_ALLOC ? spy_cfg.divisor : bytes * spy_cfg.divisor);
	}
	SPY_SET(s->handler_cycles, s->handler_cycles + spy_cycles() - c0);
	spy_samp_unlock(s);
}
