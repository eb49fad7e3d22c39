/* The hot path: __spy_entry and __spy_leave (ABI 5 on; __spy_enter and __spy_exit for code built for
 * ABI 4 and before) keep the thread's shadow stack and count and time its arcs; __spy_tail stands for
 * the exit of a function that leaves by a tail call; __spy_catch ends the calls an exception unwound; __spy_arc, the one hook of mode=arcs code, counts
 * arcs and keeps the stack without exits. No lock, no malloc, no printing. Their fast paths are leaves that read only the calling thread's own
 * state; everything rare (first call of a thread, control changes, frames abandoned by longjmp,
 * pthread_exit or foreign unwinding, a new arc, a full stack) jumps to a slow path that starts over
 * under the re-entrancy guard. Also the start-up calibration of the hooks' own cost. */
#include "spyrt.h"
#include "spy-stub.h"

#include <string.h>

struct spy_thread spy_unattached = { .stale = 1 };
SPY_TLS struct spy_thread *spy_tls_thread = &spy_unattached;

/*
 * ABI 7: the executable's own copy of spy_tls_thread (spy-abi.h, SPY_THREAD_EXE_SYMBOL), which its
 * inline code of mode=arcs reads local-exec, known by its offset from the thread pointer (the same in
 * every thread: the executable's TLS block is static). Every unit of the executable registers the
 * same one; a few more are taken (none is made by a correct link), and a copy not taken only makes
 * its code miss.
 */
#define EXE_COPIES 4
static intptr_t exe_copy_off[EXE_COPIES];
static uint32_t exe_copies;

/* Write the copies with t. */
static inline void exe_copies_write(struct spy_thread *t)
{
	uint32_t n = __atomic_load_n(&exe_copies, __ATOMIC_ACQUIRE);
	char *tp;

	if (likely(!n))
		return;
	tp = spy_thread_pointer();
	for (uint32_t i = 0; i < n; i++)
		__atomic_store_n((struct spy_thread **)(void *)(tp + exe_copy_off[i]), t, __ATOMIC_RELAXED);
}

/* The copies of the slab pointer, 8 bytes after each (spy-abi.h, SPY_COUNTS_EXE_SYMBOL). */
uint64_t *spy_counts_set(uint64_t *c)
{
	uint32_t n = __atomic_load_n(&exe_copies, __ATOMIC_ACQUIRE);
	char *tp;

	__spy_counts = c;
	if (likely(!n))
		return c;
	tp = spy_thread_pointer();
	for (uint32_t i = 0; i < n; i++)
		__atomic_store_n((uint64_t **)(void *)(tp + exe_copy_off[i] + 8), c, __ATOMIC_RELAXED);
	return c;
}

void spy_tls_set(struct spy_thread *t)
{
	/* the copies held while the two differ: a program's signal handler in between misses, and its
	 * __spy_arc_miss writes them with whatever spy_tls_thread holds then */
	exe_copies_write(&spy_idle_thread);
	barrier();
	spy_tls_thread = t;
	barrier();
	exe_copies_write(t);
}

/* From __spy_register_unit, under spy_lock: addr is the copy's address in the calling thread. */
void spy_thread_exe_add(void *addr)
{
	intptr_t off = (char *)addr - spy_thread_pointer();
	uint32_t n = exe_copies;

	if (!spy_thread_pointer())
		return;
	for (uint32_t i = 0; i < n; i++)
		if (exe_copy_off[i] == off)
			return;
	if (n == EXE_COPIES)
		return;
	exe_copy_off[n] = off;
	__atomic_store_n(&exe_copies, n + 1, __ATOMIC_RELEASE);
	exe_copies_write(spy_tls_thread);
	if (__spy_counts)
		spy_counts_set(__spy_counts);
}

/*
 * Tested inline before every hook call by code of ABI 2 (spy-abi.h; ABI 3 calls the hooks unguarded,
 * and in count mode they return at their first test, on the idle thread): cleared at start-up for
 * SPYRT_MODE=count, so the hooks of ABI 2 code cost nothing there. It stays set while recording is off: a call that
 * returned unseen while off would leave its frame behind, to be repaired later as abandoned with the
 * off period charged to it; with the hooks running, the exits of calls entered before spy_off()
 * still close their frames exactly, and entries while off cost a slow path each.
 */
SPY_EXPORT int __spy_hooks = 1;

/* The caller of a hook is the instrumented function: the hook's CFA is that function's stack
 * pointer at the call, which is the same at its enter and its exit hook (unless it used alloca). */
#define caller_sp() ((uint64_t)(uintptr_t)__builtin_dwarf_cfa())

/*
 * Close the top frame at time now. Fast paths run without the busy flag, so a signal handler's
 * hooks may run in the middle of this; they push and pop above the depth they find, so the frame's
 * fields are read before the depth drops and the worst a handler can do is lose one addition.
 */
static inline __attribute__((always_inline)) uint32_t pop_frame_as(struct spy_thread *t, uint64_t now,
								   int timed)
{
	uint32_t n = t->depth - 1;
	struct spy_frame *f = &t->stack[n];
	uint64_t entry, children;
	uint32_t ai, fi;

	if (!timed) { /* arcs: nothing of the frame is needed once it is off the stack */
		SPY_SET(t->depth, n);
		return 0;
	}
	entry = f->entry;
	children = f->children;
	ai = f->arc;
	fi = f->func;
	barrier();
	SPY_SET(t->depth, n);
	{
		struct spy_arc *a = &t->arcs.arc[ai];
		struct spy_fstat *s = &t->arcs.fstat[fi];
		int64_t d = (int64_t)(now - entry);
		uint64_t incl = d > 0 ? (uint64_t)d : 0;
		uint32_t b = 63 - (uint32_t)__builtin_clzll(incl | 1);

		SPY_SET(a->self, a->self + (incl > children ? incl - children : 0));
		if (b >= SPY_HIST_BUCKETS)
			b = SPY_HIST_BUCKETS - 1;
		/* recursion: only the outermost activation adds inclusive time, else fib's
		 * inclusive time would be counted once per active frame; the stopwatch is of the
		 * outermost calls too, so the calls inside them keep their own minimum and histogram,
		 * on a branch taken only by recursion */
		if (likely(--s->depth == 0)) {
			SPY_SET(a->incl, a->incl + incl);
			{
				/* two halves, each a relaxed store: a snapshot reads them while this runs */
				unsigned __int128 q = (unsigned __int128)incl * incl;
				uint64_t lo = s->sq_lo + (uint64_t)q;

				SPY_SET(s->sq_hi, s->sq_hi + (uint64_t)(q >> 64) + (lo < s->sq_lo));
				SPY_SET(s->sq_lo, lo);
			}
			if (unlikely(incl < s->min))
				SPY_SET(s->min, incl);
		} else {
			struct spy_fstat_inner *in = spy_fstat_inner(&t->arcs, fi);

			if (incl < s->min_inner)
				SPY_SET(s->min_inner, incl);
			if (in)
				SPY_SET(in->hist[b], in->hist[b] + 1);
		}
		if (unlikely(incl > s->max))
			SPY_SET(s->max, incl);
		SPY_SET(f[-1].children, f[-1].children + incl); /* at depth 0, the sentinel's */
		/*
		 * The bucket's count is added at the next pop, and this one adds the previous call's: a
		 * store whose address waits for the time stamp holds up the next time stamp (about 5 ns a
		 * call on AMD Zen), while the pending counter's address is known early. A snapshot counts
		 * the pending one. Taken before it is replaced, so a signal handler's pops in between
		 * add their own and at worst this one's twice while losing one of theirs.
		 */
		{
			uint64_t *h = t->arcs.hist_pending;

			SPY_SET(t->arcs.hist_pending, &s->hist[b]);
			SPY_SET(*h, *h + 1);
		}
		/* SPYRT_TRACE: the caller records the exit (trace.c), from a word of the arc's line */
		return a->func & SPY_ARC_TRACED;
	}
}

