/* libspyrt's internal interfaces: the per-thread state, the three-level arc tables, the unit
 * registry and the global configuration, shared by the runtime's files (never installed). */
#ifndef SPYRT_H
#define SPYRT_H

/* first in every runtime file, so the GNU interfaces (gettid, dl_iterate_phdr) are declared */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* the ABI entry points and the public API are the library's only exported symbols */
#pragma GCC visibility push(default)
#include "spy-abi.h"
#include "spy.h"
#pragma GCC visibility pop
/* The format's functions under the runtime's own names (see gmon-format.h). */
#define GMON_RUNTIME_NAMES 1
#include "gmon-format.h"

/* everything below is internal: hidden, so the hooks reach globals without the GOT */
#pragma GCC visibility push(hidden)

#define SPY_EXPORT __attribute__((visibility("default")))
#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)
#define barrier() __asm__ __volatile__("" ::: "memory")
#define SPY_TLS __thread __attribute__((tls_model("initial-exec")))
/* A field its thread updates while others (the writer, the wall sampler, a flush) read it: the owner
 * stores with SPY_SET and the others load with SPY_GET, relaxed atomics, the same instructions as
 * plain ones on x86-64, that say to the compiler and to ThreadSanitizer that the race is meant. */
#define SPY_SET(lv, v) __atomic_store_n(&(lv), (v), __ATOMIC_RELAXED)
#define SPY_GET(lv) __atomic_load_n(&(lv), __ATOMIC_RELAXED)
/*
 * The program's errno, kept across the runtime's own work: first in a function the program's code
 * enters (a hook's slow path, a call of spy.h, a handler, a fork or thread-exit handler), it puts
 * errno back as the function found it, whichever way the function returns. A failed mmap, open or
 * perf_event_open of the runtime's is never the program's (gnulib's test-free checks that free()
 * keeps errno, say).
 */
static inline void spy_errno_put(const int *e)
{
	errno = *e;
}
#define SPY_KEEP_ERRNO int spy_errno_kept_ __attribute__((cleanup(spy_errno_put))) = errno
#define SPY_ERRNO_KEPT spy_errno_kept_ /* the value SPY_KEEP_ERRNO found */

#define SPY_VERSION "spy 0.1"

/* Built with AddressSanitizer or ThreadSanitizer, the runtime lives inside a sanitizer that intercepts
 * malloc and sigaction itself and must stay the program's: the runtime interposes neither. */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SPY_SAN_INTERCEPTS 1
#else
#define SPY_SAN_INTERCEPTS 0
#endif
#if defined(__SANITIZE_THREAD__)
#define SPY_TSAN 1
#else
#define SPY_TSAN 0
#endif

/* ---- limits ---- */

/* Counter slots per slab: the slab is reserved with MAP_NORESERVE, so only the pages of counters
 * actually used cost memory; a function past the limit counts into slot 0. */
#define SPY_SLOTS_MAX (1u << 20)
/* Shadow-stack frames per thread (reserved, touched as deep as the program goes). */
#define SPY_STACK_MAX (1u << 18)
/* Arc pools start at SPYRT_ARCS (SPIN's 10 000) and double up to this hard limit per thread. */
#define SPY_ARCS_DEFAULT 10000u
#define SPY_ARCS_HARD (1u << 22)
/* Per-thread function-time entries. */
#define SPY_FUNCS_START 1024u
#define SPY_FUNCS_HARD (1u << 18)
#define SPY_HIST_BUCKETS 40 /* = GMON_HIST_BUCKETS */

/* ---- vm.c: address space reserved once, committed as a pool grows, never moved ---- */

struct spy_vm {
	void *base;
	size_t reserved, committed; /* bytes */
};

/* Reserve bytes of address space (nothing committed). 0 or -1. */
int spy_vm_reserve(struct spy_vm *vm, size_t bytes);
/* Make the first bytes usable (rounded up to pages); never shrinks. 0 or -1. */
int spy_vm_commit(struct spy_vm *vm, size_t bytes);
void spy_vm_release(struct spy_vm *vm);
/* Anonymous zeroed memory with MAP_NORESERVE, or NULL. */
void *spy_map(size_t bytes);
void spy_unmap(void *p, size_t bytes);

/* ---- arcs.c: the three-level tables (SPIN) ---- */

/* Level 3: one (call site, callee) pair. Index 0 of every pool is a sink that absorbs the updates
 * of whatever could not get an entry, so the hot path never branches on failure. */
struct spy_arc {
	uint64_t callee;
	uint64_t caller; /* the caller frame's function: GMON_CALLER_NONE/_MANY or an address */
	uint64_t count;
	uint64_t incl; /* cycles of calls whose callee was not already active (outermost) */
	uint64_t self;
	uint32_t next; /* next arc of the same call site */
	/* the callee's entry in the thread's function table (SPY_ARC_FUNC), and SPY_ARC_TRACED when the
	 * callee is one of SPYRT_TRACE's: the hooks test it in the arc's line, which they load anyway */
	uint32_t func;
};
#define SPY_ARC_TRACED (1u << 31)
/* the call site lies in the code of an instrumented function, which is then the arc's caller for good
 * (codemap.c): the shadow stack's word is not taken for it */
#define SPY_ARC_SITED (1u << 30)
#define SPY_ARC_FUNC(w) ((w) & ~(SPY_ARC_TRACED | SPY_ARC_SITED))

/*
 * A timed frame below an interval off the CPU, as offcpu.c saw it (a stack of them, innermost last,
 * beside the shadow stack): which frame it was (its depth, entry and key: a frame that ended and
 * another that took its place have another entry), and the off-CPU cycles not yet given to the arcs
 * of the frames that spanned them. An interval is added to the innermost frame it charges; as the
 * frames end, what each one holds goes to its arc when it is the outermost frame of its function,
 * then to the timed frame below: so a switch costs the same at any depth, as the children's time is
 * carried at the exits (hooks.c).
 */
struct spy_offside {
	uint64_t entry, sp;
	uint64_t acc;
	uint32_t depth, arc, func;
	uint32_t outer; /* no frame of its function below: its arc takes what it holds */
};
/*
 * Where a thread blocked (offcpu.c, process states): the user PC the kernel sampled at the switch-out
 * and the innermost timed function then. A table of SPY_WAITS per thread, searched in the drain; its
 * last entry takes what finds no room (GMON_WAIT_OTHER). A write reads it while the thread runs: an
 * entry is filled before nwait counts it.
 */
#define SPY_WAITS 32
struct spy_wait {
	uint64_t pc, func; /* func: its address, 0 when no timed frame was active */
	uint64_t count, cyc;
	uint32_t kind; /* enum gmon_wait_kind */
};

/* What a thread's ring holds that no drain charged yet (spy_offcpu_peek): the blocked part of it by
 * the PC each interval began at, up to SPY_PEEK_WAITS places (the rest in one with pc 0). */
#define SPY_PEEK_WAITS 4
struct spy_offpeek {
	uint64_t off, preempted, switches; /* cycles, of which preempted; intervals */
	uint64_t func; /* the innermost timed function on the stack (its address; open_get), or 0 */
	uint32_t nwait;
	struct spy_peekwait {
		uint64_t pc, count, cyc;
	} wait[SPY_PEEK_WAITS];
};

/* What an open frame's arc is owed of the intervals charged so far (spy_offcpu_owed). */
struct spy_offowed {
	uint32_t arc;
	uint64_t incl;
};

/* An arc's cycles off the CPU (offcpu.c), in a table of their own beside the arcs (same index),
 * whose pages are touched only for arcs that met a switch: of the outermost calls, as incl; while
 * the callee was the innermost frame (part of self); the preempted part of that. */
struct spy_arcoff {
	uint64_t incl, self, self_pre;
};

