/* exitthreads HOW [N]: a profile written while other threads make calls must be one moment's. A
 * worker thread makes N rounds (default 20000) of mid(i), which calls leaf() twice, then ends the run
 * HOW: "exit", exit(5) while main loops on mid(); "dump", spy_dump(getenv("DUMP")) while main loops,
 * then status 0 once main sees the worker done; "main": main makes N rounds of mid() with a second
 * thread looping on it, then exit(6). Beside them a thread asleep in read() on a pipe nobody writes
 * (after one call of mid) and one that calls mid() every 100 us. The counts depend on where the run
 * stops; what holds is that each function's add-one count equals the calls its arcs recorded
 * (spinprof's self-check). Run by t126 and t136 (no .expect). */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "spy.h"
#include "sample.h"

static int go = 1; /* atomic: ThreadSanitizer checks the runs */
static int fds[2];
static int rounds = 20000;

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
NOINL void *worker(void *arg)
{
	unsigned s = 0;
	for (int i = 0; i < rounds; i++)
		s += mid(i);
	if (!strcmp(arg, "exit"))
		exit(5);
	if (!strcmp(arg, "dump") && spy_dump(getenv("DUMP")))
		exit(9);
	__atomic_store_n(&go, 0, __ATOMIC_RELAXED);
	return NULL;
}
NOINL void *loop(void *arg)
{
	unsigned s = 0;
	while (__atomic_load_n(&go, __ATOMIC_RELAXED))
		s += mid(s);
	return arg;
}
NOINL void *sleeper(void *arg)
{
	char c;
	mid(1);
	if (read(fds[0], &c, 1) < 0)
		mid(2);
	return arg;
}
NOINL void *ticker(void *arg)
{
	for (;;) {
		mid(3);
		usleep(100);
	}
	return arg;
}
int main(int argc, char **argv)
{
	pthread_t t, u;
	const char *how = argc > 1 ? argv[1] : "exit";

	if (argc > 2)
		rounds = atoi(argv[2]);
	if (pipe(fds))
		return 8;
	pthread_create(&u, NULL, sleeper, NULL);
	pthread_create(&u, NULL, ticker, NULL);
	pthread_create(&t, NULL, worker, (void *)how);
	if (!strcmp(how, "main")) {
		unsigned s = 0;
		pthread_create(&u, NULL, loop, NULL);
		for (int i = 0; i < rounds; i++)
			s += mid(i);
		exit(6);
	}
	loop(NULL);
	pthread_join(t, NULL);
	return 0;
}