static inline void pop_frame(struct spy_thread *t, uint64_t now)
{
	if (t->timed) {
		if (unlikely(t->timed & SPY_TIMED_CTRS)) /* SPYRT_COUNTERS: only slow paths get here */
			spy_ctr_pop(t);
		if (unlikely(pop_frame_as(t, now, 1)))
			spy_trace_exit(t, now);
	} else {
		pop_frame_as(t, now, 0);
	}
}

void spy_hooks_pop(struct spy_thread *t, uint64_t now, int abandoned)
{
	struct spy_frame *f = &t->stack[t->depth - 1];
	uint64_t tail = f->tail;

	if (unlikely(tail)) {
		/* its tail call went where no hook runs: the call ended unseen, which is no loss */
		SPY_SET(f->tail, 0);
		abandoned = 0;
		if (tail & SPY_TAIL_LAZY) {
			SPY_SET(t->depth, t->depth - 1);
			return;
		}
	}
	if (spy_key_lazy(f->sp)) {
		SPY_SET(t->depth, t->depth - 1);
		return;
	}
	pop_frame(t, now);
	SPY_SET(t->abandoned, t->abandoned + (uint64_t)abandoned);
}

/* Add one to an arc's count in one instruction where there is one (x86-64's add to memory, without
 * lock: the thread's own counter), so that a signal handler calling through the same arc between
 * the load and the store of an increment cannot have its calls overwritten (sig-nest.c). */
static inline __attribute__((always_inline)) void count_one(uint64_t *c)
{
#if defined(__x86_64__)
	__asm__("addq $1, %0" : "+m"(*c));
#else
	(*c)++;
#endif
}

/* Push a frame for a call through arc ai at depth n, entered at time now. Its stack pointer is
 * written before the depth grows, so a signal handler's hooks never see a top frame with a stale one.
 * In mode arcs only what the stack's readers need (unwinding checks, samples) is written. */
static inline __attribute__((always_inline)) uint32_t push_frame_as(struct spy_thread *t, uint32_t n,
								    uint64_t self, uint64_t cs, uint64_t sp,
								    uint32_t ai, uint64_t now, int timed)
{
	struct spy_arc *a = &t->arcs.arc[ai];
	struct spy_frame *f = &t->stack[n];
	uint32_t w = timed ? a->func : 0; /* read once: the frame's stores may alias it */
	uint32_t fi = SPY_ARC_FUNC(w);
	uint64_t caller = f[-1].self;

	count_one(&a->count);
	SPY_SET(f->sp, sp);
	SPY_SET(f->self, self); /* the wall sampler reads these from its own thread */
	SPY_SET(f->call_site, cs);
	if (timed) {
		SPY_SET(f->arc, ai);
		SPY_SET(f->func, fi);
		SPY_SET(f->children, 0);
	}
	/* the caller's function: known by the call site's code when that is instrumented (SITED),
	 * else from the shadow stack: exact when the call site is in code without hooks; an arc
	 * reached from several (qsort's callback) says so. Tested after the frame's stores, where
	 * fewer registers are live: the rare store needs one of its own. */
	if (unlikely(a->caller != caller) && !(a->func & SPY_ARC_SITED))
		SPY_SET(a->caller, a->count != 1 ? GMON_CALLER_MANY : caller);
	barrier();
	SPY_SET(t->depth, n + 1);
	if (timed) {
		t->arcs.fstat[fi].depth++;
		SPY_SET(f->entry, now);
	}
	/* SPYRT_TRACE: the caller records the entry (trace.c) */
	return w & SPY_ARC_TRACED;
}

static inline void push_frame(struct spy_thread *t, uint32_t n, uint64_t self, uint64_t cs, uint64_t sp,
			      uint32_t ai, uint64_t now)
{
	if (t->timed) {
		if (unlikely(push_frame_as(t, n, self, cs, sp, ai, now, 1)))
			spy_trace_enter(t);
		if (unlikely(t->timed & SPY_TIMED_CTRS)) {
			spy_ctr_push(t, n);
			/* the reads' cost (a system call each for software events) is the caller's, as
			 * at the exit, where they follow the time stamp */
			SPY_SET(t->stack[n].entry, spy_cycles());
		}
	} else {
		push_frame_as(t, n, self, cs, sp, ai, now, 0);
	}
}

/*
 * Keys of code of ABI 5 (spy-abi.h) derive from S, the slot of the function's return address:
 * S for __spy_entry's frames, S|1 for __spy_arc's; a call reached by a tail call shares its tail
 * caller's slot and sits just below it, at S - 2 (S - 1 for __spy_arc's), above anything it calls
 * (at S - 15 or lower). A pending tail call of a frame of __spy_arc's clears its bit 0, so that
 * __spy_arc's fast path stops there and leaves the callee's entry to the slow path.
 * Older code's keys (stack pointers, 16-aligned) are their own slots here.
 */
static inline uint64_t key_slot(uint64_t key)
{
	return (key + 2) & ~(uint64_t)7;
}

/* A frame whose tail call is still pending: its callee never entered, so it is code without hooks
 * (the frame holds it: item 4 of issue 23), which returns unseen. */
static inline int tail_out(const struct spy_frame *f)
{
	return (f->tail & SPY_TAIL_PENDING) && f->self != GMON_CALLER_NONE;
}

