/* Sampling's place in the process: the runtime's own text (ticks and allocations there are the
 * profiler's), the real sigaction(), and a program's own SIGPROF handler, which it keeps: the runtime's
 * sources stop before the program's handler is installed. */
#include "spyrt.h"

#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>

uint64_t spy_rt_lo, spy_rt_hi;
static int foreign_said;
int (*spy_real_sigaction)(int, const struct sigaction *, struct sigaction *);
static void (*(*real_signal)(int, void (*)(int)))(int);

struct text_find {
	uint64_t addr;   /* in: an address of the runtime */
	uint64_t lo, hi; /* out: the executable segment holding it */
	int seen, main;  /* objects seen; the segment is the executable's (the first object) */
};

static int text_of(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct text_find *r = arg;

	(void)size;
	r->seen++;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *p = &info->dlpi_phdr[i];
		uint64_t lo = info->dlpi_addr + p->p_vaddr;

		if (p->p_type == PT_LOAD && (p->p_flags & PF_X) && r->addr >= lo &&
		    r->addr < lo + p->p_memsz) {
			r->lo = lo;
			r->hi = lo + p->p_memsz;
			r->main = r->seen == 1;
			return 1;
		}
	}
	return 0;
}

/*
 * The runtime's text: libspyrt.so's executable segment; linked statically into the program, the span of
 * the runtime's own functions (its objects follow the program's in the link).
 */
void spy_samp_find_text(void)
{
	struct text_find r = { (uint64_t)(uintptr_t)&spy_samp_on_sigprof, 0, 0, 0, 0 };
	const uint64_t fns[] = {
		(uint64_t)(uintptr_t)&__spy_enter,
		(uint64_t)(uintptr_t)&__spy_exit,
		(uint64_t)(uintptr_t)&spy_samp_on_sigprof,
		(uint64_t)(uintptr_t)&spy_write,
		(uint64_t)(uintptr_t)&spy_init,
		(uint64_t)(uintptr_t)&spy_arcs_insert,
		(uint64_t)(uintptr_t)&spy_ctl_sync,
		(uint64_t)(uintptr_t)&spy_thread_attach,
		(uint64_t)(uintptr_t)&spy_vm_commit,
		(uint64_t)(uintptr_t)&gmon_encode,
		(uint64_t)(uintptr_t)&spy_module_of,
		(uint64_t)(uintptr_t)&spy_samp_alloc,
		(uint64_t)(uintptr_t)&__spy_register_unit,
	};

	dl_iterate_phdr(text_of, &r);
	if (r.hi && !r.main) {
		spy_rt_lo = r.lo;
		spy_rt_hi = r.hi;
		return;
	}
	spy_rt_lo = UINT64_MAX;
	spy_rt_hi = 0;
	for (size_t i = 0; i < sizeof(fns) / sizeof(fns[0]); i++) {
		spy_rt_lo = fns[i] < spy_rt_lo ? fns[i] : spy_rt_lo;
		spy_rt_hi = fns[i] > spy_rt_hi ? fns[i] : spy_rt_hi;
	}
	spy_rt_hi += 4096; /* the last function's body */
}

/* The sigaction the runtime calls: the next one after its own. Under ThreadSanitizer, the sanitizer's,
 * which delivers a handler at a point where its own state is consistent (with the context of the
 * interrupted code). */
#if defined(__SANITIZE_THREAD__)
#define SPY_RTLD_SIG RTLD_DEFAULT
#else
#define SPY_RTLD_SIG RTLD_NEXT
#endif

void spy_samp_resolve_real(void)
{
	if (!spy_real_sigaction)
		spy_real_sigaction = (int (*)(int, const struct sigaction *, struct sigaction *))dlsym(
			SPY_RTLD_SIG, "sigaction");
	if (!real_signal)
		real_signal = (void (*(*)(int, void (*)(int)))(int))dlsym(SPY_RTLD_SIG, "signal");
}

