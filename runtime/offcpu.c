/* Off-CPU time in mode time: each thread reads its own context switches from a perf_event ring
 * (PERF_RECORD_SWITCH, stamped with CLOCK_MONOTONIC), so the hooks can tell the time a call spent
 * running from the time it spent off the CPU, blocked or preempted, as gprof's seconds mean CPU time.
 * The exit hook's fast path only compares the ring's head with what the thread last read (hooks.c);
 * after a switch, spy_offcpu_drain charges each interval to the frames that were active through it,
 * at a cost that does not grow with the depth of the stack (struct spy_offside).
 *
 * Where the kernel allows it (perf_event_paranoid at most 1, or CAP_PERFMON), the ring's event is the
 * context-switch counter sampled at every switch with the user PC: a blocked interval is then put
 * down to where the thread blocked (struct spy_wait), which spinprof names (a lock, a condition
 * variable, a sleep, I/O, a page fault). Elsewhere the ring has the switches only. */
#include "spyrt.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <string.h>
#include <asm/perf_regs.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

/* 8 pages of records of 16 bytes: 1024 switches between two reads before the ring overruns; twice
 * as many pages with a sample of 32 bytes before each switch-out, for as many switches */
#define RING_PAGES 8u

/* What sw_head points at without a ring: never moves, so the fast path never leaves. */
const uint64_t spy_offcpu_none;
int spy_offcpu_failed;
int spy_offcpu_nowaits; /* the kernel refused the samples at switches: not asked again */

#if defined(__x86_64__)
#define PC_REG PERF_REG_X86_IP
static const uint8_t syscall_insn[] = { 0x0f, 0x05 }; /* syscall */
#elif defined(__aarch64__)
#define PC_REG PERF_REG_ARM64_PC
static const uint8_t syscall_insn[] = { 0x01, 0x00, 0x00, 0xd4 }; /* svc #0 */
#endif

static size_t page_size(void)
{
	long p = sysconf(_SC_PAGESIZE);

	return p > 0 ? (size_t)p : 4096;
}

/* Give t (the calling thread) its ring; on failure t keeps measuring wall time and the run says so once. */
void spy_offcpu_open(struct spy_thread *t)
{
	struct perf_event_attr a;
	size_t ps = page_size(), pages = RING_PAGES, len;
	const char *what = "perf_event_open";
	void *base;
	int fd, saved = errno; /* reached from a hook: the program's errno is left alone */

	memset(&t->off, 0, sizeof(t->off));
	t->sw_head = &spy_offcpu_none;
	SPY_SET(t->sw_seen, 0);
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_DUMMY;
	a.context_switch = 1;
	a.sample_id_all = 1;
	a.sample_type = PERF_SAMPLE_TIME;
	a.use_clockid = 1;
	a.clockid = CLOCK_MONOTONIC;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	fd = -1;
#ifdef PC_REG
	if (!__atomic_load_n(&spy_offcpu_nowaits, __ATOMIC_RELAXED)) {
		/* a sample of the user PC just before each switch-out record: the kernel's side of
		 * the event must be allowed, though only the user registers are taken */
		struct perf_event_attr w = a;

		w.config = PERF_COUNT_SW_CONTEXT_SWITCHES;
		w.sample_period = 1;
		w.sample_type = PERF_SAMPLE_TIME | PERF_SAMPLE_REGS_USER;
		w.sample_regs_user = 1ull << PC_REG;
		w.exclude_kernel = 0;
		fd = (int)syscall(SYS_perf_event_open, &w, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
		if (fd >= 0)
			t->off.waits = 1;
		else if (errno == EACCES || errno == EPERM || errno == EINVAL || errno == EOPNOTSUPP)
			__atomic_store_n(&spy_offcpu_nowaits, 1, __ATOMIC_RELAXED);
	}
#endif
	if (fd < 0)
		fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		goto fail;
	pages = t->off.waits ? 2 * RING_PAGES : RING_PAGES;
	len = (pages + 1) * ps;
	/*
	 * Read-only, so the kernel overwrites what was not read in time (found by the head running
	 * more than the ring ahead, and counted as lost). Writable, data_tail would hold it back, but
	 * a write to the page can fault again and again when a signal is sent on every page fault
	 * (SPYRT_WATCH=faults): the thread never got past the store.
	 */
	base = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);
	if (base == MAP_FAILED) {
		int err = errno;

		close(fd);
		errno = err;
		what = "mmap of its ring";
		goto fail;
	}
	/* the mapping keeps the event alive: no descriptor is left for the program to trip over */
	close(fd);
	t->off.base = base;
	t->off.len = len;
	t->off.data = (const uint8_t *)base + ps;
	t->off.size = pages * ps;
	t->off.on = 1;
	/* a frame's place for every frame the stack can hold (and the sentinel's), touched as deep as
	 * the intervals reach */
	t->off.side = spy_map((size_t)(SPY_STACK_MAX + 1) * sizeof(*t->off.side));
	/* room for every arc the tables can hold; pages are committed as arcs meet switches */
	if (spy_vm_reserve(&t->off.vm, (size_t)t->arcs.arc_max * sizeof(struct spy_arcoff)) == 0)
		t->off.arcs = t->off.vm.base;
	t->sw_head = (const uint64_t *)&((struct perf_event_mmap_page *)base)->data_head;
	SPY_SET(t->sw_seen, __atomic_load_n(t->sw_head, __ATOMIC_ACQUIRE));
	errno = saved;
	return;
fail:
	if (!__atomic_exchange_n(&spy_offcpu_failed, 1, __ATOMIC_RELAXED))
		spy_note_error("off-CPU time not measured (%s: %s): times are wall time", what,
			       strerror(errno));
	errno = saved;
}