/* Level 2: one call-site PC and the head of its arcs. */
struct spy_site {
	uint64_t pc;
	uint32_t next; /* next site with the same 16-bit hash */
	uint32_t arcs;
};

/* A function's time on one thread (time mode): only what its arcs cannot give. Its calls,
 * inclusive and self cycles are the sums over the arcs into it, made when writing. */
struct spy_fstat {
	uint64_t addr;
	uint32_t next;         /* hash chain */
	uint32_t depth;        /* active activations: inclusive time is added at the outermost only */
	uint64_t min;          /* of the outermost calls (min_inner: the others'; the file's min is both's) */
	uint64_t max;          /* of every call, which is the outermost calls' too: they hold the others */
	uint64_t sq_lo, sq_hi; /* the outermost calls' sum of squared inclusive cycles, 128 bits */
	uint64_t hist[SPY_HIST_BUCKETS]; /* 64 bits: no test for overflow on the hot path */
	uint64_t off_pref;               /* offcpu.c: its frames among those the off-CPU time has seen */
	/* the stopwatch's rare part, apart from the hot fields: the minimum of the calls inside an
	 * active one of the same function (recursion); their histogram is in spy_arcs.inner */
	uint64_t min_inner;
};

/* The histogram of a function's calls inside an active one of its own (recursion), by the function's
 * index: the outermost calls' histogram is spy_fstat.hist less this one. Apart, in a table whose
 * pages are committed and touched only up to the highest index of a function that recursed, so
 * that a thread with many functions and no recursion pays nothing for it (320 bytes a function). */
struct spy_fstat_inner {
	uint64_t hist[SPY_HIST_BUCKETS];
};

#define SPY_L1_BITS 16
#define SPY_FHASH_BITS 12

struct spy_arcs {
	uint32_t *head; /* level 1: 1 << SPY_L1_BITS site indices */
	struct spy_site *site;
	struct spy_arc *arc;
	struct spy_fstat *fstat;
	struct spy_fstat_inner *inner; /* by fstat index, ninner usable (vm_inner: one per fstat_max) */
	/* time mode: the histogram count of the last call, added by the next one (hooks.c); the sink's
	 * while none is pending. A snapshot counts it. */
	uint64_t *hist_pending;
	uint32_t *fhead; /* function table hash heads */
	uint32_t nsite, site_alloc, site_max;
	uint32_t narc, arc_alloc, arc_max;
	uint32_t nfstat, fstat_alloc, fstat_max;
	uint32_t ninner; /* written by the owner only, read by snapshots (atomic) */
	uint64_t dropped_arcs, dropped_funcs;
	struct spy_vm vm_head, vm_site, vm_arc, vm_fstat, vm_fhead, vm_inner;
};

/* Set up empty tables: pools of start entries growing to at most max (entries include the sink).
 * timed: also keep the function table. 0 or -1. */
int spy_arcs_init(struct spy_arcs *a, uint32_t start, uint32_t max, int timed);
/* Empty the tables, keeping their memory. */
void spy_arcs_reset(struct spy_arcs *a);
void spy_arcs_release(struct spy_arcs *a);
/* The arc (pc, callee) after a miss in spy_arcs_find: made, or 0 (the sink) when full. */
uint32_t spy_arcs_insert(struct spy_arcs *a, uint64_t pc, uint64_t callee);
/* The function-table entry of addr, made when missing; 0 (the sink) when full. */
uint32_t spy_fstat_get(struct spy_arcs *a, uint64_t addr);
/* Function i's recursion histogram, its page committed; NULL (and a dropped function counted) when
 * it cannot be. Called by the owner on the branch that recursion takes (hooks.c). */
struct spy_fstat_inner *spy_fstat_inner_grow(struct spy_arcs *a, uint32_t i);
static inline struct spy_fstat_inner *spy_fstat_inner(struct spy_arcs *a, uint32_t i)
{
	return i < a->ninner ? &a->inner[i] : spy_fstat_inner_grow(a, i);
}

/* Return addresses are byte-granular, so their low bits already differ within a module; the xor
 * folds in the higher bits that tell modules apart. Two shifts and no multiply on the hot path. */
static inline uint32_t spy_site_hash(uint64_t pc)
{
	return (uint32_t)(pc ^ (pc >> SPY_L1_BITS)) & ((1u << SPY_L1_BITS) - 1);
}

/* The arc of calls from call site pc to callee: three dependent loads when it exists. */
static inline uint32_t spy_arcs_find(struct spy_arcs *a, uint64_t pc, uint64_t callee)
{
	uint32_t s = a->head[spy_site_hash(pc)];

	while (s && a->site[s].pc != pc)
		s = a->site[s].next;
	if (likely(s)) {
		uint32_t i = a->site[s].arcs;

		while (i && a->arc[i].callee != callee)
			i = a->arc[i].next;
		if (likely(i))
			return i;
	}
	return spy_arcs_insert(a, pc, callee);
}

/* ---- trace.c: SPYRT_TRACE, a bounded ring of call events per thread (Cedar's SetTrace) ---- */

struct spy_thread;
struct spy_samp;
#define SPY_TRACE_FUNCS 64     /* names SPYRT_TRACE may give */
#define SPY_TRACE_EVENTS 4096u /* events a thread's ring keeps (a power of two): the last ones */
extern uint64_t spy_trace_addr[SPY_TRACE_FUNCS]; /* their addresses, as their units register */
extern uint32_t spy_trace_on;                    /* SPYRT_TRACE in effect (mode time) */
/* addr is one of SPYRT_TRACE's functions (slow path: when an arc is made) */
int spy_traced(uint64_t addr);
/* From the hooks, after pushing a frame of a traced function, and after popping one at now: the
 * event into the thread's ring (never allocates; a thread without a ring counts it as dropped). */
void spy_trace_enter(struct spy_thread *t);
void spy_trace_exit(struct spy_thread *t, uint64_t now);
/* Resolve SPYRT_TRACE's names in a registered unit's functions (units.c). */
void spy_trace_names(const char *name, uint64_t addr);
/* The thread's ring (thread.c, at its first hook), and its TRACE record of kind (calls, faults) for
 * write.c (malloc'ed events, oldest first; 0, or -1 without memory). */
void spy_trace_thread_start(struct spy_thread *t);
int spy_trace_collect(struct spy_thread *t, uint32_t kind, struct gmon_trace *out);
void spy_trace_reset(struct spy_thread *t);
void spy_trace_init(void);
/* Page faults (SPYRT_WATCH=faults): the ring of the thread's fault event (sample-src.c maps it), read
 * by the sampling signal handler into the thread's fault trace. */
#define SPY_FAULT_RING_PAGES 8u
#define SPY_FAULT_TRACE_DEFAULT 256u
#define SPY_FAULT_TRACE_MAX (1u << 20)
void spy_fault_trace_start(struct spy_thread *t);
void spy_fault_trace_drain(struct spy_thread *t, uint64_t now);
void spy_fault_ring_close(struct spy_samp *s);
/* The interruption trace (SPYRT_SIGNAL_TRACE): sig-nest.c's trampoline, through which the program's
 * handlers run, records each signal here first (t: the thread, attached). */
void spy_sigtrace_event(struct spy_thread *t, int sig, void *uc);
/* At the end: a name of SPYRT_TRACE no registered function has is the run's error. */
void spy_trace_check(void);

/* ---- sample.c: sampling (SPYRT_WATCH), one stack table per thread ---- */

#define SPY_SAMP_DEPTH 512u        /* frames kept of a deeper stack (the innermost) */
#define SPY_SAMP_STACKS (1u << 18) /* distinct stacks per thread */
#define SPY_SAMP_FRAMES (1u << 22) /* their frames */
#define SPY_SAMP_HASH_BITS 14
#define SPY_HZ_DEFAULT 1000u
#define SPY_HZ_MAX 100000u
#define SPY_DIVISOR_MAX 1000000000u

