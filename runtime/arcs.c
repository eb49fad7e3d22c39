/* SPIN's three-level arc tables, one set per thread: a 16-bit hash of the call site leads to a chain of
 * call-site PCs, each leading to its arcs (callee, count, cycles). Entries are pool indices, not
 * pointers; pools grow by committing more of a reservation, up to a hard limit past which updates go to
 * the sink entry 0 and are counted. Also the per-thread function table of time mode. Only the owning
 * thread writes; a writer elsewhere may read concurrently, so entries are filled before they are linked. */
#include "spyrt.h"

#include <string.h>
#include <sys/mman.h>

#define publish(p, v) __atomic_store_n(&(p), (v), __ATOMIC_RELEASE)

/* Grow a pool of *alloc entries of size bytes towards max; returns 0 when it could. */
static int pool_grow(struct spy_vm *vm, uint32_t *alloc, uint32_t max, size_t size)
{
	uint64_t want = (uint64_t)*alloc * 2;

	if (*alloc >= max)
		return -1;
	if (want > max)
		want = max;
	if (spy_vm_commit(vm, (size_t)want * size))
		return -1;
	*alloc = (uint32_t)want;
	return 0;
}

static int pool_init(struct spy_vm *vm, void **base, uint32_t *alloc, uint32_t start, uint32_t max,
		     size_t size)
{
	if (spy_vm_reserve(vm, (size_t)max * size) || spy_vm_commit(vm, (size_t)start * size))
		return -1;
	*base = vm->base;
	*alloc = start;
	return 0;
}

int spy_arcs_init(struct spy_arcs *a, uint32_t start, uint32_t max, int timed)
{
	uint32_t fstart = SPY_FUNCS_START, fmax = SPY_FUNCS_HARD;

	memset(a, 0, sizeof(*a));
	if (max < 2)
		max = 2;
	if (start < 2)
		start = 2;
	if (start > max)
		start = max;
	if (fmax > max)
		fmax = max; /* small limits (tests) apply to both */
	if (fstart > fmax)
		fstart = fmax;
	a->site_max = a->arc_max = max;
	a->fstat_max = fmax;
	if (pool_init(&a->vm_head, (void **)&a->head, &(uint32_t){ 0 }, 1u << SPY_L1_BITS, 1u << SPY_L1_BITS,
		      sizeof(uint32_t)) ||
	    pool_init(&a->vm_site, (void **)&a->site, &a->site_alloc, start, max, sizeof(struct spy_site)) ||
	    pool_init(&a->vm_arc, (void **)&a->arc, &a->arc_alloc, start, max, sizeof(struct spy_arc)))
		goto fail;
	if (timed && (pool_init(&a->vm_fhead, (void **)&a->fhead, &(uint32_t){ 0 }, 1u << SPY_FHASH_BITS,
				1u << SPY_FHASH_BITS, sizeof(uint32_t)) ||
		      pool_init(&a->vm_fstat, (void **)&a->fstat, &a->fstat_alloc, fstart, fmax,
				sizeof(struct spy_fstat)) ||
		      spy_vm_reserve(&a->vm_inner, (size_t)fmax * sizeof(struct spy_fstat_inner))))
		goto fail;
	a->inner = a->vm_inner.base;
	spy_arcs_reset(a);
	return 0;
fail:
	spy_arcs_release(a);
	return -1;
}

void spy_arcs_reset(struct spy_arcs *a)
{
	/* fresh tables come zeroed from mmap: clearing them would make all 256 KiB of the level 1
	 * table resident in every thread */
	if (a->nsite > 1)
		memset(a->head, 0, sizeof(uint32_t) << SPY_L1_BITS);
	/* index 0 is the sink: a valid entry nobody reports */
	memset(&a->site[0], 0, sizeof(a->site[0]));
	memset(&a->arc[0], 0, sizeof(a->arc[0]));
	a->nsite = a->narc = 1;
	a->dropped_arcs = a->dropped_funcs = 0;
	if (a->fstat) {
		if (a->nfstat > 1)
			memset(a->fhead, 0, sizeof(uint32_t) << SPY_FHASH_BITS);
		memset(&a->fstat[0], 0, sizeof(a->fstat[0]));
		a->fstat[0].min = a->fstat[0].min_inner = UINT64_MAX;
		a->nfstat = 1;
		/* private anonymous pages read as zeros again, without being touched */
		if (a->vm_inner.committed)
			madvise(a->vm_inner.base, a->vm_inner.committed, MADV_DONTNEED);
		/* a count still pending belongs to the tables just emptied */
		a->hist_pending = &a->fstat[0].hist[0];
	}
}

