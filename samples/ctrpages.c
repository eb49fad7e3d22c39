/* ctrpages: page faults of a known number in known functions, for SPYRT_COUNTERS (t155-t158).
 *   args A B D K (default 40 25 4 10): left() has toucher() write the first byte of each of A fresh
 *   pages, right() has it write B; rtouch(D) writes K fresh pages at each of its D levels of recursion,
 *   then calls itself one level down; sleeper(S) (arg 5, default 0) sleeps S times 1 ms, so S
 *   context switches. A sixth argument: "threads", left runs on a thread of its own, at the same time
 *   as right; "fork", right runs in a fork()ed child, which then ends (its profile is its own); "fold",
 *   left runs on 40 threads one after the other (more than the runtime keeps apart: the rest are
 *   folded into one record), so toucher writes 40 * A pages from left. Fresh pages: an anonymous
 *   mapping of their own (made and unmade where they are written, huge pages off), so one page fault
 *   a page, a minor one.
 * Expected: main 1, left 1, right 1, toucher 2, rtouch D, sleeper 1.
 * Page faults: toucher's self A + B (A from left, B from right); left's and right's self 0 (their
 * inclusive A and B); rtouch's self D * K, inclusive D * K (recursion counted once); the arc
 * main -> rtouch inclusive D * K and self K, the arc rtouch -> rtouch self (D - 1) * K. Context
 * switches: sleeper's self at least S (a preemption may add one). */
#define _GNU_SOURCE
#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sample.h"

/* n fresh pages written once each, then unmapped. Straight system calls, and not checked by
 * AddressSanitizer or ThreadSanitizer: their interceptors and shadow memory would fault pages of
 * their own in. */
static long pg;

static __attribute__((always_inline, no_sanitize("address", "thread"))) inline void write_pages(long n)
{
	size_t len = (size_t)(n * pg);
	char *m = (char *)syscall(SYS_mmap, NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
				  -1, 0);

	if (m == MAP_FAILED)
		exit(1);
	syscall(SYS_madvise, m, len, MADV_NOHUGEPAGE);
	for (long i = 0; i < n; i++) {
		m[i * pg] = 1;
		BARRIER();
	}
	syscall(SYS_munmap, m, len);
}

NOINL __attribute__((no_sanitize("address", "thread"))) void toucher(long n)
{
	write_pages(n);
}

/* After fork() the child maps the program's code pages afresh as it runs them (the kernel copies no
 * page table entries of file mappings): the first run of toucher's page, or of libc's syscall(), would
 * count a fault in toucher (under the sanitizers toucher and right lie on different pages). And the
 * stack's pages are the parent's until written (copy on write). So the child first reads a byte of
 * every page of every executable segment, and writes 64 KiB of stack below its frame. Not
 * instrumented: no function of the profile. */
static volatile char touched;

static __attribute__((no_instrument_function)) int code_in(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	(void)arg;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

		if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
			continue;
		for (ElfW(Addr) a = (info->dlpi_addr + ph->p_vaddr) & ~(ElfW(Addr))(pg - 1);
		     a < info->dlpi_addr + ph->p_vaddr + ph->p_memsz; a += (ElfW(Addr))pg)
			touched = *(volatile const char *)a;
	}
	return 0;
}

NOINL __attribute__((no_instrument_function)) void child_own(void)
{
	volatile char b[1 << 16];

	dl_iterate_phdr(code_in, NULL);
	for (size_t i = 0; i < sizeof(b); i += 256)
		b[i] = 0;
}

NOINL void left(long a)
{
	toucher(a);
	BARRIER();
}

NOINL void right(long b)
{
	toucher(b);
	BARRIER();
}

NOINL __attribute__((no_sanitize("address", "thread"))) void rtouch(long d, long k)
{
	write_pages(k);
	if (d > 1)
		rtouch(d - 1, k);
	BARRIER();
}

NOINL void sleeper(long s)
{
	for (long i = 0; i < s; i++) {
		struct timespec ms = { 0, 1000000 };

		nanosleep(&ms, NULL);
	}
}

static long a;

static void *left_thread(void *arg)
{
	(void)arg;
	left(a);
	return NULL;
}

int main(int argc, char **argv)
{
	long b = argc > 2 ? atol(argv[2]) : 25;
	long d = argc > 3 ? atol(argv[3]) : 4, k = argc > 4 ? atol(argv[4]) : 10;

	pg = sysconf(_SC_PAGESIZE);
	a = argc > 1 ? atol(argv[1]) : 40;
	if (argc > 6 && !strcmp(argv[6], "threads")) { /* left on a thread, at the same time as right */
		pthread_t t;

		if (pthread_create(&t, NULL, left_thread, NULL))
			return 1;
		right(b);
		pthread_join(t, NULL);
	} else if (argc > 6 && !strcmp(argv[6], "fold")) { /* 40 threads in turn */
		for (int i = 0; i < 40; i++) {
			pthread_t t;

			if (pthread_create(&t, NULL, left_thread, NULL) || pthread_join(t, NULL))
				return 1;
		}
		right(b);
	} else if (argc > 6 && !strcmp(argv[6], "fork")) { /* right in a child, which ends there */
		int st;
		pid_t pid;

		left(a);
		fflush(stdout);
		pid = fork();
		if (pid < 0)
			return 1;
		if (pid == 0) {
			child_own();
			right(b);
			return 0;
		}
		if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st))
			return 1;
	} else {
		left(a);
		right(b);
	}
	rtouch(d, k);
	sleeper(argc > 5 ? atol(argv[5]) : 0);
	printf("left %ld right %ld rtouch %ld x %ld\n", a, b, d, k);
	return 0;
}
