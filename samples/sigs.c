/* sigs: signals the program handles itself, for the interruption trace (t154).
 *   args N1 N2 (default 5 3): sender1 raises SIGUSR1 N1 times (a plain handler, on_usr1), then
 *   sender2 raises SIGUSR2 N2 times (an SA_SIGINFO handler, on_usr2). The program prints how often
 *   each handler ran, how often on_usr2's siginfo named SIGUSR2, and whether sigaction() reads back
 *   its own handler for SIGUSR1 (1) as it set it.
 * Expected: main 1, sender1 N1, sender2 N2, on_usr1 N1, on_usr2 N2. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sample.h"

static volatile sig_atomic_t got1, got2, info;

NOINL void on_usr1(int sig)
{
	(void)sig;
	got1++;
}

NOINL void on_usr2(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)uc;
	got2++;
	info += si->si_signo == SIGUSR2;
}

NOINL void sender1(void)
{
	raise(SIGUSR1);
	BARRIER();
}

NOINL void sender2(void)
{
	raise(SIGUSR2);
	BARRIER();
}

int main(int argc, char **argv)
{
	int n1 = argc > 1 ? atoi(argv[1]) : 5, n2 = argc > 2 ? atoi(argv[2]) : 3;
	struct sigaction a, b, q;

	memset(&a, 0, sizeof(a));
	a.sa_handler = on_usr1;
	sigemptyset(&a.sa_mask);
	memset(&b, 0, sizeof(b));
	b.sa_sigaction = on_usr2;
	b.sa_flags = SA_SIGINFO;
	sigemptyset(&b.sa_mask);
	if (sigaction(SIGUSR1, &a, NULL) || sigaction(SIGUSR2, &b, NULL) || sigaction(SIGUSR1, NULL, &q))
		return 1;
	for (int i = 0; i < n1; i++) {
		sender1();
		BARRIER();
	}
	for (int i = 0; i < n2; i++) {
		sender2();
		BARRIER();
	}
	printf("got1 %d got2 %d info %d readback %d\n", (int)got1, (int)got2, (int)info, q.sa_handler == on_usr1);
	return 0;
}