void spy_offcpu_close(struct spy_thread *t)
{
	if (t->off.base)
		munmap(t->off.base, t->off.len);
	t->off.base = NULL;
	if (t->off.side)
		spy_unmap(t->off.side, (size_t)(SPY_STACK_MAX + 1) * sizeof(*t->off.side));
	t->off.side = NULL;
	t->off.nside = 0;
	if (t->off.arcs)
		spy_vm_release(&t->off.vm);
	t->off.arcs = NULL;
	t->off.narcs = 0;
	t->sw_head = &spy_offcpu_none;
	SPY_SET(t->sw_seen, 0);
}

void spy_offcpu_reset(struct spy_thread *t)
{
	uint32_t n = t->off.nwait;

	/* a write may be reading the waits: none is counted before they are emptied */
	__atomic_store_n(&t->off.nwait, 0, __ATOMIC_RELEASE);
	for (uint32_t i = 0; i < n; i++) {
		SPY_SET(t->off.wait[i].count, 0);
		SPY_SET(t->off.wait[i].cyc, 0);
	}
	if (t->off.arcs)
		memset(t->off.arcs, 0, (size_t)t->off.narcs * sizeof(*t->off.arcs));
	/* what the frames held goes with the tables (their functions' entries are made again) */
	__atomic_store_n(&t->off.nside, 0, __ATOMIC_RELEASE);
}

/* Arc ai's off-CPU times, committing the table's pages up to it; NULL when that failed. */
static struct spy_arcoff *arc_off(struct spy_thread *t, uint32_t ai)
{
	if (ai >= t->off.narcs) {
		if (!t->off.arcs || spy_vm_commit(&t->off.vm, ((size_t)ai + 1) * sizeof(struct spy_arcoff))) {
			spy_note_error("out of memory: some calls' off-CPU time counts as CPU time");
			return NULL;
		}
		/* a write reads this many while the thread runs */
		__atomic_store_n(&t->off.narcs, (uint32_t)(t->off.vm.committed / sizeof(struct spy_arcoff)),
				 __ATOMIC_RELEASE);
	}
	return &t->off.arcs[ai];
}

/* The side's top frame has ended: its arc takes what it holds when it was its function's outermost
 * frame, and the timed frame below holds it too (it spanned those intervals). */
static void side_pop(struct spy_thread *t)
{
	uint32_t j = t->off.nside - 1;
	struct spy_offside *s = &t->off.side[j];
	uint64_t acc = s->acc;

	t->arcs.fstat[s->func].off_pref--;
	if (s->outer && acc) {
		struct spy_arcoff *a = arc_off(t, s->arc);

		if (a)
			SPY_SET(a->incl, a->incl + acc);
	}
	if (j)
		SPY_SET(t->off.side[j - 1].acc, t->off.side[j - 1].acc + acc);
	__atomic_store_n(&t->off.nside, j, __ATOMIC_RELEASE);
}

