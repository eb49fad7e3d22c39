/* Where the threads blocked: the waits of a spy profile put in Cedar's process states (waits.h). */
#include "waits.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "esc.h"
#include "pcname.h"
#include "prof.h"

const char *const wait_state_name[WAIT_NSTATES] = {
	"lock", "condition", "sleep", "I/O", "page fault", "other"
};

void wait_bare_name(const char *s, char *out, size_t size)
{
	static const char *const pre[] = { "GI_", "libc_", NULL };
	size_t n;

	if (strncmp(s, "_Z", 2) == 0) { /* C++, mangled: as it is */
		snprintf(out, size, "%s", s);
		return;
	}

	for (int again = 1; again;) {
		again = 0;
		while (*s == '_')
			s++;
		for (int i = 0; pre[i]; i++)
			if (strncmp(s, pre[i], strlen(pre[i])) == 0) {
				s += strlen(pre[i]);
				again = 1;
			}
	}
	snprintf(out, size, "%s", s);
	out[strcspn(out, "@")] = 0;
	n = strlen(out);
	if (n > 9 && strcmp(out + n - 9, "_nocancel") == 0)
		out[n -= 9] = 0;
	if (n > 7 && strcmp(out + n - 7, "_time64") == 0)
		out[n - 7] = 0;
}

enum wait_state wait_state_of(const char *name)
{
	/* parts of names: glibc's lock and futex paths have several spellings */
	static const char *const lock[] = { "lll_lock", "mutex_lock", "mutex_timedlock", "mutex_clocklock",
					    "rwlock",   "spin_lock",  "flock",           NULL };
	static const char *const cond[] = { "cond_wait",
					    "cond_timedwait",
					    "cond_clockwait",
					    "futex_abstimed_wait",
					    "futex_wait",
					    "sem_wait",
					    "sem_timedwait",
					    "sem_clockwait",
					    "clockwait_tid",
					    "barrier_wait",
					    "pthread_join",
					    "timedjoin",
					    NULL };
	/* whole names */
	static const char *const sleep[] = {
		"nanosleep",  "clock_nanosleep", "sleep",   "usleep",      "pause",
		"sigsuspend", "sigtimedwait",    "sigwait", "sigwaitinfo", NULL
	};
	static const char *const io[] = {
		"read",       "write",      "pread",       "pread64",         "pwrite",         "pwrite64",
		"readv",      "writev",     "preadv",      "pwritev",         "preadv2",        "pwritev2",
		"recv",       "recvfrom",   "recvmsg",     "recvmmsg",        "send",           "sendto",
		"sendmsg",    "sendmmsg",   "poll",        "ppoll",           "select",         "pselect",
		"pselect6",   "epoll_wait", "epoll_pwait", "epoll_pwait2",    "accept",         "accept4",
		"connect",    "open",       "open64",      "openat",          "openat64",       "close",
		"fsync",      "fdatasync",  "syncfs",      "sync_file_range", "splice",         "sendfile",
		"sendfile64", "tee",        "msync",       "io_getevents",    "io_uring_enter", "getdents64",
		"fstatat",    "fstatat64",  "stat",        "stat64",          "lstat",          "statx",
		"unlink",     "unlinkat",   "rename",      "renameat",        "mkdir",          "fallocate",
		"ftruncate",  NULL
	};

	for (int i = 0; lock[i]; i++)
		if (strstr(name, lock[i]))
			return WAIT_LOCK;
	for (int i = 0; cond[i]; i++)
		if (strstr(name, cond[i]))
			return WAIT_COND;
	for (int i = 0; io[i]; i++)
		if (strcmp(name, io[i]) == 0)
			return WAIT_IO;
	for (int i = 0; sleep[i]; i++)
		if (strcmp(name, sleep[i]) == 0)
			return WAIT_SLEEP;
	return WAIT_OTHER;
}

