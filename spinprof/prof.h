/* The profile model spinprof analyses and prints: functions, arcs between them and cycle headers,
 * filled by read-spy.c or read-gnu.c, completed by graph.c, printed by print-*.c. */
#ifndef SPINPROF_PROF_H
#define SPINPROF_PROF_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "gmon-format.h"
#include "u64map.h"

#define PROF_NONE UINT32_MAX

/* One function (or, after graph_analyse, one cycle header: name NULL, cyc set). Times are in
 * ticks: histogram samples for GNU data, TSC cycles for spy data; prof.hz converts to seconds. */
struct prof_func {
	char *name; /* display name (demangled when asked); NULL for a cycle header */
	char *key;  /* the name as the symbol table spells it, when name differs (demangled): the
		     * sort key, as gprof sorts on mangled names */
	char *file; /* source file or NULL */
	uint32_t line;
	char *src;          /* -A, -C (GNU): the source file as the debug information names it, or NULL */
	uint32_t src_line;  /* its line of the function's first instruction */
	uint32_t src_order; /* the symbol's place in the ELF symbol table (gprof lists files by it) */
	uint64_t addr, end; /* [addr, end) */
	unsigned is_static : 1, is_func : 1, has_count : 1, print_flag : 1;
	unsigned spec : 16;  /* the symspec tables (symspec.h) that name it, 1 << table each */
	unsigned mapped : 1; /* GNU mode with -R: it stands for an object file of the map */
	unsigned lib : 1;    /* spy: code without hooks (librows.c), "NAME [MODULE]": its time the
			      * samples carved from its instrumented callers'; its calls not counted */
	double prop_fract;   /* gprof's cg.prop.fract: the share of its time its callers see */
	uint64_t count;      /* add-one counter (spy) */
	uint64_t arcs_in;    /* sum of incoming arc counts, self and spontaneous included (spy) */
	uint64_t ncalls;     /* calls from elsewhere (gprof's ncalls; self calls removed) */
	uint64_t spont;      /* calls with no known caller (spy), part of ncalls */
	uint64_t self_calls; /* calls to itself, or among its cycle's members for a header */
	double time;         /* self ticks (gprof's hist.time) */
	double child_time;   /* gprof's cg.child_time */
	double prop_self, prop_child;
	double m_incl, m_self; /* measured (spy time mode): inclusive of outermost calls, self */
	double m_spont_incl;   /* the part of m_incl entered with no known caller */
	double m_self_raw;     /* m_self before the hook overhead was taken off */
	uint64_t out_calls;    /* calls it made (spy) */
	uint64_t tail_calls;   /* of them, tail calls (format revision 4's TAILS) */
	int cyc;               /* cycle number, 0 when on no cycle */
	uint32_t head;         /* this, or the cycle header */
	uint32_t next;         /* next member of the cycle (from the header: the first) */
	uint32_t index;        /* [N] */
	uint32_t scc;          /* position of its strongly connected component in reverse topo order */
	uint32_t child0, nchild, parent0, nparent; /* slices of prof.child_arcs / prof.parent_arcs */
};

struct prof_arc {
	uint32_t parent, child;
	uint64_t count;
	double time, child_time; /* propagated (gprof) or measured share */
	double m_incl, m_self;   /* measured cycles (spy time mode); m_incl corrected by graph.c */
	double m_incl_raw;
};

/* A sampled stack as functions (spy profiles without measured times, watching cpu or wall): its
 * weight in ticks, the function charged with its self time (the innermost instrumented frame, or
 * with no frames the one holding the PC; PROF_NONE: none), and its frames, innermost first, at
 * prof.frames[frame0...] (PROF_NONE where a frame's function is unknown). */
struct prof_stack {
	double w;
	uint32_t self, depth;
	size_t frame0;
};

/* A function's cycles off the CPU (prof.offcpu): of its outermost calls, its own (while it was the
 * innermost frame), and the preempted part of its own. */
struct prof_off {
	double incl, self, pre;
};

/* A function's or an arc's counter totals (SPYRT_COUNTERS, format revision 3), column k being the
 * counter prof.ctr_names[k]: of the outermost calls (as m_incl), and its own (as m_self). */
#define PROF_CTR_MAX 6
struct prof_ctr {
	double incl[PROF_CTR_MAX], self[PROF_CTR_MAX];
};

/* A function's stopwatch (spy time mode, format revision 3), over every thread and profile summed:
 * its outermost calls (those not inside another of its own: SystemTap's stopwatch and Multics'
 * metering time whole calls), their wall cycles summed and squared, the shortest, the longest and
 * the log2 histogram (bucket b: [2^b, 2^(b+1)) cycles, bucket 0 also 0). */
struct prof_watch {
	uint64_t n, sum, min, max;
	long double sq;
	uint64_t hist[GMON_HIST_BUCKETS];
};

/* One traced event (TRACE records, any kind), in p->tev by time across threads: func the function
 * (index; PROF_NONE unknown), the rest as the file's (gmon_tevent); seq its order in the file. */
