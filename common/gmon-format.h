/* The spy profile file (gmon.out): its constants, its in-memory form, and the one encoder and decoder
 * shared by the runtime (writer) and spinprof (reader), the library common/ (gmon-io.c lists its
 * parts). docs/FORMAT.md describes the bytes. */
#ifndef GMON_FORMAT_H
#define GMON_FORMAT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/*
 * File header, 16 bytes: "gmon", the version word, the minor revision, and a CRC-32 of the first 12
 * bytes. The version word reads "SPY\1" on disk; GNU gprof knows only versions 0 and 1, so it stops
 * with "unsupported version" instead of misreading the file.
 */
#define GMON_MAGIC "gmon"
#define GMON_SPY_VERSION 0x01595053u /* bytes 'S' 'P' 'Y' 1 */
/* 1: SAMPLING and SAMPLES records; 2: off-CPU time; 3: stopwatch, TRACE and NODES records, folded
 * threads; 4: the TAILS record and the header's tail-call costs; 5: where threads blocked (waits) */
#define GMON_SPY_MINOR 5u
#define GMON_FILE_HEADER_SIZE 16u
#define GMON_GNU_VERSION 1u /* glibc's gmon.out, for the error message */

/* Record header, 16 bytes: u16 tag, u16 flags, u32 crc, u64 length of the stored payload. */
#define GMON_RECORD_HEADER_SIZE 16u

enum gmon_tag {
	GMON_TAG_HEADER = 1,   /* run: once, first */
	GMON_TAG_MODULE = 2,   /* one loaded object */
	GMON_TAG_FUNCS = 3,    /* instrumented functions of one module */
	GMON_TAG_THREAD = 4,   /* one thread: arcs, function times, counts */
	GMON_TAG_COUNTERS = 5, /* named runtime counters */
	GMON_TAG_SAMPLING = 6, /* sampling's parameters and totals: once, when sampling was set up */
	GMON_TAG_SAMPLES = 7,  /* one thread's samples: stacks and their counts */
	GMON_TAG_TRACE = 8,    /* revision 3: one thread's trace of one kind, its events in time order */
	GMON_TAG_NODES = 9,    /* revision 3: one thread's nodes and legs (Mesa), with their histograms */
	GMON_TAG_TAILS = 10,   /* revision 4: the call sites of tail calls (a jump from a tail hook) */
	GMON_TAG_END = 0x7fff, /* last: record count and file length */
};

enum gmon_record_flags {
	GMON_REC_ZLIB = 1u << 0, /* payload: u64 raw length, then a zlib stream */
};

/* A record's payload is compressed when it is at least this long and zlib makes it shorter. */
#define GMON_ZLIB_MIN 4096u

/* Limits a reader enforces so that a lying length cannot make it allocate without bound. */
#define GMON_STR_MAX (16u << 20)
#define GMON_RAW_MAX ((uint64_t)4 << 30)

enum gmon_header_flags {
	GMON_HDR_TSC_INVARIANT = 1u << 0, /* CPUID says the TSC ticks at a constant rate */
	GMON_HDR_FINAL = 1u << 1,         /* written at exit, not by spy_dump() */
	GMON_HDR_FORKED = 1u << 2,        /* the process is a fork()ed child; the run began at fork */
	/* time mode, revision 2: the threads' off-CPU time could not be measured (perf_event_open
	 * failed; the reason is in error), so their times are wall time, off-CPU time included */
	GMON_HDR_OFFCPU_NONE = 1u << 3,
	GMON_HDR_SIGNAL = 1u << 4,     /* written as a signal ended the run (COUNTERS: signal, signal_pc) */
	GMON_HDR_INCOMPLETE = 1u << 5, /* written at a crash: what could be read then */
	/* revision 3: SPYRT_WATCH named a hardware counter the machine does not have: sampled by cpu */
	GMON_HDR_NO_HWCOUNT = 1u << 6,
	/* revision 3: SPYRT_COUNTERS named a hardware counter the machine does not have: left out */
	GMON_HDR_NO_HWCTR = 1u << 7,
	/* revision 5, off-CPU time measured: the kernel refused a sample at each context switch
	 * (perf_event_paranoid above 1 without CAP_PERFMON), so no thread says where it blocked */
	GMON_HDR_WAITS_NONE = 1u << 12,
};