/* The side's frames that are no longer on the stack end: those above the innermost one still there (a
 * frame gone means every frame above it went first). Amortized over the exits: each ends once. */
static void side_sync(struct spy_thread *t)
{
	while (t->off.nside) {
		const struct spy_offside *s = &t->off.side[t->off.nside - 1];

		if (s->depth < t->depth && t->stack[s->depth].entry == s->entry &&
		    t->stack[s->depth].sp == s->sp)
			break;
		side_pop(t);
	}
}

void spy_offcpu_settle(struct spy_thread *t)
{
	if (t->off.side)
		side_sync(t);
}

uint32_t spy_offcpu_owed(const struct spy_thread *t, struct spy_offowed *out, uint32_t n)
{
	const struct spy_offside *side = t->off.side;
	uint32_t k = side ? __atomic_load_n(&t->off.nside, __ATOMIC_ACQUIRE) : 0, o = 0;
	uint64_t sum = 0;

	/* each frame is owed what it and the frames above it hold */
	while (k-- > 0) {
		sum += SPY_GET(side[k].acc);
		if (side[k].outer && sum && o < n)
			out[o++] = (struct spy_offowed){ side[k].arc, sum };
	}
	return o;
}

/* How the thread blocked at pc: after a system call instruction, or elsewhere (a fault), read without
 * a fault of our own (the code may be gone). */
uint32_t spy_wait_kind(uint64_t pc)
{
#ifdef PC_REG
	uint8_t b[sizeof(syscall_insn)];
	struct iovec l = { b, sizeof(b) }, r = { (void *)(uintptr_t)(pc - sizeof(b)), sizeof(b) };
	int saved = errno;
	ssize_t n;

	if (pc < sizeof(b))
		return GMON_WAIT_UNREAD;
	n = process_vm_readv(getpid(), &l, 1, &r, 1, 0);
	errno = saved;
	if (n != (ssize_t)sizeof(b))
		return GMON_WAIT_UNREAD;
	return memcmp(b, syscall_insn, sizeof(b)) ? GMON_WAIT_FAULT : GMON_WAIT_SYSCALL;
#else
	(void)pc;
	return GMON_WAIT_UNREAD;
#endif
}

/* The entry of t's waits for pc (0: no sample said where) in func, made if new (kind: UINT32_MAX to
 * find it from the code at pc); the last entry takes what finds no room. */
static struct spy_wait *wait_at(struct spy_thread *t, uint64_t pc, uint64_t func, uint32_t kind)
{
	struct spy_offcpu *o = &t->off;
	uint32_t n = o->nwait, i;
	struct spy_wait *w;

	for (i = 0; i < n && i < SPY_WAITS - 1; i++)
		if (o->wait[i].pc == pc && o->wait[i].func == func)
			break;
	w = &o->wait[i];
	if (i < n)
		return w;
	SPY_SET(w->count, 0);
	SPY_SET(w->cyc, 0);
	if (i < SPY_WAITS - 1 && kind != GMON_WAIT_OTHER) {
		SPY_SET(w->pc, pc);
		SPY_SET(w->func, func);
		SPY_SET(w->kind, kind != UINT32_MAX ? kind :
				 pc                 ? spy_wait_kind(pc) :
						      (uint32_t)GMON_WAIT_UNREAD);
	} else {
		w = &o->wait[SPY_WAITS - 1];
		if (n == SPY_WAITS)
			return w;
		SPY_SET(w->count, 0);
		SPY_SET(w->cyc, 0);
		SPY_SET(w->pc, 0);
		SPY_SET(w->func, 0);
		SPY_SET(w->kind, (uint32_t)GMON_WAIT_OTHER);
		n = SPY_WAITS - 1;
	}
	__atomic_store_n(&o->nwait, n + 1, __ATOMIC_RELEASE);
	return w;
}

static void wait_add(struct spy_thread *t, uint64_t pc, uint64_t func, uint64_t cyc)
{
	struct spy_wait *w = wait_at(t, pc, func, UINT32_MAX);

	SPY_SET(w->count, w->count + 1);
	SPY_SET(w->cyc, w->cyc + cyc);
}

