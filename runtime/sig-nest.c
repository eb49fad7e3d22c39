/* The program's own signal handlers, run nested on the interrupted thread's shadow stack: a handler can
 * land anywhere in a hook (between reading the depth and raising it), so its calls are given a frame
 * of their own above whatever the hook was writing, and the stack is put back as it was when the
 * handler returns; a handler that lands in a hook's slow path waits until the slow path is done. */
#include "spyrt.h"

#include <errno.h>
#include <string.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

#define SPY_NSIG 65

/* What the program set for each signal the runtime wraps: the handler and whether it takes siginfo. */
static void *prog_fn[SPY_NSIG];
static int prog_flags[SPY_NSIG];
/* Signals of this thread left until its slow path is done (bit per signal, blocked meanwhile). */
SPY_TLS uint64_t spy_nest_deferred;

static void call_prog(int sig, siginfo_t *si, void *uc)
{
	void *fn = __atomic_load_n(&prog_fn[sig], __ATOMIC_ACQUIRE);

	if (__atomic_load_n(&prog_flags[sig], __ATOMIC_RELAXED) & SA_SIGINFO)
		((void (*)(int, siginfo_t *, void *))fn)(sig, si, uc);
	else
		((void (*)(int))fn)(sig);
}

uint64_t spy_sig_pc(const void *ucv)
{
	const ucontext_t *uc = ucv;

	if (!uc)
		return 0;
#if defined(__x86_64__)
	return (uint64_t)uc->uc_mcontext.gregs[REG_RIP];
#elif defined(__aarch64__)
	return (uint64_t)uc->uc_mcontext.pc;
#else
	return 0;
#endif
}

/* The code a handler returns through (glibc's __restore_rt: mov $15, %rax; syscall), read back from
 * the kernel once the trampoline is installed: a handler that lands there, before the sigreturn,
 * runs above the context the previous handler interrupted, which may be a split call. */
static uint64_t restorer;
#define RESTORER_LEN 9

int spy_sig_may_split(const struct spy_thread *t, uint64_t pc)
{
	uint64_t r = __atomic_load_n(&restorer, __ATOMIC_RELAXED);

	if (spy_mode == SPY_MODE_COUNT || t == &spy_idle_thread || t == &spy_unattached || !t->tables)
		return 0;
	/* no PC known: anywhere */
	return !pc || spy_in_runtime(pc) || spy_codemap_holds(pc) || (r && pc - r < RESTORER_LEN);
}

/* The handler lands in a slow path (busy): blocked in the interrupted context, sent again to this
 * thread with its siginfo, and unblocked by spy_sig_nest_release once the slow path is done. */
static void defer(int sig, siginfo_t *si, void *ucv)
{
	ucontext_t *uc = ucv;
	pid_t pid = getpid(), tid = (pid_t)syscall(SYS_gettid);

	sigaddset(&uc->uc_sigmask, sig);
	__atomic_or_fetch(&spy_nest_deferred, 1ull << sig, __ATOMIC_RELAXED);
	if (syscall(SYS_rt_tgsigqueueinfo, pid, tid, sig, si))
		syscall(SYS_tgkill, pid, tid, sig);
}

void spy_sig_nest_release(int errno_program)
{
	uint64_t m = __atomic_exchange_n(&spy_nest_deferred, 0, __ATOMIC_RELAXED);
	sigset_t set;

	sigemptyset(&set);
	for (int sig = 1; sig < SPY_NSIG; sig++)
		if (m & (1ull << sig))
			sigaddset(&set, sig);
	errno = errno_program;
	pthread_sigmask(SIG_UNBLOCK, &set, NULL); /* a pending one is delivered here */
	errno = errno_program;
}

/*
 * The frame at the depth the hook read may be half written (an enter hook raises the depth last):
 * it is kept aside, and a mark takes its place, keyed just above the handler's frames (this
 * function's CFA, with bit 0: a mark ends silently, as __spy_arc's frames, if the handler never
 * returns here, siglongjmp). The handler's calls then nest on the mark; its caller is none, so the
 * handler is spontaneous, as it is in gprof. When it returns, the stack is put back: the hook goes
 * on writing its frame where it was, and the handler's time is its caller's children, as a call's.
 */