/* Header flags bits 8-11: how tsc_hz was obtained. */
#define GMON_HDR_TSC_SOURCE_SHIFT 8
#define GMON_HDR_TSC_SOURCE_MASK (0xfu << GMON_HDR_TSC_SOURCE_SHIFT)
enum gmon_tsc_source {
	GMON_TSC_UNSAID = 0,     /* not recorded (a file of an older runtime), or no time stamps */
	GMON_TSC_MEASURED = 1,   /* the time stamps against CLOCK_MONOTONIC from start-up to the write */
	GMON_TSC_CPUID = 2,      /* CPUID leaf 0x15: crystal clock and ratio */
	GMON_TSC_HYPERVISOR = 3, /* CPUID leaf 0x40000010: the TSC's kHz (KVM, VMware) */
	GMON_TSC_SYSFS = 4,      /* /sys/devices/system/cpu/cpu0/tsc_freq_khz */
	GMON_TSC_PERF = 5,       /* a perf_event mmap page's time_mult and time_shift */
	GMON_TSC_ARCH = 6,       /* aarch64's CNTFRQ_EL0 */
};

enum gmon_module_flags {
	GMON_MOD_MAIN = 1u << 0,         /* the executable */
	GMON_MOD_INSTRUMENTED = 1u << 1, /* registered functions with the runtime */
	GMON_MOD_CLOSED = 1u << 2,       /* dlclose()d before the file was written */
	GMON_MOD_VDSO = 1u << 3,
	/* dlclose()d, and its addresses (base, text, and every address of it in the file) moved to a
	 * range of its own, apart from whatever was loaded there after it */
	GMON_MOD_MOVED = 1u << 4,
};

enum gmon_thread_flags {
	GMON_THREAD_MAIN = 1u << 0,   /* the process's first thread */
	GMON_THREAD_EXITED = 1u << 1, /* ended before the file was written */
	/* revision 2: off-CPU time measured: its arcs' and functions' incl and self are CPU time */
	GMON_THREAD_OFFCPU = 1u << 2,
	/* revision 3: its function times have the stopwatch of their outermost calls */
	GMON_THREAD_STOPWATCH = 1u << 3,
	/* revision 3: exited threads summed into one record, tid 0 (counter threads_folded: how many) */
	GMON_THREAD_FOLDED = 1u << 4,
	/* revision 3: its arcs have perf_event counter totals (SPYRT_COUNTERS): arcctrs, ctr_names */
	GMON_THREAD_COUNTERS = 1u << 5,
	/* revision 5: its waits say where it blocked (a sample of the user PC at each switch-out) */
	GMON_THREAD_WAITS = 1u << 6,
};

/* Revision 5: how a thread blocked, told by the user PC it was switched out at. */
enum gmon_wait_kind {
	GMON_WAIT_SYSCALL = 0, /* the PC follows a system call instruction: the call is its symbol's */
	GMON_WAIT_FAULT = 1,   /* it does not: a page fault (or another trap) blocked the thread */
	GMON_WAIT_UNREAD = 2,  /* the code at the PC could not be read, or no PC came with the switch */
	GMON_WAIT_OTHER = 3,   /* the thread's table of waits was full: what found no entry of its own */
};
#define GMON_WAIT_LAST GMON_WAIT_OTHER

/* One place a thread blocked: where, in which function, how often and how long. */
struct gmon_wait {
	uint64_t pc;   /* the user PC at the switch-out; 0 with GMON_WAIT_OTHER */
	uint64_t func; /* the innermost timed function then (its address), 0 if none */
	uint32_t kind; /* enum gmon_wait_kind */
	uint64_t count, cycles;
};

/* Histogram of a function's call durations: bucket b counts calls of [2^b, 2^(b+1)) cycles
 * (bucket 0 also holds 0 and 1); the last bucket holds everything longer. */
#define GMON_HIST_BUCKETS 40

