/* Ends by the signal argv[1] names, after exactly 1000 calls of work() (run by t128, t129):
 * INT TERM HUP QUIT kill the process from main; SEGV FPE ILL BUS ABRT crash in crash_here(), called
 * once; tSEGV crashes in crash_here() on a second thread while main keeps calling work(); own installs
 * a SIGINT handler that prints "own handler", sets SIG_DFL back and raises SIGINT again; flag installs
 * a SIGTERM handler that only sets a flag, and main then returns 0; query prints whether SIGINT's
 * disposition reads back as SIG_DFL; forever calls work() until killed; spin loops without calls
 * in spin() until killed. Any other: exit 3. */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "sample.h"

static volatile int zero;
static volatile sig_atomic_t flagged;

NOINL int work(int x)
{
	BARRIER();
	return x + 1;
}

NOINL void crash_here(const char *how)
{
	if (!strcmp(how, "SEGV"))
		*(volatile int *)(long)zero = 1;
	if (!strcmp(how, "FPE")) {
		volatile int seven = 7;

		zero = seven / zero;
	}
	if (!strcmp(how, "ILL"))
		__builtin_trap();
	if (!strcmp(how, "ABRT"))
		abort();
	if (!strcmp(how, "BUS")) {
		FILE *f = tmpfile();
		volatile char *p = f ? mmap(0, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fileno(f), 0) : NULL;

		if (p && p != MAP_FAILED)
			p[0] = 1;
	}
	BARRIER();
}

/* a loop without calls: no hook comes after a signal lands here */
NOINL void spin(void)
{
	for (;;)
		zero = zero + 1;
}

static void on_int(int sig)
{
	static const char m[] = "own handler\n";

	if (write(1, m, sizeof(m) - 1) < 0)
		_exit(7);
	signal(sig, SIG_DFL);
	raise(sig);
}

static void on_term(int sig)
{
	(void)sig;
	flagged = 1;
}

static void *crasher(void *arg)
{
	usleep(10000);
	crash_here(arg);
	return NULL;
}

int main(int argc, char **argv)
{
	const char *how = argc > 1 ? argv[1] : "";
	int s = 0;

	if (!strcmp(how, "own"))
		signal(SIGINT, on_int);
	if (!strcmp(how, "flag"))
		signal(SIGTERM, on_term);
	if (!strcmp(how, "query")) {
		struct sigaction o;

		sigaction(SIGINT, NULL, &o);
		printf("%s\n", o.sa_handler == SIG_DFL ? "default" : "other");
	}
	for (int i = 0; i < 1000; i++)
		s += work(i);
	if (!strcmp(how, "INT") || !strcmp(how, "own"))
		kill(getpid(), SIGINT);
	else if (!strcmp(how, "TERM") || !strcmp(how, "flag"))
		kill(getpid(), SIGTERM);
	else if (!strcmp(how, "HUP"))
		kill(getpid(), SIGHUP);
	else if (!strcmp(how, "QUIT"))
		kill(getpid(), SIGQUIT);
	else if (!strcmp(how, "tSEGV")) {
		pthread_t t;

		pthread_create(&t, NULL, crasher, "SEGV");
		for (;;)
			s = work(s);
	} else if (!strcmp(how, "spin"))
		spin();
	else if (!strcmp(how, "forever"))
		for (;;)
			s = work(s);
	else if (strcmp(how, "query"))
		crash_here(how);
	if (flagged) {
		printf("flagged\n");
		return 0;
	}
	printf("not killed %d\n", s > 0);
	return 3;
}
