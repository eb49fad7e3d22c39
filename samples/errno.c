/* errno.c: the runtime's slow paths driven with errno set to a sentinel (1789), each of which must leave
 * it as it was: seen by the callee (after its enter hook) and by the caller (after the exit hook), and
 * around every call of spy.h, sigaction(), malloc(), fork() and a thread's end. The drivers carry no
 * hooks (no_instrument_function), so errno is set before the hook under test runs. Each point that saw
 * another value prints "errno: POINT: WHERE: N" on stderr; the status is then 1. argv[1] names the one
 * point to run (default: all); "list" prints them. Two points fail every allocation on purpose: with the
 * address space limited (RLIMIT_AS), and with the process's mappings at vm.max_map_count; neither runs
 * under AddressSanitizer or ThreadSanitizer, which must map as they go (they say "skip"). Run by t170. */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sample.h"
#include "spy.h"

#define SENT 1789
#define NOHOOK __attribute__((no_instrument_function, noinline))

static int bad;
static const char *point = "start";

NOHOOK static void seen(const char *where, int e)
{
	if (e != SENT) {
		fprintf(stderr, "errno: %s: %s: %d\n", point, where, e);
		bad++;
	}
}

/* ---- instrumented ---- */

NOINL int callee(int x)
{
	seen("in the callee", errno);
	BARRIER();
	return x + 1;
}

NOINL int leaf(int x)
{
	BARRIER();
	return x + 1;
}

/* 300 call sites of callee: past SPYRT_ARCS=64, the arc tables grow */
#define C1         \
	s += callee(1); \
	BARRIER();
#define C10 C1 C1 C1 C1 C1 C1 C1 C1 C1 C1
#define C100 C10 C10 C10 C10 C10 C10 C10 C10 C10 C10
NOINL int many_sites(void)
{
	int s = 0;

	C100 C100 C100;
	return s;
}

/* recursion: the histogram of inner calls (mode time) */
NOINL int rec(int n)
{
	int r = n ? rec(n - 1) + 1 : callee(0);

	BARRIER();
	return r;
}

/* a call across a sleep: its exit hook reads the context switches (mode time's off-CPU time) */
NOINL int sleeper(void)
{
	struct timespec ts = { 0, 2000000 };
	int e = errno;

	nanosleep(&ts, NULL);
	errno = e;
	return callee(1);
}

/* a call site and a callee not seen before: new arcs, new function entries */
NOINL int fresh1(void)
{
	return callee(2);
}

NOINL int fresh2(void)
{
	return fresh1() + rec(3);
}

NOINL int fresh3(void)
{
	return fresh2() + callee(3);
}

NOINL int nodes(void)
{
	SPY_NODE("e_node");
	seen("after SPY_NODE", errno);
	SPY_NODE_VALUE("e_value", 7);
	seen("after SPY_NODE_VALUE", errno);
	return 0;
}

/* ---- drivers, without hooks ---- */

#define DRIVE(name, expr)                      \
	do {                                   \
		point = (name);                \
		errno = SENT;                  \
		(void)(expr);                  \
		seen("after the call", errno); \
	} while (0)

NOHOOK static void p_first(void)
{
	DRIVE("first call of the main thread", callee(0));
}

NOHOOK static void p_arcs(void)
{
	DRIVE("300 new call sites (past SPYRT_ARCS)", many_sites());
	DRIVE("recursion", rec(20));
	DRIVE("new arcs", fresh3());
}

NOHOOK static void p_sleep(void)
{
	for (int i = 0; i < 5; i++)
		DRIVE("a call across a sleep (off-CPU)", sleeper());
}

static pthread_key_t key;
static __thread int key_round;

/* The program's own destructor, at each of the thread's ends: errno as it left it the round before. */
NOHOOK static void key_dtor(void *p)
{
	(void)p;
	if (key_round++)
		seen("in a thread-specific data destructor after the runtime's", errno);
	errno = SENT;
	if (key_round < PTHREAD_DESTRUCTOR_ITERATIONS)
		pthread_setspecific(key, (void *)1);
}

NOHOOK static void *thread_main(void *arg)
{
	(void)arg;
	errno = SENT;
	callee(4);
	seen("after the call", errno);
	errno = SENT;
	fresh3();
	seen("after more calls", errno);
	pthread_setspecific(key, (void *)1);
	errno = SENT;
	return NULL;
}

