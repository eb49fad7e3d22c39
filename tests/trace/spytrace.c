/* libspytrace: a second, deliberately simple implementation of spy-abi.h, written apart from
 * runtime/ so the plugin tests check the plugin against something that shares no code with it.
 * Counts per thread, keeps a shadow stack per thread, checks every call site against the
 * registered records, and writes one fact per line (see tests/e2e/lib.sh for the reader). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <link.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "spy-abi.h"
#include "spy-stub.h"
#include "spytrace.h"

#define EXPORT __attribute__((visibility("default")))

#define MAXF (1u << 16)       /* function ids; an id is also the function's counter slot */
#define HASHF (1u << 17)      /* address -> id table, open addressing */
#define SLAB_SLOTS (1u << 20) /* counters per thread slab */
#define STACK_MAX (1u << 16)  /* shadow stack frames per thread */
#define ARCS_MAX (1u << 16)   /* distinct (caller, callee, call site) per thread */
#define MAXMOD 1024
#define SAMPLES_MAX 32
#define BAD_DETAILS_MAX 20

enum verdict {
	V_PENDING = 0,
	V_OK,
	V_BAD,
	V_FOREIGN
};

struct func {
	uintptr_t addr;
	char *name; /* NULL while only seen by a hook, before (or without) a record */
	char *file;
	unsigned line, flags;
	int module; /* index in mods, -1 if none */
};

struct hent {
	uintptr_t addr; /* written last, with release, so a reader that sees it sees id */
	uint32_t id;
};

struct module {
	char *path;
	struct spy_func *begin, *end;
	uintptr_t bias, lo, hi; /* load bias and the span of its PT_LOAD segments */
	unsigned regs, unregs, mode, abi, nfuncs;
	uintptr_t *addrs; /* record addresses, sorted, with their ids */
	uint32_t *ids;
};

struct frame {
	uint32_t id;
	int lazy;       /* pushed by __spy_arc (mode=arcs): never exited, dropped by a later call */
	int tailcallee; /* reached by a tail call (ABI 5): its end ends the frame below too */
	uintptr_t site, cfa;
	uintptr_t tail, tail_site; /* __spy_tail announced a jump to tail from tail_site (0: none) */
};

struct arc {
	uintptr_t site;
	uint32_t caller, callee;
	uint64_t count;
	int verdict;
};

