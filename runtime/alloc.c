/* SPYRT_WATCH=alloc and allocbytes: the runtime interposes malloc, calloc, realloc and the aligned
 * allocators, forwarding to glibc's own entry points; while watching, each allocation is one event at
 * its call site with the thread's shadow stack (sample.c). Not watching costs one predictable branch.
 * Under AddressSanitizer or ThreadSanitizer its allocator must stay the program's: nothing is interposed, and alloc.c
 * defines no symbol a static link would take instead of the sanitizer's. */
#include "spyrt.h"

#include <errno.h>
#include <malloc.h>
#include <stddef.h>
#include <stdlib.h>

#if !SPY_SAN_INTERCEPTS

int spy_alloc_on;

extern void *__libc_malloc(size_t n);
extern void *__libc_calloc(size_t n, size_t size);
extern void *__libc_realloc(void *p, size_t n);
extern void *__libc_memalign(size_t align, size_t n);

#define RA() ((uint64_t)(uintptr_t)__builtin_extract_return_addr(__builtin_return_address(0)))

SPY_EXPORT void *malloc(size_t n)
{
	void *p = __libc_malloc(n);

	if (unlikely(spy_alloc_on) && p)
		spy_samp_alloc(n, RA());
	return p;
}

SPY_EXPORT void *calloc(size_t n, size_t size)
{
	void *p = __libc_calloc(n, size);

	if (unlikely(spy_alloc_on) && p)
		spy_samp_alloc((uint64_t)n * size, RA());
	return p;
}

SPY_EXPORT void *realloc(void *old, size_t n)
{
	void *p = __libc_realloc(old, n);

	/* realloc(p, 0) frees */
	if (unlikely(spy_alloc_on) && p && n)
		spy_samp_alloc(n, RA());
	return p;
}

SPY_EXPORT void *memalign(size_t align, size_t n)
{
	void *p = __libc_memalign(align, n);

	if (unlikely(spy_alloc_on) && p)
		spy_samp_alloc(n, RA());
	return p;
}

SPY_EXPORT void *aligned_alloc(size_t align, size_t n)
{
	void *p = __libc_memalign(align, n);

	if (unlikely(spy_alloc_on) && p)
		spy_samp_alloc(n, RA());
	return p;
}

SPY_EXPORT int posix_memalign(void **out, size_t align, size_t n)
{
	void *p;

	if (align < sizeof(void *) || (align & (align - 1)))
		return EINVAL;
	p = __libc_memalign(align, n);
	if (!p)
		return ENOMEM;
	*out = p;
	if (unlikely(spy_alloc_on))
		spy_samp_alloc(n, RA());
	return 0;
}

#endif