/* End the frames whose key lies below limit: deeper than a live frame there, so gone. A tail call
 * to code without hooks that returned unseen ends with its chain (the tail callers in its slot) as
 * calls end, not abandoned. */
static void end_below(struct spy_thread *t, uint64_t limit, uint64_t now, int abandoned)
{
	while (t->depth && t->stack[t->depth - 1].sp < limit) {
		uint64_t slot = key_slot(t->stack[t->depth - 1].sp);

		if (!tail_out(&t->stack[t->depth - 1])) {
			spy_hooks_pop(t, now, abandoned);
			continue;
		}
		do
			spy_hooks_pop(t, now, 0);
		while (t->depth && t->stack[t->depth - 1].sp < limit &&
		       key_slot(t->stack[t->depth - 1].sp) == slot);
	}
}

/* An enter hook found frames at or below its own stack pointer: their functions are gone (longjmp,
 * pthread_exit, unwinding without hooks), so they end now. Frames never pushed because the stack
 * was full were deeper still, so they are gone too. */
static uint32_t unwind_dead(struct spy_thread *t, uint64_t sp)
{
	uint64_t now = t->timed ? spy_cycles() : 0;

	end_below(t, sp + 1, now, 1);
	t->overflow = 0;
	return t->depth;
}

/* An exit hook whose function is not the top frame; its frame's key is sp, or lo when a tail call
 * reached it (ABI 5; else lo = sp). Returns 1 when the top frame is now its own. */
static int exit_mismatch(struct spy_thread *t, uint64_t self, uint64_t sp, uint64_t lo, uint64_t now,
			 int recording)
{
	uint32_t n = t->depth, i;

	/* a frame that did not fit on the full stack: deeper than the top */
	if (t->overflow && (n == 0 || sp < t->stack[n - 1].sp)) {
		t->overflow--;
		return 0;
	}
	/* frames deeper than the exiting function cannot be alive */
	end_below(t, lo, now, 1);
	n = t->depth;
	/* its own frame, entered with a higher stack pointer (alloca) */
	if (n && t->stack[n - 1].self == self)
		return 1;
	for (i = n; i > 0; i--)
		if (t->stack[i - 1].self == self && (t->stack[i - 1].sp == sp || t->stack[i - 1].sp == lo))
			break;
	if (i == 0) {
		/* entered while not recording, or a signal handler's hook met the guard */
		SPY_SET(t->unmatched, t->unmatched + (uint64_t)recording);
		return 0;
	}
	while (t->depth > i)
		spy_hooks_pop(t, now, 1);
	return 1;
}

/*
 * An entry at key sp found a frame at or below it on top: when the frame beneath the dead ones
 * announced a tail call (__spy_tail) to this very function from the same slot, this is that call.
 * It is counted from the tail caller at the tail call's site and pushed just below it (key_slot),
 * to end it too when it returns. On a full stack (deep tail recursion) the callee takes its tail
 * caller's place instead: that call ends now, its time cut short, and the frame counts as
 * dropped. Returns 0 when this is no tail call.
 */
static int tail_enter(struct spy_thread *t, uint64_t self, uint64_t sp)
{
	uint64_t slot = key_slot(sp), now = 0, key, caller, prev, site;
	int lazy = spy_key_lazy(sp);
	uint32_t n = t->depth, ai;
	struct spy_frame *f;
	struct spy_arc *a;

	/* children of the tail caller that returned unseen (__spy_arc's) lie below slot - 2 */
	while (n && t->stack[n - 1].sp < slot - 2)
		n--;
	if (!n)
		return 0;
	f = &t->stack[n - 1];
	if ((f->tail & ~(SPY_TAIL_PENDING | SPY_TAIL_LAZY)) != self || key_slot(f->sp) != slot)
		return 0;
	if (t->timed)
		now = spy_cycles();
	end_below(t, slot - 2, now, 1);
	n = t->depth;
	if (f->tail & SPY_TAIL_LAZY)
		SPY_SET(f->sp, f->sp | 1);
	SPY_SET(f->tail, 0);
	caller = f->self;
	site = f->tail_site;
	key = lazy ? slot - 1 : slot - 2;
	ai = spy_arcs_find(&t->arcs, site, self);
	spy_tail_site_add(site);
	a = &t->arcs.arc[ai];
	prev = a->caller;
	if (n >= t->stack_max) {
		if (f->sp >= slot) /* the bottom of its chain: so is the callee */
			key = lazy ? slot | 1 : slot;
		spy_hooks_pop(t, now, 0);
		SPY_SET(t->dropped_frames, t->dropped_frames + 1);
		n--;
	}
	if (lazy)
		push_frame_as(t, n, self, site, key, ai, 0, 0);
	else
		push_frame(t, n, self, site, key, ai, now);
	/* the arc's caller is the tail caller, which push_frame_as saw only when it stays below */
	if (a->caller != caller && !(a->func & SPY_ARC_SITED))
		a->caller = a->count == 1 || prev == caller ? caller : GMON_CALLER_MANY;
	return 1;
}

/* The frame at depth i - 1 and those above it end as returned unseen: frames of __spy_arc's, and
 * tail callers whose tail call went to code without hooks (timed: they end now). */
static void end_above(struct spy_thread *t, uint32_t i)
{
	uint64_t now = t->timed && t->depth > i ? spy_cycles() : 0;

	while (t->depth > i)
		spy_hooks_pop(t, now, 0);
}

/* Frames of __spy_arc's (and tail calls pending from them) end unseen: no exit hook. The mark under a
 * program's signal handler (sig-nest.c), keyed as they are, is live while the handler runs: not one. */
static inline int frame_lazy(const struct spy_frame *f)
{
	return (spy_key_lazy(f->sp) || (f->tail & SPY_TAIL_LAZY)) && f->self != GMON_CALLER_NONE;
}

/*
 * Before a call through arc a at key is pushed: frames that returned unseen, still on the stack above
 * the call's real caller, end: those of mode arcs, and a tail caller whose tail call went to code
 * without hooks (with its chain), which returned with that code. When the call site is an
 * instrumented function's code (SPY_ARC_SITED), that function is the caller: such frames above its
 * nearest frame have returned (a callee whose arguments on the stack put its key below a returned
 * sibling's). Else the call comes from code without hooks (a callback: qsort's comparator, an event
 * loop's handler, main after a constructor that tail-called __cxa_atexit), and belongs to the nearest
 * frame really on the stack: such a frame whose return address is no longer in its slot has
 * returned. Frames with exit hooks end at their exits, not here.
 */
