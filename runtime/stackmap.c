/* Which part of a thread's stack may be read: the mapping around the thread's own stack pointer, from
 * /proc/self/maps, looked up when first needed and kept in the thread's record. A frame whose return
 * address is read to see whether it is still live (hooks.c) must lie in it: a frame of another stack
 * (a signal's alternate stack, a coroutine's, perhaps unmapped since) is never read. */
#include "spyrt.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#define RESCANS 4 /* a main thread's stack grows: looked up again that often at most */

/* The mapping of /proc/self/maps that holds addr: [*lo, *hi), or 0 and -1. Reads in small pieces
 * with no allocation: a hook's slow path may run in a signal handler. */
static int mapping_of(uint64_t addr, uint64_t *lo, uint64_t *hi)
{
	char buf[256];
	int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC), field = 0, found = -1;
	uint64_t v[2] = { 0, 0 };
	ssize_t r;

	if (fd < 0)
		return -1;
	while (found && (r = read(fd, buf, sizeof(buf))) > 0) {
		for (ssize_t i = 0; i < r && found; i++) {
			char c = buf[i];

			if (c == '\n') {
				field = 0;
				v[0] = v[1] = 0;
			} else if (field < 2 && ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) {
				v[field] = v[field] << 4 | (uint64_t)(c <= '9' ? c - '0' : c - 'a' + 10);
			} else if (field < 2) {
				/* '-' ends the start, ' ' the end */
				if (++field == 2 && addr >= v[0] && addr < v[1]) {
					*lo = v[0];
					*hi = v[1];
					found = 0;
				}
			}
		}
	}
	close(fd);
	return found;
}

int spy_stack_rescan(struct spy_thread *t, uint64_t from, uint64_t to)
{
	if (t->stk_scans >= RESCANS)
		return 0;
	{
		int saved = errno;
		uint64_t lo, hi;

		t->stk_scans++;
		if (!mapping_of(from, &lo, &hi)) {
			t->stk_lo = lo;
			t->stk_hi = hi;
		}
		errno = saved;
	}
	return from >= t->stk_lo && to <= t->stk_hi && from < to;
}