/* One distinct stack: entries are filled before they are published (nstk), so a writer on another
 * thread may copy the first nstk while the owner adds more. */
struct spy_sstack {
	uint64_t hash;
	uint64_t count, weight, pc;
	uint32_t flags, depth;
	uint32_t frames; /* index of the first (innermost) frame in the frame pool */
	uint32_t next;   /* hash chain; 0 ends it (entry 0 is never used) */
};

/* A thread's sampling state. Inserts are serialised by lock (a try-lock: the thread's own signal
 * handler, its allocation wrappers, the wall sampler); on failure the sample is dropped. */
struct spy_samp {
	uint32_t lock;
	uint32_t active;       /* table set up and the thread not retired */
	uint32_t epoch;        /* spy_flush() generation the table holds */
	uint32_t call_pending; /* calls:FUNC: FUNC entered; its frame is recorded at the next hook */
	uint32_t *head;
	struct spy_sstack *stk;
	struct gmon_frame *frm;
	uint32_t nstk, stk_alloc, nfrm, frm_alloc;
	struct spy_vm vm_head, vm_stk, vm_frm;
	void *timer; /* timer_t */
	int has_timer, perf_fd;
	uint32_t sampled; /* had a tick source: its time counts in the expected ticks */
	uint32_t every;   /* divisor countdown of event modes */
	/* totals of the current epoch */
	uint64_t taken, missed, in_runtime, dropped, skipped, handler_cycles, allocs, alloc_bytes;
	uint64_t cpu0_ns, wall0_ns; /* the thread's CPU and real clocks when its counting began */
	uint64_t cpu_ns, wall_ns;   /* sampled CPU and real time, set at retirement */
	uint64_t perf_last;         /* faults: the event count at the last signal */
	/* faults with SPYRT_FAULT_TRACE: the event's ring of samples (IP and address), read-only, and
	 * how far the handler read it (trace.c) */
	void *fring;
	size_t fring_len;
	uint64_t fring_seen;
	uint64_t last_cpu, last_mono, debt;  /* wall sampler: the thread's time off the CPU */
	const struct spy_load_end *loads_at; /* the last move applied to the table (loads.c) */
	/* what a retired thread leaves (malloc'ed; frames pointers into kept_frames) */
	uint64_t nkept, nkept_frames;
	struct gmon_stack *kept;
	struct gmon_frame *kept_frames;
};

struct spy_thread;
extern uint32_t spy_watch;      /* enum gmon_watch in effect (GMON_WATCH_NONE when off) */
extern uint32_t spy_samp_flags; /* enum gmon_sampling_flags */
extern uint64_t spy_watch_addr; /* calls:FUNC resolved (units.c) */
/* Global set-up, from spy_init; per-thread set-up when a thread record is made, and the end of it
 * when the thread retires (the stacks are copied into samp.kept). */
void spy_samp_init(void);
void spy_samp_thread_start(struct spy_thread *t);
void spy_samp_thread_retire(struct spy_thread *t);
/* calls:FUNC, from spy_ctl_sync: an entry of self, or any hook (records a pending call). */
void spy_samp_call_hook(struct spy_thread *t, uint64_t self, int enter, int rec);
/* Stop every source (the final write), fork child, flush of exited threads' stacks. */
void spy_samp_stop(void);
void spy_samp_atfork_child(struct spy_thread *self);
void spy_samp_forget(struct spy_thread *t);
/* The SAMPLING record and the threads' stacks, for write.c (malloc'ed; NULL: nothing sampled). */
struct gmon_sampling *spy_samp_totals(void);
int spy_samp_collect(struct spy_thread *t, struct gmon_stack **stacks, uint64_t *nstacks,
		     struct gmon_frame **frames, uint64_t *nframes);
/* The runtime's own text, found at start-up (allocations and ticks there are the profiler's). */
extern uint64_t spy_rt_lo, spy_rt_hi;
static inline int spy_in_runtime(uint64_t pc)
{
	return pc >= spy_rt_lo && pc < spy_rt_hi;
}
/* alloc.c: the malloc wrappers watch while set (weak: a static link may leave alloc.c out) */
extern int spy_alloc_on;
extern SPY_TLS int spy_samp_quiet; /* the runtime allocates: not recorded */
void spy_samp_alloc(uint64_t bytes, uint64_t pc);

/* Shared by sample*.c. */
extern SPY_TLS struct spy_thread *spy_samp_self; /* the table a handler on this thread fills */
extern uint64_t spy_samp_period;                 /* cpu, wall: CPU (real) ns between two ticks */
extern int spy_samp_stopped;                     /* the final write, or a foreign handler: sources are off */
extern int spy_samp_handler_on;                  /* our SIGPROF handler is installed */
extern int (*spy_real_sigaction)(int, const struct sigaction *, struct sigaction *);
static inline uint32_t spy_samp_trylock(struct spy_samp *s)
{
	return __atomic_exchange_n(&s->lock, 1, __ATOMIC_ACQUIRE) == 0;
}
static inline void spy_samp_unlock(struct spy_samp *s)
{
	__atomic_store_n(&s->lock, 0, __ATOMIC_RELEASE);
}
/* The lock, with the table brought to the current epoch; 0 when busy or retired (sample dropped). */
int spy_samp_lock(struct spy_thread *t);
/* Add count samples of weight to the stack (pc, flags, the n frames in the scratch). Lock held. */
void spy_samp_add(struct spy_samp *s, uint64_t pc, uint32_t flags, uint32_t n, uint64_t count,
		  uint64_t weight);
/* Copy the innermost frames of t's shadow stack below depth d into the scratch (CUT when deeper). */
uint32_t spy_samp_copy(struct spy_thread *t, uint32_t d, uint32_t *flags);
/* The same for the calling thread's own stack, at its current depth, less the frames of code built
 * with mode=arcs that returned before stack pointer sp (0: the caller's). */
uint32_t spy_samp_own(struct spy_thread *t, uint32_t *flags, uint64_t sp);
int spy_samp_epoch_current(const struct spy_samp *s);
/* The table's stacks as malloc'ed arrays (frames pointers into *frames). 0 or -1. */
int spy_samp_table_copy(struct spy_samp *s, struct gmon_stack **stacks, uint64_t *nstacks,
			struct gmon_frame **frames, uint64_t *nframes);
uint64_t spy_thread_cpu_ns(pid_t tid);     /* any thread's CPU clock; 0 if gone */
void spy_samp_loads(struct spy_thread *t); /* a write's: the table brought past every move (loads.c) */
void spy_samp_on_sigprof(int sig, siginfo_t *si, void *uc);
uint64_t spy_uc_pc(void *uc);                      /* the interrupted PC of a signal's ucontext */
void spy_samp_sources_start(struct spy_thread *t); /* sample-src.c */
void spy_samp_timer_stop(struct spy_samp *s);
void spy_samp_perf_stop(struct spy_samp *s);
void spy_samp_sampler_start(void); /* sample-wall.c */
/* A hardware counter for watch exists (a perf event can be opened); else -1 and why. */
int spy_samp_hw_probe(uint32_t watch, char *why, size_t sz);
extern int spy_no_hwcount;      /* SPYRT_WATCH asked for one the machine does not have (header bit 6) */
void spy_samp_call_flush(void); /* sample-events.c */
void spy_samp_find_text(void);  /* sample-sig.c */
void spy_samp_resolve_real(void);
/* The program set SIGPROF's disposition (h: SIG_IGN, SIG_DFL, or a handler: anything else): said once,
 * and the file's sampling flags say foreign. */
void spy_samp_say_foreign(void (*h)(int));

/* ---- the per-thread state (thread.c, hooks.c) ---- */