struct prof_tevent {
	uint64_t time, addr, value;
	uint32_t tid, kind, what, func;
	uint32_t at; /* the function holding the call site (calls, signals) or the PC (faults) */
	size_t seq;
};

enum prof_kind {
	PROF_GNU = 0, /* glibc gmon.out with an executable */
	PROF_SPY = 1,
};

struct prof {
	enum prof_kind kind;
	double hz;                          /* ticks per second */
	double hook_out, hook_in;           /* cycles per call (spy header) */
	double hook_tail_in, hook_tail_out; /* cycles per tail call beyond a call's (revision 4) */
	/* spy time mode: functions whose self time the hook correction took below 0, and by how much in
	 * all (clamped to 0: the calibration is more than the hooks cost them) */
	size_t nclamped;
	double clamped_cycles;
	double total_time;     /* ticks, for percentages */
	int measured;          /* times measured (spy time mode), not propagated */
	int sampled;           /* times from sampled stacks (spy count or arcs mode, cpu or wall) */
	int no_arcs;           /* spy count mode: calls per function, callers not recorded */
	double profiler_ticks; /* sampled: ticks in the profiler, left out of all times */
	double outside_ticks;  /* sampled: ticks in no instrumented function, left out */
	struct prof_stack *stacks;
	size_t nstacks, stacks_alloc;
	uint32_t *frames;
	size_t nframes, frames_alloc;
	int offcpu; /* off-CPU time measured apart: the times are CPU time */
	/* with offcpu only (else NULL, so that profiles without it cost no memory): by function index
	 * (the functions of [0, nsyms)), and by arc index the off-CPU cycles of the arc's calls */
	struct prof_off *func_off;
	double *arc_off;
	/* SPYRT_COUNTERS: the counters some thread had, by name (at most PROF_CTR_MAX over summed
	 * profiles; NULL past nctr), and with any (else NULL) their totals by function index (of
	 * [0, nsyms)) and by arc index */
	uint32_t nctr;
	char *ctr_names[PROF_CTR_MAX];
	struct prof_ctr *func_ctr, *arc_ctr;
	long granularity;   /* bytes per histogram bin (GNU) */
	unsigned spec_used; /* the symspec tables some function is in, 1 << table each */
	double print_time;  /* after graph_analyse: the call graph's 100 % (gprof's print_time) */
	/* by function index, nwatch of them (the instrumented functions: those of [0, nsyms) added
	 * later, callers from outside, have none); NULL when no thread of the profiles has stopwatches */
	struct prof_watch *watch;
	size_t nwatch;
	struct prof_tevent *tev; /* every trace's events by time; NULL when none */
	size_t ntev;
	int lines; /* -l: the functions are source lines too (GNU), as gprof's line granularity */
	/* functions: [0, nsyms) real ones sorted by address, then ncycles headers */
	struct prof_func *items;
	size_t nr, alloc, nsyms, ncycles;
	struct prof_arc *arcs;
	size_t narcs, arcs_alloc;
	struct u64map arc_map; /* parent << 32 | child to the arc's index; empty: to be built from arcs */
	uint32_t *child_arcs, *parent_arcs; /* arc indices grouped by parent / child */
	uint32_t *time_order;               /* after graph_analyse: functions and cycles by index */
	/* spy: functions of other names at an address an earlier one had (loads of different modules
	 * at one place, their calls merged: a runtime before loads.c), "NAME and NAME" each */
	char **shared;
	size_t nshared, shared_alloc;
	/* spy: the summed profile and what the header shows */
	struct gmon_profile spy;
	int nprofiles;
	double duration_s; /* the run's (the runs' summed): 0 when a file's end precedes its start */
	int duration_bad;  /* some file's end_ns precedes its start_ns: its duration unknown */
	/* spy: the self-check of callers: arcs whose call site the binary places in an instrumented
	 * function (checked), and of those, arcs whose recorded caller is another function (bad: the
	 * runtime took a frame that had returned for the caller); the first bad one, as text */
	uint64_t callers_checked, callers_bad;
	char *caller_bad_example;
};

/* The profiler's own share of the CPU time, the one figure every output states (issue 23): from the
 * CPU samples when the profile has them (the ticks whose PC was in the profiler, of all the ticks on
 * the CPU), else in mode time from the hooks' calibrated cost (the cycles the correction took off
 * the functions' self times, of all the cycles measured); unknown (share < 0) when neither. */
struct prof_cost {
	double share;     /* 0..1, or -1 when unknown */
	double part, all; /* ticks (samples) or cycles (calibration) */
	int from_samples; /* 1: samples, 0: calibration */
};
void prof_cost(const struct prof *p, struct prof_cost *c);
/* Spy time mode: the cycles the hook correction took off the functions (their raw self less their
 * self), and in *raw their raw self cycles in all. */
double prof_taken_off(const struct prof *p, double *raw);