void spy_offcpu_fold(struct spy_thread *f, const struct spy_thread *v)
{
	f->off.waits |= v->off.waits;
	for (uint32_t i = 0; i < v->off.nwait; i++) {
		const struct spy_wait *s = &v->off.wait[i];
		struct spy_wait *w = wait_at(f, s->pc, s->func, s->kind);

		SPY_SET(w->count, w->count + s->count);
		SPY_SET(w->cyc, w->cyc + s->cyc);
	}
}

/*
 * One interval [out, in] off the CPU (CLOCK_MONOTONIC ns), converted to cycles with a pair of
 * clocks read now. A frame was active through it when it was entered before the switch-out; since
 * no hook runs while the thread is off the CPU, an entry is before out or after in, so comparing
 * with the middle of the interval stands any error of the conversion up to half the interval.
 * Inclusive time goes to each function's outermost active frame (as the exit hook adds its
 * inclusive time), self time to the innermost. top_end: when the top frame ends (the exit hook's
 * time stamp), so a switch after it is not its own, nor that of the tail callers under it that end
 * with it (t->off.ending frames in all); UINT64_MAX when no frame ends.
 *
 * The timed frames seen so far stay in the side; only frames entered since are added (once each; the
 * frames of mode=arcs code above the innermost of them are passed again): the interval is held by the
 * innermost frame it charges, and reaches the outermost frames below as the frames end (side_pop), or
 * a write reads it (spy_offcpu_owed).
 */
static void charge(struct spy_thread *t, uint64_t out, uint64_t in, int pre, uint64_t pc, uint64_t top_end,
		   const uint64_t pair[2], double rate)
{
	uint64_t len = (uint64_t)((double)(in - out) * rate + 0.5);
	double midd = (double)pair[0] - ((double)pair[1] - ((double)out + (double)in) / 2) * rate;
	uint64_t mid = midd > 0 ? (uint64_t)midd : 0;
	struct spy_offside *side = t->off.side;
	uint32_t k = t->off.nside, ending = t->off.ending ? t->off.ending : 1;

	/* these and the arcs' off-CPU times are read by a write while the thread runs (SPY_GET) */
	if (pre)
		SPY_SET(t->off.preempted, t->off.preempted + len);
	else
		SPY_SET(t->off.blocked, t->off.blocked + len);
	SPY_SET(t->off.switches, t->off.switches + 1);
	if (!side) {
		if (!pre && t->off.waits)
			wait_add(t, pc, 0, len);
		return;
	}
	/* the timed frames entered since that were active through it (those of mode=arcs code take no
	 * time); the top frame is not when it ended before it */
	for (uint32_t n = k ? side[k - 1].depth + 1 : 0; n < t->depth; n++) {
		const struct spy_frame *f = &t->stack[n];
		struct spy_offside *s = &side[k];

		if (spy_key_lazy(f->sp))
			continue;
		if (f->entry >= mid || (n + ending >= t->depth && top_end <= mid))
			break;
		s->entry = f->entry;
		s->sp = f->sp;
		s->acc = 0;
		s->depth = n;
		s->arc = f->arc;
		s->func = f->func;
		s->outer = t->arcs.fstat[f->func].off_pref++ == 0;
		__atomic_store_n(&t->off.nside, ++k, __ATOMIC_RELEASE);
	}
	/* the frames that ended before it, taken into the side by an earlier switch */
	while (k && side[k - 1].depth + ending >= t->depth && top_end <= mid)
		k--;
	if (k) {
		struct spy_arcoff *a = arc_off(t, side[k - 1].arc);

		SPY_SET(side[k - 1].acc, side[k - 1].acc + len);
		if (a) {
			SPY_SET(a->self, a->self + len);
			if (pre)
				SPY_SET(a->self_pre, a->self_pre + len);
		}
	}
	if (!pre && t->off.waits)
		wait_add(t, pc, k ? t->arcs.fstat[side[k - 1].func].addr : 0, len);
}

