/* Stacks of the runtime's own. The profile is written on a stack of its own (spy_on_stack): exit() may
 * be called wherever the program runs, on a thread of 16 KiB or in a handler on a small alternate signal
 * stack, and the writer needs tens of KiB; the switch stays in the calling thread, whose TLS the writer
 * reads. And a thread that has no alternate signal stack gets one of the runtime's while the runtime's
 * crash handlers are installed (SA_ONSTACK), so that a stack overflow's SIGSEGV still writes the
 * profile, as AddressSanitizer does for its own handler. Each stack has a guard page below it. */
#include "spyrt.h"

#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <unistd.h>

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/common_interface_defs.h>
#endif

/* fn(arg) run with the stack pointer at top (16-aligned), back on the caller's stack when it returns.
 * The frame pointer holds the caller's stack pointer throughout, and the CFI says so: debuggers and
 * unwinders walk from the writer's frames back into the program's. */
__attribute__((visibility("hidden"))) void spy_stack_call(void (*fn)(void *), void *arg, void *top);

#if defined(__x86_64__)
__asm__(".text\n"
	".globl spy_stack_call\n"
	".hidden spy_stack_call\n"
	".type spy_stack_call, @function\n"
	".p2align 4\n"
	"spy_stack_call:\n"
	".cfi_startproc\n"
#if defined(__CET__)
	"endbr64\n"
#endif
	"pushq %rbp\n"
	".cfi_def_cfa_offset 16\n"
	".cfi_offset %rbp, -16\n"
	"movq %rsp, %rbp\n"
	".cfi_def_cfa_register %rbp\n"
	"movq %rdx, %rsp\n"
	"movq %rdi, %rax\n"
	"movq %rsi, %rdi\n"
	"callq *%rax\n"
	"movq %rbp, %rsp\n"
	"popq %rbp\n"
	".cfi_def_cfa %rsp, 8\n"
	"ret\n"
	".cfi_endproc\n"
	".size spy_stack_call, .-spy_stack_call\n");
#define SPY_STACK_SWITCH 1
#elif defined(__aarch64__)
__asm__(".text\n"
	".globl spy_stack_call\n"
	".hidden spy_stack_call\n"
	".type spy_stack_call, %function\n"
	".p2align 4\n"
	"spy_stack_call:\n"
	".cfi_startproc\n"
#if defined(__ARM_FEATURE_BTI_DEFAULT)
	"hint 34\n" /* bti c */
#endif
	"stp x29, x30, [sp, #-16]!\n"
	".cfi_def_cfa_offset 16\n"
	".cfi_offset x29, -16\n"
	".cfi_offset x30, -8\n"
	"mov x29, sp\n"
	".cfi_def_cfa_register x29\n"
	"mov sp, x2\n"
	"mov x3, x0\n"
	"mov x0, x1\n"
	"blr x3\n"
	"mov sp, x29\n"
	".cfi_def_cfa_register sp\n"
	"ldp x29, x30, [sp], #16\n"
	".cfi_def_cfa_offset 0\n"
	".cfi_restore x29\n"
	".cfi_restore x30\n"
	"ret\n"
	".cfi_endproc\n"
	".size spy_stack_call, .-spy_stack_call\n");
#define SPY_STACK_SWITCH 1
#else
#define SPY_STACK_SWITCH 0 /* elsewhere the writer runs where it is called */
#endif

static size_t page(void)
{
	long pg = sysconf(_SC_PAGESIZE);

	return pg > 0 ? (size_t)pg : 4096;
}

/* size bytes of stack with a guard page below, named in /proc/PID/maps where the kernel allows
 * (Linux 5.17 with CONFIG_ANON_VMA_NAME); its lowest usable byte, or NULL. */
