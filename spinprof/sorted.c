/* The analyser's stable sort (sorted.h): a bottom-up merge sort; of two equal elements the one
 * that came first stays first. */
#include <stdlib.h>
#include <string.h>

#include "prof.h"
#include "sorted.h"

void sort_stable(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *, void *), void *arg)
{
	if (n < 2)
		return;
	char *a = base, *tmp = xmalloc(n * size);
	for (size_t w = 1; w < n; w *= 2) {
		for (size_t lo = 0; lo < n; lo += 2 * w) {
			size_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
			size_t i = lo, j = mid, k = lo;
			while (i < mid && j < hi) {
				/* the right one only when it is strictly less: stable */
				size_t from = cmp(a + j * size, a + i * size, arg) < 0 ? j++ : i++;
				memcpy(tmp + k++ * size, a + from * size, size);
			}
			memcpy(tmp + k * size, a + i * size, (mid - i) * size);
			k += mid - i;
			memcpy(tmp + k * size, a + j * size, (hi - j) * size);
		}
		memcpy(a, tmp, n * size);
	}
	free(tmp);
}
