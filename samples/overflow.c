/* overflow.c: argv[1] "recurse": work() 1000 times, then deep() recurses without end until the stack
 * overflows (SIGSEGV); "own": the same on a thread that set its own alternate signal stack (64 KiB)
 * before its first instrumented call, which must still be its own after work() and is printed ("own
 * altstack kept"); "emfile": work() 1000 times, RLIMIT_NOFILE's soft limit set to 64 (the hard one too
 * with "emfile hard"), then descriptors are opened until open() fails with EMFILE; spy_dump() then
 * writes emfile-dump.out, after which the limit is what it was and open() still fails ("limit kept"),
 * and the program exits with status 0 holding every descriptor. Run by t172. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "sample.h"
#include "spy.h"

/* weak: the plain build (t172's wait statuses) links without the runtime */
#pragma weak spy_dump

static volatile unsigned sink;

NOINL void work(unsigned i)
{
	sink += i;
	BARRIER();
}

/* a frame of a few hundred bytes a call, never a loop or a tail call */
NOINL unsigned deep(unsigned n)
{
	volatile char pad[200];

	pad[n % sizeof(pad)] = (char)n;
	return deep(n + 1) + pad[0];
}

NOINL unsigned recurse(void)
{
	unsigned r = deep(0);

	BARRIER();
	return r;
}

static char own_stack[64 << 10];

/* no hooks: the alternate signal stack is set before the thread's first instrumented call */
__attribute__((no_instrument_function)) static void *own_thread(void *arg)
{
	stack_t ss = { .ss_sp = own_stack, .ss_size = sizeof(own_stack) }, now;

	if (sigaltstack(&ss, NULL))
		return NULL;
	for (unsigned i = 0; i < 1000; i++)
		work(i);
	if (sigaltstack(NULL, &now) || now.ss_sp != own_stack || now.ss_size != sizeof(own_stack))
		return NULL;
	printf("own altstack kept\n");
	fflush(stdout);
	recurse();
	return arg;
}

static int emfile(int hard)
{
	struct rlimit l, after;
	int n = 0;

	if (getrlimit(RLIMIT_NOFILE, &l) || l.rlim_max < 64) {
		fprintf(stderr, "overflow: RLIMIT_NOFILE below 64\n");
		return 2;
	}
	l.rlim_cur = 64;
	if (hard)
		l.rlim_max = 64;
	if (setrlimit(RLIMIT_NOFILE, &l)) {
		perror("overflow: setrlimit");
		return 2;
	}
	while (open("/dev/null", O_RDONLY) >= 0)
		n++;
	if (errno != EMFILE) {
		perror("overflow: open");
		return 2;
	}
	printf("%d descriptors opened\n", n);
	if (spy_dump && spy_dump("emfile-dump.out") == 0)
		printf("dumped\n");
	if (!getrlimit(RLIMIT_NOFILE, &after) && after.rlim_cur == l.rlim_cur && after.rlim_max == l.rlim_max &&
	    open("/dev/null", O_RDONLY) < 0 && errno == EMFILE)
		printf("limit kept\n");
	return 0;
}

int main(int argc, char **argv)
{
	const char *how = argc > 1 ? argv[1] : "";

	for (unsigned i = 0; i < 1000; i++)
		work(i);
	if (!strcmp(how, "recurse"))
		return (int)recurse();
	if (!strcmp(how, "own")) {
		pthread_t t;

		if (pthread_create(&t, NULL, own_thread, NULL))
			return 2;
		pthread_join(t, NULL);
		return 2; /* not reached: the thread overflows its stack */
	}
	if (!strcmp(how, "emfile"))
		return emfile(argc > 2 && !strcmp(argv[2], "hard"));
	fprintf(stderr, "usage: overflow recurse|own|emfile [hard]\n");
	return 2;
}
