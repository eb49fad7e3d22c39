/* A run ended by a signal keeps its profile: on SIGINT, SIGTERM, SIGHUP and SIGQUIT the profile is
 * written and the signal then acts as it would have; on SIGSEGV, SIGBUS, SIGFPE, SIGILL and SIGABRT what
 * can be read is written, marked incomplete with the signal and the PC, and the signal is raised again
 * (same exit status, same core dump). Only where the program left the default action: its own handlers
 * keep priority, and setting SIG_DFL again gives the signal back to the runtime (sample-sig.c). */
#include "spyrt.h"

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <ucontext.h>
#include <unistd.h>

static const int term_sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };
static const int crash_sigs[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT };

#define SPY_NSIG 65
static int ours[SPY_NSIG];              /* the runtime's handler stands for the program's SIG_DFL */
static struct sigaction view[SPY_NSIG]; /* what the program last set (SIG_DFL): what it reads back */
static pid_t handling;                  /* the thread writing at a signal */
static volatile sig_atomic_t dying_sig; /* for the watchdog */
SPY_TLS int spy_in_write;               /* this thread is in spy_write */
uint32_t spy_end_signal;                /* the signal that ends the run, 0 if none */
uint64_t spy_end_pc;                    /* where it came */
uint64_t spy_end_func;                  /* the innermost instrumented function then, 0 if none */
int spy_end_crash;                      /* it is a crash: the profile is what could be read */

/* Longest the write at a signal may take: a deadlock (a crash inside malloc) ends with the signal. */
#define SPY_SIG_WATCHDOG_S 10

static int in_list(int sig, const int *list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (list[i] == sig)
			return 1;
	return 0;
}

int spy_sig_watched(int sig)
{
	return in_list(sig, term_sigs, sizeof(term_sigs) / sizeof(*term_sigs)) ||
	       in_list(sig, crash_sigs, sizeof(crash_sigs) / sizeof(*crash_sigs));
}

static int is_crash(int sig)
{
	return in_list(sig, crash_sigs, sizeof(crash_sigs) / sizeof(*crash_sigs));
}

static pid_t my_tid(void)
{
	return (pid_t)syscall(SYS_gettid);
}

/* The default action, now: a fault raised by an instruction faults again on return (the core shows
 * it); anything else is raised again on this thread. */
static void act_default(int sig, const siginfo_t *si)
{
	struct sigaction dfl;
	sigset_t one;

	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	sigemptyset(&dfl.sa_mask);
	spy_real_sigaction(sig, &dfl, NULL);
	sigemptyset(&one);
	sigaddset(&one, sig);
	pthread_sigmask(SIG_UNBLOCK, &one, NULL);
	if (sig != SIGABRT && is_crash(sig) && si && si->si_code > 0)
		return;
	syscall(SYS_tgkill, getpid(), my_tid(), sig);
}

static void on_watchdog(int unused)
{
	SPY_KEEP_ERRNO;
	struct sigaction dfl;

	(void)unused;
	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	spy_real_sigaction(dying_sig, &dfl, NULL);
	kill(getpid(), dying_sig);
}

static void watchdog(int sig)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_watchdog;
	sigemptyset(&sa.sa_mask);
	dying_sig = sig;
	spy_real_sigaction(SIGALRM, &sa, NULL);
	alarm(SPY_SIG_WATCHDOG_S);
}

static const char *sig_name(int sig)
{
	switch (sig) {
	case SIGINT:
		return "SIGINT";
	case SIGTERM:
		return "SIGTERM";
	case SIGHUP:
		return "SIGHUP";
	case SIGQUIT:
		return "SIGQUIT";
	case SIGSEGV:
		return "SIGSEGV";
	case SIGBUS:
		return "SIGBUS";
	case SIGFPE:
		return "SIGFPE";
	case SIGILL:
		return "SIGILL";
	case SIGABRT:
		return "SIGABRT";
	}
	return "a signal";
}

/* Writes under way, and a termination signal that came during one. */
static uint32_t writers;
static volatile sig_atomic_t after_write_sig;

void spy_sig_write_begin(void)
{
	__atomic_fetch_add(&writers, 1, __ATOMIC_SEQ_CST);
}

void spy_sig_write_end(void)
{
	if (__atomic_sub_fetch(&writers, 1, __ATOMIC_SEQ_CST) == 0 && after_write_sig)
		act_default(after_write_sig, NULL);
}

/* The signal's write as a call's next hook makes it (see on_signal). */
static pid_t deferred_tid;
static volatile sig_atomic_t deferred_sig;

static void write_and_die(int sig, const siginfo_t *si)
{
	watchdog(sig);
	spy_write_final();
	alarm(0);
	act_default(sig, si);
}

/* A hook of the thread a termination signal was left to (spy_park): write, then the signal. */
void spy_sig_deferred(void)
{
	int sig = deferred_sig;

	if (my_tid() != deferred_tid || !(__atomic_fetch_and(&spy_frozen, ~2u, __ATOMIC_SEQ_CST) & 2))
		return;
	write_and_die(sig, NULL);
}

/* No hook came (a loop without calls): the write happens from here. */
static void on_fallback(int unused)
{
	SPY_KEEP_ERRNO;

	(void)unused;
	if (!(__atomic_fetch_and(&spy_frozen, ~2u, __ATOMIC_SEQ_CST) & 2))
		return;
	/* the timer may land on a thread whose tables cannot be read from here */
	if (spy_in_write || __atomic_load_n(&spy_lock.__data.__owner, __ATOMIC_RELAXED) == my_tid()) {
		spy_warn("spy: %s while the profiler was busy: profile not written", sig_name(deferred_sig));
		act_default(deferred_sig, NULL);
		return;
	}
	write_and_die(deferred_sig, NULL);
}

