/* snapstress HOW [N]: a profile written while the program does its worst must be one moment's: each
 * function's add-one count equals the calls its arcs recorded (spinprof's self-check), though the
 * count is made in the function's prologue and the arc in its entry hook, just after. The counts
 * depend on where the run stops; only the self-check is judged (t138; no .expect).
 *   flood: on_usr1 (calls hleaf) lands anywhere, between a count and its hook included: a sender
 *     thread (SIGUSR1 blocked) sends SIGUSR1 without pause to two threads looping on mid() (which
 *     calls leaf twice), through exit; main makes N rounds (default 200000) of mid() and exit(0).
 *   dump: the same flood on a thread looping on leaf(), while main calls spy_dump(DUMP.I) N times.
 *   starve: no signals; the process on one CPU, a thread looping on leaf() at nice 19, and main
 *     calls spy_dump(DUMP.I) N times, each while a thread spins for 150 ms (not instrumented work),
 *     so that the looping thread waits for the CPU, anywhere in its loop, longer than a write used
 *     to wait for it (50 ms: on a busy machine the write read it between a count and its arc).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include "spy.h"
#include "sample.h"

static pid_t targets[2];
static int ntargets;

NOINL unsigned hleaf(unsigned x)
{
	BARRIER();
	return x * 3 + 1;
}
NOINL void on_usr1(int sig)
{
	(void)sig;
	hleaf((unsigned)sig);
}
NOINL unsigned leaf(unsigned x)
{
	BARRIER();
	return x + 1;
}
NOINL unsigned mid(unsigned x)
{
	unsigned s = leaf(x);
	BARRIER();
	return s + leaf(s);
}
static void add_target(void)
{
	pid_t me = (pid_t)syscall(SYS_gettid);

	__atomic_store_n(&targets[__atomic_fetch_add(&ntargets, 1, __ATOMIC_SEQ_CST)], me, __ATOMIC_SEQ_CST);
}
NOINL void *looper(void *arg)
{
	unsigned s = 0;

	add_target();
	for (;;)
		s += mid(s);
	return arg;
}
NOINL void *leafloop(void *arg)
{
	unsigned s = 0;

	add_target();
	for (;;)
		s = leaf(s);
	return arg;
}
/* not instrumented work: sends without pause until the process ends */
static void *sender(void *arg)
{
	pid_t pid = getpid();
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	for (unsigned i = 0;; i++) {
		int n = __atomic_load_n(&ntargets, __ATOMIC_SEQ_CST);

		if (n)
			syscall(SYS_tgkill, pid, __atomic_load_n(&targets[i % n], __ATOMIC_SEQ_CST), SIGUSR1);
	}
	return arg;
}
static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}
static uint64_t hog_until; /* spin until then (CLOCK_MONOTONIC ns), then sleep */
static void *hog(void *arg)
{
	for (;;) {
		while (now_ns() < __atomic_load_n(&hog_until, __ATOMIC_SEQ_CST))
			;
		usleep(1000);
	}
	return arg;
}
NOINL void *niceloop(void *arg)
{
	unsigned s = 0;

	setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), 19);
	add_target();
	for (;;)
		s = leaf(s);
	return arg;
}
static int dumps(int n, int starve)
{
	const char *base = getenv("DUMP");
	char path[4096];
	unsigned s = 0;

	for (int i = 0; i < n; i++) {
		s += mid(s);
		if (starve) {
			__atomic_store_n(&hog_until, now_ns() + 150000000u, __ATOMIC_SEQ_CST);
			usleep(20000); /* the hog runs, the looping thread waits */
		}
		snprintf(path, sizeof(path), "%s.%d", base ? base : "d.out", i);
		if (spy_dump(path))
			return 9;
		while (starve && now_ns() < __atomic_load_n(&hog_until, __ATOMIC_SEQ_CST))
			usleep(1000);
	}
	return 0;
}
int main(int argc, char **argv)
{
	const char *how = argc > 1 ? argv[1] : "flood";
	int n = argc > 2 ? atoi(argv[2]) : 200000;
	struct sigaction sa;
	pthread_t t;
	unsigned s = 0;

	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART;
	sa.sa_handler = on_usr1;
	if (sigaction(SIGUSR1, &sa, NULL))
		return 3;
	if (!strcmp(how, "starve")) {
		cpu_set_t one;
		int c = 0;

		/* all on the first CPU the process may use */
		if (sched_getaffinity(0, sizeof(one), &one))
			return 3;
		while (c < CPU_SETSIZE && !CPU_ISSET(c, &one))
			c++;
		CPU_ZERO(&one);
		CPU_SET(c, &one);
		if (sched_setaffinity(0, sizeof(one), &one))
			return 3;
		pthread_create(&t, NULL, hog, NULL);
		pthread_create(&t, NULL, niceloop, NULL);
		while (!__atomic_load_n(&ntargets, __ATOMIC_SEQ_CST))
			s += mid(s);
		return dumps(n, 1);
	}
	if (!strcmp(how, "dump")) {
		pthread_create(&t, NULL, leafloop, NULL);
		while (!__atomic_load_n(&ntargets, __ATOMIC_SEQ_CST))
			s += mid(s);
		pthread_create(&t, NULL, sender, NULL);
		return dumps(n, 0);
	}
	pthread_create(&t, NULL, looper, NULL);
	pthread_create(&t, NULL, looper, NULL);
	pthread_create(&t, NULL, sender, NULL);
	for (int i = 0; i < n; i++)
		s += mid(s);
	exit(0);
}
