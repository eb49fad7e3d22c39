/* pages: page faults of known addresses, for the missing-page trace (t152).
 *   args K (default 100): toucher writes the first byte of each of K fresh pages of an anonymous
 *   mapping (huge pages off, so one fault a page), in address order, and the program prints the
 *   mapping's address, the page size and K. Nothing else runs after it but the exit.
 * Expected: main 1, toucher 1; K page faults in toucher at region + i * pagesize, i = 0..K-1. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "sample.h"

/* not checked by AddressSanitizer or ThreadSanitizer: their shadow memory's pages would fault in here too */
NOINL __attribute__((no_sanitize_address, no_sanitize_thread)) void toucher(char *m, long pg, long k)
{
	for (long i = 0; i < k; i++) {
		m[i * pg] = 1;
		BARRIER();
	}
}

int main(int argc, char **argv)
{
	long pg = sysconf(_SC_PAGESIZE), k = argc > 1 ? atol(argv[1]) : 100;
	char *m = mmap(NULL, (size_t)(k * pg), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (m == MAP_FAILED)
		return 1;
	madvise(m, (size_t)(k * pg), MADV_NOHUGEPAGE);
	printf("region %p pagesize %ld pages %ld\n", (void *)m, pg, k);
	fflush(stdout);
	toucher(m, pg, k);
	return 0;
}