struct gmon_header {
	char *tool;         /* "spy 0.1" */
	uint32_t abi;       /* SPY_ABI_VERSION of the runtime */
	uint32_t pid, ppid; /* of the process that wrote the file */
	uint32_t mode;      /* enum spy_mode the runtime recorded in */
	uint32_t flags;     /* enum gmon_header_flags */
	uint64_t start_ns;  /* CLOCK_REALTIME at start (or fork), ns */
	uint64_t end_ns;    /* CLOCK_REALTIME when written */
	uint64_t tsc_hz;    /* cycles per second of the time stamps */
	/* The hooks' own cost, in thousandths of a cycle per call (an enter and its exit), measured at
	 * start-up: hook_out lands in the caller's self time, hook_in in the callee's inclusive time. */
	uint64_t hook_out_mcyc, hook_in_mcyc;
	uint64_t tsc_read_mcyc; /* one time stamp read, thousandths of a cycle */
	/* revision 4, mode time: what a tail call's hooks (the tail hook, its callee's entry and exit,
	 * which ends both) add beyond a call's hook_out and hook_in, to the tail caller's self time
	 * (tail_in) and to its caller's (tail_out), per tail call; thousandths of a cycle, may be < 0 */
	int64_t hook_tail_in_mcyc, hook_tail_out_mcyc;
	/* What was lost, summed over threads (never silently: the report prints these). */
	uint64_t dropped_arcs;   /* arc updates dropped: tables at their limit */
	uint64_t dropped_funcs;  /* function-time updates dropped */
	uint64_t dropped_frames; /* calls not timed: shadow stack full */
	uint64_t abandoned;      /* frames popped without an exit hook (longjmp, exceptions, exit) */
	uint64_t unmatched;      /* exit hooks with no frame to match */
	uint64_t slots_lost;     /* functions left without a counter slot (too many functions) */
	uint64_t unregistered;   /* add-one counts of functions whose unit was not registered */
	char *error;             /* the first problem the runtime met, "" if none */
	uint32_t argc;
	char **argv;
};

struct gmon_module {
	uint32_t id;               /* referred to by gmon_funcs.module */
	uint32_t flags;            /* enum gmon_module_flags */
	uint64_t base;             /* load bias: runtime address = file address + base */
	uint64_t text_lo, text_hi; /* runtime addresses of the executable segments, [lo, hi) */
	char *path;
	uint32_t build_id_len;
	uint8_t *build_id;
};

struct gmon_func {
	uint64_t addr;  /* runtime address of the body */
	uint64_t count; /* add-one count, all threads */
	uint32_t line;
	uint32_t flags; /* enum spy_func_flags */
	char *name;     /* assembler name */
	char *file;
};

struct gmon_funcs {
	uint32_t module;      /* gmon_module.id */
	uint32_t plugin_mode; /* enum spy_mode the plugin compiled the unit with */
	uint32_t nr;
	struct gmon_func *funcs;
};

/*
 * One arc: calls through one call site to one callee. caller is the function of the caller's
 * frame on the shadow stack (0: none, the thread's first frame; 1: several, the call site is in
 * code without hooks such as qsort). incl counts only calls whose callee was not already active
 * on the thread (recursion counted once), so a callee's arcs sum to its inclusive time.
 */
#define GMON_CALLER_NONE 0u
#define GMON_CALLER_MANY 1u

struct gmon_arc {
	uint64_t call_site, caller, callee;
	uint64_t count, incl, self;
};

/* Revision 2, threads with GMON_THREAD_OFFCPU: an arc's incl and self are CPU cycles, and the calls'
 * time off the CPU is apart: inclusive (outermost calls, as incl), self (while the callee was the
 * innermost frame), and the part of self the thread was preempted (the rest it blocked). */
struct gmon_arcoff {
	uint64_t incl, self, self_pre;
};

/* Revision 3, threads with GMON_THREAD_COUNTERS: an arc's totals of each of the thread's counters
 * (SPYRT_COUNTERS, its ctr_names), kept as its cycles are: inclusive (outermost calls, as incl) and
 * self (less what its callees counted). Entries past the thread's nctrs are 0. */
#define GMON_CTR_MAX 3
struct gmon_arcctr {
	uint64_t incl[GMON_CTR_MAX], self[GMON_CTR_MAX];
};

