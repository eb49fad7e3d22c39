/* A module's identity is its load, not its address: once an instrumented module is dlclose'd, what the
 * run recorded at its addresses (arcs, function times, samples, traces) moves to a range of its own,
 * outside any process's address space, so that whatever is loaded there next records apart from it.
 * Each move is one record of an append-only list; a thread applies the records it has not seen to its
 * own tables on its next slow path (control.c: the hooks' fast paths are unchanged, the move marks
 * every thread stale as a control change does), its sampling table under its lock, and the writer to
 * what it copies; exited threads' data moves at once, under spy_lock. */
#include "spyrt.h"

#include <stdlib.h>

/* The moved ranges start here: above every user address of x86-64 (47 or 56 bits) and aarch64 (48 or
 * 52 bits), below the tail-call flag bits of a frame (hooks.c), 1 MiB apart. */
#define SYNTH_BASE ((uint64_t)1 << 60)
#define SYNTH_ALIGN ((uint64_t)1 << 20)

static struct spy_load_end *head;
struct spy_load_end *spy_loads_tail;
static uint64_t synth_next = SYNTH_BASE;
static int closing; /* modules whose units unregistered, not yet known to be gone */

uint64_t spy_loads_map(uint64_t a, const struct spy_load_end *from, const struct spy_load_end *to)
{
	const struct spy_load_end *r = __atomic_load_n(from ? &from->next : &head, __ATOMIC_ACQUIRE);

	/* appended to under spy_lock, read by any thread: each link is published after its record */
	for (; r; r = __atomic_load_n(&r->next, __ATOMIC_ACQUIRE)) {
		if (a - r->lo < r->hi - r->lo)
			a += r->delta;
		if (r == to)
			break;
	}
	return a;
}

#define MOVE(lv) ((lv) = spy_loads_map((lv), from, to))

void spy_loads_tdata(struct spy_tdata *d, const struct spy_load_end *from, const struct spy_load_end *to)
{
	if (from == to)
		return;
	for (uint64_t i = 0; i < d->narcs; i++) {
		MOVE(d->arcs[i].call_site);
		MOVE(d->arcs[i].caller);
		MOVE(d->arcs[i].callee);
	}
	for (uint64_t i = 0; i < d->nfstats; i++)
		MOVE(d->fstats[i].f.addr);
}

void spy_loads_stacks(struct gmon_stack *k, uint64_t nk, struct gmon_frame *f, uint64_t nf,
		      const struct spy_load_end *from, const struct spy_load_end *to)
{
	if (from == to)
		return;
	for (uint64_t i = 0; i < nk; i++)
		MOVE(k[i].pc);
	for (uint64_t i = 0; i < nf; i++) {
		MOVE(f[i].func);
		MOVE(f[i].call_site);
	}
}

void spy_loads_events(struct gmon_tevent *ev, uint64_t n, uint32_t kind, const struct spy_load_end *from,
		      const struct spy_load_end *to)
{
	if (from == to)
		return;
	for (uint64_t i = 0; i < n; i++) {
		MOVE(ev[i].func);
		MOVE(ev[i].addr); /* a call site, a PC, or a fault's address: moved when in the text */
		if (kind == GMON_TRACE_FAULTS)
			MOVE(ev[i].value); /* the faulting instruction */
	}
}

/* A thread's ring of kind, in place (its own thread, or an exited one under spy_lock). */
static void ring_move(struct spy_tring *r, uint64_t cap, uint32_t kind, const struct spy_load_end *from,
		      const struct spy_load_end *to)
{
	uint64_t n = __atomic_load_n(&r->n, __ATOMIC_ACQUIRE);

	if (r->ev && cap)
		spy_loads_events(r->ev, n < cap ? n : cap, kind, from, to);
}

static void rings_move(struct spy_thread *t, const struct spy_load_end *from, const struct spy_load_end *to)
{
	ring_move(&t->trace, SPY_TRACE_EVENTS, GMON_TRACE_CALLS, from, to);
	ring_move(&t->ftrace, spy_cfg.fault_trace, GMON_TRACE_FAULTS, from, to);
	ring_move(&t->strace, spy_cfg.signal_trace, GMON_TRACE_SIGNALS, from, to);
}

/*
 * The calling thread's tables, stack and rings, on its slow path (busy). An entry keeps its place in
 * its hash chain with its new key, which no call matches again: the next call at the old address
 * makes an entry of its own, at the head of the chain, where the fast paths look first.
 */
void spy_loads_sync(struct spy_thread *t)
{
	const struct spy_load_end *from = t->loads_at,
				  *to = __atomic_load_n(&spy_loads_tail, __ATOMIC_ACQUIRE);
	struct spy_arcs *a = &t->arcs;

	if (from == to)
		return;
	if (t->tables) {
		for (uint32_t s = 1; s < a->nsite; s++)
			SPY_SET(a->site[s].pc, spy_loads_map(a->site[s].pc, from, to));
		for (uint32_t i = 1; i < a->narc; i++) {
			SPY_SET(a->arc[i].callee, spy_loads_map(a->arc[i].callee, from, to));
			SPY_SET(a->arc[i].caller, spy_loads_map(SPY_GET(a->arc[i].caller), from, to));
		}
		for (uint32_t i = 1; a->fstat && i < a->nfstat; i++)
			SPY_SET(a->fstat[i].addr, spy_loads_map(a->fstat[i].addr, from, to));
		for (uint32_t i = 0; i < t->depth; i++) {
			SPY_SET(t->stack[i].self, spy_loads_map(t->stack[i].self, from, to));
			SPY_SET(t->stack[i].call_site, spy_loads_map(t->stack[i].call_site, from, to));
		}
		/* mode arcs' inline cache: a way whose call site was in the range would count the next
		 * load's calls into the moved arc */
		spy_acache_clear(t);
	}
	rings_move(t, from, to);
	__atomic_store_n(&t->loads_at, to, __ATOMIC_RELEASE);
}