static void end_returned(struct spy_thread *t, const struct spy_arc *a, uint64_t key)
{
	uint32_t i = t->depth;

	if (a->func & SPY_ARC_SITED) {
		while (i && t->stack[i - 1].self != a->caller &&
		       (frame_lazy(&t->stack[i - 1]) || tail_out(&t->stack[i - 1])))
			i--;
		if (i && i < t->depth && t->stack[i - 1].self == a->caller)
			end_above(t, i);
		return;
	}
	while (i && (frame_lazy(&t->stack[i - 1]) || (i == t->depth && tail_out(&t->stack[i - 1])))) {
		/* a tail call's frames share their slot, which holds the first one's return address */
		uint32_t j = i;
		uint64_t slot = key_slot(t->stack[i - 1].sp);

		while (j > 1 && key_slot(t->stack[j - 2].sp) == slot)
			j--;
		if (slot <= key || !spy_stack_readable(t, key & ~(uint64_t)7, slot + 8) ||
		    spy_stack_word(slot) == t->stack[j - 1].call_site)
			break;
		i = j - 1;
	}
	if (i < t->depth)
		end_above(t, i);
}

/* Everything the fast path of __spy_enter leaves to others: attaching the thread, control changes,
 * dead frames, a tail call, a full stack, a new arc or a chain to walk. */
static __attribute__((noinline)) void enter_slow(struct spy_thread *t, uint64_t self, uint64_t cs,
						 uint64_t sp)
{
	SPY_KEEP_ERRNO;
	uint32_t n, ai, epoch;
	uint64_t now;

	if (t == &spy_unattached)
		t = spy_thread_attach();
	if (t->busy)
		return;
	SPY_SET(t->busy, 1);
	barrier();
	epoch = t->epoch;
	if (SPY_GET(t->stale) && !spy_ctl_sync(t, self, 1))
		goto out;
	if (t->off.base) /* off-CPU time before frames end here */
		spy_offcpu_drain(t, UINT64_MAX);
	n = t->depth;
	if (n && t->stack[n - 1].sp <= sp) {
		if (tail_enter(t, self, sp))
			goto out;
		n = unwind_dead(t, sp);
	}
	if (n >= t->stack_max) {
		t->overflow++;
		SPY_SET(t->dropped_frames, t->dropped_frames + 1);
		goto out;
	}
	ai = spy_arcs_find(&t->arcs, cs, self);
	if (ai) {
		end_returned(t, &t->arcs.arc[ai], sp);
		n = t->depth;
	}
	now = t->timed ? spy_cycles() : 0;
	/* a flush emptied the tables just now (spy_ctl_sync): the frames it left open start again with
	 * this call, so that none of them holds the work of this hook (the first arc of an empty table) */
	if (unlikely(t->epoch != epoch) && now)
		spy_thread_restart(t, now);
	if (spy_key_lazy(sp)) /* __spy_arc's: never timed */
		push_frame_as(t, n, self, cs, sp, ai, 0, 0);
	else
		push_frame(t, n, self, cs, sp, ai, now);
out:
	/* a write is reading the tables: held here, with this call recorded (its count is done) */
	if (unlikely(__atomic_load_n(&spy_frozen, __ATOMIC_SEQ_CST)))
		spy_park(t);
	barrier();
	SPY_SET(t->busy, 0);
	/* a program's signal handler that landed here runs now (sig-nest.c) */
	if (unlikely(spy_nest_deferred))
		spy_sig_nest_release(SPY_ERRNO_KEPT);
}

/* i = the arc from call site cs to s when its site is the first of its hash chain (the usual case): three
 * dependent loads when it is the site's first arc, one more per arc before it (an indirect call's other
 * callees); else goto miss, where the slow path walks the chains.
 * An empty head or site leads to index 0, the sink, whose pc and callee stay 0: no return address or
 * function has that value, so the compare fails there without a test of its own. A macro, so that a
 * miss is one branch and not a returned 0 tested again. */
#define FIRST_ARC(a, cs, s, i, miss)                          \
	do {                                                  \
		(i) = (a)->head[spy_site_hash(cs)];           \
		if (unlikely((a)->site[(i)].pc != (cs)))      \
			goto miss;                            \
		(i) = (a)->site[(i)].arcs;                    \
		while (unlikely((a)->arc[(i)].callee != (s))) \
			if (!((i) = (a)->arc[(i)].next))      \
				goto miss;                    \
	} while (0)

/*
 * The fast path: the arc is the first of its call site, which is the first of its hash chain (the
 * usual case); below the stack sits a sentinel frame (no function, the highest stack pointer), so
 * depth 0 needs no test. Anything else goes to enter_slow, which starts over.
 */
static inline __attribute__((always_inline)) void enter_as(struct spy_thread *t, uint64_t s, uint64_t cs,
							   uint64_t sp, int timed)
{
	struct spy_arcs *a = &t->arcs;
	uint32_t n = t->depth, i;
	uint64_t now = 0;

	/* early: the time stamp's latency overlaps the lookup (which the calibration's hook_in counts) */
	if (timed)
		now = spy_cycles();
	if (unlikely(n >= t->stack_max || (t->stack + n)[-1].sp <= sp)) {
		struct spy_frame *top = t->stack + n - 1;

		/* the callee of the tail call its caller announced (__spy_tail) from this very slot:
		 * counted from the tail caller at the tail call's site, pushed just below it (tail_enter's
		 * common case: a caller with exit hooks, room on the stack) */
		if (top->sp != sp || top->tail != (s | SPY_TAIL_PENDING) || n >= t->stack_max)
			goto slow;
		cs = top->tail_site;
		FIRST_ARC(a, cs, s, i, slow);
		SPY_SET(top->tail, 0);
		sp -= 2;
	} else {
		/* a tail call pending on top: its callee has no hooks, and this may come after it
		 * returned (end_returned) */
		if (unlikely((t->stack + n)[-1].tail))
			goto slow;
		FIRST_ARC(a, cs, s, i, slow);
	}
	if (unlikely(push_frame_as(t, n, s, cs, sp, i, now, timed)))
		spy_trace_enter(t);
	return;
slow:
	enter_slow(t, s, cs, sp);
}

/* Mode time's fast path on its own, reached by a tail call: inlined, the registers it needs would be
 * saved and restored on mode arcs' path too. */
static __attribute__((noinline)) void enter_timed(struct spy_thread *t, uint64_t s, uint64_t cs, uint64_t sp)
{
	enter_as(t, s, cs, sp, 1);
}

