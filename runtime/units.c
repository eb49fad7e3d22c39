/* The registry of instrumented units: each module's constructor hands over its array of struct
 * spy_func; the runtime copies names and files (so they outlive dlclose), gives every function a
 * counter slot, and remembers which module the unit came from. */
#include "spyrt.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct spy_unit *spy_units;
uint32_t spy_nslots = 1; /* slot 0: functions of units not registered (yet) */
uint64_t spy_slots_lost;
uint32_t spy_plugin_modes;
int spy_timed_units;
int spy_arc_units;

static char *copy_str(const char *s)
{
	char *c = strdup(s ? s : "");

	if (!c)
		spy_note_error("out of memory copying function names");
	return c ? c : (char *)"";
}

/* A closed unit of the same module with the same functions: the module was dlopen'ed again,
 * so it gets its old slots back rather than new ones (a dlopen/dlclose loop must not leak slots). */
static struct spy_unit *find_reopened(struct spy_func *begin, uint32_t n, uint32_t module)
{
	for (struct spy_unit *u = spy_units; u; u = u->next) {
		uint32_t i;

		/* same module entry: same path at the same address; elsewhere, old arcs keep the
		 * old addresses and need the old unit */
		if (!u->closed || u->nfuncs != n || module == UINT32_MAX || u->module != module)
			continue;
		for (i = 0; i < n; i++)
			if (strcmp(u->funcs[i].name, begin[i].name ? begin[i].name : ""))
				break;
		if (i == n)
			return u;
	}
	return NULL;
}

/*
 * The entries of every function registered with hooks, with their counter slots: for __spy_tail to
 * tell a tail call to code with hooks from one that returns unseen, and for the switch of the
 * counters at a SPYRT_START/STOP trigger (counts.c) to find the slot of the hook's function. Open
 * addressing, pairs of words (entry, slot), read without a lock. Word 0 holds the table's size in
 * bits. It only grows, by a copy that replaces it (the old one stays, for readers that still hold
 * it).
 */
static uint64_t *hooked_tab;
static uint32_t hooked_nr;
/* the tables replaced, kept for their readers (one per doubling from 2^10 to 2^28 entries) */
static uint64_t *hooked_old[32];
static uint32_t hooked_nold;

static uint32_t hooked_hash(uint64_t addr, uint32_t bits)
{
	return (uint32_t)((addr * 0x9e3779b97f4a7c15ull) >> (64 - bits));
}

/* 1 when addr is new in the table. A module opened again at an address another function had keeps
 * the slot it has now: the slot is stored before the entry, and again for an entry already there. */
static int hooked_put(uint64_t *tab, uint64_t addr, uint64_t slot)
{
	uint32_t bits = (uint32_t)tab[0], mask = (1u << bits) - 1;

	for (uint32_t i = hooked_hash(addr, bits);; i = (i + 1) & mask) {
		uint64_t *e = &tab[1 + 2 * (size_t)i];

		if (e[0] == addr) {
			__atomic_store_n(&e[1], slot, __ATOMIC_RELEASE);
			return 0;
		}
		if (!e[0]) {
			__atomic_store_n(&e[1], slot, __ATOMIC_RELEASE);
			__atomic_store_n(&e[0], addr, __ATOMIC_RELEASE);
			return 1;
		}
	}
}

/* Under spy_lock. */
static void hooked_add(uint64_t addr, uint32_t slot)
{
	uint64_t *old = hooked_tab;

	if (!addr)
		return;
	if (!old || 2 * (hooked_nr + 1) > 1u << old[0]) {
		uint32_t bits = old ? (uint32_t)old[0] + 1 : 10;
		uint64_t *tab = bits <= 28 ? calloc(((size_t)2 << bits) + 1, sizeof(*tab)) : NULL;

		if (!tab) {
			spy_note_error("out of memory for the table of functions with hooks");
			return;
		}
		tab[0] = bits;
		for (uint32_t i = 0; old && i < 1u << old[0]; i++)
			if (old[1 + 2 * (size_t)i])
				hooked_put(tab, old[1 + 2 * (size_t)i], old[2 + 2 * (size_t)i]);
		__atomic_store_n(&hooked_tab, tab, __ATOMIC_RELEASE);
		if (old)
			hooked_old[hooked_nold++] = old;
	}
	hooked_nr += (uint32_t)hooked_put(hooked_tab, addr, slot);
}