struct spy_frame {
	uint64_t self;
	uint64_t sp; /* the instrumented function's stack pointer at the hook: callers sit higher */
	uint64_t call_site;
	uint64_t entry;    /* time stamp at the end of the enter hook */
	uint64_t children; /* inclusive cycles of completed callees */
	uint32_t arc, func;
	/* a tail call pending (hooks.c): the callee's address | SPY_TAIL_PENDING (| SPY_TAIL_LAZY for
	 * a frame of __spy_arc's), and the call site in this function; 0 on every other frame */
	uint64_t tail, tail_site; /* 64 bytes: one cache line, and a shift to index */
};
/* A program's handler's mark (sig-nest.c) has this tail_site when the handler interrupted code that
 * may lie between a function's add-one count and its entry hook. */
#define SPY_MARK_SPLIT 1u
#define SPY_TAIL_PENDING ((uint64_t)1 << 62)
#define SPY_TAIL_LAZY ((uint64_t)1 << 63)

/* A function's times in a thread's data: the file's, with whole histograms of their own, so that
 * records of one function sum bucket by bucket (folded threads, a recycled tid). f's nhist, nohist,
 * hist and outer_hist are left 0 here: write.c points them at these when it makes the file. */
struct spy_tfstat {
	struct gmon_fstat f;
	uint64_t hist[SPY_HIST_BUCKETS], outer_hist[SPY_HIST_BUCKETS];
};

/* A thread's data copied out of its tables: for the file, and what an exited thread leaves
 * behind (malloc'ed in thread.c). */
struct spy_tdata {
	uint64_t narcs, nfstats, ncounts;
	struct gmon_arc *arcs;
	struct gmon_arcoff *arcoffs; /* beside arcs when off-CPU time was measured, else NULL */
	struct gmon_arcctr *arcctrs; /* beside arcs when the thread had counters, else NULL */
	struct spy_tfstat *fstats;
	struct spy_offpeek off_open; /* a live thread's time off the CPU not charged yet, in its arcs */
	struct spy_tcount {
		uint32_t slot;
		uint64_t count;
	} * counts;
};

enum spy_thread_state {
	SPY_THREAD_LIVE = 0,
	SPY_THREAD_EXITED = 1, /* retired: data in tdata, memory returned */
	SPY_THREAD_GONE = 2,   /* does not exist in this process (fork child) */
};

struct spy_thread {
	/* hot: the hooks touch these. One load of gate picks a hook's path: 0 for mode arcs'
	 * fast path, SPY_GATE_TIMED for mode time's, anything else for the slow path. busy is the
	 * re-entrancy guard of the slow paths (and stays 1 on the idle thread), stale says the
	 * control word changed (or is off, or watching) since this thread last looked. */
	union {
		struct {
			union {
				struct {
					uint16_t busy, stale;
				};
				uint32_t held; /* busy or stale: the slow path, in either mode */
			};
			uint32_t timed; /* mode time */
		};
		uint64_t gate;
	};
	struct spy_frame *stack;
	uint32_t depth, stack_max;
	/* mode arcs' inline fast path (spy-abi.h, ABI 6): by slot, filled by __spy_arc_miss; there
	 * whenever the tables are */
	struct spy_acache *acache;
	uint64_t *counts;  /* the add-one slab (counts.c), NULL until the first count */
	uint32_t overflow; /* frames deeper than stack_max not pushed */
	uint32_t epoch;
	/* mode time: the head of the thread's context-switch ring and how far it was read; the exit
	 * hook compares them (offcpu.c). &spy_offcpu_none without a ring. */
	const uint64_t *sw_head;
	uint64_t sw_seen;
	struct spy_arcs arcs;
	uint64_t dropped_frames, abandoned, unmatched;

	/* cold */
	struct spy_thread *next;
	pid_t tid;
	int state;
	int main;
	int tables;     /* arcs/stack set up */
	int counts_off; /* outside SPYRT_START/STOP's window: counting into the discarded slab (counts.c) */
	int dtor_rounds;
	uint64_t start_ns, end_ns;
	char name[16];
	struct spy_vm vm_stack;
	struct spy_tdata data; /* after retirement */
	struct spy_samp samp;  /* sampling (sample.c) */
	struct spy_offcpu {
		void *base; /* the ring's mapping (NULL: none), len bytes */
		size_t len, size;
		const uint8_t *data; /* its records, size bytes */
		uint64_t out;        /* CLOCK_MONOTONIC of a switch-out not yet matched, 0 if none */
		int out_pre;         /* it was a preemption */
		uint32_t ending;     /* how many top frames end at a drain's top_end (1, or a tail chain) */
		int on;              /* the thread had a ring: its times are CPU time (kept once closed) */
		/* the timed frames below the intervals charged so far, nside of them (offcpu.c) */
		struct spy_offside *side;
		uint32_t nside;
		/* totals: cycles blocked and preempted, intervals, records the kernel lost */
		uint64_t blocked, preempted, switches, lost;
		/* process states: the ring holds a sample of the user PC before each switch-out; the
		 * last sample's PC, the pending switch-out's; where the thread blocked, nwait places */
		int waits;
		uint64_t pend_pc, out_pc;
		uint32_t nwait;
		struct spy_wait wait[SPY_WAITS];
		struct spy_arcoff *arcs; /* by arc index, narcs usable (vm: reserved for every arc) */
		uint32_t narcs;
		struct spy_vm vm;
	} off;
	struct spy_ctrs {
		int on;               /* had counters (SPYRT_COUNTERS): its arcs' totals are written */
		int fd[GMON_CTR_MAX]; /* the run's spy_ctr_n counters of this thread: nfd open */
		uint32_t nfd;
		void *pg[GMON_CTR_MAX];       /* a hardware counter's mmap page (rdpmc), else NULL */
		struct spy_ctrframe *frames;  /* SPY_STACK_MAX + 1: [0] is the sentinel frame's */
		struct gmon_arcctr *arcs;     /* by arc index, narcs usable (vm: reserved for every arc) */
		uint64_t stamp[GMON_CTR_MAX]; /* the counters where an exit's frames end */
		int stamped;                  /* set: the pops use stamp (spy_ctr_stamp) */
		uint64_t own[GMON_CTR_MAX];   /* what the runtime's sampling handler counted */
		uint32_t narcs;
		struct spy_vm vm;
	} ctr;
	struct spy_tring {
		struct gmon_tevent *ev; /* SPY_TRACE_EVENTS, mapped at the thread's first hook */
		uint64_t n;             /* events ever recorded (the ring keeps the last ones) */
		uint64_t lost;          /* events with no ring to go to */
	} trace, ftrace, strace; /* calls; page faults (SPYRT_FAULT_TRACE); signals (SPYRT_SIGNAL_TRACE) */
	uint32_t acache_gen;     /* the spy_acache_gen its cache was cleared at */
	/* a program's handler runs nested on this thread (sig-nest.c): the inline code of mode arcs it
	 * interrupted may be reading a cache entry, so __spy_arc_miss fills none meanwhile */
	uint32_t sig_nested;
	/* of those, the handlers that interrupted code which may lie between a function's add-one
	 * count and its entry hook (sig-nest.c): no write holds the thread inside them (spy_park) */
	uint32_t sig_split;
	uint32_t stk_scans;                  /* stackmap.c: lookups of the thread's stack mapping made */
	uint64_t stk_lo, stk_hi;             /* the mapping around its stack pointer, as last looked up */
	uint32_t parked;                     /* held in a hook while a write reads the tables (spy_freeze) */
	const struct spy_load_end *loads_at; /* the last move applied to its data (loads.c) */
	uint64_t freeze_cpu;                 /* 1 + its CPU clock when a freeze found it asleep */
	uint64_t freeze_cpu0;                /* 1 + its CPU clock when the freeze began (0: not read) */
	struct spy_thread *spare_next;       /* fold.c: a folded thread's record, free for a new thread */
};