struct tstate {
	struct tstate *next;
	uint64_t *slab;
	struct frame *stack;
	unsigned depth;
	uint64_t *enters, *exits;
	struct arc *arcs;
	unsigned narcs;
	uint64_t repaired, unmatched, overflow, arc_overflow, reentered;
	int guard, exited, is_main;
	size_t maplen;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct func funcs[MAXF];
static uint32_t nfuncs = 1; /* id 0: <spontaneous> caller and counter slot 0 */
static uint64_t func_overflow, duplicates, bad_abi;
static struct hent htab[HASHF];
static struct module mods[MAXMOD];
static int nmods;
static struct tstate *threads;
static pthread_key_t exit_key;
static pthread_once_t exit_once = PTHREAD_ONCE_INIT;

EXPORT __thread uint64_t *__spy_counts __attribute__((tls_model("initial-exec")));
/* what code of ABI 5 references: the same variable */
extern __thread uint64_t *spy_counts_abi5 __asm__(SPY_COUNTS_SYMBOL)
	__attribute__((alias(SPY_COUNTS_OLD_SYMBOL), visibility("default"), tls_model("initial-exec")));
static __thread struct tstate *tls_state __attribute__((tls_model("initial-exec")));

static void die(const char *what)
{
	char buf[256];
	int n = snprintf(buf, sizeof(buf), "spytrace: %s: %s\n", what, strerror(errno));
	if (write(2, buf, (size_t)n) < 0)
		abort();
	abort();
}

static uint32_t hash_addr(uintptr_t a)
{
	return (uint32_t)(((uint64_t)a * 0x9e3779b97f4a7c15ull) >> 40) & (HASHF - 1);
}

/* Lock-free lookup: entries are only added or re-pointed, never removed. */
static uint32_t lookup(uintptr_t addr)
{
	for (uint32_t i = hash_addr(addr);; i = (i + 1) & (HASHF - 1)) {
		uintptr_t a = __atomic_load_n(&htab[i].addr, __ATOMIC_ACQUIRE);
		if (a == addr)
			return __atomic_load_n(&htab[i].id, __ATOMIC_RELAXED);
		if (a == 0)
			return 0;
	}
}

/* Under lock. */
static void hash_set(uintptr_t addr, uint32_t id)
{
	for (uint32_t i = hash_addr(addr);; i = (i + 1) & (HASHF - 1)) {
		uintptr_t a = htab[i].addr;
		if (a == addr || a == 0) {
			__atomic_store_n(&htab[i].id, id, __ATOMIC_RELAXED);
			__atomic_store_n(&htab[i].addr, addr, __ATOMIC_RELEASE);
			return;
		}
	}
}

/* Under lock. Returns 0 when the table is full. */
static uint32_t func_new(uintptr_t addr)
{
	if (nfuncs >= MAXF || nfuncs >= HASHF / 2) {
		func_overflow++;
		return 0;
	}
	uint32_t id = nfuncs++;
	funcs[id].addr = addr;
	funcs[id].module = -1;
	hash_set(addr, id);
	return id;
}

/* The id of a function seen by a hook; a body whose unit is not registered gets a nameless one. */
static uint32_t func_id(uintptr_t addr)
{
	uint32_t id = lookup(addr);
	if (__builtin_expect(id != 0, 1))
		return id;
	pthread_mutex_lock(&lock);
	id = lookup(addr);
	if (!id)
		id = func_new(addr);
	pthread_mutex_unlock(&lock);
	return id;
}

static void thread_exited(void *arg)
{
	((struct tstate *)arg)->exited = 1;
}

static void make_key(void)
{
	if (pthread_key_create(&exit_key, thread_exited))
		die("pthread_key_create");
}

static struct tstate *tstate_new(void)
{
	size_t len = sizeof(struct tstate);
	len = (len + 63) & ~(size_t)63;
	size_t off_slab = len;
	len += SLAB_SLOTS * sizeof(uint64_t);
	size_t off_stack = len;
	len += STACK_MAX * sizeof(struct frame);
	size_t off_enters = len;
	len += 2 * MAXF * sizeof(uint64_t);
	size_t off_arcs = len;
	len += ARCS_MAX * sizeof(struct arc);
	char *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (m == MAP_FAILED)
		die("mmap");
	struct tstate *t = (struct tstate *)m;
	t->maplen = len;
	t->slab = (uint64_t *)(m + off_slab);
	t->stack = (struct frame *)(m + off_stack);
	t->enters = (uint64_t *)(m + off_enters);
	t->exits = t->enters + MAXF;
	t->arcs = (struct arc *)(m + off_arcs);
	t->is_main = syscall(SYS_gettid) == getpid();
	tls_state = t;
	pthread_once(&exit_once, make_key);
	pthread_setspecific(exit_key, t);
	pthread_mutex_lock(&lock);
	t->next = threads;
	threads = t;
	pthread_mutex_unlock(&lock);
	return t;
}

static inline struct tstate *state(void)
{
	struct tstate *t = tls_state;
	if (__builtin_expect(t == NULL, 0))
		t = tstate_new();
	return t;
}

/* ABI 7: the executable's own copy of the slab pointer (spy-abi.h, SPY_COUNTS_EXE_SYMBOL), as an offset
 * from the thread pointer, the same in every thread; 0 until a unit of ABI 7 registers. Without it
 * every counted call of such code would take the slow path (its CPUID and XSAVE), not just a
 * thread's first. */
static intptr_t counts_exe_off;

EXPORT uint64_t *__spy_counts_slow(void)
{
	struct tstate *t = state();
	intptr_t off = __atomic_load_n(&counts_exe_off, __ATOMIC_ACQUIRE);
	__spy_counts = t->slab;
	if (off && spy_thread_pointer())
		*(uint64_t **)(void *)(spy_thread_pointer() + off) = t->slab;
	return t->slab;
}

/* The same, keeping every other register, for the counter written as asm (x86-64). */
SPY_COUNTS_SLOW_ALL_STUB;

/* Under lock: the registered module whose segments hold pc, live ones first. */
static struct module *module_of(uintptr_t pc)
{
	struct module *dead = NULL;
	for (int i = nmods - 1; i >= 0; i--) {
		struct module *m = &mods[i];
		if (pc < m->lo || pc >= m->hi)
			continue;
		if (m->unregs < m->regs)
			return m;
		if (!dead)
			dead = m;
	}
	return dead;
}

/* Under lock: which function the call site lies in, by the greatest record address <= site. */
static int verdict_of(uint32_t caller, uintptr_t site, uint32_t *expected)
{
	struct module *m;

	/* The return address follows the call: a call that is its function's last
	 * instruction (to a noreturn function) returns to the next function's first
	 * byte. The call itself is the byte before. */
	site--;
	m = module_of(site);
	*expected = 0;
	if (!m)
		return V_PENDING;
	size_t lo = 0, hi = m->nfuncs;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (m->addrs[mid] <= site)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return V_BAD;
	*expected = m->ids[lo - 1];
	return *expected == caller ? V_OK : V_BAD;
}

static uint32_t hash_arc(uint32_t caller, uint32_t callee, uintptr_t site)
{
	uint64_t h = (uint64_t)site * 0x9e3779b97f4a7c15ull;
	h ^= ((uint64_t)caller << 32 | callee) * 0xc2b2ae3d27d4eb4full;
	return (uint32_t)(h >> 40) & (ARCS_MAX - 1);
}

static void arc_add(struct tstate *t, uint32_t caller, uint32_t callee, uintptr_t site)
{
	for (uint32_t i = hash_arc(caller, callee, site);; i = (i + 1) & (ARCS_MAX - 1)) {
		struct arc *a = &t->arcs[i];
		if (a->count == 0) {
			if (t->narcs >= ARCS_MAX / 4 * 3) {
				t->arc_overflow++;
				return;
			}
			uint32_t expected;
			a->site = site;
			a->caller = caller;
			a->callee = callee;
			pthread_mutex_lock(&lock);
			a->verdict = verdict_of(caller, site, &expected);
			pthread_mutex_unlock(&lock);
			a->count = 1;
			t->narcs++;
			return;
		}
		if (a->site == site && a->caller == caller && a->callee == callee) {
			a->count++;
			return;
		}
	}
}

/* An entry at frame key (the hook's CFA for __spy_enter, the return-address slot for __spy_arc). A
 * live caller's frame lies strictly above its callee's: anything at or below this frame was left
 * without an exit hook (longjmp, foreign unwinding) or, lazy, has no exit hook at all. */
/* A frame's call ends (its function's exit, or the exit of a call it tail-called). */
static void frame_end(struct tstate *t, struct frame *f)
{
	if (!f->lazy)
		t->exits[f->id]++;
}

/* ABI 5: the entry of self at key is the tail call the frame at that key announced (children of
 * it that returned unseen lie below key). The call counts from the tail caller at the tail call's
 * site; the callee's frame goes above it, with the same key. With the stack full (deep tail
 * recursion) the callee takes the top frame's place, and that frame's call ends. */
static int tail_enter(struct tstate *t, uint32_t id, uintptr_t self, uintptr_t key, int lazy)
{
	unsigned i = t->depth;
	while (i && t->stack[i - 1].cfa < key)
		i--;
	if (!i || t->stack[i - 1].cfa != key || !t->stack[i - 1].tail || t->stack[i - 1].tail != self)
		return 0;
	while (t->depth > i) {
		t->depth--;
		t->repaired += !t->stack[t->depth].lazy;
	}
	struct frame *caller = &t->stack[i - 1];
	arc_add(t, caller->id, id, caller->tail_site);
	uintptr_t site = caller->tail_site;
	caller->tail = 0;
	int callee_of_tail = 1;
	if (t->depth >= STACK_MAX) {
		struct frame *top = &t->stack[--t->depth];
		frame_end(t, top);
		callee_of_tail = top->tailcallee;
	}
	struct frame *f = &t->stack[t->depth++];
	memset(f, 0, sizeof(*f));
	f->id = id;
	f->lazy = lazy;
	f->tailcallee = callee_of_tail;
	f->site = site;
	f->cfa = key;
	t->enters[id]++;
	return 1;
}

static void enter_at(struct tstate *t, uintptr_t self, uintptr_t site, uintptr_t key, int lazy)
{
	uint32_t id = func_id(self);
	if (tail_enter(t, id, self, key, lazy))
		return;
	while (t->depth && t->stack[t->depth - 1].cfa <= key) {
		struct frame *f = &t->stack[--t->depth];
		/* a tail call to code without hooks ends unseen: no repair */
		if (f->tail)
			frame_end(t, f);
		else
			t->repaired += !f->lazy;
	}
	uint32_t caller = t->depth ? t->stack[t->depth - 1].id : 0;
	arc_add(t, caller, id, site);
	if (t->depth < STACK_MAX) {
		struct frame *f = &t->stack[t->depth++];
		memset(f, 0, sizeof(*f));
		f->id = id;
		f->lazy = lazy;
		f->site = site;
		f->cfa = key;
	} else {
		t->overflow++;
	}
	t->enters[id]++;
}

EXPORT void __spy_enter(void *self, void *call_site)
{
	struct tstate *t = state();
	if (t->guard) {
		t->reentered++;
		return;
	}
	t->guard = 1;
	enter_at(t, (uintptr_t)self, (uintptr_t)call_site, (uintptr_t)__builtin_dwarf_cfa(), 0);
	t->guard = 0;
}

/* ABI 5: the key is the slot of the return address, below the function's CFA. */
EXPORT void __spy_entry(void *self, void *call_site, void *cfa)
{
	struct tstate *t = state();
	if (t->guard) {
		t->reentered++;
		return;
	}
	t->guard = 1;
	enter_at(t, (uintptr_t)self, (uintptr_t)call_site, (uintptr_t)cfa - sizeof(void *), 0);
	t->guard = 0;
}

/* ABI 5: the exit of a call reached by tail calls ends its tail callers too. */
EXPORT void __spy_leave(void *self, void *cfa)
{
	struct tstate *t = state();
	(void)cfa;
	if (t->guard) {
		t->reentered++;
		return;
	}
	t->guard = 1;
	uint32_t id = func_id((uintptr_t)self);
	unsigned i = t->depth;
	while (i > 0 && t->stack[i - 1].id != id)
		i--;
	if (i == 0) {
		t->unmatched++;
		t->exits[id]++;
	} else {
		for (unsigned k = i; k < t->depth; k++)
			t->repaired += !t->stack[k].lazy;
		t->depth = i;
		for (;;) {
			struct frame *f = &t->stack[--t->depth];
			frame_end(t, f);
			f->tail = 0;
			if (!f->tailcallee || !t->depth)
				break;
		}
	}
	t->guard = 0;
}

/* ABI 5: self jumps to callee from the frame whose return-address slot is cfa - 8. */
EXPORT void __spy_tail(void *self, void *callee, void *cfa)
{
	struct tstate *t = state();
	if (t->guard) {
		t->reentered++;
		return;
	}
	t->guard = 1;
	uint32_t id = func_id((uintptr_t)self);
	uintptr_t key = (uintptr_t)cfa - sizeof(void *);
	unsigned i = t->depth;
	while (i && t->stack[i - 1].cfa < key)
		i--;
	if (!lookup((uintptr_t)callee)) {
		/* code without hooks (no record, never entered): it returns unseen, so the call ends
		 * here; a frame of __spy_arc's is dropped by a later call */
		if (i && t->stack[i - 1].id == id && t->stack[i - 1].lazy) {
			t->guard = 0;
			return;
		}
		t->guard = 0;
		__spy_leave(self, cfa);
		return;
	}
	if (i && t->stack[i - 1].id == id && t->stack[i - 1].cfa == key) {
		t->stack[i - 1].tail = (uintptr_t)callee;
		t->stack[i - 1].tail_site = (uintptr_t)__builtin_return_address(0);
	} else {
		t->unmatched++;
	}
	t->guard = 0;
}

EXPORT void __spy_exit(void *self)
{
	struct tstate *t = state();
	if (t->guard) {
		t->reentered++;
		return;
	}
	t->guard = 1;
	uint32_t id = func_id((uintptr_t)self);
	unsigned i = t->depth;
	while (i > 0 && t->stack[i - 1].id != id)
		i--;
	if (i == 0) {
		t->unmatched++;
	} else {
		for (unsigned k = i; k < t->depth; k++)
			t->repaired += !t->stack[k].lazy;
		t->depth = i - 1;
	}
	t->exits[id]++;
	t->guard = 0;
}

/* ABI 4: a C++ handler caught an exception; the frames below the catcher's were unwound by it,
 * and each is an exit of its function (the exit hook no longer runs on the way out). */
EXPORT void __spy_catch(void)
{
	struct tstate *t = state();
	if (t->guard) {
		t->reentered++;
		return;
	}
	t->guard = 1;
	uintptr_t cfa = (uintptr_t)__builtin_dwarf_cfa();
	while (t->depth && t->stack[t->depth - 1].cfa < cfa) {
		t->depth--;
		if (!t->stack[t->depth].lazy)
			t->exits[t->stack[t->depth].id]++;
	}
	t->guard = 0;
}

/* ABI 4, mode=arcs: the only hook. The frame is keyed by the address of its return address, just
 * below cfa: a returned call's frame is at or below the key of any later call of its caller. */
EXPORT void __spy_arc(void *self, void *cfa)
{
	struct tstate *t = state();
	if (t->guard) {
		t->reentered++;
		return;
	}
	t->guard = 1;
	uintptr_t key = (uintptr_t)cfa - sizeof(void *);
	enter_at(t, (uintptr_t)self, *(uintptr_t *)key, key, 1);
	t->guard = 0;
}

/* ABI 6, mode=arcs: the inline code (the counter included) reads the thread's state through this
 * variable; its first word (held) is never 0 here, so every call goes to __spy_arc_miss, which is the
 * counter and __spy_arc. */
static const uint32_t always_held[8] = { 1 };
EXPORT __thread const void *spy_thread_abi6 __asm__(SPY_THREAD_SYMBOL)
	__attribute__((tls_model("initial-exec"))) = always_held;

EXPORT void __spy_arc_miss(void *self, void *cfa, const uint64_t *slot)
{
	uint64_t *p = __spy_counts;

	if (!p)
		p = __spy_counts_slow();
	p[__atomic_load_n(slot, __ATOMIC_RELAXED)]++;
	__spy_arc(self, cfa);
}

struct found {
	uintptr_t pc;
	char *path;
	uintptr_t bias, lo, hi;
};

static int find_object(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct found *f = arg;
	uintptr_t lo = UINTPTR_MAX, hi = 0;
	int hit = 0;
	(void)size;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_LOAD)
			continue;
		uintptr_t s = info->dlpi_addr + ph->p_vaddr, e = s + ph->p_memsz;
		if (s < lo)
			lo = s;
		if (e > hi)
			hi = e;
		if (f->pc >= s && f->pc < e)
			hit = 1;
	}
	if (!hit)
		return 0;
	f->bias = info->dlpi_addr;
	f->lo = lo;
	f->hi = hi;
	if (info->dlpi_name && info->dlpi_name[0]) {
		f->path = strdup(info->dlpi_name);
	} else {
		char buf[PATH_MAX];
		ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
		buf[n > 0 ? n : 0] = 0;
		f->path = strdup(n > 0 ? buf : "?");
	}
	return 1;
}