void spy_arcs_release(struct spy_arcs *a)
{
	spy_vm_release(&a->vm_head);
	spy_vm_release(&a->vm_site);
	spy_vm_release(&a->vm_arc);
	spy_vm_release(&a->vm_fhead);
	spy_vm_release(&a->vm_fstat);
	spy_vm_release(&a->vm_inner);
	memset(a, 0, sizeof(*a));
}

static inline uint32_t fstat_hash(uint64_t addr)
{
	return (uint32_t)((addr * 0x9e3779b97f4a7c15ull) >> (64 - SPY_FHASH_BITS));
}

uint32_t spy_fstat_get(struct spy_arcs *a, uint64_t addr)
{
	uint32_t h, i;
	struct spy_fstat *f;

	if (!a->fstat)
		return 0;
	h = fstat_hash(addr);
	for (i = a->fhead[h]; i; i = a->fstat[i].next)
		if (a->fstat[i].addr == addr)
			return i;
	if (a->nfstat == a->fstat_alloc &&
	    pool_grow(&a->vm_fstat, &a->fstat_alloc, a->fstat_max, sizeof(struct spy_fstat))) {
		SPY_SET(a->dropped_funcs, a->dropped_funcs + 1);
		return 0;
	}
	i = a->nfstat;
	f = &a->fstat[i];
	memset(f, 0, sizeof(*f));
	f->addr = addr;
	f->min = f->min_inner = UINT64_MAX;
	f->next = a->fhead[h];
	publish(a->nfstat, i + 1);
	publish(a->fhead[h], i);
	return i;
}

struct spy_fstat_inner *spy_fstat_inner_grow(struct spy_arcs *a, uint32_t i)
{
	if (!a->inner || spy_vm_commit(&a->vm_inner, ((size_t)i + 1) * sizeof(struct spy_fstat_inner))) {
		SPY_SET(a->dropped_funcs, a->dropped_funcs + 1);
		return NULL;
	}
	__atomic_store_n(&a->ninner, (uint32_t)(a->vm_inner.committed / sizeof(struct spy_fstat_inner)),
			 __ATOMIC_RELEASE);
	return &a->inner[i];
}

uint32_t spy_arcs_insert(struct spy_arcs *a, uint64_t pc, uint64_t callee)
{
	uint32_t h = spy_site_hash(pc), s, i;
	struct spy_arc *e;

	for (s = a->head[h]; s; s = a->site[s].next)
		if (a->site[s].pc == pc)
			break;
	if (!s) {
		if (a->nsite == a->site_alloc &&
		    pool_grow(&a->vm_site, &a->site_alloc, a->site_max, sizeof(struct spy_site)))
			goto drop;
		s = a->nsite;
		a->site[s].pc = pc;
		a->site[s].arcs = 0;
		a->site[s].next = a->head[h];
		publish(a->nsite, s + 1);
		publish(a->head[h], s);
	}
	/* the caller found no arc for this callee; look again only if it could not look (no site) */
	for (i = a->site[s].arcs; i; i = a->arc[i].next)
		if (a->arc[i].callee == callee)
			return i;
	if (a->narc == a->arc_alloc &&
	    pool_grow(&a->vm_arc, &a->arc_alloc, a->arc_max, sizeof(struct spy_arc)))
		goto drop;
	i = a->narc;
	e = &a->arc[i];
	memset(e, 0, sizeof(*e));
	e->callee = callee;
	e->func = spy_fstat_get(a, callee);
	if (a->fstat && spy_trace_on && spy_traced(callee))
		e->func |= SPY_ARC_TRACED;
	/* a call from an instrumented function's code: that function is the caller, whatever frames
	 * of callees that returned unseen the shadow stack still holds above it */
	{
		uint64_t fn = spy_codemap_func(pc);

		if (fn && spy_hooked(fn)) {
			e->caller = fn;
			e->func |= SPY_ARC_SITED;
		}
	}
	e->next = a->site[s].arcs;
	publish(a->narc, i + 1);
	publish(a->site[s].arcs, i);
	return i;
drop:
	SPY_SET(a->dropped_arcs, a->dropped_arcs + 1);
	return 0;
}
