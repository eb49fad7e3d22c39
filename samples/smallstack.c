/* smallstack.c: exit() called where the stack is small. argv[1]: "thread K" runs a thread on a stack of
 * K KiB of its own (16, 32, 72, ...; glibc takes its thread descriptor and TLS from the top), which calls
 * work() 1000 times, then exit(3) from inside ender(); "altstack K" installs a handler for SIGUSR1 on an
 * alternate signal stack of K KiB (SA_ONSTACK), calls work() 1000 times, raises SIGUSR1, and the handler
 * calls exit(5) from inside ender(). Below either stack lies 1 MiB of PROT_NONE, so that running past
 * it faults however far a frame jumps. The profile written at that exit has work 1000 and ender 1;
 * the status is the program's. Run by t171. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "sample.h"

static volatile unsigned sink;

NOINL void work(unsigned i)
{
	sink += i;
	BARRIER();
}

NOINL void ender(int status)
{
	BARRIER();
	exit(status);
}

NOINL void *thread_main(void *arg)
{
	for (unsigned i = 0; i < 1000; i++)
		work(i);
	ender(3);
	return arg;
}

NOINL void on_usr1(int sig)
{
	(void)sig;
	ender(5);
}

/* kib KiB of stack with 1 MiB of PROT_NONE below: a frame that runs past it faults, even one that
 * jumps a guard page (the kernel's guard gap of a thread's stack is one page) */
static char *small_stack(size_t kib)
{
	char *m = mmap(NULL, (kib + 1024) << 10, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	if (m == MAP_FAILED || mprotect(m + (1024 << 10), kib << 10, PROT_READ | PROT_WRITE))
		return NULL;
	return m + (1024 << 10);
}

int main(int argc, char **argv)
{
	size_t kib = argc > 2 ? strtoul(argv[2], NULL, 10) : 16;

	if (argc > 1 && !strcmp(argv[1], "thread")) {
		pthread_attr_t a;
		pthread_t t;
		int rc;

		char *stack = small_stack(kib);

		pthread_attr_init(&a);
		/* glibc keeps the thread's descriptor and static TLS at the top of it */
		rc = stack ? pthread_attr_setstack(&a, stack, kib << 10) : ENOMEM;
		if (rc) {
			fprintf(stderr, "smallstack: a stack of %zu KiB: %s\n", kib, strerror(rc));
			return 2;
		}
		if (pthread_create(&t, &a, thread_main, NULL))
			return 2;
		pthread_join(t, NULL);
		return 2; /* not reached: the thread exits */
	}
	if (argc > 1 && !strcmp(argv[1], "altstack")) {
		struct sigaction sa;
		stack_t ss;

		ss.ss_sp = small_stack(kib);
		ss.ss_size = kib << 10;
		ss.ss_flags = 0;
		if (!ss.ss_sp || sigaltstack(&ss, NULL))
			return 2;
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = on_usr1;
		sa.sa_flags = SA_ONSTACK;
		sigemptyset(&sa.sa_mask);
		sigaction(SIGUSR1, &sa, NULL);
		for (unsigned i = 0; i < 1000; i++)
			work(i);
		raise(SIGUSR1);
		return 2;
	}
	fprintf(stderr, "usage: smallstack thread|altstack KIB\n");
	return 2;
}
