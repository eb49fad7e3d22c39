/* An instrumented SIGALRM handler, on_alarm, that calls hmid once and hmid calls hleaf twice, run N
 * times (argv[1], default 5000) by a 5 kHz setitimer while main loops in mid (which calls leaf
 * twice): on_alarm N, hmid N, hleaf 2N, and mid's and leaf's counts whatever the loop made, leaf's
 * exactly twice mid's. argv[2]: "info" installs it with SA_SIGINFO, "signal" with signal(), else
 * plain sigaction; "shared": on_alarm also calls mid, the loop's own code (on_alarm -> mid N times).
 * It checks that reading the action back gives its own handler (exit 3 if not). */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include "sample.h"

static volatile int handled;
static int shared;
NOINL unsigned hleaf(unsigned x) { BARRIER(); return x * 3 + 1; }
NOINL unsigned hmid(unsigned x) { unsigned s = hleaf(x); BARRIER(); return s + hleaf(s); }
NOINL unsigned mid(unsigned x);
NOINL void on_alarm(int sig)
{
	(void)sig;
	hmid((unsigned)handled);
	if (shared)
		mid((unsigned)handled);
	handled++;
}
NOINL void on_alarm_info(int sig, siginfo_t *si, void *uc) { (void)si; (void)uc; on_alarm(sig); }
NOINL unsigned leaf(unsigned x) { BARRIER(); return x + 1; }
NOINL unsigned mid(unsigned x) { unsigned s = leaf(x); BARRIER(); return s + leaf(s); }

int main(int argc, char **argv)
{
	struct sigaction sa, old;
	struct itimerval it = { { 0, 200 }, { 0, 200 } };
	const char *how = argc > 2 ? argv[2] : "";
	int want = argc > 1 ? atoi(argv[1]) : 5000;
	unsigned s = 0;

	shared = !strcmp(how, "shared");
	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART;
	if (!strcmp(how, "signal")) {
		if (signal(SIGALRM, on_alarm) == SIG_ERR || signal(SIGALRM, on_alarm) != on_alarm)
			return 3;
	} else if (!strcmp(how, "info")) {
		sa.sa_sigaction = on_alarm_info;
		sa.sa_flags |= SA_SIGINFO;
		if (sigaction(SIGALRM, &sa, NULL) || sigaction(SIGALRM, NULL, &old) ||
		    old.sa_sigaction != on_alarm_info || !(old.sa_flags & SA_SIGINFO))
			return 3;
	} else {
		sa.sa_handler = on_alarm;
		if (sigaction(SIGALRM, &sa, NULL) || sigaction(SIGALRM, NULL, &old) ||
		    old.sa_handler != on_alarm || (old.sa_flags & SA_SIGINFO))
			return 3;
	}
	setitimer(ITIMER_REAL, &it, NULL);
	while (handled < want)
		s += mid(s);
	memset(&it, 0, sizeof(it));
	setitimer(ITIMER_REAL, &it, NULL);
	printf("handled %d\n", handled);
	return s == 1;
}