NOHOOK static void p_thread(void)
{
	pthread_t t;

	point = "a new thread's first call, its end";
	pthread_key_create(&key, key_dtor);
	if (pthread_create(&t, NULL, thread_main, NULL) || pthread_join(t, NULL)) {
		fprintf(stderr, "errno: cannot run a thread\n");
		bad++;
	}
}

NOHOOK static void p_api(void)
{
	int on;

	DRIVE("spy_off", (spy_off(), 0));
	DRIVE("spy_on", (spy_on(), 0));
	DRIVE("spy_enabled", (on = spy_enabled()));
	DRIVE("spy_flush", (spy_flush(), 0));
	DRIVE("spy_dump", spy_dump("errno-dump.out"));
	DRIVE("spy_dump that fails", spy_dump("/nonexistent/dir/errno-dump.out"));
	DRIVE("nodes", nodes());
	(void)on;
}

static volatile sig_atomic_t handled;

NOHOOK static void on_usr1(int sig)
{
	(void)sig;
#if defined(__SANITIZE_THREAD__)
	errno = SENT; /* ThreadSanitizer runs every handler with errno 99: its own test of handlers */
#else
	seen("at the handler's start", errno);
#endif
	callee(5);
	handled++;
}

NOHOOK static void p_signals(void)
{
	struct sigaction sa, old;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1;
	sigemptyset(&sa.sa_mask);
	DRIVE("sigaction SIGUSR1", sigaction(SIGUSR1, &sa, NULL));
	DRIVE("a signal whose handler calls instrumented code", raise(SIGUSR1));
	DRIVE("signal SIGUSR2", signal(SIGUSR2, on_usr1));
	DRIVE("sigaction SIGSEGV read", sigaction(SIGSEGV, NULL, &old));
	DRIVE("sigaction SIGSEGV SIG_DFL", sigaction(SIGSEGV, &old, NULL));
	DRIVE("sigaction SIGTERM read", sigaction(SIGTERM, NULL, &old));
}

/* CPU time on the thread's clock, ns */
NOHOOK static long long cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

NOHOOK static void p_spin(void)
{
	long long t0 = cpu_ns();
	unsigned s = 0;

	point = "calls while samples land (100 ms of CPU)";
	errno = SENT;
	while (cpu_ns() - t0 < 100000000LL) {
		for (int i = 0; i < 1000; i++)
			s += (unsigned)leaf(i);
		if (errno != SENT) {
			seen("between calls", errno);
			errno = SENT;
		}
	}
	if (!s)
		puts("");
}

NOHOOK static void *alloc_thread(void *arg)
{
	void *p;

	(void)arg;
	errno = SENT;
	p = malloc(100);
	seen("after a thread's first malloc", errno);
	free(p);
	return NULL;
}

NOHOOK static void p_malloc(void)
{
	pthread_t t;
	void *p;

	DRIVE("malloc", (p = malloc(1000)));
	free(p);
	point = "a new thread's first malloc";
	if (!pthread_create(&t, NULL, alloc_thread, NULL))
		pthread_join(t, NULL);
}

NOHOOK static void p_fork(void)
{
	int st = 0, before = bad;
	pid_t pid;

	point = "fork";
	errno = SENT;
	pid = fork();
	if (pid == 0) {
		seen("in the child", errno);
		errno = SENT;
		callee(6);
		seen("after the child's call", errno);
		exit(bad > before ? 1 : 0);
	}
	seen("in the parent", errno);
	if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st)) {
		fprintf(stderr, "errno: fork: the child failed (status %#x)\n", st);
		bad++;
	}
}

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define NO_LIMITS "the sanitizer maps as it goes"
#else
#define NO_LIMITS NULL
#endif

/* The process's address space in bytes (VmSize). */
NOHOOK static unsigned long long vm_size(void)
{
	unsigned long long kb = 0;
	char line[256];
	FILE *f = fopen("/proc/self/status", "r");

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "VmSize: %llu kB", &kb) == 1)
			break;
	if (f)
		fclose(f);
	return kb * 1024;
}

static sem_t go, done;

