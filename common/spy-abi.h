/* The contract between code compiled with spyinstr.so and the runtime it links with:
 * the records the plugin emits, the symbols the inserted code calls, and what each must do. */
#ifndef SPY_ABI_H
#define SPY_ABI_H

#include <stdint.h>

/* Bumped whenever a record layout, a hook's meaning or the inserted code's needs change.
 * 3: the counter as one asm statement (__spy_counts_slow_all), hooks without the guard.
 * 4: C++ catch handlers call __spy_catch; no exit hook on the way an exception leaves;
 *    mode=arcs inserts __spy_arc alone.
 * 5: the counter names the slab pointer SPY_COUNTS_SYMBOL, __spy_counts_in_libspyrt, so that
 *    an instrumented object linked without libspyrt fails naming it; mode time's hooks take the
 *    CFA (__spy_entry, __spy_leave); __spy_tail before each tail call in place of an exit hook, in
 *    modes time and arcs.
 * 6: mode=arcs on x86-64 inlines __spy_arc's common case (SPY_ARC_INLINE below), an asm statement
 *    that reads the thread's state through SPY_THREAD_SYMBOL and a per-thread, per-function cache,
 *    and calls __spy_arc_miss for everything else.
 * 7: in code for an executable (-fPIE or not PIC), that asm reads the thread's state from the
 *    program's own copy, SPY_THREAD_EXE_SYMBOL (local-exec: no load of its offset from the GOT),
 *    which __spy_register_unit gets as a fourth argument, and the counter the slab pointer from
 *    SPY_COUNTS_EXE_SYMBOL next to it; the depth is stored before the new frame only when frames
 *    were dropped. */
#define SPY_ABI_VERSION 7

/* What the plugin inserted (-fplugin-arg-spyinstr-mode=). */
enum spy_mode {
	SPY_MODE_COUNT = 0, /* add-one counter only */
	SPY_MODE_ARCS = 1,  /* counter and __spy_arc (ABI 4; entry and exit hooks before), __spy_tail (5) */
	SPY_MODE_TIME = 2,  /* counter, entry, exit, catch hooks, and tail hooks (ABI 5) */
};

/* The third argument of __spy_register_unit: ABI version and plugin mode. */
#define SPY_UNIT_TAG(mode) ((uint32_t)SPY_ABI_VERSION << 16 | (uint32_t)(mode))
#define SPY_UNIT_TAG_ABI(tag) ((tag) >> 16)
#define SPY_UNIT_TAG_MODE(tag) ((tag)&0xffffu)

enum spy_func_flags {
	SPY_FUNC_HOOKS = 1u << 0,  /* hooks were inserted (mode arcs or time) */
	SPY_FUNC_COMDAT = 1u << 1, /* the function sits in a COMDAT group */
	SPY_FUNC_CLONE = 1u << 2,  /* an IPA clone or split part (foo.constprop.0) */
};

/*
 * One record per instrumented function body, emitted by the plugin into the
 * section named SPY_FUNCS_SECTION (in the function's COMDAT group when it has
 * one, so the record goes wherever the linker keeps or drops the body). The
 * linker's __start_spy_funcs/__stop_spy_funcs bound a module's array of them.
 * 48 bytes, 8-aligned, no padding.
 */
struct spy_func {
	void *addr;        /* the body's entry: what __spy_enter gets as self */
	const char *name;  /* assembler name (mangled for C++), never NULL */
	const char *file;  /* source file as the compiler saw it, never NULL */
	uint64_t *slot;    /* the function's counter slot, set by the runtime */
	uint32_t line;     /* line of the definition */
	uint32_t flags;    /* enum spy_func_flags */
	uint64_t reserved; /* zero */
};

#define SPY_FUNCS_SECTION "spy_funcs"