/* A function's timing on one thread: calls timed, inclusive cycles of its outermost activations,
 * self cycles, and the shortest, longest and histogram of single calls' inclusive cycles.
 * Revision 3 (GMON_THREAD_STOPWATCH), the stopwatch of its outermost calls (SystemTap's): their
 * number, the sum and sum of squares (128 bits: lo, hi) of their wall cycles, the shortest, and
 * their histogram; the longest is max (an outermost call lasts as long as any it holds).
 * The histograms hold their first nhist and nohist buckets (at most GMON_HIST_BUCKETS; the file
 * drops trailing empty ones), a bucket past them is 0: read none past nhist, nohist. The buckets
 * are not the fstat's: they lie in the thread's hist_pool (NULL pointer when there are none). */
struct gmon_fstat {
	uint64_t addr;
	uint64_t calls, incl, self, min, max;
	uint64_t outer, outer_sum, outer_min;
	uint64_t outer_sq[2];
	uint32_t nhist, nohist;
	uint64_t *hist, *outer_hist;
};

struct gmon_count {
	uint64_t addr; /* 0: functions whose unit was not registered yet */
	uint64_t count;
};

struct gmon_thread {
	uint32_t tid;
	uint32_t flags; /* enum gmon_thread_flags */
	uint64_t start_ns, end_ns;
	char *name;
	uint64_t dropped_arcs, dropped_funcs, dropped_frames, abandoned, unmatched;
	/* revision 2 (GMON_THREAD_OFFCPU): cycles the thread spent off the CPU, blocked (it gave the
	 * CPU up) and preempted; off-CPU intervals seen; context-switch records the kernel lost */
	uint64_t off_blocked, off_preempted, off_switches, off_lost;
	uint64_t narcs, nfstats, ncounts;
	struct gmon_arc *arcs;
	struct gmon_arcoff *arcoffs; /* NULL, or narcs entries beside arcs (GMON_THREAD_OFFCPU) */
	struct gmon_fstat *fstats;
	/* the one block (malloc'ed, or NULL) that holds all the fstats' histogram buckets: the
	 * decoder's holds the function times' then the stopwatches'; freed with the thread */
	void *hist_pool;
	struct gmon_count *counts;
	/* revision 3 (GMON_THREAD_COUNTERS): nctrs event names ("page-faults") and narcs totals
	 * beside arcs; nctrs 0 and arcctrs NULL without */
	uint32_t nctrs;
	char *ctr_names[GMON_CTR_MAX];
	struct gmon_arcctr *arcctrs;
	/* revision 5: where it blocked (GMON_THREAD_WAITS; their cycles are part of off_blocked) */
	uint32_t nwaits;
	struct gmon_wait *waits;
};

/* What the samples count (SPYRT_WATCH). */
enum gmon_watch {
	GMON_WATCH_NONE = 0,
	GMON_WATCH_CPU = 1,        /* the thread's CPU time, SPYRT_HZ ticks per CPU second */
	GMON_WATCH_WALL = 2,       /* real time: blocked threads are sampled too, as waiting */
	GMON_WATCH_ALLOC = 3,      /* malloc/calloc/realloc calls */
	GMON_WATCH_ALLOCBYTES = 4, /* bytes they allocate */
	GMON_WATCH_FAULTS = 5,     /* page faults (software perf event) */
	GMON_WATCH_CALLS = 6,      /* every call of one function (Spy's user break) */
	/* revision 3: hardware counters, where the machine has them (a perf event each) */
	GMON_WATCH_CYCLES = 7,
	GMON_WATCH_INSTRUCTIONS = 8,
	GMON_WATCH_CACHE_MISSES = 9,
};
#define GMON_WATCH_LAST GMON_WATCH_CACHE_MISSES
#define GMON_WATCH_HARDWARE(w) ((w) >= GMON_WATCH_CYCLES && (w) <= GMON_WATCH_CACHE_MISSES)

enum gmon_sampling_flags {
	GMON_SAMP_FOREIGN = 1u << 0,     /* the program has its own SIGPROF handler: nothing sampled */
	GMON_SAMP_NOSOURCE = 1u << 1,    /* the event source could not be set up (reason in the error) */
	GMON_SAMP_THREADS_CUT = 1u << 2, /* some threads could not get a timer or event */
};