static void defer(struct spy_thread *t, int sig)
{
	struct sigaction sa;
	struct itimerval it = { { 0, 0 }, { 0, 200000 } };

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_fallback;
	sigemptyset(&sa.sa_mask);
	deferred_sig = sig;
	deferred_tid = my_tid();
	spy_real_sigaction(SIGALRM, &sa, NULL);
	__atomic_or_fetch(&spy_frozen, 2u, __ATOMIC_SEQ_CST);
	__atomic_store_n(&t->stale, 1, __ATOMIC_SEQ_CST);
	setitimer(ITIMER_REAL, &it, NULL);
}

static void on_signal(int sig, siginfo_t *si, void *ucv)
{
	SPY_KEEP_ERRNO; /* whichever way it returns */
	pid_t me = my_tid(), prev = 0;

	if (!__atomic_compare_exchange_n(&handling, &prev, me, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {
		if (prev == me) {
			/* a fault in the write itself: the default action now; a termination signal
			 * again (timeout signals the child and then its group): the first one ends the run */
			if (is_crash(sig))
				act_default(sig, si);
			return;
		}
		for (;;) /* another thread writes, then ends the process */
			pause();
	}
	/* a write under way (spy_dump, the exit's, on any thread): a termination signal waits for it
	 * to finish, so no temporary file is left behind (spy_sig_write_end) */
	if (!is_crash(sig) && __atomic_load_n(&writers, __ATOMIC_SEQ_CST)) {
		after_write_sig = sig;
		if (__atomic_load_n(&writers, __ATOMIC_SEQ_CST))
			return;
		after_write_sig = 0;
	}
	/* spy_lock held or a write under way on this thread: its tables cannot be read from here */
	if (!spy_ready || spy_final_written()) {
		/* nothing to add: the run's profile is written (a crash after it would spoil it) */
	} else if (spy_in_write || __atomic_load_n(&spy_lock.__data.__owner, __ATOMIC_RELAXED) == me) {
		spy_warn("spy: %s while the profiler was busy on this thread: profile not written",
			 sig_name(sig));
	} else {
		struct spy_thread *t = spy_tls_thread;

		spy_end_signal = (uint32_t)sig;
		spy_end_pc = spy_sig_pc(ucv);
		/* the innermost instrumented call of this thread (for a PC in a library, say) */
		if (t != &spy_idle_thread && t != &spy_unattached && t->tables && t->depth)
			spy_end_func = t->stack[t->depth - 1].self;
		spy_end_crash = is_crash(sig);
		/* a termination signal in instrumented code: written at the thread's next hook, after
		 * that call is recorded (within 200 ms, else from a timer) */
		if (!spy_end_crash && spy_sig_may_split(t, spy_end_pc)) {
			defer(t, sig);
			return;
		}
		watchdog(sig);
		spy_write_final();
		alarm(0);
	}
	act_default(sig, si);
}

int spy_sig_crash_ours(void)
{
	return __atomic_load_n(&ours[SIGSEGV], __ATOMIC_ACQUIRE);
}

static void install(int sig)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_signal;
	/* a crash on the thread's alternate signal stack where it has one (stacks.c): a stack overflow's
	 * SIGSEGV cannot be delivered on the stack that overflowed */
	sa.sa_flags = SA_SIGINFO | SA_RESTART | (is_crash(sig) ? SA_ONSTACK : 0);
	sigemptyset(&sa.sa_mask);
	/* a termination signal during the write waits for it */
	for (size_t i = 0; i < sizeof(term_sigs) / sizeof(*term_sigs); i++)
		sigaddset(&sa.sa_mask, term_sigs[i]);
	if (!spy_real_sigaction(sig, &sa, NULL))
		__atomic_store_n(&ours[sig], 1, __ATOMIC_RELEASE);
}

void spy_sig_init(void)
{
	spy_samp_resolve_real();
	if (!spy_real_sigaction)
		return;
	for (int sig = 1; sig < SPY_NSIG; sig++) {
		struct sigaction old;

		if (!spy_sig_watched(sig) || spy_real_sigaction(sig, NULL, &old))
			continue;
		/* ignored (nohup, a background job) or handled (a sanitizer): not ours */
		if (old.sa_handler != SIG_DFL || (old.sa_flags & SA_SIGINFO))
			continue;
		view[sig] = old;
		install(sig);
	}
}

int spy_sig_action(int sig, const struct sigaction *act, struct sigaction *old)
{
	if (!__atomic_load_n(&ours[sig], __ATOMIC_ACQUIRE)) {
		if (!act || act->sa_handler != SIG_DFL)
			return spy_sig_nest_action(sig, act, old); /* the program's handler nests */
		/* the program gives the signal its default action back: the runtime's again */
		if (old && spy_real_sigaction(sig, NULL, old))
			return -1;
		view[sig] = *act;
		install(sig);
		return 0;
	}
	if (old)
		*old = view[sig];
	if (!act)
		return 0;
	if (act->sa_handler == SIG_DFL) {
		view[sig] = *act;
		return 0;
	}
	__atomic_store_n(&ours[sig], 0, __ATOMIC_RELEASE);
	return spy_sig_nest_action(sig, act, NULL);
}