/*
 * Add-one counters. Each thread counts into its own slab of 64-bit counters,
 * so the count is exact under threads without a locked instruction. At entry
 * the plugin inserts, inline:
 *
 *	uint64_t *p = __spy_counts;
 *	if (p == NULL)
 *		p = __spy_counts_slow();
 *	p[*slot]++;            (slot is the function's own static variable)
 *
 * On x86-64 (LP64) the same is one asm statement, so that the compiler's later
 * passes see one instruction instead of a branch, a call and an address
 * computation (ABI 3; it cost a tenth more compile time than the plain build):
 *
 *	movq __spy_counts_in_libspyrt@gottpoff(%rip), %rax; movq %fs:(%rax), %rax
 *	testq %rax, %rax; jnz 1f
 *	lea -128(%rsp), %rsp; call __spy_counts_slow_all@PLT; lea 128(%rsp), %rsp
 *  1:	movq slot(%rip), %rN; addq $1, (%rax,%rN,8)
 *
 * __spy_counts_slow_all returns what __spy_counts_slow returns and keeps every
 * other register (spy-stub.h), since the asm declares only rax, rN and the flags.
 * Since ABI 7, code for an executable (-fPIE, or not PIC) reads the program's own copy of the
 * pointer instead, one %fs-relative load with no offset from the GOT (SPY_COUNTS_EXE_SYMBOL, below),
 * and calls the stub by its other name:
 *
 *	movq %fs:__spy_counts_exe@tpoff, %rax
 *	testq %rax, %rax; jnz 1f
 *	lea -128(%rsp), %rsp; call __spy_counts_slow_in_libspyrt@PLT; lea 128(%rsp), %rsp
 *  1:	movq slot(%rip), %rN; addq $1, (%rax,%rN,8)
 *
 * Slot 0 belongs to functions whose unit is not registered yet; the runtime
 * hands out slots from 1 at registration and keeps the slabs of exited
 * threads, so their counts survive them.
 */
/* __thread uint64_t *, initial-exec. The runtime defines the variable as __spy_counts (what code of
 * ABI 4 and older references) and, since ABI 5, as SPY_COUNTS_SYMBOL too: the name the inserted
 * code references, chosen so that a link without libspyrt says "undefined reference to
 * `__spy_counts_in_libspyrt'" first. */
#define SPY_COUNTS_SYMBOL "__spy_counts_in_libspyrt"
#define SPY_COUNTS_OLD_SYMBOL "__spy_counts"
#define SPY_COUNTS_SLOW_SYMBOL "__spy_counts_slow"
#define SPY_COUNTS_SLOW_ALL_SYMBOL "__spy_counts_slow_all"

/* The hooks of mode time until ABI 4 (the runtime still takes them): self is &fn, call_site is
 * __builtin_return_address(0) of the instrumented function, as mcount gets; the frame is known by
 * the function's stack pointer at the hook. */
#define SPY_ENTER_SYMBOL "__spy_enter"
/* int, defined by the runtime: code of ABI 2 guards each hook call by "if (__spy_hooks)",
 * and the runtime clears it for SPYRT_MODE=count. Code of ABI 3 calls the hooks unguarded
 * (the guards' blocks cost the compiler a tenth more time); the hooks return at their first
 * test in count mode. A hook must tolerate an exit without its entry, and an entry never exited. */
#define SPY_HOOKS_SYMBOL "__spy_hooks"
#define SPY_EXIT_SYMBOL "__spy_exit"
/* Called right after each __cxa_begin_catch in an instrumented function (ABI 4): the
 * frames below the catching function's are the ones the exception unwound, and their
 * calls end there. Until ABI 3 every function with a call that may throw had an EH
 * cleanup calling __spy_exit instead: a landing pad in each, which cost the compiler a
 * fifth more time on C++. Frames unwound to a catch without the hook (in code not
 * instrumented) are ended later, by the next hook that finds them below its own. */
#define SPY_CATCH_SYMBOL "__spy_catch"
/* The one hook of mode=arcs (ABI 4), in place of both: __spy_arc(self, cfa) with the
 * function's canonical frame address, below which lies its return address. Without exit
 * hooks the runtime ends a call when a later hook finds its frame at or below its own, as
 * a returned call's frame is; the cost per call is about half of the two hooks'. */
#define SPY_ARC_SYMBOL "__spy_arc"
/* Only on x86-64 (LP64), where the return address lies just below the CFA; elsewhere mode=arcs
 * inserts the hooks of mode=time. */