static char *stack_map(size_t size, const char *name)
{
	size_t pg = page();
	char *p = mmap(NULL, size + pg, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK,
		       -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	if (mprotect(p + pg, size, PROT_READ | PROT_WRITE)) {
		munmap(p, size + pg);
		return NULL;
	}
#if defined(PR_SET_VMA) && defined(PR_SET_VMA_ANON_NAME)
	prctl(PR_SET_VMA, PR_SET_VMA_ANON_NAME, (unsigned long)(p + pg), size, (unsigned long)name);
#else
	(void)name;
#endif
	return p + pg;
}

static void stack_unmap(char *base, size_t size)
{
	munmap(base - page(), size + page());
}

/* ---- the writer's stack ---- */

/* Mapped at the first write and kept; a second write at the same time (spy_dump on two threads) maps
 * one of its own for the time it runs. */
static char *writer_base;
static uint32_t writer_busy;
static SPY_TLS int writer_mine; /* this thread runs on it */

struct on_stack {
	void (*fn)(void *);
	void *arg;
#if defined(__SANITIZE_ADDRESS__)
	void *fake;
	const void *old_bottom;
	size_t old_size;
#endif
};

/* The first frame on the new stack; AddressSanitizer is told of each switch (a fiber's). */
static void on_stack_entry(void *p)
{
	struct on_stack *o = p;

#if defined(__SANITIZE_ADDRESS__)
	__sanitizer_finish_switch_fiber(NULL, &o->old_bottom, &o->old_size);
#endif
	o->fn(o->arg);
#if defined(__SANITIZE_ADDRESS__)
	__sanitizer_start_switch_fiber(NULL, o->old_bottom, o->old_size);
#endif
}

void spy_on_stack(void (*fn)(void *), void *arg)
{
	struct on_stack o = { .fn = fn, .arg = arg };
	char *base = NULL;
	int cached = 0;

	/* already on it (a handler of the program's that calls spy_dump during a write): room enough */
	if (!SPY_STACK_SWITCH || writer_mine) {
		fn(arg);
		return;
	}
	{
		SPY_KEEP_ERRNO;

		if (!__atomic_exchange_n(&writer_busy, 1, __ATOMIC_ACQUIRE)) {
			cached = 1;
			if (!writer_base)
				writer_base = stack_map(SPY_WRITER_STACK, "spy writer stack");
			base = writer_base;
		} else {
			base = stack_map(SPY_WRITER_STACK, "spy writer stack");
		}
	}
	if (!base) { /* no memory for it: where it is, which is the best left */
		fn(arg);
	} else {
		writer_mine = 1;
#if defined(__SANITIZE_ADDRESS__)
		__sanitizer_start_switch_fiber(&o.fake, base, SPY_WRITER_STACK);
#endif
		spy_stack_call(on_stack_entry, &o, base + SPY_WRITER_STACK);
#if defined(__SANITIZE_ADDRESS__)
		__sanitizer_finish_switch_fiber(o.fake, NULL, NULL);
#endif
		writer_mine = 0;
	}
	if (cached) {
		__atomic_store_n(&writer_busy, 0, __ATOMIC_RELEASE);
	} else if (base) {
		SPY_KEEP_ERRNO;

		stack_unmap(base, SPY_WRITER_STACK);
	}
}

/* ---- the crash handlers' alternate signal stack ---- */

static SPY_TLS char *alt_base; /* this thread's, while it is the runtime's */

void spy_altstack_thread(void)
{
	SPY_KEEP_ERRNO;
	stack_t cur, ss;
	char *base;

	if (alt_base || !spy_sig_crash_ours())
		return;
	/* the program's own (or one already running): never replaced */
	if (sigaltstack(NULL, &cur) || !(cur.ss_flags & SS_DISABLE))
		return;
	base = stack_map(SPY_ALT_STACK, "spy signal stack");
	if (!base)
		return;
	ss.ss_sp = base;
	ss.ss_size = SPY_ALT_STACK;
	ss.ss_flags = 0;
	if (sigaltstack(&ss, NULL)) {
		stack_unmap(base, SPY_ALT_STACK);
		return;
	}
	alt_base = base;
}

void spy_altstack_thread_end(void)
{
	SPY_KEEP_ERRNO;
	stack_t cur, off = { .ss_flags = SS_DISABLE };

	if (!alt_base)
		return;
	if (!sigaltstack(NULL, &cur) && cur.ss_sp == alt_base && !(cur.ss_flags & SS_DISABLE)) {
		if (cur.ss_flags & SS_ONSTACK) /* a handler runs on it (retired from inside one) */
			return;
		if (sigaltstack(&off, NULL))
			return;
	}
	stack_unmap(alt_base, SPY_ALT_STACK);
	alt_base = NULL;
}

void spy_stacks_atfork_child(void)
{
	/* the thread that was writing is not in the child; the stack is, and free */
	if (!writer_mine)
		__atomic_store_n(&writer_busy, 0, __ATOMIC_RELAXED);
}
