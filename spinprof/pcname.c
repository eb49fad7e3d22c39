/* Names for a spy profile's code by runtime address: each module's binary and libdwfl's view of it,
 * read once, asked in the order the Spy report and the flat profile both name code. */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "esc.h"
#include "gmon-format.h"
#include "modsym.h"
#include "pcname.h"
#include "prof.h"

void pcname_init(struct pcname *n, const struct gmon_profile *g, int warn)
{
	memset(n, 0, sizeof(*n));
	n->g = g;
	n->warn = warn;
	n->mods = xcalloc(g->nmodules + 1, sizeof(*n->mods));
}

void pcname_release(struct pcname *n)
{
	if (n->mods)
		for (uint32_t i = 0; i < n->g->nmodules; i++) {
			symtab_release(&n->mods[i].t);
			modsym_close(n->mods[i].ms);
		}
	free(n->mods);
	memset(n, 0, sizeof(*n));
}

struct symtab *pcname_symtab(struct pcname *n, int mi)
{
	if (mi < 0 || (uint32_t)mi >= n->g->nmodules)
		return NULL;
	const struct gmon_module *m = &n->g->modules[mi];
	struct pcname_mod *pm = &n->mods[mi];
	if (pm->state == 0) {
		pm->state = symtab_load_module(&pm->t, m) == 0 ? 1 : -1;
		if (pm->state < 0 && n->warn && !n->warned &&
		    (m->flags & (GMON_MOD_INSTRUMENTED | GMON_MOD_MAIN))) {
			/* a path the profile names may be anything now: a FIFO or a device is not read */
			struct stat st;
			esc_msg("spinprof: warning: %s: %s; using the names recorded in the profile\n",
				m->path,
				stat(m->path, &st) || access(m->path, R_OK) ? "binary missing" :
				!S_ISREG(st.st_mode)                        ? "not a regular file" :
						       "build-id differs from the run's");
			n->warned = 1;
		}
	}
	return pm->state == 1 ? &pm->t : NULL;
}

struct modsym *pcname_modsym(struct pcname *n, int mi)
{
	if (mi < 0 || (uint32_t)mi >= n->g->nmodules)
		return NULL;
	const struct gmon_module *m = &n->g->modules[mi];
	struct pcname_mod *pm = &n->mods[mi];
	if (pm->ms_state == 0) {
		pm->ms = modsym_open(m->path, m->build_id, m->build_id_len);
		pm->ms_state = pm->ms ? 1 : -1;
	}
	return pm->ms;
}

const char *pcname_func(struct pcname *n, int mi, uint64_t a, uint64_t *start)
{
	if (mi < 0 || (uint32_t)mi >= n->g->nmodules)
		return NULL;
	uint64_t base = n->g->modules[mi].base;
	const struct symtab *t = pcname_symtab(n, mi);
	/* a PC past the symbol's section is in none of its code: a PLT entry after _init's .init is
	 * NAME@plt (libdwfl, below), not _init as in gprof's ranges */
	const struct symtab_sym *y = t ? symtab_owner(t, symtab_at(t, a - base)) : NULL;
	if (y) {
		*start = y->addr + base;
		return y->name;
	}
	struct modsym *s = pcname_modsym(n, mi);
	uint64_t fs;
	const char *nm = s ? modsym_func(s, a - base, &fs) : NULL;
	if (nm)
		*start = fs + base;
	return nm;
}

const char *pcname_module(const struct pcname *n, int mi)
{
	const char *path = mi >= 0 && (uint32_t)mi < n->g->nmodules ? n->g->modules[mi].path : "";
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	return base[0] ? base : "?";
}