static inline __attribute__((always_inline)) void enter_hook(uint64_t s, uint64_t cs, uint64_t sp)
{
	struct spy_thread *t = spy_tls_thread;
	uint64_t gate = SPY_GET(t->gate); /* one load tells the mode and the slow path */

	if (likely(gate == 0)) {
		enter_as(t, s, cs, sp, 0);
	} else if (likely(gate == SPY_GATE_TIMED)) {
		enter_timed(t, s, cs, sp);
	} else {
		if (t->busy)
			return;
		enter_slow(t, s, cs, sp);
	}
}

/* Code of ABI 4 and older: the frame's key is the function's stack pointer at the hook. */
SPY_EXPORT void __spy_enter(void *self, void *call_site)
{
	enter_hook((uint64_t)(uintptr_t)self, (uint64_t)(uintptr_t)call_site, caller_sp());
}

/* ABI 5: the key is the slot of the function's return address, below its CFA. */
SPY_EXPORT void __spy_entry(void *self, void *call_site, void *cfa)
{
	enter_hook((uint64_t)(uintptr_t)self, (uint64_t)(uintptr_t)call_site, (uint64_t)(uintptr_t)cfa - 8);
}

/*
 * The one hook of code built with mode=arcs (ABI 4), mcount's way: no exit hook. cfa is the
 * instrumented function's canonical frame address; the word below it holds the return address,
 * and that word's address, with bit 0 set, is the frame's key. A call has returned once a later
 * call's key reaches its own: a sibling called from the same frame has the same key, anything
 * deeper a lower one. So this hook first drops such frames, which costs a compare per frame where
 * an exit hook would have cost a call; a dead frame of code with exit hooks (abandoned) goes to
 * the slow path, which ends it as such. Frames whose return was not yet seen by a later call
 * stay on the stack: samples tell them from live ones by the stack pointer (sample.c).
 */
static inline __attribute__((always_inline)) void arc_hook(void *self, void *cfa)
{
	struct spy_thread *t = spy_tls_thread;
	uint64_t slot = (uint64_t)(uintptr_t)cfa - 8, key = slot | 1, s = (uint64_t)(uintptr_t)self;
	uint64_t cs = *(const uint64_t *)(uintptr_t)slot;
	struct spy_arcs *a = &t->arcs;
	struct spy_frame *top;
	uint32_t n, i;

	/* busy or stale; either mode, as this hook takes no time */
	if (unlikely(SPY_GET(t->held))) {
		if (t->busy)
			return;
		goto slow;
	}
	n = t->depth;
	top = t->stack + n - 1; /* the sentinel at depth 0, with the highest key */
	while (top->sp <= key && spy_key_lazy(top->sp)) {
		top--;
		n--;
	}
	if (unlikely(n >= t->stack_max || top->sp <= key))
		goto slow;
	FIRST_ARC(a, cs, s, i, slow);
	{
		struct spy_arc *arc = &a->arc[i];
		struct spy_frame *f;

		/* not the arc's caller on top: the callee before it from the same caller returned
		 * unseen (the common case: it ends here), or the slow path sorts it out (a new caller
		 * of the arc, frames returned deeper, a callback's frame gone) */
		if (unlikely(arc->caller != top->self) && arc->caller != GMON_CALLER_MANY) {
			if (!(arc->func & SPY_ARC_SITED) || n < 2 || top[-1].self != arc->caller ||
			    !spy_key_lazy(top->sp) || top->tail || top->self == GMON_CALLER_NONE)
				goto slow;
			top--;
			n--;
		}
		/* a call from code without hooks under a frame of __spy_arc's that may have returned
		 * (its return address gone from its slot): the slow path looks */
		if (unlikely(!(arc->func & SPY_ARC_SITED)) && n && frame_lazy(top) &&
		    key_slot(top->sp) > key && spy_stack_readable(t, slot, key_slot(top->sp) + 8) &&
		    spy_stack_word(key_slot(top->sp)) != top->call_site)
			goto slow;
		f = top + 1;
		count_one(&arc->count);
		/* the dead frames off first, so that a signal handler's sample never reads the
		 * frame being rewritten */
		SPY_SET(t->depth, n);
		barrier();
		SPY_SET(f->sp, key);
		SPY_SET(f->self, s);
		SPY_SET(f->call_site, cs);
		barrier();
		SPY_SET(t->depth, n + 1);
	}
	return;
slow:
	enter_slow(t, s, cs, key);
}

SPY_EXPORT void __spy_arc(void *self, void *cfa)
{
	arc_hook(self, cfa);
}

/* The TLS variable the inline code of ABI 6 reads: spy_tls_thread, exported under a name of its own. */
extern SPY_TLS struct spy_thread *spy_tls_abi6 __asm__(SPY_THREAD_SYMBOL)
	__attribute__((alias("spy_tls_thread"), visibility("default")));

/* The arc (pc, callee) when it exists, else 0: spy_arcs_find without the insertion. */
static uint32_t arc_lookup(const struct spy_arcs *a, uint64_t pc, uint64_t callee)
{
	uint32_t s = a->head[spy_site_hash(pc)], i;

	while (s && a->site[s].pc != pc)
		s = a->site[s].next;
	if (!s)
		return 0;
	for (i = a->site[s].arcs; i && a->arc[i].callee != callee; i = a->arc[i].next)
		;
	return i;
}

/* A way's call site is cleared first and written last: the inline code (or a signal handler's)
 * reads it first, so it never uses a way half written. */
static void way_fill(struct spy_acache_way *w, uint64_t cs, uint64_t caller, uint64_t *count, uint64_t depth)
{
	SPY_SET(w->call_site, 0);
	barrier();
	w->caller = caller;
	w->count = count;
	w->depth = depth;
	barrier();
	SPY_SET(w->call_site, cs);
}

/*
 * ABI 6: what the inline code of mode=arcs (spy-abi.h) leaves here. The call goes the way of
 * __spy_arc; then, when that pushed the call as the inline code would have (a lazy frame at its key,
 * on top, its arc's caller the frame below it) and the thread's hooks may take a fast path, the
 * function's cache entry is filled, so that its next call from the same site and caller stays
 * inline.
 */