/* timed's bit 1: the thread reads counters at every hook (counters.c), which only the slow paths do:
 * its gate is not SPY_GATE_TIMED, so the fast paths stay as they are for every other thread. */
#define SPY_TIMED_CTRS 2u

/* The gate of a thread in mode time that needs no slow path: timed = 1 in the word's upper half. */
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define SPY_GATE_TIMED ((uint64_t)1 << 32)
#else
#define SPY_GATE_TIMED ((uint64_t)1)
#endif
_Static_assert(offsetof(struct spy_thread, timed) == offsetof(struct spy_thread, gate) + 4,
	       "timed is the gate's upper half");
/* what the inline code of ABI 6 reads (spy-abi.h) */
_Static_assert(offsetof(struct spy_thread, held) == SPY_T_HELD && sizeof(((struct spy_thread *)0)->held) == 4,
	       "held");
_Static_assert(offsetof(struct spy_thread, stack) == SPY_T_STACK, "stack");
_Static_assert(offsetof(struct spy_thread, depth) == SPY_T_DEPTH, "depth");
_Static_assert(offsetof(struct spy_thread, stack_max) == SPY_T_STACK_MAX, "stack_max");
_Static_assert(offsetof(struct spy_thread, acache) == SPY_T_ACACHE, "acache");
_Static_assert(offsetof(struct spy_thread, counts) == SPY_T_COUNTS, "counts");
_Static_assert(offsetof(struct spy_frame, self) == SPY_FRAME_SELF, "frame self");
_Static_assert(offsetof(struct spy_frame, sp) == SPY_FRAME_SP, "frame sp");
_Static_assert(offsetof(struct spy_frame, call_site) == SPY_FRAME_SITE, "frame call site");
_Static_assert(sizeof(struct spy_frame) == 1u << SPY_FRAME_SHIFT, "frame size");
_Static_assert(sizeof(struct spy_acache) == 1u << SPY_ACACHE_SHIFT, "cache entry size");
_Static_assert(sizeof(struct spy_acache_way) == SPY_ACACHE_WAY, "cache way size");

/* Set while the hooks are wanted (defined here whichever spy-abi.h is in use). */
extern SPY_EXPORT int __spy_hooks;
/* The oldest unit ABI the runtime takes: ABI 2 only added the __spy_hooks test and ABI 3 the asm
 * counter's __spy_counts_slow_all, so code of ABI 1 (hooks always called) works with it unchanged. */
#define SPY_ABI_OLDEST 1

/* The hooks' thread: &spy_unattached until the first hook attaches the thread. */
extern SPY_TLS struct spy_thread *spy_tls_thread;
/* Set spy_tls_thread, and the executable's copies of it (ABI 7, hooks.c). */
void spy_tls_set(struct spy_thread *t);
/* Set __spy_counts, and the executable's copies of it (ABI 7); returns c. */
uint64_t *spy_counts_set(uint64_t *c);
/* Take the executable's copy at addr (in the calling thread), from __spy_register_unit. */
void spy_thread_exe_add(void *addr);
/* A thread that never records: hooks find busy set and return at once. */
extern struct spy_thread spy_idle_thread;
/* Every thread before its first hook: stale, so the hook takes the slow path and attaches. */
extern struct spy_thread spy_unattached;
/* Every thread record ever made (push-only, lock-free; see thread.c). */
extern struct spy_thread *spy_threads;

/* The calling thread's record, made on first use; NULL only when memory is exhausted. */
struct spy_thread *spy_thread_self(void);
/* Give the calling thread its tables (arcs, time); returns what spy_tls_thread now holds. */
struct spy_thread *spy_thread_attach(void);
/* Copy t's data into d (malloc'ed); 0 or -1. Callers hold spy_lock. */
int spy_thread_snapshot(struct spy_thread *t, struct spy_tdata *d);
void spy_tdata_free(struct spy_tdata *d);
struct spy_frame *spy_stack_new(uint32_t max);
/* A frame's key with bit 0 set is one of __spy_arc's (code built with mode=arcs; other keys are stack
 * pointers, even): it has no exit hook, no time and no function-table activation, and just ends. */
static inline int spy_key_lazy(uint64_t key)
{
	return (int)(key & 1);
}
void spy_stack_free(struct spy_frame *stack, uint32_t max);
/* Pop every frame of t as abandoned at time now (thread exit, final write). */
void spy_thread_close_frames(struct spy_thread *t, uint64_t now);
/* Empty t's tables and stack (spy_flush, fork). */
void spy_thread_reset(struct spy_thread *t);
/* t's open frames start again at now (after a flush's reset). */
void spy_thread_restart(struct spy_thread *t, uint64_t now);
void spy_thread_init(void);
void spy_thread_atfork_child(void);
/*
 * A consistent read of every thread (write.c): spy_freeze() makes each other thread's next hook stop
 * after recording its call (spy_park) and waits until every live thread is held there or asleep in
 * the kernel; spy_frozen_moved() says how many calls may have been made since by threads that were
 * asleep or are new (at most; 0: none, the read is of one moment, else read again);
 * spy_thaw() lets them go. Callers hold spy_lock. spy_freeze returns the number of threads it gave
 * up waiting for (running SPY_FREEZE_WORK_NS of CPU time without reaching a hook, or not held within
 * SPY_FREEZE_WAIT_NS): those are read as they run, and *in_flight says how many of their calls may be
 * counted without their arc (one per level each runs at: its code, and each handler nested on it).
 */
extern uint32_t spy_frozen; /* bit 0: threads held; bit 1: a signal waits for a hook (signals.c) */
uint32_t spy_freeze(struct spy_thread *self, uint32_t *in_flight);
uint32_t spy_frozen_moved(struct spy_thread *self);
void spy_thaw(void);
void spy_park(struct spy_thread *t);

/* offcpu.c: the calling thread's context-switch ring (mode time) */
extern const uint64_t spy_offcpu_none;
extern int spy_offcpu_failed; /* some thread got no ring: its times are wall time */
void spy_offcpu_open(struct spy_thread *t);
void spy_offcpu_close(struct spy_thread *t);
/* Charge the switches recorded since the last call to the frames on the stack; the top frame ends
 * at top_end (UINT64_MAX: none ends). Only on t's own thread, under the busy guard. */
void spy_offcpu_drain(struct spy_thread *t, uint64_t top_end);
/* Zero the arcs' off-CPU times (the arc tables were emptied). */
void spy_offcpu_reset(struct spy_thread *t);
/* Give the arcs of the frames that ended what they hold (after the last frames of a thread end). */
void spy_offcpu_settle(struct spy_thread *t);
/* how a thread blocked at user PC pc (enum gmon_wait_kind): the code before it read safely */
uint32_t spy_wait_kind(uint64_t pc);
extern int spy_offcpu_nowaits; /* the kernel refused samples at switches: no thread has waits */
/* add what thread v (exited) recorded of where it blocked to the folded threads' f */
void spy_offcpu_fold(struct spy_thread *f, const struct spy_thread *v);
/* For a write: the arcs of t's frames with off-CPU time not given to them yet, and how much (n at
 * most t->off.nside, one per arc); another thread's, read as it may run. */
uint32_t spy_offcpu_owed(const struct spy_thread *t, struct spy_offowed *out, uint32_t n);
/* For a write: the cycles off the CPU t's records hold that no drain charged yet, the interval it is
 * in now (switched out) up to now_ns (CLOCK_MONOTONIC) included; another thread's, read as it may run. */