static int place_cmp(const void *a, const void *b)
{
	const struct wait_place *x = a, *y = b;
	int c;

	if (x->cycles != y->cycles)
		return x->cycles < y->cycles ? 1 : -1;
	if ((c = strcmp(x->name, y->name)))
		return c;
	if (x->pc != y->pc)
		return x->pc < y->pc ? -1 : 1;
	return strcmp(x->under, y->under);
}

/* One wait as a place: named, in its state. */
static void place_of(const struct prof *p, struct pcname *nm, const struct gmon_wait *g, struct wait_place *x)
{
	uint32_t fi = g->func ? prof_at(p, g->func) : PROF_NONE;

	memset(x, 0, sizeof(*x));
	x->kind = g->kind;
	x->under = fi != PROF_NONE && p->items[fi].name ? p->items[fi].name : "-";
	x->st = g->kind == GMON_WAIT_FAULT ? WAIT_FAULT : WAIT_OTHER;
	if (g->kind == GMON_WAIT_OTHER || !g->pc)
		return;
	x->pc = g->pc;
	int mi = gmon_module_at(&p->spy, g->pc);
	uint64_t start;
	const char *fn = mi >= 0 ? pcname_func(nm, mi, g->pc, &start) : NULL;

	if (mi >= 0)
		snprintf(x->module, sizeof(x->module), "%s", pcname_module(nm, mi));
	if (!fn)
		return;
	x->pc = 0; /* named: one place whatever the PC in it */
	if (g->kind == GMON_WAIT_FAULT) {
		snprintf(x->name, sizeof(x->name), "%s", fn);
		return;
	}
	wait_bare_name(fn, x->name, sizeof(x->name));
	x->st = wait_state_of(x->name);
}

size_t wait_places(const struct prof *p, const struct gmon_thread *t, struct wait_place **out,
		   uint64_t by[WAIT_NSTATES])
{
	struct wait_place *w = NULL;
	size_t n = 0, cap = 0;
	struct pcname nm;

	memset(by, 0, WAIT_NSTATES * sizeof(*by));
	pcname_init(&nm, &p->spy, 0);
	for (uint32_t i = 0; i < p->spy.nthreads; i++) {
		const struct gmon_thread *th = &p->spy.threads[i];

		if (t && th != t)
			continue;
		for (uint32_t j = 0; th->waits && j < th->nwaits; j++) {
			struct wait_place x;
			size_t k;

			place_of(p, &nm, &th->waits[j], &x);
			by[x.st] += th->waits[j].cycles;
			for (k = 0; k < n; k++)
				if (w[k].kind == x.kind && w[k].pc == x.pc &&
				    strcmp(w[k].name, x.name) == 0 && strcmp(w[k].module, x.module) == 0 &&
				    strcmp(w[k].under, x.under) == 0)
					break;
			if (k == n) {
				if (n == cap)
					w = xrealloc(w, (cap = cap ? 2 * cap : 16) * sizeof(*w));
				w[n++] = x;
			}
			w[k].count += th->waits[j].count;
			w[k].cycles += th->waits[j].cycles;
		}
	}
	pcname_release(&nm);
	if (n)
		qsort(w, n, sizeof(*w), place_cmp);
	*out = w;
	return n;
}

void wait_call(const struct wait_place *w, char *buf, size_t size)
{
	const char *at = w->kind == GMON_WAIT_FAULT ? "at " : "";

	if (w->kind == GMON_WAIT_OTHER)
		snprintf(buf, size, "(the rest: more places than the thread's table holds)");
	else if (w->name[0])
		snprintf(buf, size, "%s%s [%s]", at, esc_text(w->name), esc_text(w->module));
	else if (w->pc && w->module[0])
		snprintf(buf, size, "%s0x%llx [%s]", at, (unsigned long long)w->pc, esc_text(w->module));
	else if (w->pc)
		snprintf(buf, size, "%s0x%llx", at, (unsigned long long)w->pc);
	else
		snprintf(buf, size, "(no sample said where)");
}