/* Sampling's parameters and totals, summed over threads. */
struct gmon_sampling {
	uint32_t watch;               /* enum gmon_watch */
	uint32_t flags;               /* enum gmon_sampling_flags */
	uint64_t hz;                  /* cpu, wall: ticks asked for per second */
	uint64_t divisor;             /* SPYRT_DIVISOR: one event in divisor is recorded */
	char *target;                 /* calls:FUNC: FUNC; else "" */
	char *start, *stop;           /* SPYRT_START, SPYRT_STOP; "" when unset */
	uint64_t expected;            /* cpu, wall: ticks the sampled time should have given */
	uint64_t taken;               /* samples recorded */
	uint64_t missed;              /* ticks that never ran (timer overruns), events past the tables */
	uint64_t in_runtime;          /* of taken: samples whose PC was inside the profiler */
	uint64_t dropped;             /* samples lost: stack tables full */
	uint64_t cpu_ns;              /* the process's CPU time (user + system) over the run */
	uint64_t faults;              /* its page faults, minor and major */
	uint64_t allocs, alloc_bytes; /* allocations the interposed allocator saw, and their bytes */
	uint64_t handler_cycles;      /* cycles spent recording samples: the profiler's own cost */
};

enum gmon_stack_flags {
	GMON_STACK_WAITING = 1u << 0, /* wall: the thread was blocked, not running */
	GMON_STACK_RUNTIME = 1u << 1, /* the PC was inside the profiler */
	GMON_STACK_CUT = 1u << 2,     /* deeper frames were left out */
};

/* One frame of the shadow stack: the instrumented function and the call site it was called from. */
struct gmon_frame {
	uint64_t func, call_site;
};

/*
 * Samples that saw the same stack: count of events, and what they stand for in the watch's unit
 * (cpu and wall: nanoseconds; alloc: allocations; allocbytes: bytes; faults: faults; calls: calls),
 * which is count times the divisor except for bytes and time.
 */
struct gmon_stack {
	uint64_t count, weight;
	uint64_t pc;    /* where the thread was: the interrupted PC, the allocator's or FUNC's call site */
	uint32_t flags; /* enum gmon_stack_flags */
	uint32_t depth;
	struct gmon_frame *frames; /* depth frames, innermost first (points into gmon_samples.frames) */
};

struct gmon_samples {
	uint32_t tid;
	uint64_t nstacks, nframes;
	struct gmon_stack *stacks;
	struct gmon_frame *frames;
};

/* Revision 3: nodes and legs (Mesa). A node is a point placed in the program (SPY_NODE, the
 * plugin's node=FILE:LINE); a leg the code run between a from node and a to node, timed in
 * nanoseconds of CLOCK_MONOTONIC. */
enum gmon_leg_track {
	GMON_TRACK_NONE = 0,      /* nodes counted, no leg timed */
	GMON_TRACK_SUCCESSOR = 1, /* only the leg from the thread's last node to this one */
	GMON_TRACK_ALL = 2,       /* every leg of the table this node ends or starts */
};
enum gmon_leg_add {
	GMON_ADD_NONE = 0,      /* only the legs SPYRT_LEGS names */
	GMON_ADD_SUCCESSOR = 1, /* also a new leg from the thread's last node to this one */
};
enum gmon_nhist_kind {
	GMON_NHIST_NONE = 0,
	GMON_NHIST_LINEAR = 1, /* bucket (v - base) / scale; under: v < base; over: past the last */
	GMON_NHIST_LOG = 2,    /* bucket b >= 1 holds v >> scale in [2^(b-1), 2^b), bucket 0 holds 0 */
};
#define GMON_NHIST_MAX 64 /* buckets of a node's or leg's histogram, at most */

struct gmon_nhist {
	uint32_t kind; /* enum gmon_nhist_kind */
	uint32_t nbuckets;
	uint64_t base, scale;
	uint64_t under, over;
	uint64_t *buckets;
};

struct gmon_node {
	char *name, *file; /* file "" when unknown */
	uint32_t line;
	uint64_t hits;
	uint64_t nvalues, value_sum, value_min, value_max; /* SPY_NODE_VALUE's values */
	struct gmon_nhist hist;                            /* of the values */
};

struct gmon_leg {
	uint32_t from, to; /* indices into the record's nodes */
	uint64_t count, total_ns, min_ns, max_ns;
	uint64_t ignored;       /* openings lost: the from node again before the to node, or the to node
			   * reached in a thread that does not own the leg */
	uint64_t open;          /* 1: opened by this thread and not yet closed when the file was written */
	struct gmon_nhist hist; /* of the leg's times, ns */
};