void spy_offcpu_peek(const struct spy_thread *t, uint64_t now_ns, struct spy_offpeek *p);
/* The ring holds records not yet read: one load and a compare, for the exit hook. */
static inline int spy_offcpu_pending(const struct spy_thread *t)
{
	return __atomic_load_n(t->sw_head, __ATOMIC_RELAXED) != t->sw_seen;
}

/* counters.c: SPYRT_COUNTERS, perf_event counters read at each hook of mode time */
struct spy_ctrframe {
	uint64_t entry[GMON_CTR_MAX];    /* the counters when the frame was pushed */
	uint64_t children[GMON_CTR_MAX]; /* what its completed callees counted */
};
extern uint32_t spy_ctr_n; /* counters the run measures (those that could be opened at start-up) */
extern int spy_no_hwctr;   /* SPYRT_COUNTERS named a hardware counter the machine lacks (bit 7) */
/* The name of the run's counter k, as SPYRT_COUNTERS spells it. */
const char *spy_ctr_name(uint32_t k);
/* At start-up: open each counter once, say which are refused, keep the rest. */
void spy_ctr_init(void);
/* The calling thread's counters; on failure it has none, said once. */
void spy_ctr_open(struct spy_thread *t);
void spy_ctr_close(struct spy_thread *t);
/* Zero the arcs' totals and start the open frames from now (spy_thread_reset). */
void spy_ctr_reset(struct spy_thread *t);
/* The frame at depth n was just pushed / the top frame is about to be popped (hooks.c). */
void spy_ctr_push(struct spy_thread *t, uint32_t n);
void spy_ctr_pop(struct spy_thread *t);
/* Read the counters now for the pops until t->ctr.stamped is cleared (an exit's slow path). */
void spy_ctr_stamp(struct spy_thread *t);
/* Around the SIGPROF handler on t's thread: its events are left out of t's counters (1 when begun). */
int spy_ctr_handler_begin(struct spy_thread *t, uint64_t *v);
void spy_ctr_handler_end(struct spy_thread *t, const uint64_t *v);

/* fold.c: exited threads past the busiest SPY_KEEP_THREADS are summed into spy_folded (not listed,
 * state exited, tid 0), their records reused. Under spy_lock. */
#define SPY_KEEP_THREADS 32
extern struct spy_thread spy_folded;
extern uint64_t spy_folded_threads; /* threads summed into it */
extern uint64_t spy_folded_ticks;   /* their expected sampling ticks */
/* A retiring thread's: fold the least busy exited thread when more than SPY_KEEP_THREADS are kept. */
void spy_fold_exited(void);
struct spy_thread *spy_spare_pop(void); /* a folded thread's record, or NULL (any context) */
void spy_fold_forget(void);             /* spy_flush, fork child */
void spy_fold_compact(void);            /* merge the aggregate's equal entries (before writing) */
/* write.c: sort and merge a thread's entries with equal keys (arcs with their off-CPU times); its
 * function times are merged apart, before they are made fstats (spy_merge_fstats). */
void spy_merge_thread(struct gmon_thread *t);
/* write.c: sort n function times by address and sum those of one function: how many are left. */
uint64_t spy_merge_fstats(struct spy_tfstat *v, uint64_t n);
/* write.c: an array beside arcs (*dst of dn entries, or NULL when none had it) grows by sn entries of
 * src, zero when src is NULL. 0 or -1 (no memory). */
int spy_append_beside(void **dst, uint64_t dn, const void *src, uint64_t sn, size_t size);

/* hooks.c */
void spy_hooks_pop(struct spy_thread *t, uint64_t now, int abandoned);
void spy_hooks_calibrate(void);

/* ---- counts.c ---- */

extern uint64_t *spy_graveyard; /* where threads count after retiring */
struct spy_acache *spy_acache_new(void);
void spy_acache_free(struct spy_acache *c);
void spy_acache_clear(struct spy_thread *t);
void spy_acache_reslot(void);
extern uint32_t spy_acache_gen;
uint64_t *spy_slab_new(void);
void spy_slab_free(uint64_t *slab);
/* Sum every slab's counters for slots [0, n) into sum (which is zeroed first). */
void spy_counts_total(uint64_t *sum, uint32_t n);
/* The thread's counters follow its recording (rec), from a hook of self (enter: its entry). */
void spy_counts_window(struct spy_thread *t, uint64_t self, int enter, int rec);

/* ---- units.c: registered units, their copied names and their slots ---- */

struct spy_unit {
	struct spy_func *begin, *end; /* the module's records (invalid once closed) */
	uint32_t nfuncs, tag;
	uint32_t module; /* index in spy_modules */
	int closed;
	struct spy_ufunc {
		uint64_t addr;
		const char *name, *file; /* copies */
		uint32_t line, flags, slot;
	} * funcs;
	struct spy_unit *next;
};

extern struct spy_unit *spy_units;
extern uint32_t spy_nslots; /* slots handed out, slot 0 included */
extern uint64_t spy_slots_lost;
extern uint32_t spy_plugin_modes; /* bit per enum spy_mode seen in a unit tag */
extern int spy_timed_units;       /* a unit with exit hooks registered: times can be taken */
extern int spy_arc_units;         /* a unit with __spy_arc alone registered: no times for its calls */
/* The mode the file says: time with code built with mode=arcs (whose hooks take no times), with or
 * without code that has exit hooks, is written as arcs. */
uint32_t spy_written_mode(void);
/* The only hooks that ran were __spy_arc's: code built with mode=arcs, none with exit hooks. */
int spy_arc_hooks_only(void);
/* addr is the entry of a registered function with hooks (lock-free; for __spy_tail). */
int spy_hooked(uint64_t addr);
/* Its counter slot (lock-free), 0 when it is not one. */
uint32_t spy_hooked_slot(uint64_t addr);

/* ---- codemap.c, stackmap.c ---- */

/* Modules' code maps (the .eh_frame_hdr search table), under spy_lock at (un)registration. */
void spy_codemap_add(const void *addr);
void spy_codemap_drop(const void *addr);
/* The entry of the function (or split part) of an instrumented module whose code holds pc, or 0. */
uint64_t spy_codemap_func(uint64_t pc);
/* pc lies in an instrumented module's code (lock-free, async-signal-safe; 1 when unsure). */
int spy_codemap_holds(uint64_t pc);
/* The word at addr of the thread's stack, read as data: a return-address slot of a frame that may have
 * returned, which may now lie in a redzone of the live frame holding it under AddressSanitizer (whose
 * check is left out here; without the sanitizer it is a plain load, inlined). */
__attribute__((no_sanitize_address)) static inline uint64_t spy_stack_word(uint64_t addr)
{
	return *(const uint64_t *)(uintptr_t)addr;
}

/* [from, to) lies in the mapping of t's stack around from, which may then be read: the mapping as
 * last looked up, else looked up again (a few times per thread at most). */
int spy_stack_rescan(struct spy_thread *t, uint64_t from, uint64_t to);
static inline int spy_stack_readable(struct spy_thread *t, uint64_t from, uint64_t to)
{
	if (likely(from >= t->stk_lo && to <= t->stk_hi && from < to))
		return 1;
	return spy_stack_rescan(t, from, to);
}

/* ---- tailsites.c ---- */

/* A tail call's site (the return address of its __spy_tail call), once its arc is made. */
void spy_tail_site_add(uint64_t site);
/* The sites so far, sorted, malloc'ed into *sites (NULL when none); 0 or -1 (no memory). */
int spy_tail_sites(uint64_t **sites, uint64_t *n);
extern uint64_t spy_tail_sites_lost;

/* ---- modules.c ---- */

struct spy_module {
	char *path;
	uint64_t base, text_lo, text_hi;
	/* loads.c: what its addresses are moved by in the data (0 while loaded), and the start of its
	 * range of its own, given at its first dlclose */
	uint64_t shift, synth;
	uint8_t build_id[64];
	uint32_t build_id_len;
	uint32_t flags; /* enum gmon_module_flags, and SPY_MOD_CLOSING */
};
/* loads.c: its unit unregistered; whether it is gone is not known yet (never written) */
#define SPY_MOD_CLOSING (1u << 31)