NOHOOK static void *limited_thread(void *arg)
{
	(void)arg;
	sem_wait(&go);
	errno = SENT;
	callee(7);
	seen("after a thread's first call without memory", errno);
	errno = SENT;
	fresh3();
	seen("after more calls without memory", errno);
	sem_post(&done);
	return NULL;
}

/* A thread started, its first call made once the address space cannot grow (RLIMIT_AS): its
 * tables, counters and records cannot be mapped. */
NOHOOK static void p_rlimit_as(void)
{
	struct rlimit old, lim;
	pthread_attr_t a;
	pthread_t t;

	point = "allocations failing (RLIMIT_AS)";
	if (NO_LIMITS) {
		fprintf(stderr, "skip: %s: %s\n", point, NO_LIMITS);
		return;
	}
	sem_init(&go, 0, 0);
	sem_init(&done, 0, 0);
	pthread_attr_init(&a);
	pthread_attr_setstacksize(&a, 256 << 10);
	if (getrlimit(RLIMIT_AS, &old) || pthread_create(&t, &a, limited_thread, NULL)) {
		fprintf(stderr, "errno: %s: cannot set up\n", point);
		bad++;
		return;
	}
	lim = old;
	lim.rlim_cur = vm_size() + (1 << 20);
	setrlimit(RLIMIT_AS, &lim);
	sem_post(&go);
	sem_wait(&done);
	setrlimit(RLIMIT_AS, &old);
	pthread_join(t, NULL);
}

NOHOOK static void *mapless_thread(void *arg)
{
	(void)arg;
	sem_wait(&go);
	for (int i = 0; i < 3; i++) {
		errno = SENT;
		sleeper();
		seen("after a call across a sleep without mappings", errno);
	}
	errno = SENT;
	many_sites();
	seen("after new call sites without mappings", errno);
	errno = SENT;
	rec(30);
	seen("after a recursion without mappings", errno);
	sem_post(&done);
	return NULL;
}

/* A thread started, its calls made once no mapping can be made or split (vm.max_map_count): every
 * page of its tables not yet committed stays so. */
NOHOOK static void p_mapcount(void)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE), n = 1 << 17;
	pthread_t t;
	char *m;

	point = "allocations failing (vm.max_map_count)";
	if (NO_LIMITS) {
		fprintf(stderr, "skip: %s: %s\n", point, NO_LIMITS);
		return;
	}
	sem_init(&go, 0, 0);
	sem_init(&done, 0, 0);
	if (pthread_create(&t, NULL, mapless_thread, NULL)) {
		fprintf(stderr, "errno: %s: cannot set up\n", point);
		bad++;
		return;
	}
	usleep(10000); /* its first call is over (it waits in sem_wait) */
	m = mmap(NULL, 2 * n * pg, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (m == MAP_FAILED) {
		fprintf(stderr, "errno: %s: cannot set up\n", point);
		bad++;
		return;
	}
	/* every other page readable: a mapping each, until the kernel refuses one more */
	for (size_t i = 0; i < n && !mprotect(m + 2 * i * pg, pg, PROT_READ); i++)
		;
	sem_post(&go);
	sem_wait(&done);
	munmap(m, 2 * n * pg);
	pthread_join(t, NULL);
}

static const struct {
	const char *name;
	void (*run)(void);
} points[] = {
	{ "first", p_first },   { "arcs", p_arcs },       { "sleep", p_sleep },
	{ "thread", p_thread }, { "api", p_api },         { "signals", p_signals },
	{ "spin", p_spin },     { "malloc", p_malloc },   { "fork", p_fork },
	{ "as", p_rlimit_as },  { "maps", p_mapcount },
};

NOHOOK int main(int argc, char **argv)
{
	size_t n = sizeof(points) / sizeof(points[0]), ran = 0;

	for (size_t i = 0; i < n; i++) {
		if (argc > 1 && !strcmp(argv[1], "list")) {
			puts(points[i].name);
			continue;
		}
		if (argc > 1 && strcmp(argv[1], points[i].name))
			continue;
		points[i].run();
		ran++;
	}
	if (argc > 1 && strcmp(argv[1], "list") && !ran) {
		fprintf(stderr, "errno: no point %s\n", argv[1]);
		return 2;
	}
	return bad ? 1 : 0;
}