struct gmon_nodes {
	uint32_t tid;
	uint32_t track, add; /* enum gmon_leg_track, enum gmon_leg_add */
	uint32_t flags;      /* enum gmon_nodes_flags */
	uint64_t dropped;    /* node hits not recorded: the node or leg table was full */
	uint32_t nnodes, nlegs;
	struct gmon_node *nodes;
	struct gmon_leg *legs;
};

enum gmon_nodes_flags {
	GMON_NODES_THREAD_ONLY = 1u << 0, /* SPYRT_LEG_THREAD: one thread's nodes only */
};

/* What a TRACE record traces (its kind): calls of the functions of SPYRT_TRACE (Cedar's SetTrace),
 * page faults (Multics' missing-page trace), signals delivered (its interruption trace). */
enum gmon_trace_kind {
	GMON_TRACE_CALLS = 0,
	GMON_TRACE_FAULTS = 1,
	GMON_TRACE_SIGNALS = 2,
};
#define GMON_TRACE_KIND_LAST GMON_TRACE_SIGNALS

/* calls: what an event is */
enum gmon_tevent_what {
	GMON_TEV_ENTER = 0,
	GMON_TEV_EXIT = 1,
};

/* One event. time: time stamp cycles (the header's tsc_hz; one clock for every thread). calls: func
 * the function, addr its call site, value on exit the call's inclusive wall cycles, what enter or
 * exit. (Faults and signals, for their kinds: see docs/FORMAT.md.) */
struct gmon_tevent {
	uint64_t time, func, addr, value;
	uint32_t what;
};

/* A thread's trace of one kind: the last n events, oldest first, and how many earlier ones the
 * bounded ring dropped. */
struct gmon_trace {
	uint32_t kind, tid;
	uint64_t dropped, n;
	struct gmon_tevent *ev;
};

struct gmon_counter {
	char *name;
	uint64_t value;
};

/* A whole profile. Arrays are owned; gmon_profile_release() frees everything. */
struct gmon_profile {
	struct gmon_header hdr;
	uint32_t nmodules, nfuncsets, nthreads, ncounters, nsamples, nnodesets;
	struct gmon_sampling *sampling; /* NULL: the run was not sampled */
	struct gmon_samples *samples;   /* per thread */
	struct gmon_module *modules;
	struct gmon_funcs *funcsets;
	struct gmon_thread *threads;
	struct gmon_counter *counters;
	struct gmon_nodes *nodesets; /* revision 3: per thread that hit a node */
	uint32_t ntraces;
	struct gmon_trace *traces; /* revision 3: TRACE records */
	/* revision 4: the TAILS record, the call sites of tail calls in increasing order: an arc whose
	 * call_site is one of them counts tail calls */
	uint64_t ntail_sites;
	uint64_t *tail_sites;
};

/*
 * The runtime compiles this code in under names of its own (it defines GMON_RUNTIME_NAMES): a
 * program with its own copy (spinprof built with PROFILE=1), or a function that merely has the same
 * name, must not take the runtime's writer over, nor make it run instrumented code. Every function
 * declared below belongs in this list.
 */
#ifdef GMON_RUNTIME_NAMES
#define gmon_profile_init spyrt_gmon_profile_init
#define gmon_profile_release spyrt_gmon_profile_release
#define gmon_encode spyrt_gmon_encode
#define gmon_decode spyrt_gmon_decode
#define gmon_read_file spyrt_gmon_read_file
#define gmon_read_fd spyrt_gmon_read_fd
#define gmon_open_regular spyrt_gmon_open_regular
#define gmon_write_file spyrt_gmon_write_file
#define gmon_dump spyrt_gmon_dump
#define gmon_mode_name spyrt_gmon_mode_name
#define gmon_tag_name spyrt_gmon_tag_name
#define gmon_module_at spyrt_gmon_module_at
#define gmon_watch_name spyrt_gmon_watch_name
#define gmon_watch_parse spyrt_gmon_watch_parse
#define gmon_trace_kind_name spyrt_gmon_trace_kind_name
#define gmon_crc32 spyrt_gmon_crc32
#define gmon_pipe_min spyrt_gmon_pipe_min
#define gmon_dump_file spyrt_gmon_dump_file
#endif