void spy_loads_samp(struct spy_samp *s)
{
	const struct spy_load_end *from = s->loads_at,
				  *to = __atomic_load_n(&spy_loads_tail, __ATOMIC_ACQUIRE);

	if (from == to)
		return;
	for (uint32_t i = 1; s->stk && i < s->nstk; i++)
		SPY_SET(s->stk[i].pc, spy_loads_map(s->stk[i].pc, from, to));
	for (uint32_t i = 0; s->frm && i < s->nfrm; i++) {
		SPY_SET(s->frm[i].func, spy_loads_map(s->frm[i].func, from, to));
		SPY_SET(s->frm[i].call_site, spy_loads_map(s->frm[i].call_site, from, to));
	}
	__atomic_store_n(&s->loads_at, to, __ATOMIC_RELEASE);
}

/* An exited thread's data, or the folded threads'. Under spy_lock. */
static void exited_move(struct spy_thread *t, const struct spy_load_end *to)
{
	if (t->loads_at == to && t->samp.loads_at == to)
		return;
	spy_loads_tdata(&t->data, t->loads_at, to);
	spy_loads_stacks(t->samp.kept, t->samp.nkept, t->samp.kept_frames, t->samp.nkept_frames,
			 t->samp.loads_at, to);
	rings_move(t, t->loads_at, to);
	t->loads_at = t->samp.loads_at = to;
}

void spy_loads_exited(struct spy_thread *t)
{
	exited_move(t, __atomic_load_n(&spy_loads_tail, __ATOMIC_ACQUIRE));
}

/* Append the move of [lo, hi) by delta; exited threads' data follows now, the live threads' on their
 * next slow path. Under spy_lock. 0, or -1 without memory. */
static int add_move(uint64_t lo, uint64_t hi, uint64_t delta)
{
	struct spy_load_end *r = malloc(sizeof(*r));

	if (!r)
		return -1;
	r->lo = lo;
	r->hi = hi;
	r->delta = delta;
	r->next = NULL;
	if (spy_loads_tail)
		__atomic_store_n(&spy_loads_tail->next, r, __ATOMIC_RELEASE);
	else
		__atomic_store_n(&head, r, __ATOMIC_RELEASE);
	__atomic_store_n(&spy_loads_tail, r, __ATOMIC_SEQ_CST);
	for (struct spy_thread *t = __atomic_load_n(&spy_threads, __ATOMIC_ACQUIRE); t; t = t->next) {
		int state = __atomic_load_n(&t->state, __ATOMIC_ACQUIRE);

		if (state == SPY_THREAD_EXITED)
			exited_move(t, r);
		else if (state == SPY_THREAD_LIVE)
			__atomic_store_n(&t->stale, 1, __ATOMIC_SEQ_CST); /* spy_ctl_sync moves its tables */
	}
	exited_move(&spy_folded, r);
	return 0;
}

/* Move module m's data to its range of its own. */
static void move_away(struct spy_module *m)
{
	if (m->shift || m->text_lo >= m->text_hi)
		return;
	if (!m->synth) {
		uint64_t len = (m->text_hi - m->base + SYNTH_ALIGN - 1) & ~(SYNTH_ALIGN - 1);

		m->synth = synth_next;
		synth_next += len + SYNTH_ALIGN;
	}
	if (add_move(m->text_lo, m->text_hi, m->synth - m->base)) {
		spy_note_error("out of memory: a dlclose'd module's calls are not kept apart from the next "
			       "module loaded at its address");
		return;
	}
	m->shift = m->synth - m->base;
}

/*
 * A unit unregisters in its module's destructors, which run at dlclose and at exit alike, while the
 * module is still mapped: which it was is known once the dynamic linker has moved on. So the module is
 * marked closing, and settled by the next registration (a later dlopen, before the new object's code
 * runs: its unit registers in its first constructor) or the next write, whichever comes first: gone
 * from the link map, it moves; still there (exit, or loaded again at the same place), it stays.
 */
void spy_loads_end(uint32_t module)
{
	if (module < spy_nmodules) {
		spy_modules[module].flags |= SPY_MOD_CLOSING;
		closing = 1;
	}
}

void spy_loads_settle(int scanned)
{
	if (!closing)
		return;
	closing = 0;
	if (!scanned)
		spy_modules_scan();
	for (uint32_t i = 0; i < spy_nmodules; i++) {
		struct spy_module *m = &spy_modules[i];

		if (!(m->flags & SPY_MOD_CLOSING))
			continue;
		m->flags &= ~(uint32_t)SPY_MOD_CLOSING;
		if (m->flags & GMON_MOD_CLOSED)
			move_away(m);
	}
}

void spy_loads_again(uint32_t module)
{
	struct spy_module *m = module < spy_nmodules ? &spy_modules[module] : NULL;

	if (!m || !m->shift)
		return;
	/* the same object at the same place again: what it recorded before comes back to it */
	if (add_move(m->text_lo + m->shift, m->text_hi + m->shift, -m->shift)) {
		spy_note_error("out of memory: a module loaded again is described as two");
		return;
	}
	m->shift = 0;
}