void spy_samp_say_foreign(void (*h)(int))
{
	const char *watch = spy_cfg.watch == GMON_WATCH_WALL   ? "wall" :
			    spy_cfg.watch == GMON_WATCH_FAULTS ? "faults" :
								 "cpu";

	if (__atomic_exchange_n(&foreign_said, 1, __ATOMIC_ACQ_REL))
		return;
	spy_samp_flags |= GMON_SAMP_FOREIGN;
	if (h == SIG_IGN)
		spy_warn("spy: the program ignores SIGPROF; it keeps it so, and SPYRT_WATCH=%s is off",
			 watch);
	else if (h == SIG_DFL)
		spy_warn(
			"spy: the program sets SIGPROF to its default action; it keeps it, and SPYRT_WATCH=%s "
			"is off",
			watch);
	else
		spy_warn(
			"spy: the program has its own SIGPROF handler; it keeps it, and SPYRT_WATCH=%s is off",
			watch);
}

#if !SPY_SAN_INTERCEPTS /* the sanitizer intercepts these itself */
/*
 * The program sets its own SIGPROF disposition while ours is installed: it keeps it. Our sources end
 * first, so no tick of ours reaches its handler (or kills it, with SIG_DFL).
 */
static void foreign_now(void (*h)(int))
{
	if (!spy_samp_handler_on)
		return;
	spy_samp_handler_on = 0;
	spy_samp_say_foreign(h);
	spy_samp_stop();
}

SPY_EXPORT int sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
	{
		SPY_KEEP_ERRNO; /* errno says only what sigaction() itself found */

		spy_samp_resolve_real();
		if (sig == SIGPROF && act && __atomic_load_n(&spy_ready, __ATOMIC_ACQUIRE))
			foreign_now(
				act->sa_handler); /* sa_sigaction's too: one union, SIG_IGN and SIG_DFL alike */
	}
	if (!spy_real_sigaction) {
		errno = ENOSYS;
		return -1;
	}
	if (sig > 0 && spy_sig_watched(sig) && __atomic_load_n(&spy_ready, __ATOMIC_ACQUIRE))
		return spy_sig_action(sig, act, old); /* signals.c */
	if (spy_sig_nest_wraps(sig))
		return spy_sig_nest_action(sig, act, old); /* sig-nest.c */
	return spy_real_sigaction(sig, act, old);
}

/* signal(sig, h) with signal()'s BSD semantics, as glibc's, installed by set (signals.c's or
 * sig-nest.c's) */
static void (*bsd_signal(int sig, void (*h)(int),
			 int (*set)(int, const struct sigaction *, struct sigaction *)))(int)
{
	struct sigaction a, o;

	memset(&a, 0, sizeof(a));
	a.sa_handler = h;
	a.sa_flags = SA_RESTART;
	sigemptyset(&a.sa_mask);
	sigaddset(&a.sa_mask, sig);
	if (set(sig, &a, &o))
		return SIG_ERR;
	return o.sa_handler;
}

SPY_EXPORT void (*signal(int sig, void (*h)(int)))(int)
{
	{
		SPY_KEEP_ERRNO;

		spy_samp_resolve_real();
		if (sig == SIGPROF && __atomic_load_n(&spy_ready, __ATOMIC_ACQUIRE))
			foreign_now(h);
	}
	if (!real_signal) {
		errno = ENOSYS;
		return SIG_ERR;
	}
	if (sig > 0 && spy_sig_watched(sig) && __atomic_load_n(&spy_ready, __ATOMIC_ACQUIRE))
		return bsd_signal(sig, h, spy_sig_action);
	/* through the handler that nests (sig-nest.c) */
	if (spy_sig_nest_wraps(sig) && spy_real_sigaction)
		return bsd_signal(sig, h, spy_sig_nest_action);
	return real_signal(sig, h);
}
#endif