static void trampoline(int sig, siginfo_t *si, void *uc)
{
	struct spy_thread *t = spy_tls_thread;
	struct spy_frame saved, *f;
	uint32_t d, split;
	uint64_t children;
	int e = errno; /* the interrupted code's, then what the program's handler leaves */

	if (t == &spy_unattached || t == &spy_idle_thread || !t->tables) {
		call_prog(sig, si, uc);
		return;
	}
	if (t->busy) {
		defer(sig, si, uc);
		errno = e;
		return;
	}
	if (spy_cfg.signal_trace) {
		spy_sigtrace_event(t, sig, uc);
		errno = e;
	}
	d = __atomic_load_n(&t->depth, __ATOMIC_RELAXED);
	if (d + 1 >= t->stack_max) { /* no room: its calls are dropped as on a full stack */
		__atomic_store_n(&t->sig_nested, t->sig_nested + 1,
				 __ATOMIC_RELAXED); /* read by a write (spy_freeze) */
		barrier();
		call_prog(sig, si, uc);
		barrier();
		__atomic_store_n(&t->sig_nested, t->sig_nested - 1, __ATOMIC_RELAXED);
		return;
	}
	/* the interrupted code may have counted a call whose arc its hook has not made yet: no write
	 * holds the thread inside this handler, but at the interrupted code's next hook (spy_park; the
	 * mark says so, and sig_split tells the writer). Any handler of a thread with hooks: the PC it
	 * interrupted may be outside instrumented code with a split call below it (a sanitizer's call
	 * in a prologue, ld.so resolving a hook's first call: t138 under SAN=address saw 15 handlers
	 * counted without their arcs when this looked at the PC only) */
	split = spy_mode != SPY_MODE_COUNT;
	f = &t->stack[d];
	saved = *f;
	memset(f, 0, sizeof(*f));
	f->self = GMON_CALLER_NONE;
	f->tail_site = split ? SPY_MARK_SPLIT : 0;
	SPY_SET(f->sp, (uint64_t)(uintptr_t)__builtin_dwarf_cfa() | 1);
	SPY_SET(f->entry, t->timed ? spy_cycles() : 0);
	barrier();
	t->depth = d + 1;
	__atomic_fetch_add(&t->sig_split, split, __ATOMIC_SEQ_CST); /* the writer reads it */
	__atomic_store_n(
		&t->sig_nested, t->sig_nested + 1,
		__ATOMIC_RELAXED); /* no cache entry filled under the interrupted code (hooks.c, __spy_arc_miss) */
	barrier();
	call_prog(sig, si, uc);
	e = errno;
	barrier();
	__atomic_store_n(&t->sig_nested, t->sig_nested - 1, __ATOMIC_RELAXED);
	if (t->depth > d + 1) { /* frames the handler left open: ended with it */
		uint64_t now = t->timed ? spy_cycles() : 0;

		t->busy = 1;
		barrier();
		while (t->depth > d + 1)
			spy_hooks_pop(t, now, 1);
		barrier();
		t->busy = 0;
	}
	children = f->children;
	t->depth = d;
	barrier();
	*f = saved;
	__atomic_fetch_sub(&t->sig_split, split, __ATOMIC_SEQ_CST);
	if (d && t->timed)
		SPY_SET(t->stack[d - 1].children, t->stack[d - 1].children + children);
	if (unlikely(spy_nest_deferred))
		spy_sig_nest_release(e);
	errno = e;
}

int spy_sig_nest_wraps(int sig)
{
	/* the termination and crash signals go through signals.c, which nests the program's handlers */
	return sig > 0 && sig < SPY_NSIG && sig != SIGPROF && sig != SIGKILL && sig != SIGSTOP &&
	       !spy_sig_watched(sig);
}

/* sigaction() for a signal the runtime wraps: the program's handler runs through the trampoline, and
 * reading the action back gives the program's own. */
int spy_sig_nest_action(int sig, const struct sigaction *act, struct sigaction *old)
{
	struct sigaction a, o;
	void *was_fn = __atomic_load_n(&prog_fn[sig], __ATOMIC_ACQUIRE);
	int was_flags = __atomic_load_n(&prog_flags[sig], __ATOMIC_RELAXED), rc;

	if (act && act->sa_handler != SIG_DFL && act->sa_handler != SIG_IGN) {
		a = *act;
		__atomic_store_n(&prog_flags[sig], act->sa_flags, __ATOMIC_RELAXED);
		__atomic_store_n(&prog_fn[sig],
				 (act->sa_flags & SA_SIGINFO) ? (void *)act->sa_sigaction :
								(void *)act->sa_handler,
				 __ATOMIC_RELEASE);
		a.sa_sigaction = trampoline;
		a.sa_flags |= SA_SIGINFO;
		act = &a;
	}
	rc = spy_real_sigaction(sig, act, &o);
	if (!rc && act == &a && !__atomic_load_n(&restorer, __ATOMIC_RELAXED)) {
		struct sigaction cur;

		if (!spy_real_sigaction(sig, NULL, &cur) && cur.sa_restorer)
			__atomic_store_n(&restorer, (uint64_t)(uintptr_t)cur.sa_restorer, __ATOMIC_RELAXED);
	}
	if (rc || !old)
		return rc;
	if (o.sa_sigaction == trampoline) {
		o.sa_flags = (o.sa_flags & ~SA_SIGINFO) | (was_flags & SA_SIGINFO);
		if (was_flags & SA_SIGINFO)
			o.sa_sigaction = (void (*)(int, siginfo_t *, void *))was_fn;
		else
			o.sa_handler = (void (*)(int))was_fn;
	}
	*old = o;
	return 0;
}