/* The peek's blocked cycles at pc (its last entry takes what finds no room, at pc UINT64_MAX). */
static void peek_wait(struct spy_offpeek *p, uint64_t pc, uint64_t cyc)
{
	uint32_t i;

	for (i = 0; i < p->nwait; i++)
		if (p->wait[i].pc == pc || i == SPY_PEEK_WAITS - 1)
			break;
	if (i == p->nwait) {
		p->wait[i].pc = i == SPY_PEEK_WAITS - 1 ? UINT64_MAX : pc;
		p->nwait++;
	}
	p->wait[i].count++;
	p->wait[i].cyc += cyc;
}

/*
 * For a write: the time t spent off the CPU that no drain has charged yet (the records after sw_seen,
 * and the interval still going on when t is switched out now, up to now_ns), read without touching
 * t, which may be running. No hook of t ran since the last drain read the ring (a hook that sees
 * new records drains them), so the frames on t's stack now are the ones active through all of it.
 */
void spy_offcpu_peek(const struct spy_thread *t, uint64_t now_ns, struct spy_offpeek *p)
{
	const uint8_t *data = t->off.data;
	uint64_t head, tail, out, cyc = 0, pre = 0, pend = 0, out_pc;
	int out_pre;
	double rate;

	memset(p, 0, sizeof(*p));
	if (!t->off.base || !t->sw_head)
		return;
	tail = SPY_GET(t->sw_seen);
	out = SPY_GET(t->off.out);
	out_pre = SPY_GET(t->off.out_pre);
	out_pc = SPY_GET(t->off.out_pc);
	head = __atomic_load_n(t->sw_head, __ATOMIC_ACQUIRE);
	if (head < tail)
		return;
	if (head - tail > t->off.size) { /* the oldest were written over: a drain will count them */
		tail = head - t->off.size;
		out = 0;
	}
	{
		uint64_t pair[2];

		spy_tsc_pair(&pair[0], &pair[1]);
		rate = pair[1] > spy_start_mono_ns && pair[0] > spy_start_tsc ?
			       (double)(pair[0] - spy_start_tsc) / (double)(pair[1] - spy_start_mono_ns) :
			       1.0;
	}
	while (tail < head) {
		struct perf_event_header h;
		uint8_t b[64];
		uint64_t at = tail % t->off.size, n, when, first;

		memcpy(&h, data + at, sizeof(h));
		n = h.size;
		if (n < sizeof(h) || n > head - tail || n > sizeof(b))
			break; /* not a record: the rest is the drain's to judge */
		first = t->off.size - at < n ? t->off.size - at : n;
		memcpy(b, data + at, first);
		memcpy(b + first, data, n - first);
		/* the kernel may have written over it while it was copied */
		if (__atomic_load_n(t->sw_head, __ATOMIC_ACQUIRE) - tail > t->off.size)
			break;
		tail += n;
		if (h.type == PERF_RECORD_LOST) {
			out = 0;
			continue;
		}
		if (h.type == PERF_RECORD_SAMPLE && n == 32) {
			uint64_t abi;

			memcpy(&abi, b + 16, 8);
			memcpy(&pend, b + 24, 8);
			pend = abi ? pend : 0;
			continue;
		}
		if ((h.type != PERF_RECORD_SWITCH && h.type != PERF_RECORD_SWITCH_CPU_WIDE) || n < 16)
			continue;
		memcpy(&when, b + n - 8, 8);
		if (h.misc & PERF_RECORD_MISC_SWITCH_OUT) {
			out = when;
			out_pre = !!(h.misc & PERF_RECORD_MISC_SWITCH_OUT_PREEMPT);
			out_pc = pend;
			pend = 0;
		} else if (out) {
			if (when > out) {
				uint64_t len = (uint64_t)((double)(when - out) * rate + 0.5);

				cyc += len;
				pre += out_pre ? len : 0;
				p->switches++;
				if (!out_pre && t->off.waits)
					peek_wait(p, out_pc, len);
			}
			out = 0;
		}
	}
	/* switched out now: off the CPU until now, so far */
	if (out && now_ns > out) {
		uint64_t len = (uint64_t)((double)(now_ns - out) * rate + 0.5);

		cyc += len;
		pre += out_pre ? len : 0;
		p->switches++;
		if (!out_pre && t->off.waits)
			peek_wait(p, out_pc, len);
	}
	p->off = cyc;
	p->preempted = pre;
}

