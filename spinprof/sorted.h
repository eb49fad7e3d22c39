/* Arrays sorted by a 64-bit address, and the one stable sort (sorted.c). The tables of functions,
 * symbols, PLT slots and histogram ranges are arrays of structs sorted by an address field: one
 * search finds a place among them, given the field's offset (offsetof) and the struct's size. */
#ifndef SPINPROF_SORTED_H
#define SPINPROF_SORTED_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

static inline uint64_t sorted_key(const void *base, size_t size, size_t off, size_t i)
{
	uint64_t k;
	memcpy(&k, (const char *)base + i * size + off, sizeof(k));
	return k;
}

/* The number of the n elements of base (each size bytes, sorted by the uint64_t at offset off) whose
 * key is <= a: the last of them, a's floor, is the one before (none when it is 0). */
static inline size_t sorted_upper(const void *base, size_t n, size_t size, size_t off, uint64_t a)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (sorted_key(base, size, off, mid) <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The number of them whose key is < a: the first whose key is a, if any, is the one there. */
static inline size_t sorted_lower(const void *base, size_t n, size_t size, size_t off, uint64_t a)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (sorted_key(base, size, off, mid) < a)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Sort the n elements of base (each size bytes) by cmp(a, b, arg), keeping the order of equal ones
 * (a merge sort, as glibc's qsort is, whose order gprof's output keeps). */
void sort_stable(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *, void *),
		 void *arg);

#endif