extern struct spy_module *spy_modules;
extern uint32_t spy_nmodules, spy_modules_alloc;
/* The index of the module holding addr, added to the list when new; UINT32_MAX if none. */
uint32_t spy_module_of(const void *addr);
/* Add every loaded object not yet listed (called when writing). */
void spy_modules_scan(void);
const char *spy_module_path(const struct spy_module *m);

/* ---- loads.c: a dlclose'd module's data moves to a range of its own ---- */

/* One move: addresses in [lo, hi) get delta added (modulo 2^64). A list only ever appended to. */
struct spy_load_end {
	uint64_t lo, hi, delta;
	struct spy_load_end *next;
};
extern struct spy_load_end *spy_loads_tail; /* the newest move; NULL while none */
/* Module module's unit unregistered (dlclose, or exit) / it registers again at the same place;
 * settle: the modules unregistered since are moved when gone from the link map (scanned: the module
 * map was just scanned, spy_modules_scan). Under spy_lock. */
void spy_loads_end(uint32_t module);
void spy_loads_again(uint32_t module);
void spy_loads_settle(int scanned);
/* addr after the moves that follow from (NULL: from the first) up to to, inclusive. */
uint64_t spy_loads_map(uint64_t addr, const struct spy_load_end *from, const struct spy_load_end *to);
/* The moves after from up to to, applied to copies (a write's) or to data at rest. */
void spy_loads_tdata(struct spy_tdata *d, const struct spy_load_end *from, const struct spy_load_end *to);
void spy_loads_stacks(struct gmon_stack *k, uint64_t nk, struct gmon_frame *f, uint64_t nf,
		      const struct spy_load_end *from, const struct spy_load_end *to);
void spy_loads_events(struct gmon_tevent *ev, uint64_t n, uint32_t kind, const struct spy_load_end *from,
		      const struct spy_load_end *to);
/* The moves not yet applied: to the calling thread's own tables, stack and rings (its slow path); to
 * a sampling table (its lock held); to a thread that just exited (under spy_lock). */
void spy_loads_sync(struct spy_thread *t);
void spy_loads_samp(struct spy_samp *s);
void spy_loads_exited(struct spy_thread *t);
static inline int spy_loads_pending(const struct spy_load_end *at)
{
	return __atomic_load_n(&spy_loads_tail, __ATOMIC_SEQ_CST) != at;
}

/* ---- env.c ---- */

struct spy_config {
	char *out;                  /* SPYRT_OUT, with %p unexpanded */
	int out_has_pid;            /* SPYRT_OUT contains %p */
	int out_named;              /* SPYRT_OUT was given (gmon_write_file's GMON_WRITE_NAMED) */
	uint32_t mode;              /* SPYRT_MODE */
	uint32_t arcs;              /* SPYRT_ARCS */
	char *start, *stop;         /* SPYRT_START, SPYRT_STOP */
	int start_thread;           /* SPYRT_START_THREAD: record only the thread that hit START first */
	int off;                    /* SPYRT_OFF */
	int ready;                  /* SPYRT_READY */
	uint32_t watch;             /* SPYRT_WATCH: enum gmon_watch */
	char *target;               /* SPYRT_WATCH=calls:FUNC: FUNC */
	uint32_t hz;                /* SPYRT_HZ */
	uint32_t divisor;           /* SPYRT_DIVISOR */
	char *trace;                /* SPYRT_TRACE: FUNC,... (NULL: no trace) */
	uint32_t fault_trace;       /* SPYRT_FAULT_TRACE: page faults kept per thread (watch faults) */
	uint32_t signal_trace;      /* SPYRT_SIGNAL_TRACE: signals kept per thread (0: no trace) */
	uint32_t ntrace;            /* its names */
	uint32_t nctr;              /* SPYRT_COUNTERS: how many */
	uint32_t ctr[GMON_CTR_MAX]; /* their indices in spy_ctr_names */
};

/* SPYRT_COUNTERS's event names (env.c), indexed as counters.c's table of perf_event types */
#define SPY_CTR_EVENTS 9
extern const char *const spy_ctr_names[SPY_CTR_EVENTS];

extern struct spy_config spy_cfg;
/* One line on stderr, written whole. */
void spy_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* NAME's value in the environment env (the process's own, read before libc's environ is set), or
 * NULL */
const char *spy_env_get(char **env, const char *name);
/* Read and validate the environment; each bad value is one line on stderr and the default. */
void spy_env_load(struct spy_config *cfg, char **env);
/* Who ran a program that has rights its user has not (setuid, setgid, file capabilities: the kernel's
 * AT_SECURE); the profile is written with that user's rights (secure.c). */
struct spy_caller {
	int secure;
	uid_t uid;
	gid_t gid;
};
extern struct spy_caller spy_caller;
/* The environment the runtime may read: env, or, when secure (AT_SECURE), none at all (as glibc's
 * gmon ignores GMON_OUT_PREFIX then), which one stderr line says when a SPYRT_ variable was there;
 * secure also fills spy_caller. */
char **spy_env_trusted(char **env, int secure);

/* ---- secure.c ---- */

/* The writing thread's rights, kept while it has its caller's. */
struct spy_rights {
	int on;
	uid_t fsuid;
	gid_t fsgid;
	uint32_t caps[6]; /* capget's two struct __user_cap_data_struct */
};
/* When spy_caller.secure: this thread's file system ids become the caller's and its effective
 * capabilities none, until spy_as_self(r). 0, or -1 with errno (nothing changed). */
int spy_as_caller(struct spy_rights *r);
void spy_as_self(const struct spy_rights *r);
/* SPYRT_OUT with %p expanded; forked children get ".PID" unless %p is there. */
/* A relative SPYRT_OUT (or gmon.out) made absolute against the current directory, the one the program
 * starts in (init): a daemon that chdir()s away still writes where it was started. Left relative when
 * the directory cannot be named (getcwd) or the path would be too long. */
void spy_out_anchor(struct spy_config *cfg);
int spy_out_path(const struct spy_config *cfg, char *buf, size_t sz, pid_t pid, int forked);

/* ---- control.c ---- */

/*
 * The control word: epoch << 8 | flags. A change (spy_on/off, a flush's new epoch, start/stop) is
 * stored here, then every thread is marked stale; a stale thread's next hook reads the word in its
 * slow path. So the fast path reads only its own thread, and nothing is missed: see spy_ctl_sync.
 */
#define SPY_CTL_ON 1u    /* recording (spy_on, SPYRT_OFF) */
#define SPY_CTL_WATCH 2u /* SPYRT_START/STOP: every hook takes the slow path */
#define SPY_CTL_EPOCH(w) ((uint32_t)((w) >> 8))
extern uint64_t spy_ctl;

extern pthread_mutex_t spy_lock; /* registry, thread retirement, writing, control */
extern int spy_ready;            /* spy_init() has run */
extern uint32_t spy_mode;        /* effective mode: SPYRT_MODE, or count (spy_mode_lower_count) */
/* Units of mode=count beside units with hooks (units.c): the process records in mode count, unless
 * a thread's hooks have set up their tables already. 1: count from now on (or before), 0: too late. */
int spy_mode_lower_count(void);
/* A thread sets up its hook tables: from now on the mode stays. 0: hooks record, -1: mode count. */
int spy_mode_fix(void);
extern int spy_forked;
/* A fork is under way (its handlers): a signal the parent took then, which ThreadSanitizer holds and
 * delivers in the child before the runtime's child handler, finds the parent's perf rings there
 * unmapped (VM_DONTCOPY): the sampling handler leaves it. */