#if defined(__x86_64__) && !defined(__ILP32__)
#define SPY_ARC_HOOK 1
#else
#define SPY_ARC_HOOK 0
#endif
/*
 * ABI 6, mode=arcs where __spy_arc applies and the code model allows %fs-relative initial-exec TLS
 * (not the large models): the counter and __spy_arc's common case inline, as one asm statement at
 * entry, and __spy_arc_miss(self, cfa, slot) when it answers "miss", which then counts the call too
 * (as the counter of spy_count_asm would: __spy_counts, else __spy_counts_slow()). The asm reads
 *
 *	t = SPY_THREAD_SYMBOL                   (__thread, initial-exec: the thread's state)
 *	t->held (u32 at SPY_T_HELD)             nonzero: miss (busy, stale: the runtime's own paths)
 *	e = t->acache + (slot << SPY_ACACHE_SHIFT) (slot: the function's counter slot)
 *	cs = the return address below the CFA;  w = the way of e whose call_site is cs, else miss
 *	drop the top frames whose key (frame's sp) is at or below key = (cfa - 8) | 1 and is odd, as
 *	__spy_arc does; a frame at or below key with bit 0 clear (ended by exit hooks, or with a tail
 *	call pending): miss. n = the depth left; when frames were dropped, t->depth = n (before the
 *	new frame is written: a signal's sample reads the stack). top = the frame below the new one
 *	(the sentinel at depth 0); top->self != w->caller or n >= t->stack_max: miss.
 *	n == w->depth: n = w->depth.
 *	*w->count += 1; t->counts[slot] += 1;
 *	frame n = {self: &fn, sp: key, call_site: cs};
 *	t->depth = n + 1                       (in this order)
 *
 * ABI 7: code for an executable (-fPIE, or not PIC) reads t from SPY_THREAD_EXE_SYMBOL instead,
 *	movq %fs:__spy_thread_exe@tpoff, t
 * a hidden __thread pointer that each such unit (of any mode) defines in a COMDAT group of that
 * name (the linker keeps one), in .tdata, pointing at a word that is not zero (held: every new
 * thread's inline code misses until the runtime writes its copy), followed by SPY_COUNTS_EXE_SYMBOL
 * (the slab pointer's copy, NULL: the counter's slow path), and passes to __spy_register_unit as its fourth
 * argument (its address in the registering thread; NULL from other units). The runtime writes the
 * copy wherever it sets the thread's state (in every thread: its offset from the thread pointer is
 * the same), and again in __spy_arc_miss (threads that started before the unit registered).
 *
 * The runtime fills the cache entry (slot 0's never matches: its call_site stays 0) in
 * __spy_arc_miss only after a call it counted and pushed as that asm would have, with a fast path
 * allowed and the thread's slab made, never under a program's signal handler (the code it interrupted
 * may be between reading an entry's call site and its counter), and clears every entry when its arc
 * tables are emptied. The offsets below are the
 * runtime's (checked there by static assertions): the inserted code is compiled against them.
 */
#define SPY_THREAD_SYMBOL "__spy_thread_in_libspyrt"
#define SPY_THREAD_EXE_SYMBOL "__spy_thread_exe"
/* ABI 7: the slab pointer's copy, 8 bytes after SPY_THREAD_EXE_SYMBOL in the same group (first NULL),
 * which the counter of code for an executable reads local-exec; its slow path then calls
 * __spy_counts_slow_all by the name SPY_COUNTS_SLOW_IN_SYMBOL, the first undefined reference of an
 * instrumented object linked without libspyrt. */
