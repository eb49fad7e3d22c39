/* The Spy report's model: procedures with self and total weight, the calls between them (by call
 * site), per thread, per module and per PC, from a profile's sampled stacks, or, for a time-mode
 * profile without samples, from its exact cycles. print-spy.c prints it. */
#ifndef SPINPROF_SAMPLES_H
#define SPINPROF_SAMPLES_H

#include "prof.h"
#include "symtab.h"

#define SP_ROOT UINT32_MAX /* an edge's caller: the virtual root (a thread's start, an unknown caller) */

enum sp_kind {
	SP_FUNC = 0,     /* a function: instrumented, or named by its binary's symbols */
	SP_PROFILER = 1, /* <profiler>: PCs inside the runtime */
	SP_MODULE = 2,   /* [module]: code of a module whose symbols are gone */
	SP_UNKNOWN = 3,  /* <unknown>: a PC in no module */
};

struct sp_proc {
	char *name;
	const char *file; /* the plugin's file and line of its definition, or NULL */
	uint32_t line;
	uint64_t key;  /* its entry address (runtime), or a small number for the pseudo-procedures */
	int module;    /* index into the profile's modules, -1 none */
	unsigned kind; /* enum sp_kind */
	double self;   /* weight with the PC in it (in the watch's unit, or cycles) */
	double total;  /* weight with it anywhere on the stack, recursion counted once */
	double wait;   /* of self: the thread was blocked (wall) */
	double prog;   /* of self: outside the profiler */
	double rt;     /* profiler ticks charged to it (innermost instrumented frame), SPIN's delayed ticks */
	uint32_t refs; /* distinct call sites that call it */
};

struct sp_edge {
	uint32_t from, to; /* proc indices; from may be SP_ROOT */
	uint64_t site;     /* return address in the caller, 0 unknown */
	double w;          /* weight with this call on the stack, once per stack */
	uint32_t stamp;
};

struct sp_pc {
	uint32_t proc;
	uint64_t pc; /* the address looked up for its line (a return address less one) */
	double w;
};

struct sp_thread {
	uint32_t tid;
	const char *name;
	uint32_t flags;  /* enum gmon_thread_flags */
	uint64_t folded; /* GMON_THREAD_FOLDED: how many exited threads it sums */
	double w, wait;
	uint32_t ntop;
	uint32_t top[8]; /* heaviest procedures by self, with their weights */
	double topw[8];
};

struct sp_bin {
	struct symtab t;
	int state; /* 0 not tried, 1 usable, -1 missing or not the run's */
};

struct sp_model {
	const struct prof *p;
	int sampled;      /* from samples; else from time mode's cycles */
	int pc_is_ret;    /* PCs are return addresses (alloc, allocbytes, calls) */
	const char *unit; /* "ticks", "allocations", "bytes", "faults", "calls", "cycles" */
	double grand;     /* the program's own weight (the profiler's left out): the 100 % */
	double all;       /* all weight, the profiler's included */
	double in_runtime, waiting;
	uint64_t nstacks, ncut;
	struct sp_proc *procs;
	size_t nprocs, procs_alloc;
	struct sp_edge *edges;
	size_t nedges, edges_alloc;
	struct sp_pc *pcs;
	size_t npcs, pcs_alloc;
	struct sp_thread *threads;
	size_t nthreads;
	double *module_w;    /* per module, then one for "no module" */
	struct sp_bin *bins; /* per module */
	uint64_t *hkeys;     /* procedure hash: key -> index + 1 */
	uint32_t *hvals;
	size_t hsize;
	uint64_t *ehkeys; /* edge hash over (from, to, site) */
	uint32_t *ehvals;
	size_t ehsize;
	int demangle;
};

/* Build m from p (after graph_analyse). Returns 0, or -1 when p has neither samples nor measured
 * times (nothing to weigh). */
int sp_model_build(struct sp_model *m, const struct prof *p, int demangle);
/* Free what m owns. */
void sp_model_release(struct sp_model *m);
/* The file and line of a runtime address through its module's binary; 0 when known. */
int sp_src(struct sp_model *m, uint64_t addr, const char **file, unsigned *line);
/* 1 when p has samples to report. */
int sp_has_samples(const struct prof *p);

/* print-spy.c */
enum spy_sections {
	SPY_HEADER = 1u << 0,
	SPY_THREADS = 1u << 1,
	SPY_TREE = 1u << 2,
	SPY_LINES = 1u << 3,
	SPY_PCS = 1u << 4,
	SPY_MODULES = 1u << 5,
	SPY_ALL = (1u << 6) - 1,
};
struct spy_opts {
	double cutoff; /* percent */
	unsigned sections;
	int brief; /* no explanations */
	int demangle;
	const char *what; /* the profile's name, for the error line */
};
/* Print the Spy report; returns 0, or -1 (after one line on stderr) when there is nothing to
 * weigh. */
int print_spy(FILE *f, const struct prof *p, const struct spy_opts *o);

#endif
