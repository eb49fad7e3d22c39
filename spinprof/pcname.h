/* Names for a spy profile's code by runtime address, one way for every view: the module's binary (the
 * one that ran, by its build-id) with its symbols as symtab.c picks them for spy (GCC's clones kept,
 * a .cold part its function's), else elfutils' libdwfl (modsym.c: .dynsym, separate debug files,
 * NAME@plt). Each module is read once, on first use. */
#ifndef SPINPROF_PCNAME_H
#define SPINPROF_PCNAME_H

#include <stdint.h>

#include "symtab.h"

struct gmon_profile;
struct modsym;

struct pcname_mod {
	struct symtab t;
	int state;         /* 0 not tried, 1 usable, -1 missing or not the run's */
	struct modsym *ms; /* libdwfl's names, for what t leaves unnamed */
	int ms_state;      /* as state */
};

struct pcname {
	const struct gmon_profile *g;
	struct pcname_mod *mods; /* one per module of g */
	int warn;                /* say once on stderr that an instrumented module's binary is unusable */
	int warned;
};

/* Names for g's modules (g must outlive n); with warn, the first instrumented or main module whose
 * binary is missing or not the run's is said on stderr, once. */
void pcname_init(struct pcname *n, const struct gmon_profile *g, int warn);
/* Free what n owns. */
void pcname_release(struct pcname *n);
/* Module mi's binary and its symbols, or NULL when it is missing or not the one that ran. */
struct symtab *pcname_symtab(struct pcname *n, int mi);
/* libdwfl's view of module mi's binary, under the same conditions, or NULL. */
struct modsym *pcname_modsym(struct pcname *n, int mi);
/* The function holding runtime address a of module mi, by the binary's symbols (a .cold part's
 * owner), else libdwfl's names: its name (owned by n) and its runtime start in *start; NULL when
 * neither names it. */
const char *pcname_func(struct pcname *n, int mi, uint64_t a, uint64_t *start);
/* Module mi's file name without its directory ("libc.so.6"), "?" when it has none. */
const char *pcname_module(const struct pcname *n, int mi);

#endif
