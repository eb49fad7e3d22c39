/* libspytrace: an independent implementation of spy-abi.h used only by the plugin tests
 * (tests/e2e/t0*). It counts, keeps a shadow stack and writes a plain text report that the
 * tests compare with the known shape of the samples. Never build it with the plugin. */
#ifndef SPYTRACE_H
#define SPYTRACE_H

/*
 * The report: one fact a line, sorted (C locale), written at exit by a destructor of
 * libspytrace (or by spytrace_dump) to $SPYTRACE_OUT, default ./spytrace.out.
 *
 *   func NAME count=N enter=N exit=N flags=F file=PATH line=L
 *	one per registered record (NAME its assembler name; never-called ones too) and one per
 *	body the hooks saw without a record (NAME <unknown:0xADDR>); count sums every thread's
 *	counter slab, enter and exit count the hooks
 *   arc CALLER CALLEE N          calls seen by the shadow stack; CALLER <spontaneous> if none
 *   callsite ok=N bad=N foreign=N
 *	per distinct (caller, callee, call site): ok when the record with the greatest address
 *	<= call site in the call site's module is the shadow-stack caller, bad when not, foreign
 *	when the call site is in no registered module (libc calling main, libgomp, ...)
 *   callsite-bad CALLER CALLEE expected=NAME MODULE 0xOFF     the first bad ones
 *   callsite-sample CALLER 0xOFF MODULE CALLEE
 *	one ok call site per (caller, callee), up to 32; OFF is the return address - 1 relative
 *	to the module's load bias, so `addr2line -f -e MODULE 0xOFF` names the caller
 *   module PATH nfuncs=N regs=N unregs=N mode=M abi=A
 *	regs counts __spy_register_unit calls with this begin (repeats ignored), unregs the
 *	__spy_unregister_unit calls
 *   repaired N        frames popped without their exit hook (longjmp, foreign unwinding)
 *   unmatched_exit N  exit hooks for a function not on the shadow stack
 *   open N            frames still pushed at exit, less the bottom frame of each live thread
 *   threads N         threads that counted or ran a hook
 *   slot0 N           counts in slot 0 (code whose unit was not registered yet)
 *   unknown_self N    bodies seen by a hook that no record describes
 *   duplicate_records N  records sharing one body's address in live modules
 *   overflow stack=N arcs=N funcs=N   what did not fit the fixed tables
 *   reentered N       hooks called from inside a hook
 *   bad_abi N         units registered with another SPY_ABI_VERSION
 */

#ifdef __cplusplus
extern "C" {
#endif

/* Write the report now to $SPYTRACE_OUT (default spytrace.out); it is written again at exit.
 * Frames on the calling thread's shadow stack are live, so they are not counted as open. */
void spytrace_dump(void);

#ifdef __cplusplus
}
#endif

#endif