extern int spy_forking;
extern uint64_t spy_start_ns, spy_start_mono_ns, spy_start_tsc;
extern uint64_t spy_calib_cpu_ns; /* CPU time of the start-up calibration: not the program's */
extern uint64_t spy_hook_out_mcyc, spy_hook_in_mcyc, spy_hook_arc_mcyc, spy_tsc_read_mcyc;
/* a tail call's hooks beyond a call's, to the tail caller's self time and to its caller's (hooks.c) */
extern int64_t spy_hook_tail_in_mcyc, spy_hook_tail_out_mcyc;
extern uint64_t spy_start_addr, spy_stop_addr; /* SPYRT_START/STOP resolved */

void spy_init(void);
/* spy_init(), unless no constructor has run yet: then 0, and nothing may be set up. */
int spy_try_init(void);
extern int spy_may_init; /* a constructor has reached the runtime */
/* Slow path of a hook whose thread is stale: returns 1 when an enter hook should record (exit hooks
 * always pop what they pushed). */
int spy_ctl_sync(struct spy_thread *t, uint64_t self, int enter);
/* Store a new control word and mark every thread stale. Caller holds spy_lock. */
void spy_ctl_set(uint64_t w);
/* Recording now in thread t (spy_enabled without set-up): async-signal-safe. */
int spy_recording(const struct spy_thread *t);
/* Remember the first problem (reported once at the end). Not for the hot path. */
void spy_note_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
extern char spy_first_error[256];
extern int spy_first_error_said; /* it was said on stderr when it happened: not again at the end */
/* The add-one counts to report for slots [0, n): the totals less what spy_off() and spy_flush()
 * excluded. Returns 1 when something was excluded (per-thread counts are then left out). */
int spy_counts_recorded(uint64_t *out, uint32_t n);

/* ---- nodes.c: Mesa's nodes and legs ---- */

/* SPYRT_LEGS, SPYRT_LEG_ADD, SPYRT_LEG_TRACK, SPYRT_LEG_THREAD, SPYRT_HIST (bad values: one line). */
void spy_nodes_env(char **env);
/* Empty every thread's node and leg tables (spy_flush), and after a fork in the child. */
void spy_nodes_reset(void);
void spy_nodes_forked(void);
/* The NODES records into p (while the file is built). 0, or -1 when memory ran out. */
int spy_nodes_collect(struct gmon_profile *p);
/* 1 once a thread passed a node: a profile of nodes alone (no instrumented code) is still written. */
int spy_nodes_passed(void);

/* ---- write.c ---- */

/* Append sn elements of size bytes at src to the array *dst of *dn (realloc); 0, or -1 when memory
 * ran out. (fold.c folds with it too.) */
int spy_append(void **dst, uint64_t *dn, const void *src, uint64_t sn, size_t size);

/* Write the profile to path (NULL: SPYRT_OUT). final: written at exit. 0 or -1 (reported). */
int spy_write(const char *path, int final);
/* The run's one final write (control.c): from the destructor, or at a signal that ends the run. */
void spy_write_final(void);
int spy_final_written(void);

/* ---- stacks.c: stacks of the runtime's own ---- */

#define SPY_WRITER_STACK (256u << 10) /* the writer's: about 13 KiB used (t171) */
#define SPY_ALT_STACK (64u << 10)     /* a thread's alternate signal stack, for the crash handlers */
/* fn(arg) on the writer's stack, in the calling thread (its TLS is the writer's); where it is called
 * when no stack could be mapped, or on a machine without the switch (not x86-64 or aarch64). */
void spy_on_stack(void (*fn)(void *), void *arg);
/* The calling thread's alternate signal stack, the runtime's, while its crash handlers are installed
 * and the thread has none of its own (thread.c, when the thread's record is made); taken back when
 * the thread retires, unless the program replaced it. */
void spy_altstack_thread(void);
void spy_altstack_thread_end(void);
void spy_stacks_atfork_child(void);

/* ---- signals.c: the profile of a run ended by a signal ---- */

extern SPY_TLS int spy_in_write; /* this thread is in spy_write: a signal here cannot write */
extern uint32_t spy_end_signal;  /* the signal that ends the run (0: none) */
extern uint64_t spy_end_pc;      /* the PC it interrupted */
extern uint64_t spy_end_func;    /* the thread's innermost instrumented function then, or 0 */
extern int spy_end_crash;        /* a crash: the profile is what could be read */
void spy_sig_init(void);
/* A signal the runtime writes the profile at: SIGINT, SIGTERM, SIGHUP, SIGQUIT and the crashes. */
int spy_sig_watched(int sig);
/* The runtime's handler takes SIGSEGV (the program left it the default action). */
int spy_sig_crash_ours(void);
/* sigaction() for such a signal (sample-sig.c): the program's view, SIG_DFL being the runtime's. */
int spy_sig_action(int sig, const struct sigaction *act, struct sigaction *old);
/* Around every write (spy_write): a termination signal meanwhile acts once it is done. */
void spy_sig_write_begin(void);
void spy_sig_write_end(void);
/* From spy_park: the termination signal left to this thread's next hook is acted on now. */
void spy_sig_deferred(void);

/* sig-nest.c: the program's own handlers run nested on the interrupted thread's shadow stack. */
int spy_sig_nest_wraps(int sig); /* a signal whose handlers the runtime wraps */
/* sigaction() for such a signal: the handler runs through the runtime's, and reads back as given. */
int spy_sig_nest_action(int sig, const struct sigaction *act, struct sigaction *old);
/* Signals of this thread that landed in a slow path: blocked until it is done (bit per signal). */
extern SPY_TLS uint64_t spy_nest_deferred;
/* errno: the program's, which a handler delivered here finds, and which is left */
void spy_sig_nest_release(int errno_program);
/* The PC a signal interrupted, from its handler's third argument (0 where unknown). */
uint64_t spy_sig_pc(const void *uc);
/* pc, interrupted on thread t, may lie between a function's add-one count and the arc its entry hook
 * counts: in instrumented code or in the runtime (a hook), on a thread with hooks. */
int spy_sig_may_split(const struct spy_thread *t, uint64_t pc);

/* ---- time ---- */

static inline uint64_t spy_cycles(void)
{
#if defined(__x86_64__) || defined(__i386__)
	return __builtin_ia32_rdtsc();
#elif defined(__aarch64__)
	uint64_t v;

	__asm__ __volatile__("mrs %0, cntvct_el0" : "=r"(v));
	return v;
#else
#error "spy needs a cycle counter: x86-64 or aarch64"
#endif
}

uint64_t spy_now_ns(int clock); /* CLOCK_* in ns */
/* The time stamps' rate: stated by the hardware or the kernel, else measured against CLOCK_MONOTONIC
 * since start-up (never by waiting); how it was obtained goes into *hdr_flags' TSC source bits. */
uint64_t spy_tsc_hz(uint32_t *hdr_flags);
/* The rate the hardware or the kernel states (CPUID, the hypervisor, sysfs, CNTFRQ), 0 when none;
 * looked up each call, without a system call of perf's. */
uint64_t spy_tsc_stated_hz(void);
/* The rate CPUID leaf 0x15 states (0: none): den and num from EAX and EBX, the crystal's Hz from ECX,
 * leaf 0x16's base MHz for a crystal not stated. */
uint64_t spy_tsc_hz_cpuid15(uint32_t den, uint32_t num, uint32_t crystal_hz, uint32_t base_mhz);
/* The rate a perf_event mmap page's time_mult and time_shift state (0: none). */
uint64_t spy_tsc_hz_perf(uint32_t mult, uint16_t shift);
void spy_tsc_pair(uint64_t *tsc, uint64_t *mono_ns);
int spy_tsc_invariant(void);

#pragma GCC visibility pop

#endif
