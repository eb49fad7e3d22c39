/* The add-one counters (Multics): each thread increments its own slab of 64-bit counters, indexed by
 * the slot the registry gave the function, so counts are exact under threads without a locked
 * instruction. A slab is reserved for every possible slot with MAP_NORESERVE: registering a module
 * later (dlopen) never has to move it, and only the pages of counters in use cost memory. */
#include "spyrt.h"
#include "spy-stub.h"

#include <string.h>

SPY_TLS uint64_t *__spy_counts;
/* The same variable under the name code of ABI 5 references (spy-abi.h). */
extern SPY_TLS uint64_t *spy_counts_abi5 __asm__(SPY_COUNTS_SYMBOL)
	__attribute__((alias(SPY_COUNTS_OLD_SYMBOL), visibility("default")));

/* Counts made after a thread retired (by late destructors) and by threads that could not get a
 * slab: shared, so rare races may lose one, but never a crash. In .bss: only touched pages cost. */
static uint64_t graveyard[SPY_SLOTS_MAX];
uint64_t *spy_graveyard = graveyard;

uint64_t *spy_slab_new(void)
{
	return spy_map((size_t)SPY_SLOTS_MAX * sizeof(uint64_t));
}

void spy_slab_free(uint64_t *slab)
{
	if (slab != graveyard)
		spy_unmap(slab, (size_t)SPY_SLOTS_MAX * sizeof(uint64_t));
}

/* Mode arcs' inline cache (spy-abi.h, ABI 6), one entry per slot, reserved like a slab. */
struct spy_acache *spy_acache_new(void)
{
	return spy_map((size_t)SPY_SLOTS_MAX * sizeof(struct spy_acache));
}

void spy_acache_free(struct spy_acache *c)
{
	spy_unmap(c, (size_t)SPY_SLOTS_MAX * sizeof(struct spy_acache));
}

/* Bumped when slots change hands (a module opened again, at other addresses): each thread clears
 * its cache at its next slow path, which spy_acache_reslot makes it take. */
uint32_t spy_acache_gen;

void spy_acache_reslot(void)
{
	__atomic_fetch_add(&spy_acache_gen, 1, __ATOMIC_SEQ_CST);
	for (struct spy_thread *t = __atomic_load_n(&spy_threads, __ATOMIC_ACQUIRE); t; t = t->next)
		__atomic_store_n(&t->stale, 1, __ATOMIC_SEQ_CST);
}

/* The thread's own, on its slow path (busy): no entry matches any call afterwards. Only the call
 * sites are cleared, so that the inline code, which reads the call site first, never meets an
 * entry half cleared. */
void spy_acache_clear(struct spy_thread *t)
{
	uint32_t n = __atomic_load_n(&spy_nslots, __ATOMIC_ACQUIRE);

	t->acache_gen = __atomic_load_n(&spy_acache_gen, __ATOMIC_SEQ_CST);
	if (!t->acache)
		return;
	for (uint32_t i = 0; i < n && i < SPY_SLOTS_MAX; i++)
		for (int w = 0; w < 2; w++)
			if (t->acache[i].way[w].call_site)
				SPY_SET(t->acache[i].way[w].call_site, 0);
}

SPY_EXPORT uint64_t *__spy_counts_slow(void)
{
	SPY_KEEP_ERRNO;
	struct spy_thread *t = spy_thread_self();
	uint64_t *c;

	/* no record yet (set-up under way, or no memory): count nowhere, and try again next time */
	if (!t)
		return graveyard;
	if (t->state != SPY_THREAD_LIVE)
		return spy_counts_set(graveyard);
	c = t->counts;
	if (!c) {
		c = spy_slab_new();
		if (!c)
			c = graveyard;
		__atomic_store_n(&t->counts, c, __ATOMIC_RELEASE);
		/*
		 * The thread's first count: a write that began before its record was listed has not
		 * seen it, and would read this count without the arc of the hook that follows it. So
		 * the count waits for that write, which sees either the record (and waits for this
		 * thread's first hook) or this thread waits here. The read of spy_frozen is a
		 * read-modify-write: it reads the latest value, and when the write's own one comes
		 * after it, the write synchronises with it and so sees the record (a fence instead
		 * says the same on x86-64, but not to ThreadSanitizer).
		 */
		if (unlikely(__atomic_fetch_or(&spy_frozen, 0, __ATOMIC_SEQ_CST) & 1))
			spy_park(t);
	}
	return spy_counts_set(c);
}

/* The register-keeping way into __spy_counts_slow for the counter the plugin writes as asm. */
SPY_COUNTS_SLOW_ALL_STUB;

/* Where a thread counts while it does not record (SPYRT_START/STOP, spy_off): never read, shared by
 * every thread (what races lose was to be forgotten anyway). In .bss: only touched pages cost. */
static uint64_t discard[SPY_SLOTS_MAX];

/*
 * From a hook's slow path (spy_ctl_sync): the add-one counters follow the arcs. The inline counter
 * cannot test anything, so the thread's slab pointer (__spy_counts and its copies) is switched
 * between its slab and the discarded one as its recording starts and stops. An entry hook's own call
 * was counted before the hook ran, in the slab the thread leaves: it moves to the slab whose arcs
 * will hold it (a START function's first call; a STOP function's call, or the first call of another
 * thread after a trigger, leaves its slab). Only a thread with its slab: the calibration's scratch
 * thread and the idle thread have none. Called when rec == t->counts_off (a change), so that the
 * other hooks of a watched run pay one test.
 */
void spy_counts_window(struct spy_thread *t, uint64_t self, int enter, int rec)
{
	uint64_t *c = t->counts, *was = __spy_counts;
	uint32_t slot;

	if (!c || c == graveyard || rec == !t->counts_off)
		return;
	t->counts_off = !rec;
	spy_counts_set(rec ? c : discard);
	if (!enter || was != (rec ? discard : c) || !(slot = spy_hooked_slot(self)) || slot >= SPY_SLOTS_MAX)
		return;
	/* atomic: a signal handler's counter may add to the same word meanwhile */
	if (rec)
		__atomic_fetch_add(&c[slot], 1, __ATOMIC_RELAXED);
	else if (__atomic_load_n(&c[slot], __ATOMIC_RELAXED))
		__atomic_fetch_sub(&c[slot], 1, __ATOMIC_RELAXED);
}

void spy_counts_total(uint64_t *sum, uint32_t n)
{
	memset(sum, 0, (size_t)n * sizeof(*sum));
	for (uint32_t i = 0; i < n; i++)
		sum[i] = graveyard[i];
	/* the state first: a folded thread's record (gone) may be being made new by a thread */
	for (struct spy_thread *t = __atomic_load_n(&spy_threads, __ATOMIC_ACQUIRE); t; t = t->next) {
		int state = __atomic_load_n(&t->state, __ATOMIC_ACQUIRE);
		uint64_t *c = state == SPY_THREAD_LIVE ? __atomic_load_n(&t->counts, __ATOMIC_ACQUIRE) : NULL;

		if (c && c != graveyard) {
			for (uint32_t i = 0; i < n; i++)
				sum[i] += c[i];
		} else if (state == SPY_THREAD_EXITED) {
			for (uint64_t i = 0; i < t->data.ncounts; i++)
				if (t->data.counts[i].slot < n)
					sum[t->data.counts[i].slot] += t->data.counts[i].count;
		}
	}
	for (uint64_t i = 0; i < spy_folded.data.ncounts; i++) /* folded threads' (fold.c) */
		if (spy_folded.data.counts[i].slot < n)
			sum[spy_folded.data.counts[i].slot] += spy_folded.data.counts[i].count;
}
