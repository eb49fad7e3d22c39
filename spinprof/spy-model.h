/* The Spy report's model: procedures with self and total weight, the calls between them (by call
 * site), per thread, per module and per PC, from a profile's sampled stacks, or, for a time-mode
 * profile without samples, from its exact cycles. print-spy.c prints it. */
#ifndef SPINPROF_SPY_MODEL_H
#define SPINPROF_SPY_MODEL_H

#include "pcname.h"
#include "prof.h"
#include "symtab.h"
#include "u64map.h"

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

/* One sampled stack as procedures (sp_model_build_paths only): root first, at
 * sp_model.path_procs[at...at + depth), the procedure of its PC last; its weight and thread (index
 * into sp_model.threads). Every stack of the program's weight has one (the profiler's are left out).
 * A time-mode profile without samples has call paths made from its exact arcs instead (spy-model.c,
 * paths_from_arcs), with no thread (UINT32_MAX). */
struct sp_path {
	double w;
	uint32_t thread, depth;
	size_t at;
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
	double *module_w;        /* per module, then one for "no module" */
	struct pcname names;     /* the modules' binaries, by which procedures are named */
	struct u64map procs_map; /* procedure key -> index */
	struct u64map edge_map;  /* a hash of (from, to, site) -> edge index, a hash held once per edge */
	int demangle;
	uint32_t target; /* calls:FUNC: FUNC's procedure, else UINT32_MAX */
	int keep_paths;  /* sp_model_build_paths: fill paths */
	struct sp_path *paths;
	size_t npaths, paths_alloc;
	uint32_t *path_procs;
	size_t npath_procs, path_procs_alloc;
};

/* Build m from p (after graph_analyse). Returns 0, or -1 when p has neither samples nor measured
 * times (nothing to weigh). */
int sp_model_build(struct sp_model *m, const struct prof *p, int demangle);
/* The same, and keep every sampled stack as procedures (m->paths): for the formats that draw
 * stacks (folded, flame graphs). */
int sp_model_build_paths(struct sp_model *m, const struct prof *p, int demangle);
/* Free what m owns. */
void sp_model_release(struct sp_model *m);
/* The file and line of a runtime address through its module's binary; 0 when known. */
int sp_src(struct sp_model *m, uint64_t addr, const char **file, unsigned *line);
/* One frame of a sampled stack as a procedure: addr is the PC in it (the sampled PC, or the return
 * address of the call it made, less one), 0 when unknown (a frame whose call came from code without
 * hooks). */
struct sp_frame {
	uint32_t proc;
	uint64_t addr;
};
/* A sampled stack of m's profile (m->sampled) as procedures, innermost first, into fr, which has
 * room for st->depth + 1; returns how many. The leaf is the procedure of the PC (<profiler> for
 * GMON_STACK_RUNTIME), then the shadow stack's functions, as sp_model_build charges them. For the
 * writers that lay the stacks out themselves (out-pprof.c, out-chrome.c). */
size_t sp_stack_frames(struct sp_model *m, const struct gmon_stack *st, struct sp_frame *fr);
/* The innermost function inlined at runtime address addr (libdwfl, its module's debug information)
 * and the file and line it was inlined at; 0 when addr is in inlined code. */
int sp_inline(struct sp_model *m, uint64_t addr, const char **name, const char **file, unsigned *line);
/* Runtime address addr as "module+0xoffset" (module's base name, offset from its load base), or "?"
 * when it is in no module: never a run-specific absolute address. */
void sp_addr_text(const struct sp_model *m, uint64_t addr, char *buf, size_t n);
/* 1 when p has samples to report. */
int sp_has_samples(const struct prof *p);

#endif