/* A zeroed profile. */
void gmon_profile_init(struct gmon_profile *p);
/* Free what p owns and zero it. */
void gmon_profile_release(struct gmon_profile *p);

/* Encode p into a malloc()ed buffer (*out, *len); zlib level 0 stores every record plain.
 * Returns 0, or -1 when memory ran out. */
int gmon_encode(const struct gmon_profile *p, int zlib_level, uint8_t **out, size_t *len);

/* Decode buf into p (which is initialised here). On error returns -1, releases p and writes one
 * line (what is wrong, and where) into err. */
int gmon_decode(const uint8_t *buf, size_t len, struct gmon_profile *p, char *err, size_t errsz);

/* Read and decode a file; errors as gmon_decode, the message does not repeat the path. The file is
 * read record by record (memory follows what its records hold, not its size), and anything but a
 * regular file is refused unopened ("not a regular file", "is a directory"). */
int gmon_read_file(const char *path, struct gmon_profile *p, char *err, size_t errsz);
/* gmon_read_file on an open descriptor of a regular file (read with pread; not closed). */
int gmon_read_fd(int fd, struct gmon_profile *p, char *err, size_t errsz);
/* A compressed payload of at least this many raw bytes (default 16 MiB; 0: none) is inflated by a
 * second thread, a few MiB ahead of the decoding, which it overlaps; the result and the messages are
 * those of decoding in one thread. For gmon_read_fd, gmon_read_file and gmon_decode alike. */
extern uint64_t gmon_pipe_min;
/* Open path for reading, only if it is a regular file: a FIFO or a device is refused before it is
 * opened, and the open never blocks. Returns the descriptor, or -1 and the reason in err. */
int gmon_open_regular(const char *path, char *err, size_t errsz);

/* gmon_write_file's flags. GMON_WRITE_NAMED: the user named path (SPYRT_OUT, spy_dump(path), a
 * tool's option), so an existing character device, FIFO or socket there, or a symlink to one, is
 * written into, when it (the symlink, when one) belongs to the effective user or root. */
enum gmon_write_flags {
	GMON_WRITE_NAMED = 1u << 0
};

/* Write buf to path atomically: a new file in the same directory (O_TMPFILE, linked under a random
 * name; where the file system has no O_TMPFILE, a random name opened O_CREAT|O_EXCL|O_NOFOLLOW),
 * renamed over path (not fsync()ed); whatever was at path (a file, a symlink, a FIFO) is replaced,
 * never followed or written into, except a stream as GMON_WRITE_NAMED says. A directory or block
 * device at path is left alone. On error returns -1 and the reason in err. */
int gmon_write_file(const char *path, const void *buf, size_t len, unsigned flags, char *err, size_t errsz);

/* Print the whole profile, one fact a line ("arc caller=NAME callee=NAME count=N ..."), with
 * addresses named after the functions of the profile. */
void gmon_dump(FILE *f, const struct gmon_profile *p);
/* The file at path, read as spinprof reads it (gmon_open_regular, gmon_read_fd), dumped: gmon_dump(),
 * then an "end" line with the file header's format revision, the END record's count of records and
 * file length, and the path. Returns 0, or -1 with the reason in err and nothing printed. */
int gmon_dump_file(FILE *f, const char *path, char *err, size_t errsz);

/* Names for enum spy_mode and enum gmon_tag values (never NULL). */
const char *gmon_mode_name(uint32_t mode);
const char *gmon_tag_name(uint32_t tag);

/* The index of the module whose text holds addr, or -1. */
int gmon_module_at(const struct gmon_profile *p, uint64_t addr);

/* The name of an enum gmon_watch value as SPYRT_WATCH spells it ("cpu", "allocbytes"; never NULL),
 * and the value of a name (-1 when unknown; "calls" alone, without ":FUNC"). */
const char *gmon_watch_name(uint32_t watch);
int gmon_watch_parse(const char *name);

/* The name of an enum gmon_trace_kind value ("calls", "faults", "signals"; never NULL). */
const char *gmon_trace_kind_name(uint32_t kind);

/* CRC-32 (ISO-HDLC, as zlib's crc32) of len bytes, continuing from crc (0 to start). */
uint32_t gmon_crc32(uint32_t crc, const void *buf, size_t len);

#endif