/* The entry's pair, or NULL. */
static const uint64_t *hooked_find(uint64_t addr)
{
	const uint64_t *tab = __atomic_load_n(&hooked_tab, __ATOMIC_ACQUIRE);
	uint32_t bits, mask;

	if (!tab || !addr)
		return NULL;
	bits = (uint32_t)tab[0];
	mask = (1u << bits) - 1;
	for (uint32_t i = hooked_hash(addr, bits);; i = (i + 1) & mask) {
		const uint64_t *e = &tab[1 + 2 * (size_t)i];
		uint64_t a = __atomic_load_n(&e[0], __ATOMIC_ACQUIRE);

		if (a == addr)
			return e;
		if (!a)
			return NULL;
	}
}

int spy_hooked(uint64_t addr)
{
	return hooked_find(addr) != NULL;
}

uint32_t spy_hooked_slot(uint64_t addr)
{
	const uint64_t *e = hooked_find(addr);

	return e ? (uint32_t)__atomic_load_n(&e[1], __ATOMIC_ACQUIRE) : 0;
}

static void watch_names(struct spy_unit *u)
{
	for (uint32_t i = 0; i < u->nfuncs; i++) {
		if (spy_cfg.start && !spy_start_addr && !strcmp(u->funcs[i].name, spy_cfg.start))
			__atomic_store_n(&spy_start_addr, u->funcs[i].addr, __ATOMIC_RELEASE);
		if (spy_cfg.stop && !spy_stop_addr && !strcmp(u->funcs[i].name, spy_cfg.stop))
			__atomic_store_n(&spy_stop_addr, u->funcs[i].addr, __ATOMIC_RELEASE);
		if (spy_cfg.target && !spy_watch_addr && !strcmp(u->funcs[i].name, spy_cfg.target))
			__atomic_store_n(&spy_watch_addr, u->funcs[i].addr, __ATOMIC_RELEASE);
		if (spy_trace_on)
			spy_trace_names(u->funcs[i].name, u->funcs[i].addr);
	}
}

/* Modules refused by mode_admit (their record arrays), so that their other units are refused
 * without another line. */
static const struct spy_func *refused[64];
static uint32_t nrefused;

/* What the unit's hooks are: exit hooks (mode=time, or mode=arcs before ABI 4 or where the plugin
 * has no __spy_arc), or __spy_arc's alone. */
static void unit_hooks(uint32_t tag)
{
	if (SPY_UNIT_TAG_MODE(tag) == SPY_MODE_TIME ||
	    (SPY_UNIT_TAG_MODE(tag) == SPY_MODE_ARCS && (SPY_UNIT_TAG_ABI(tag) < 4 || !SPY_ARC_HOOK)))
		spy_timed_units = 1;
	else if (SPY_UNIT_TAG_MODE(tag) == SPY_MODE_ARCS)
		spy_arc_units = 1;
}

static const char *mode_word(uint32_t m)
{
	return m == SPY_MODE_COUNT ? "count" : m == SPY_MODE_ARCS ? "arcs" : "time";
}

/* The modes of spy_plugin_modes as "mode=count and mode=time". */
static void modes_text(char *buf, size_t sz, uint32_t modes)
{
	size_t n = 0;

	buf[0] = 0;
	for (uint32_t m = 0; m <= SPY_MODE_TIME && n < sz; m++)
		if (modes & 1u << m) {
			int r = snprintf(buf + n, sz - n, "%smode=%s", n ? " and " : "", mode_word(m));

			if (r > 0)
				n += (size_t)r;
		}
}

/* One line now; a defect of the profile also as the file's error (once: the line is the one on
 * stderr). A mode the units share is in the file already: its header's mode and COUNTERS'
 * plugin_modes. */
static void mode_said(const char *text, int defect)
{
	spy_warn("spy: %s", text);
	if (defect && !spy_first_error[0]) {
		spy_note_error("%s", text);
		spy_first_error_said = 1;
	}
}