static char *dup_str(const char *s)
{
	char *d = strdup(s ? s : "(null)");
	if (!d)
		die("strdup");
	for (char *p = d; *p; p++)
		if (*p == ' ' || *p == '\t' || *p == '\n')
			*p = '_';
	return d;
}

static int cmp_rec(const void *a, const void *b)
{
	const struct spy_func *x = *(const struct spy_func *const *)a;
	const struct spy_func *y = *(const struct spy_func *const *)b;
	return (uintptr_t)x->addr < (uintptr_t)y->addr ? -1 : (uintptr_t)x->addr > (uintptr_t)y->addr;
}

EXPORT void __spy_register_unit(struct spy_func *begin, struct spy_func *end, uint32_t tag, void *thread_exe)
{
	/* ABI 7: the arcs code's copy of the thread pointer is left at its first value (held), so that
	 * every inline call misses, as the trace wants; the slab pointer's copy 8 bytes after it is kept */
	if (SPY_UNIT_TAG_ABI(tag) >= 7 && thread_exe && spy_thread_pointer())
		__atomic_store_n(&counts_exe_off, (char *)thread_exe + 8 - spy_thread_pointer(),
				 __ATOMIC_RELEASE);
	struct found where = { .pc = (uintptr_t)begin };
	dl_iterate_phdr(find_object, &where);

	pthread_mutex_lock(&lock);
	for (int i = 0; i < nmods; i++) {
		if (mods[i].begin == begin && mods[i].unregs < mods[i].regs) {
			mods[i].regs++;
			pthread_mutex_unlock(&lock);
			free(where.path);
			return;
		}
	}
	if (nmods >= MAXMOD || begin > end) {
		func_overflow++;
		pthread_mutex_unlock(&lock);
		free(where.path);
		return;
	}
	int mi = nmods++;
	struct module *m = &mods[mi];
	size_t n = (size_t)(end - begin);
	m->path = where.path ? where.path : dup_str("?");
	m->begin = begin;
	m->end = end;
	m->bias = where.bias;
	m->lo = where.lo;
	m->hi = where.hi;
	m->regs = 1;
	m->mode = SPY_UNIT_TAG_MODE(tag);
	m->abi = SPY_UNIT_TAG_ABI(tag);
	if (m->abi != SPY_ABI_VERSION)
		bad_abi++;
	m->addrs = calloc(n + 1, sizeof(*m->addrs));
	m->ids = calloc(n + 1, sizeof(*m->ids));
	struct spy_func **sorted = calloc(n + 1, sizeof(*sorted));
	if (!m->addrs || !m->ids || !sorted)
		die("calloc");
	for (size_t i = 0; i < n; i++)
		sorted[i] = &begin[i];
	qsort(sorted, n, sizeof(*sorted), cmp_rec);
	for (size_t i = 0; i < n; i++) {
		struct spy_func *r = sorted[i];
		uintptr_t addr = (uintptr_t)r->addr;
		uint32_t id = lookup(addr);
		if (id && funcs[id].name) {
			int om = funcs[id].module;
			if (om == mi || (om >= 0 && mods[om].unregs < mods[om].regs))
				duplicates++; /* two records, one body: share the id */
			else
				id = func_new(addr); /* a dead module's address reused */
		} else if (!id) {
			id = func_new(addr);
		}
		if (r->slot)
			*r->slot = id;
		if (!id)
			continue;
		if (!funcs[id].name || funcs[id].module != mi) {
			funcs[id].name = dup_str(r->name);
			funcs[id].file = dup_str(r->file);
			funcs[id].line = r->line;
			funcs[id].flags = r->flags;
			funcs[id].module = mi;
		}
		m->addrs[m->nfuncs] = addr;
		m->ids[m->nfuncs] = id;
		m->nfuncs++;
	}
	free(sorted);
	pthread_mutex_unlock(&lock);
}