SPY_EXPORT void __spy_arc_miss(void *self, void *cfa, const uint64_t *slotp)
{
	uint64_t slot = (uint64_t)(uintptr_t)cfa - 8, key = slot | 1, s = (uint64_t)(uintptr_t)self;
	uint64_t cs = *(const uint64_t *)(uintptr_t)slot, fslot, caller;
	struct spy_thread *t;
	struct spy_frame *top;
	struct spy_acache *e;
	struct spy_arc *arc;
	uint32_t n, ai;
	uint64_t *counts = __spy_counts;

	/* the counter, which the inline code leaves here with the rest */
	if (unlikely(!counts))
		counts = __spy_counts_slow();
	count_one(&counts[__atomic_load_n(slotp, __ATOMIC_ACQUIRE)]);
	arc_hook(self, cfa);
	t = spy_tls_thread;
	/* ABI 7: a thread that started before the executable's units registered has their copy as
	 * every new thread gets it (held) */
	exe_copies_write(t);
	/* nor under a program's handler: the code it interrupted may be in the middle of reading the
	 * very entry (its call site compared, its counter's pointer not yet read) */
	if (SPY_GET(t->held) || !t->acache || !t->counts || t->sig_nested)
		return;
	n = t->depth;
	fslot = __atomic_load_n(slotp, __ATOMIC_RELAXED);
	if (!n || !fslot || fslot >= SPY_SLOTS_MAX)
		return;
	top = &t->stack[n - 1];
	if (top->self != s || top->sp != key || top->call_site != cs)
		return;
	caller = top[-1].self;
	ai = arc_lookup(&t->arcs, cs, s);
	if (!ai)
		return;
	arc = &t->arcs.arc[ai];
	if (arc->caller != caller && arc->caller != GMON_CALLER_MANY)
		return;
	e = &t->acache[fslot];
	/* its own way when the site has one (a new caller); else an empty way; else the way of the
	 * site with fewer calls, when this site has had more: of a function called from more sites
	 * than the entry has ways, the two busiest stay, and the others (which miss) do not push
	 * them out in turn */
	if (e->way[0].call_site == cs || !e->way[0].call_site) {
		way_fill(&e->way[0], cs, caller, &arc->count, n - 1);
	} else if (e->way[1].call_site == cs || !e->way[1].call_site) {
		way_fill(&e->way[1], cs, caller, &arc->count, n - 1);
	} else {
		int k = *e->way[1].count < *e->way[0].count;

		if (arc->count > *e->way[k].count)
			way_fill(&e->way[k], cs, caller, &arc->count, n - 1);
	}
}

/* An exit whose frame is not on top, or was reached by a tail call (then at key lo; lo = sp for code
 * of ABI 4 and older): ending it ends its tail callers, the frames of its slot below it. */
static __attribute__((noinline)) void exit_slow(struct spy_thread *t, uint64_t self, uint64_t sp, uint64_t lo,
						uint64_t now)
{
	SPY_KEEP_ERRNO;
	struct spy_frame *top;
	int recording = 1;

	if (t == &spy_unattached) {
		t = spy_thread_attach();
		now = t->timed ? spy_cycles() : 0;
	}
	if (t->busy)
		return;
	SPY_SET(t->busy, 1);
	barrier();
	/* SPYRT_COUNTERS: the frames this exit ends end here, before the work below (a first touch of
	 * the off-CPU table's pages is no page fault of theirs) */
	if (t->timed & SPY_TIMED_CTRS)
		spy_ctr_stamp(t);
	if (SPY_GET(t->stale))
		recording = spy_ctl_sync(t, self, 0);
	if (t->off.base) { /* the top frame ends at now: a switch after that is its caller's */
		uint32_t n = t->depth, k = 1;

		/* and the tail callers under it, which end with it */
		while (lo != sp && k < n && key_slot(t->stack[n - 1 - k].sp) == sp)
			k++;
		t->off.ending = k;
		spy_offcpu_drain(t, now);
		t->off.ending = 1;
	}
	top = &t->stack[t->depth - 1];
	if ((t->depth && top->self == self && (top->sp == sp || top->sp == lo)) ||
	    exit_mismatch(t, self, sp, lo, now, recording)) {
		pop_frame(t, now);
		while (lo != sp && t->depth && key_slot(t->stack[t->depth - 1].sp) == sp)
			spy_hooks_pop(t, now, 0);
	}
	t->ctr.stamped = 0;
	if (unlikely(__atomic_load_n(&spy_frozen, __ATOMIC_SEQ_CST)))
		spy_park(t);
	barrier();
	SPY_SET(t->busy, 0);
	/* a program's signal handler that landed here runs now (sig-nest.c) */
	if (unlikely(spy_nest_deferred))
		spy_sig_nest_release(SPY_ERRNO_KEPT);
}

static inline __attribute__((always_inline)) void exit_as(struct spy_thread *t, uint64_t s, uint64_t sp,
							  uint64_t lo, int timed)
{
	/* first, so the hook's own work is not charged to the callee */
	uint64_t now = timed ? spy_cycles() : 0;
	struct spy_frame *top = t->stack + t->depth - 1; /* the sentinel at depth 0 */

	/* mode time: a context switch since the last look goes to the slow path (offcpu.c) */
	if (timed && unlikely(spy_offcpu_pending(t)))
		goto slow;
	if (unlikely(top->self != s || top->sp != sp)) {
		/* the callee of a tail call (ABI 5: key lo), its tail caller below it at the slot: both
		 * end now (exit_slow's common case: one tail call, no frames abandoned above) */
		if (top->self != s || top->sp != lo || lo == sp || top[-1].sp != sp || top[-1].tail)
			goto slow;
		if (unlikely(pop_frame_as(t, now, timed)))
			spy_trace_exit(t, now);
	}
	if (unlikely(pop_frame_as(t, now, timed)))
		spy_trace_exit(t, now);
	return;
slow:
	exit_slow(t, s, sp, lo, now);
}

static inline __attribute__((always_inline)) void exit_hook(uint64_t s, uint64_t sp, uint64_t lo)
{
	struct spy_thread *t = spy_tls_thread;
	uint64_t gate = SPY_GET(t->gate); /* one load tells the mode and the slow path */

	if (likely(gate == 0)) {
		exit_as(t, s, sp, lo, 0);
	} else if (likely(gate == SPY_GATE_TIMED)) {
		exit_as(t, s, sp, lo, 1);
	} else {
		uint64_t now = t->timed ? spy_cycles() : 0;

		if (t->busy)
			return;
		exit_slow(t, s, sp, lo, now);
	}
}

SPY_EXPORT void __spy_exit(void *self)
{
	uint64_t sp = caller_sp();

	exit_hook((uint64_t)(uintptr_t)self, sp, sp);
}

SPY_EXPORT void __spy_leave(void *self, void *cfa)
{
	uint64_t slot = (uint64_t)(uintptr_t)cfa - 8;

	exit_hook((uint64_t)(uintptr_t)self, slot, slot - 2);
}

/* Announce the tail call on frame f (its function's): see tail_enter. */
static inline void tail_mark(struct spy_frame *f, uint64_t callee, uint64_t site)
{
	uint64_t lazy = spy_key_lazy(f->sp) || (f->tail & SPY_TAIL_LAZY) ? SPY_TAIL_LAZY : 0;

	f->tail_site = site;
	SPY_SET(f->tail, callee | SPY_TAIL_PENDING | lazy);
	barrier();
	SPY_SET(f->sp, f->sp & ~(uint64_t)1);
}