/*
 * Units built with different plugin modes in one process (issue 23, item 8). Each reports truly
 * only in a mode every unit has: a mode=count unit's time would otherwise be its instrumented
 * caller's self time, its own row 0 s. So a process with a mode=count unit and units with hooks
 * records in mode count (times from samples, by PC) when that can still be decided, before any
 * thread's hooks set up their tables (spy_mode_lower_count); mode=arcs and mode=time units are
 * written in mode arcs (spy_written_mode). One line says so. A mode=count module that comes after
 * recording began with hooks (a dlopen) is refused: not registered, its calls counted as
 * unregistered and its time as its callers', as code without hooks. A mode=count unit of a module
 * already registered then cannot be refused: the line and the file's error say that its functions'
 * times are their callers'. Returns 0 to go on (register), -1 refused. Under spy_lock.
 */
static int mode_admit(uint32_t tag, uint32_t module, int registered)
{
	uint32_t m = SPY_UNIT_TAG_MODE(tag) & 7, had = spy_plugin_modes, all = had | 1u << m;
	/* an explicit SPYRT_MODE at or below the mode the units share changes nothing */
	int asked = spy_cfg.mode <= (uint32_t)__builtin_ctz(all);
	const char *path = module == UINT32_MAX ? "?" : spy_module_path(&spy_modules[module]);
	char text[240], modes[64];

	if (!had || (had & 1u << m)) {
		spy_plugin_modes = all;
		return 0;
	}
	modes_text(modes, sizeof(modes), all);
	if (!(all & 1u << SPY_MODE_COUNT)) {
		/* arcs and time: every unit has __spy_arc's arcs or better */
		spy_plugin_modes = all;
		snprintf(text, sizeof(text),
			 "units built with %s in one process: written in mode arcs, which they all have "
			 "(times from samples)",
			 modes);
		if (!asked && spy_mode == SPY_MODE_TIME)
			mode_said(text, 0);
		return 0;
	}
	if (spy_mode_lower_count()) {
		spy_plugin_modes = all;
		snprintf(text, sizeof(text),
			 "units built with %s in one process: recorded in mode count, which they all have "
			 "(calls exact, times from samples)",
			 modes);
		if (!asked)
			mode_said(text, 0);
		return 0;
	}
	if (m == SPY_MODE_COUNT && !registered) {
		snprintf(text, sizeof(text),
			 "%s: built with mode=count, loaded after recording began in mode %s: not registered "
			 "(its calls count as unregistered, its time as its callers')",
			 path, mode_word(spy_mode));
		mode_said(text, 1);
		return -1;
	}
	spy_plugin_modes = all;
	snprintf(text, sizeof(text),
		 "%s: units built with %s, registered after recording began in mode %s: the mode=count "
		 "functions' calls are exact, their times are their callers'",
		 path, modes, mode_word(spy_mode));
	mode_said(text, 1);
	return 0;
}