/* Read the calling thread's new switch records and charge the intervals they close. */
void spy_offcpu_drain(struct spy_thread *t, uint64_t top_end)
{
	const uint8_t *data = t->off.data;
	uint64_t head, tail = t->sw_seen, pair[2] = { 0, 0 };
	double rate = 0;
	int resync = 0;

	if (!t->off.base)
		return;
	head = __atomic_load_n(t->sw_head, __ATOMIC_ACQUIRE);
	if (tail == head)
		return;
	/* the frames that ended since the last interval first: the stack is the same for them all */
	if (t->off.side)
		side_sync(t);
	while (tail < head) {
		if (head - tail > t->off.size) {
			/* overwritten before it was read: the ring holds the newest size bytes, and
			 * since every record is a switch of 16 bytes (or a sample of 32 with waits, two
			 * switches to a sample), one starts there */
			SPY_SET(t->off.lost,
				t->off.lost + (head - tail - t->off.size) / (t->off.waits ? 32 : 16));
			SPY_SET(t->off.out, 0);
			t->off.pend_pc = 0; /* its switch-out may be among them */
			tail = head - t->off.size;
			resync = 1;
		}
		union {
			struct perf_event_header h;
			uint8_t b[64];
		} r;
		uint64_t at = tail % t->off.size, n;

		memcpy(&r.h, data + at, sizeof(r.h)); /* 8 bytes: never split, records are 8-aligned */
		n = r.h.size;
		if (n < sizeof(r.h) || n > head - tail ||
		    (resync && (n != 16 || r.h.type != PERF_RECORD_SWITCH) &&
		     (n != 32 || r.h.type != PERF_RECORD_SAMPLE))) {
			SPY_SET(t->off.lost, t->off.lost + (head - tail) / (t->off.waits ? 32 : 16));
			/* not a record where one should start: give up the rest */
			t->off.pend_pc = 0;
			tail = head;
			break;
		}
		if (n <= sizeof(r)) {
			uint64_t first = t->off.size - at < n ? t->off.size - at : n;

			memcpy(r.b, data + at, first);
			memcpy(r.b + first, data, n - first);
		}
		/* a switch while copying may have written over it (we are that thread: no one else writes) */
		head = __atomic_load_n(t->sw_head, __ATOMIC_ACQUIRE);
		if (head - tail > t->off.size)
			continue;
		tail += n;
		resync = 0;
		if (r.h.type == PERF_RECORD_LOST && n >= 24) {
			uint64_t lost;

			memcpy(&lost, r.b + 16, 8);
			SPY_SET(t->off.lost, t->off.lost + lost);
			SPY_SET(t->off.out, 0); /* its switch-in may be among them */
			t->off.pend_pc = 0;     /* and a sample's switch-out */
		} else if (r.h.type == PERF_RECORD_SAMPLE && n == 32) {
			uint64_t abi, pc;

			memcpy(&abi, r.b + 16, 8);
			memcpy(&pc, r.b + 24, 8);
			t->off.pend_pc = abi ? pc : 0;
		} else if ((r.h.type == PERF_RECORD_SWITCH || r.h.type == PERF_RECORD_SWITCH_CPU_WIDE) &&
			   n >= 16 && n <= sizeof(r)) {
			uint64_t when;

			memcpy(&when, r.b + n - 8, 8); /* sample_id's last word: the time */
			if (r.h.misc & PERF_RECORD_MISC_SWITCH_OUT) {
				SPY_SET(t->off.out, when);
				SPY_SET(t->off.out_pre, !!(r.h.misc & PERF_RECORD_MISC_SWITCH_OUT_PREEMPT));
				SPY_SET(t->off.out_pc, t->off.pend_pc);
				t->off.pend_pc = 0;
			} else if (t->off.out) {
				if (!rate) {
					spy_tsc_pair(&pair[0], &pair[1]);
					/* the run's mean rate: the longer the baseline, the better */
					rate = pair[1] > spy_start_mono_ns && pair[0] > spy_start_tsc ?
						       (double)(pair[0] - spy_start_tsc) /
							       (double)(pair[1] - spy_start_mono_ns) :
						       1.0;
				}
				if (when > t->off.out)
					charge(t, t->off.out, when, t->off.out_pre, t->off.out_pc, top_end,
					       pair, rate);
				SPY_SET(t->off.out, 0);
			}
		}
	}
	SPY_SET(t->sw_seen, tail);
}