EXPORT void __spy_unregister_unit(struct spy_func *begin, struct spy_func *end)
{
	(void)end;
	pthread_mutex_lock(&lock);
	for (int i = nmods - 1; i >= 0; i--) {
		if (mods[i].begin == begin && mods[i].unregs < mods[i].regs) {
			mods[i].unregs++;
			break;
		}
	}
	pthread_mutex_unlock(&lock);
}

/* ---- the report ---- */

struct lines {
	char **items;
	size_t nr, alloc;
};

__attribute__((format(printf, 2, 3))) static void line(struct lines *l, const char *fmt, ...)
{
	va_list ap;
	char *s;
	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		die("vasprintf");
	va_end(ap);
	if (l->nr == l->alloc) {
		l->alloc = l->alloc ? 2 * l->alloc : 256;
		l->items = realloc(l->items, l->alloc * sizeof(*l->items));
		if (!l->items)
			die("realloc");
	}
	l->items[l->nr++] = s;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static const char *fname(uint32_t id, char *buf, size_t len)
{
	if (id == 0)
		return "<spontaneous>";
	if (funcs[id].name)
		return funcs[id].name;
	snprintf(buf, len, "<unknown:%#" PRIxPTR ">", funcs[id].addr);
	return buf;
}

static int cmp_arc(const void *a, const void *b)
{
	const struct arc *x = a, *y = b;
	if (x->caller != y->caller)
		return x->caller < y->caller ? -1 : 1;
	if (x->callee != y->callee)
		return x->callee < y->callee ? -1 : 1;
	return x->site < y->site ? -1 : x->site > y->site;
}

static int cmp_arc_name(const void *a, const void *b)
{
	const struct arc *x = a, *y = b;
	char b1[64], b2[64];
	int c = strcmp(fname(x->caller, b1, sizeof(b1)), fname(y->caller, b2, sizeof(b2)));
	if (c)
		return c;
	if (x->caller != y->caller)
		return x->caller < y->caller ? -1 : 1;
	c = strcmp(fname(x->callee, b1, sizeof(b1)), fname(y->callee, b2, sizeof(b2)));
	if (c)
		return c;
	if (x->callee != y->callee)
		return x->callee < y->callee ? -1 : 1;
	return x->site < y->site ? -1 : x->site > y->site;
}

static void dump(int at_exit)
{
	struct tstate *me = tls_state;
	int saved_guard = me ? me->guard : 0;
	if (me)
		me->guard = 1;
	pthread_mutex_lock(&lock);

	struct lines out = { 0 };
	uint64_t *count = calloc(nfuncs, sizeof(uint64_t));
	uint64_t *enter = calloc(nfuncs, sizeof(uint64_t));
	uint64_t *exit_ = calloc(nfuncs, sizeof(uint64_t));
	if (!count || !enter || !exit_)
		die("calloc");
	uint64_t nthreads = 0, slot0 = 0, repaired = 0, unmatched = 0, open = 0, overflow = 0;
	uint64_t arc_overflow = 0, reentered = 0;
	size_t narcs = 0;
	for (struct tstate *t = threads; t; t = t->next)
		narcs += t->narcs;
	struct arc *arcs = calloc(narcs + 1, sizeof(*arcs));
	if (!arcs)
		die("calloc");
	narcs = 0;
	for (struct tstate *t = threads; t; t = t->next) {
		nthreads++;
		slot0 += t->slab[0];
		for (uint32_t id = 1; id < nfuncs; id++) {
			count[id] += t->slab[id];
			enter[id] += t->enters[id];
			exit_[id] += t->exits[id];
		}
		repaired += t->repaired;
		unmatched += t->unmatched;
		overflow += t->overflow;
		arc_overflow += t->arc_overflow;
		reentered += t->reentered;
		for (uint32_t i = 0; i < ARCS_MAX; i++)
			if (t->arcs[i].count)
				arcs[narcs++] = t->arcs[i];
		/* Frames still pushed: the dumping thread's are live when asked for explicitly;
		 * the bottom frame (main, a thread function) of a running thread is live too. */
		unsigned live = 0;
		if (t == me && !at_exit)
			live = t->depth;
		else if (!t->exited && t->depth)
			live = 1;
		for (unsigned k = live; k < t->depth; k++)
			open += !t->stack[k].lazy;
	}

	/* Merge the threads' arcs by (caller, callee, site) and settle pending verdicts. */
	qsort(arcs, narcs, sizeof(*arcs), cmp_arc);
	size_t m = 0;
	for (size_t i = 0; i < narcs; i++) {
		if (m && cmp_arc(&arcs[m - 1], &arcs[i]) == 0) {
			arcs[m - 1].count += arcs[i].count;
			if (arcs[m - 1].verdict == V_PENDING)
				arcs[m - 1].verdict = arcs[i].verdict;
		} else {
			arcs[m++] = arcs[i];
		}
	}
	narcs = m;
	uint64_t ok = 0, bad = 0, foreign = 0, bad_shown = 0;
	char b1[64], b2[64], b3[64];
	for (size_t i = 0; i < narcs; i++) {
		struct arc *a = &arcs[i];
		uint32_t expected = 0;
		int v = a->verdict;
		if (v == V_PENDING || v == V_BAD)
			v = verdict_of(a->caller, a->site, &expected);
		if (v == V_PENDING)
			v = V_FOREIGN;
		a->verdict = v;
		ok += v == V_OK;
		foreign += v == V_FOREIGN;
		if (v == V_BAD) {
			bad++;
			struct module *mod = module_of(a->site);
			if (bad_shown++ < BAD_DETAILS_MAX)
				line(&out, "callsite-bad %s %s expected=%s %s %#" PRIxPTR,
				     fname(a->caller, b1, sizeof(b1)), fname(a->callee, b2, sizeof(b2)),
				     expected ? fname(expected, b3, sizeof(b3)) : "<none>",
				     mod ? mod->path : "?", a->site - 1 - (mod ? mod->bias : 0));
		}
	}
	/* One arc line per (caller, callee) pair of ids. */
	for (size_t i = 0; i < narcs;) {
		size_t j = i;
		uint64_t n = 0;
		while (j < narcs && arcs[j].caller == arcs[i].caller && arcs[j].callee == arcs[i].callee)
			n += arcs[j++].count;
		line(&out, "arc %s %s %" PRIu64, fname(arcs[i].caller, b1, sizeof(b1)),
		     fname(arcs[i].callee, b2, sizeof(b2)), n);
		i = j;
	}
	/* One call site per (caller, callee), a few dozen, for addr2line to confirm. */
	qsort(arcs, narcs, sizeof(*arcs), cmp_arc_name);
	unsigned shown = 0;
	uint32_t last_caller = UINT32_MAX, last_callee = UINT32_MAX;
	for (size_t i = 0; i < narcs && shown < SAMPLES_MAX; i++) {
		struct arc *a = &arcs[i];
		if (a->verdict != V_OK || !a->caller ||
		    (a->caller == last_caller && a->callee == last_callee))
			continue;
		struct module *mod = module_of(a->site);
		if (!mod)
			continue;
		last_caller = a->caller;
		last_callee = a->callee;
		shown++;
		line(&out, "callsite-sample %s %#" PRIxPTR " %s %s", fname(a->caller, b1, sizeof(b1)),
		     a->site - 1 - mod->bias, mod->path, fname(a->callee, b2, sizeof(b2)));
	}

	uint64_t unknown = 0;
	for (uint32_t id = 1; id < nfuncs; id++) {
		struct func *f = &funcs[id];
		if (!f->name) {
			if (!enter[id] && !exit_[id] && !count[id])
				continue;
			unknown++;
		}
		line(&out,
		     "func %s count=%" PRIu64 " enter=%" PRIu64 " exit=%" PRIu64 " flags=%u file=%s line=%u",
		     fname(id, b1, sizeof(b1)), count[id], enter[id], exit_[id], f->flags,
		     f->file ? f->file : "?", f->line);
	}
	for (int i = 0; i < nmods; i++)
		line(&out, "module %s nfuncs=%u regs=%u unregs=%u mode=%u abi=%u", mods[i].path,
		     mods[i].nfuncs, mods[i].regs, mods[i].unregs, mods[i].mode, mods[i].abi);
	line(&out, "callsite ok=%" PRIu64 " bad=%" PRIu64 " foreign=%" PRIu64, ok, bad, foreign);
	line(&out, "repaired %" PRIu64, repaired);
	line(&out, "unmatched_exit %" PRIu64, unmatched);
	line(&out, "open %" PRIu64, open);
	line(&out, "threads %" PRIu64, nthreads);
	line(&out, "slot0 %" PRIu64, slot0);
	line(&out, "unknown_self %" PRIu64, unknown);
	line(&out, "duplicate_records %" PRIu64, duplicates);
	line(&out, "overflow stack=%" PRIu64 " arcs=%" PRIu64 " funcs=%" PRIu64, overflow, arc_overflow,
	     func_overflow);
	line(&out, "reentered %" PRIu64, reentered);
	line(&out, "bad_abi %" PRIu64, bad_abi);
	pthread_mutex_unlock(&lock);

	qsort(out.items, out.nr, sizeof(*out.items), cmp_str);
	const char *path = getenv("SPYTRACE_OUT");
	if (!path || !*path)
		path = "spytrace.out";
	FILE *fp = fopen(path, "w");
	if (!fp) {
		fprintf(stderr, "spytrace: cannot open '%s': %s\n", path, strerror(errno));
	} else {
		for (size_t i = 0; i < out.nr; i++)
			fprintf(fp, "%s\n", out.items[i]);
		if (fclose(fp))
			fprintf(stderr, "spytrace: cannot write '%s': %s\n", path, strerror(errno));
	}
	for (size_t i = 0; i < out.nr; i++)
		free(out.items[i]);
	free(out.items);
	free(arcs);
	free(count);
	free(enter);
	free(exit_);
	if (me)
		me->guard = saved_guard;
}

EXPORT void spytrace_dump(void)
{
	dump(0);
}

__attribute__((destructor(101))) static void spytrace_at_exit(void)
{
	dump(1);
}