static __attribute__((noinline)) void tail_slow(struct spy_thread *t, uint64_t self, uint64_t callee,
						uint64_t slot, uint64_t site)
{
	SPY_KEEP_ERRNO;
	int recording = 1;
	uint32_t n;

	if (t == &spy_unattached || t->busy)
		return;
	SPY_SET(t->busy, 1);
	barrier();
	if (SPY_GET(t->stale))
		recording = spy_ctl_sync(t, self, 0);
	n = t->depth;
	if (t->overflow && (n == 0 || slot < key_slot(t->stack[n - 1].sp))) {
		/* its frame did not fit on the full stack: the tail call ends it, as an exit did */
		t->overflow--;
		goto out;
	}
	if (t->off.base) /* off-CPU time before frames end here */
		spy_offcpu_drain(t, UINT64_MAX);
	/* frames deeper than the tail caller cannot be alive */
	end_below(t, slot - 2, t->timed ? spy_cycles() : 0, 1);
	n = t->depth;
	if (n && t->stack[n - 1].self == self && key_slot(t->stack[n - 1].sp) == slot)
		tail_mark(&t->stack[n - 1], callee, site);
	else
		SPY_SET(t->unmatched, t->unmatched + (uint64_t)recording);
out:
	/* a write is reading the tables: held here (its stale flag, which sent it here, is spent) */
	if (unlikely(__atomic_load_n(&spy_frozen, __ATOMIC_SEQ_CST)))
		spy_park(t);
	barrier();
	SPY_SET(t->busy, 0);
	/* a program's signal handler that landed here runs now (sig-nest.c) */
	if (unlikely(spy_nest_deferred))
		spy_sig_nest_release(SPY_ERRNO_KEPT);
}

/*
 * ABI 5: self is about to jump to callee (a tail call) from the frame of return-address slot
 * cfa - 8. Its frame stays, marked, until callee's entry takes it for the tail call (tail_enter),
 * or a later hook finds it gone: a callee without hooks returns unseen to self's caller, and its
 * time, and the calls it makes back into instrumented code, are self's until then (issue 23: as in
 * mode arcs, where the frame stays too). No time stamp: the callee's entry ends the caller's own time.
 */
SPY_EXPORT void __spy_tail(void *self, void *callee, void *cfa)
{
	struct spy_thread *t = spy_tls_thread;
	uint64_t s = (uint64_t)(uintptr_t)self, slot = (uint64_t)(uintptr_t)cfa - 8;
	uint64_t c = (uint64_t)(uintptr_t)callee, site = (uint64_t)(uintptr_t)__builtin_return_address(0);
	struct spy_frame *top;

	if (unlikely(SPY_GET(t->held))) {
		/* the idle thread (count mode), a signal handler's hook inside one */
		if (!t->busy)
			tail_slow(t, s, c, slot, site);
		return;
	}
	top = t->stack + t->depth - 1; /* the sentinel at depth 0 */
	if (likely(top->self == s && key_slot(top->sp) == slot)) {
		tail_mark(top, c, site);
		return;
	}
	tail_slow(t, s, c, slot, site);
}

/*
 * A C++ handler has caught an exception (code of ABI 4 calls this right after
 * __cxa_begin_catch): the frames below the catching function's stack pointer are
 * the calls the exception unwound, and they end now, as exits (not abandoned: this
 * is where they ended, give or take their destructors, which ran before). Frames
 * not pushed for a full stack were deeper still, so they are gone too, unless the
 * catcher is one of them.
 */
SPY_EXPORT void __spy_catch(void)
{
	SPY_KEEP_ERRNO;
	struct spy_thread *t = spy_tls_thread;
	uint64_t sp = caller_sp(), now;

	/* no frames yet; the idle thread (count mode); a signal handler's catch inside a hook */
	if (t == &spy_unattached || t->busy)
		return;
	SPY_SET(t->busy, 1);
	barrier();
	now = t->timed ? spy_cycles() : 0;
	if (t->off.base)
		spy_offcpu_drain(t, UINT64_MAX);
	end_below(t, sp, now, 0);
	if (!t->depth || t->stack[t->depth - 1].sp <= sp)
		t->overflow = 0;
	barrier();
	SPY_SET(t->busy, 0);
	/* a program's signal handler that landed here runs now (sig-nest.c) */
	if (unlikely(spy_nest_deferred))
		spy_sig_nest_release(SPY_ERRNO_KEPT);
}

/* ---- calibration: what one instrumented call costs the hooks ---- */

static __attribute__((noinline, noipa)) void spy_calib_dummy(void)
{
	barrier();
}

/* the hooks of mode time as ABI 5 calls them */
static __attribute__((noinline, noipa)) uint64_t calib_hooks(unsigned n)
{
	void *ra = __builtin_return_address(0), *cfa = __builtin_dwarf_cfa();
	uint64_t t0 = spy_cycles();

	for (unsigned i = 0; i < n; i++) {
		__spy_entry((void *)spy_calib_dummy, ra, cfa);
		__spy_leave((void *)spy_calib_dummy, cfa);
	}
	return spy_cycles() - t0;
}

static __attribute__((noinline, noipa)) void spy_calib_tail_callee(void)
{
	barrier();
}

/* a call of spy_calib_dummy that tail-calls spy_calib_tail_callee, as ABI 5 code makes it: the tail
 * hook, then the callee's hooks in the tail caller's slot (the fast paths of a tail call); *site gets
 * the tail caller's call site */
static __attribute__((noinline, noipa)) uint64_t calib_tail(unsigned n, uint64_t *site)
{
	void *ra = __builtin_return_address(0), *cfa = __builtin_dwarf_cfa();
	uint64_t t0 = spy_cycles();

	for (unsigned i = 0; i < n; i++) {
		__spy_entry((void *)spy_calib_dummy, ra, cfa);
		__spy_tail((void *)spy_calib_dummy, (void *)spy_calib_tail_callee, cfa);
		__spy_entry((void *)spy_calib_tail_callee, ra, cfa);
		__spy_leave((void *)spy_calib_tail_callee, cfa);
	}
	*site = (uint64_t)(uintptr_t)ra;
	return spy_cycles() - t0;
}