#define SPY_COUNTS_EXE_SYMBOL "__spy_counts_exe"
#define SPY_COUNTS_SLOW_IN_SYMBOL "__spy_counts_slow_in_libspyrt"
#define SPY_ARC_MISS_SYMBOL "__spy_arc_miss"
#define SPY_T_HELD 0       /* uint32_t: nonzero, the hooks' slow path */
#define SPY_T_STACK 8      /* struct spy_frame *: the shadow stack, a sentinel frame at [-1] */
#define SPY_T_DEPTH 16     /* uint32_t */
#define SPY_T_STACK_MAX 20 /* uint32_t */
#define SPY_T_ACACHE 24    /* struct spy_acache *, indexed by slot */
#define SPY_T_COUNTS 32    /* uint64_t *: the thread's add-one slab (what __spy_counts holds) */
#define SPY_FRAME_SELF 0   /* uint64_t, in each 64-byte frame */
#define SPY_FRAME_SP 8     /* the frame's key */
#define SPY_FRAME_SITE 16  /* the call site */
#define SPY_FRAME_SHIFT 6  /* log2 of the frame's size */
#define SPY_ACACHE_SHIFT 6 /* log2 of the cache entry's size */
#define SPY_ACACHE_WAY 32  /* the size of a way; the entry holds two (two call sites: fib's) */
struct spy_acache {
	struct spy_acache_way {
		uint64_t call_site; /* the return address of the call counted, 0: none */
		uint64_t caller;    /* the function below it on the shadow stack (its self) */
		uint64_t *count;    /* the arc's counter in the thread's tables */
		/* the depth its frame was pushed at: when the call finds the same one, the depth it
		 * stores comes from here and not from the depth it loaded, so that consecutive calls
		 * do not wait on each other's stores of the depth (a chain of store-to-load latencies) */
		uint64_t depth;
	} way[2];
};

/*
 * ABI 5, mode time (and mode arcs where there is no __spy_arc): __spy_entry(self, call_site, cfa)
 * and __spy_leave(self, cfa) in place of __spy_enter and __spy_exit, with the function's canonical
 * frame address (__builtin_dwarf_cfa()). A frame is known by the slot of its return address, below
 * the CFA: a call from the same frame after a longjmp reuses the slot whatever the callee's
 * prologue, and a tail call keeps it.
 */
#define SPY_ENTRY_SYMBOL "__spy_entry"
#define SPY_LEAVE_SYMBOL "__spy_leave"
/*
 * ABI 5, modes time and arcs: __spy_tail(self, callee, cfa) right before each call that becomes a
 * jump (a tail call), where ABI 4 had an exit hook. callee is the address jumped to (the function
 * pointer's value for an indirect call), the hook's return address a call site in self. The call
 * stays a jump; the runtime counts callee's entry (same cfa, same self) as a call from self at
 * that site and ends self's call when callee's ends. A tail call into code without hooks keeps
 * self's call until the next hook that finds its frame gone (its caller's next call or exit); the
 * plugin passes 0 as callee for a built-in (memcpy), which may also expand inline.
 */
#define SPY_TAIL_SYMBOL "__spy_tail"
#define SPY_REGISTER_SYMBOL "__spy_register_unit"
#define SPY_UNREGISTER_SYMBOL "__spy_unregister_unit"

#ifndef SPY_ABI_NO_PROTOTYPES
#ifdef __cplusplus
extern "C" {
#endif
extern __thread uint64_t *__spy_counts __attribute__((tls_model("initial-exec")));
extern int __spy_hooks;
/* This thread's slab, made on the thread's first count; never NULL. */
uint64_t *__spy_counts_slow(void);
/* The same for the asm counter: every register but rax and the flags kept. */
uint64_t *__spy_counts_slow_all(void);
void __spy_enter(void *self, void *call_site);
void __spy_exit(void *self);
void __spy_catch(void);
void __spy_arc(void *self, void *cfa);
void __spy_arc_miss(void *self, void *cfa, const uint64_t *slot);
void __spy_entry(void *self, void *call_site, void *cfa);
void __spy_leave(void *self, void *cfa);
void __spy_tail(void *self, void *callee, void *cfa);
/* Called by a constructor in every instrumented translation unit with its
 * module's record array, so a module may register several times: the runtime
 * keeps the first and ignores repeats of the same begin. */
/* thread_exe: ABI 7's SPY_THREAD_EXE_SYMBOL, or NULL; read only from units of ABI 7 and later (older
 * ones pass three arguments). */
void __spy_register_unit(struct spy_func *begin, struct spy_func *end, uint32_t tag, void *thread_exe);
/* Called by the matching destructor (exit, dlclose). */
void __spy_unregister_unit(struct spy_func *begin, struct spy_func *end);
#ifdef __cplusplus
}
#endif
#endif

#endif