/* Zero a prof. */
void prof_init(struct prof *p);
/* Free what p owns. */
void prof_release(struct prof *p);
/* Append a function (name copied), returns its index. */
uint32_t prof_add_func(struct prof *p, const char *name, uint64_t addr, uint64_t end);
/* Add count calls from parent to child, merging with an earlier arc of the same pair (first
 * occurrence keeps its place). Returns the arc's index. */
uint32_t prof_add_arc(struct prof *p, uint32_t parent, uint32_t child, uint64_t count);
/* Room for n arcs in all, and with hash for their hash, so that adding them grows neither. */
void prof_reserve_arcs(struct prof *p, size_t n, int hash);
/* Start loading the hash slot of (parent, child), for a prof_add_arc a little later. */
void prof_arc_prefetch(const struct prof *p, uint32_t parent, uint32_t child);
/* Free the arc hash once all arcs are in (a later prof_add_arc builds it again). */
void prof_drop_arc_hash(struct prof *p);
/* f's name as displayed (dm, the demangled name, or raw) and its sort key raw (kept when it
 * differs); dm is freed. */
void prof_set_name(struct prof_func *f, const char *raw, char *dm);
/* The name f sorts on: gprof's, the symbol table's spelling. */
static inline const char *prof_key(const struct prof_func *f)
{
	return f->key ? f->key : f->name;
}
/* The column of counter name in func_ctr and arc_ctr, or -1. */
int prof_ctr_col(const struct prof *p, const char *name);
/* Cycles per instruction of a function's (or arc's) own code, when both were counted; else -1. */
double prof_ctr_cpi(const struct prof *p, const struct prof_ctr *c);
/* Sort the functions by address (call before adding arcs). */
void prof_sort_funcs(struct prof *p);
/* A spy profile's functions (sorted) end where the next one starts, or with the text of the module
 * that holds them (p->spy's modules), whichever comes first: the last function of a module does not
 * reach into the code mapped above it. */
void prof_set_ends(struct prof *p);
/* Sort idx[0..n) as qsort_r(idx, n, sizeof(uint32_t), cmp, arg) would, when cmp orders first by a key
 * that keys[j] holds for idx[j] as an unsigned number (cmp must then order ties the same way every
 * time, as a total order does): a radix sort on the keys, cmp on the runs of equal keys only. keys is
 * left sorted. For a big index order that qsort spent most of its time calling cmp on. The comparison
 * takes its data by arg, never from a global: the call graph is printed by two threads. */
void prof_sort_keyed_r(uint32_t *idx, uint64_t *keys, size_t n,
		       int (*cmp)(const void *, const void *, void *), void *arg);
/* Keys for it: a double (not NaN) ascending as an unsigned number (~ of it: descending), and the first
 * 8 bytes of a string as strcmp orders them. */
uint64_t prof_key_up(double v);
uint64_t prof_key_str(const char *s);
/* A double made from the file's numbers (sums, products, quotients: of any size, NaN after 0/0) as
 * an integer, truncated as a cast truncates, clamped to the type's range, NaN as 0: a conversion out
 * of range is undefined in C (UBSan's float-cast-overflow). */
static inline uint64_t prof_u64(double v)
{
	return !(v > 0) ? 0 : v >= 18446744073709551616.0 ? UINT64_MAX : (uint64_t)v;
}

static inline int64_t prof_i64(double v)
{
	return v != v                      ? 0 :
	       v >= 9223372036854775808.0  ? INT64_MAX :
	       v <= -9223372036854775808.0 ? INT64_MIN :
					     (int64_t)v;
}

/* The function that starts at a, or PROF_NONE. */
uint32_t prof_at(const struct prof *p, uint64_t a);
/* The function whose [addr, end) holds pc, or PROF_NONE. */
uint32_t prof_lookup(const struct prof *p, uint64_t pc);

/* malloc/realloc that die on failure (spinprof has nothing to save), with one line that names the
 * file being read, if any: "spinprof: FILE: out of memory (N bytes)". */
void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *ptr, size_t n);
char *xstrdup(const char *s);
/* The file an allocation failure is reported against from now on (NULL: none); the readers set it. */
void prof_reading(const char *path);
/* Grow an items/nr/alloc array to hold one more. */
#define GROW(items, nr, alloc)                                                   \
	do {                                                                     \
		if ((nr) >= (alloc)) {                                           \
			(alloc) = (alloc) ? (alloc)*2 : 16;                      \
			(items) = xrealloc((items), (alloc) * sizeof(*(items))); \
		}                                                                \
	} while (0)

/* graph.c: arcs lists, cycles (gprof's search, an iterative path-based SCC), propagation or measured
 * times, index order. */
void graph_analyse(struct prof *p);
/* graph.c's search alone, spinprof's one SCC routine, on any graph of n nodes: v's successors are
 * succ[first[v] .. first[v] + count[v]). Returns (caller frees) each node's strongly connected
 * component, numbered from 0 in the order they complete (a component's successors before it). */
uint32_t *graph_components(uint32_t n, const uint32_t *first, const uint32_t *count, const uint32_t *succ);

#endif