SPY_EXPORT void __spy_register_unit(struct spy_func *begin, struct spy_func *end, uint32_t tag,
				    void *thread_exe)
{
	SPY_KEEP_ERRNO; /* from a constructor of the program's */
	struct spy_unit *u;
	uint32_t n, module;

	/* called from a constructor: libc is ready */
	__atomic_store_n(&spy_may_init, 1, __ATOMIC_RELEASE);
	if (!spy_ready)
		spy_init();
	if (!begin || end <= begin)
		return;
	pthread_mutex_lock(&spy_lock);
	/* ABI 7: the executable's copy of the thread's state (the argument is not there before) */
	if (SPY_UNIT_TAG_ABI(tag) >= 7 && SPY_UNIT_TAG_ABI(tag) <= SPY_ABI_VERSION && thread_exe)
		spy_thread_exe_add(thread_exe);
	for (u = spy_units; u; u = u->next)
		if (!u->closed && u->begin == begin)
			break;
	if (u) { /* another unit of the same module: its mode counts too */
		if (SPY_UNIT_TAG_ABI(tag) >= SPY_ABI_OLDEST && SPY_UNIT_TAG_ABI(tag) <= SPY_ABI_VERSION) {
			mode_admit(tag, u->module, 1);
			unit_hooks(tag);
		}
		goto out;
	}
	if (SPY_UNIT_TAG_ABI(tag) < SPY_ABI_OLDEST || SPY_UNIT_TAG_ABI(tag) > SPY_ABI_VERSION) {
		spy_note_error("a module compiled for spy ABI %u (this runtime: %u to %u) was not registered",
			       (unsigned)SPY_UNIT_TAG_ABI(tag), (unsigned)SPY_ABI_OLDEST,
			       (unsigned)SPY_ABI_VERSION);
		goto out;
	}
	for (uint32_t i = 0; i < nrefused; i++)
		if (refused[i] == begin)
			goto out; /* another unit of a module refused */
	n = (uint32_t)(end - begin);
	module = spy_module_of(begin);
	if (mode_admit(tag, module, 0)) {
		if (nrefused < sizeof(refused) / sizeof(*refused))
			refused[nrefused++] = begin;
		goto out;
	}
	/* those dlclose'd since the last registration and gone, whose place this one may have taken,
	 * move apart; then the object dlclose'd before, at the same place again, gets its data back
	 * (loads.c) */
	spy_loads_settle(0);
	if (module != UINT32_MAX)
		spy_loads_again(module);
	u = find_reopened(begin, n, module);
	if (u) {
		u->closed = 0;
		for (uint32_t i = 0; i < n; i++)
			u->funcs[i].addr = (uint64_t)(uintptr_t)begin[i].addr;
		/* the same slots, perhaps at other addresses: no thread's inline cache may hold them */
		spy_acache_reslot();
	} else {
		u = calloc(1, sizeof(*u));
		if (u)
			u->funcs = calloc(n, sizeof(*u->funcs));
		if (!u || !u->funcs) {
			free(u);
			spy_note_error("out of memory registering %u functions", n);
			goto out;
		}
		u->nfuncs = n;
		u->module = module;
		for (uint32_t i = 0; i < n; i++) {
			struct spy_ufunc *f = &u->funcs[i];

			f->addr = (uint64_t)(uintptr_t)begin[i].addr;
			f->name = copy_str(begin[i].name);
			f->file = copy_str(begin[i].file);
			f->line = begin[i].line;
			f->flags = begin[i].flags;
			if (spy_nslots < SPY_SLOTS_MAX) {
				f->slot = spy_nslots++;
			} else {
				f->slot = 0;
				spy_slots_lost++;
			}
		}
		u->next = spy_units;
		spy_units = u;
	}
	u->begin = begin;
	u->end = end;
	u->tag = tag;
	if (module != UINT32_MAX)
		spy_modules[module].flags |= GMON_MOD_INSTRUMENTED;
	unit_hooks(tag);
	for (uint32_t i = 0; i < n; i++)
		if (begin[i].flags & SPY_FUNC_HOOKS)
			hooked_add((uint64_t)(uintptr_t)begin[i].addr, u->funcs[i].slot);
	/* the code map, which names a new arc's caller by its call site */
	spy_codemap_add(begin[0].addr);
	/* from here on the function counts in its own slot; other threads may be reading it */
	for (uint32_t i = 0; i < n; i++)
		if (begin[i].slot)
			__atomic_store_n(begin[i].slot, u->funcs[i].slot, __ATOMIC_RELEASE);
	watch_names(u);
out:
	pthread_mutex_unlock(&spy_lock);
}

SPY_EXPORT void __spy_unregister_unit(struct spy_func *begin, struct spy_func *end)
{
	(void)end;
	if (!spy_ready)
		return;
	pthread_mutex_lock(&spy_lock);
	/* a refused module is gone: another may load where it was */
	for (uint32_t i = 0; i < nrefused; i++)
		if (refused[i] == begin) {
			refused[i] = refused[--nrefused];
			break;
		}
	for (struct spy_unit *u = spy_units; u; u = u->next)
		if (!u->closed && u->begin == begin) {
			/* keep everything: names, slots; the module map says whether it is gone */
			u->closed = 1;
			if (u->nfuncs)
				spy_codemap_drop((const void *)(uintptr_t)u->funcs[0].addr);
			/* dlclose, or exit: what it recorded moves apart once it is gone (loads.c) */
			if (u->module != UINT32_MAX)
				spy_loads_end(u->module);
			break;
		}
	pthread_mutex_unlock(&spy_lock);
}