/* calib_tail's sums so far: the tail caller's self cycles and the tail callee's inclusive ones. */
static void calib_tail_sums(const struct spy_arcs *a, uint64_t site, uint64_t *caller_self,
			    uint64_t *callee_incl)
{
	uint32_t i = site ? arc_lookup(a, site, (uint64_t)(uintptr_t)spy_calib_dummy) : 0;

	*caller_self = i ? a->arc[i].self : 0;
	*callee_incl = 0;
	for (uint32_t k = 1; k < a->narc; k++)
		if (a->arc[k].callee == (uint64_t)(uintptr_t)spy_calib_tail_callee)
			*callee_incl += a->arc[k].incl;
}

/* __spy_arc as sibling calls make it: each call drops the last one's frame, of the same key */
static __attribute__((noinline, noipa)) uint64_t calib_arc(unsigned n)
{
	uint64_t frame[2] = { (uint64_t)(uintptr_t)__builtin_return_address(0), 0 }, t0 = spy_cycles();

	for (unsigned i = 0; i < n; i++)
		__spy_arc((void *)spy_calib_dummy, &frame[1]);
	return spy_cycles() - t0;
}

static __attribute__((noinline, noipa)) uint64_t calib_empty(unsigned n)
{
	uint64_t t0 = spy_cycles();

	for (unsigned i = 0; i < n; i++)
		spy_calib_dummy();
	return spy_cycles() - t0;
}

static __attribute__((noinline, noipa)) uint64_t calib_tsc(unsigned n)
{
	uint64_t t0 = spy_cycles(), x = 0;

	for (unsigned i = 0; i < n; i++) {
		x += spy_cycles();
		barrier();
	}
	(void)x;
	return spy_cycles() - t0;
}

/*
 * Time loops of enter+exit pairs on a dummy function with a scratch thread, as Mesa's tool measured
 * its own breakpoints: the pair's cost per call, split into what lands inside the callee's measured
 * time (between the enter's last and the exit's first time stamp) and what lands in the caller's.
 * The minimum over several rounds is kept: interruptions only ever add. Every process pays for it
 * (issue 11), so the loops are short: a loop of 256 calls lasts a few µs, which an interruption
 * rarely hits, and four of them agree with loops of 2000 to a tenth of a cycle; about 40 µs in all.
 */
void spy_hooks_calibrate(void)
{
	enum {
		N = 256,
		ROUNDS = 5
	};
	struct spy_thread scratch, *saved = spy_tls_thread;
	uint64_t best = UINT64_MAX, best_empty = UINT64_MAX, best_in = UINT64_MAX, best_tsc = UINT64_MAX;
	uint64_t best_arc = UINT64_MAX, best_tail = UINT64_MAX, best_tail_in = UINT64_MAX,
		 best_tail_callee = UINT64_MAX, tail_site = 0;

	if (spy_mode == SPY_MODE_COUNT)
		return;
	memset(&scratch, 0, sizeof(scratch));
	scratch.timed = spy_mode == SPY_MODE_TIME;
	scratch.sw_head = &spy_offcpu_none; /* no ring: the exit hook's test as in any thread */
	scratch.stack_max = 64;
	scratch.stack = spy_stack_new(64);
	/* a program's handler may run instrumented code on this thread meanwhile: the inline code of
	 * mode arcs (ABI 6) reads the cache of any thread whose hooks are not held */
	scratch.acache = spy_acache_new();
	if (!scratch.stack || !scratch.acache || spy_arcs_init(&scratch.arcs, 16, 64, scratch.timed))
		goto out;
	scratch.tables = 1;
	spy_tls_set(&scratch);
	/*
	 * Each quantity keeps its own minimum: a round whose empty loop was interrupted would
	 * otherwise make that round's difference look smallest and hide the hooks' cost.
	 */
	for (int r = 0; r < ROUNDS; r++) {
		/* the dummy's arc is the first the scratch tables make: index 1 */
		uint64_t in0 = scratch.arcs.narc > 1 ? scratch.arcs.arc[1].self : 0, in1, total, empty, tsc,
			 arc;

		uint64_t tail, tin0, tin1, tce0, tce1;

		total = calib_hooks(N);
		in1 = scratch.arcs.narc > 1 ? scratch.arcs.arc[1].self : 0;
		empty = calib_empty(N);
		tsc = calib_tsc(N);
		arc = calib_arc(N);
		scratch.depth = 0;
		calib_tail_sums(&scratch.arcs, tail_site, &tin0, &tce0);
		tail = scratch.timed ? calib_tail(N, &tail_site) : 0;
		calib_tail_sums(&scratch.arcs, tail_site, &tin1, &tce1);
		scratch.depth = 0;
		if (r == 0)
			continue; /* warm-up: page faults, first insertion */
		best_tail = tail < best_tail ? tail : best_tail;
		best_tail_in = tin1 - tin0 < best_tail_in ? tin1 - tin0 : best_tail_in;
		best_tail_callee = tce1 - tce0 < best_tail_callee ? tce1 - tce0 : best_tail_callee;
		best = total < best ? total : best;
		best_empty = empty < best_empty ? empty : best_empty;
		best_in = in1 - in0 < best_in ? in1 - in0 : best_in;
		best_tsc = tsc < best_tsc ? tsc : best_tsc;
		best_arc = arc < best_arc ? arc : best_arc;
	}
	best = best > best_empty ? best - best_empty : 0;
	spy_hook_arc_mcyc = best_arc > best_empty ? (best_arc - best_empty) * 1000 / N : 0;
	spy_hook_in_mcyc = best_in * 1000 / N;
	spy_hook_out_mcyc = best * 1000 / N > spy_hook_in_mcyc ? best * 1000 / N - spy_hook_in_mcyc : 0;
	spy_tsc_read_mcyc = best_tsc * 1000 / N;
	/*
	 * A tail call (the caller P calls F, which tail-calls W): spinprof takes a call's hook_in and
	 * hook_out off F (its call, its call of W), hook_in off W and hook_out off P; what F's and P's
	 * self times hold beyond that, per tail call, is the tail call's own: F's from its entry's time
	 * stamp to W's (the tail hook, W's entry), P's the rest of the sequence (W's exit ends both).
	 */
	if (scratch.timed && best_tail != UINT64_MAX && best_tail > best_empty) {
		int64_t seq = (int64_t)((best_tail - best_empty) * 1000 / N);
		int64_t in = (int64_t)(best_tail_in * 1000 / N),
			callee = (int64_t)(best_tail_callee * 1000 / N);

		spy_hook_tail_in_mcyc = in - (int64_t)spy_hook_in_mcyc - (int64_t)spy_hook_out_mcyc;
		spy_hook_tail_out_mcyc = seq - in - callee - (int64_t)spy_hook_out_mcyc;
	}
out:
	spy_tls_set(saved);
	spy_arcs_release(&scratch.arcs);
	spy_stack_free(scratch.stack, 64);
	spy_acache_free(scratch.acache);
}
