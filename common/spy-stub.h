/* __spy_counts_slow_all, the slow path of the counter that the plugin inserts as one asm statement on
 * x86-64 (spy-abi.h): it calls the C function __spy_counts_slow() and returns its result in rax, but
 * keeps every other register as it was, vector and x87 state included, since it runs at a function's
 * entry with the arguments still live and the compiler was told only of rax and the flags. It saves
 * the general registers by hand and the rest with XSAVE (all the features the OS enabled; FXSAVE
 * where there is no XSAVE). It is entered from code that may be using the red zone and with any stack
 * alignment; the inserted code steps over the red zone, the stub aligns the stack itself. It asks
 * CPUID for the XSAVE area's size once and keeps the answer: in a virtual machine CPUID traps to the
 * hypervisor, some microseconds each (libspyrt takes the stub once per thread, but a runtime that took
 * it per call would pay them per call).
 *
 * Both the runtime and the tests' tracing library define it, each around its own __spy_counts_slow():
 * a translation unit includes this file and writes SPY_COUNTS_SLOW_ALL_STUB at file scope. Both also
 * write the copies of ABI 7 (spy-abi.h) at the thread pointer plus their TLS offsets: spy_thread_pointer. */
#ifndef SPY_STUB_H
#define SPY_STUB_H

/* The thread pointer (%fs:0 on x86-64, the TCB's address, where local-exec TLS offsets start from);
 * NULL elsewhere. */
static inline char *spy_thread_pointer(void)
{
	char *tp = (char *)0;

#if defined(__x86_64__)
	__asm__("movq %%fs:0, %0" : "=r"(tp));
#endif
	return tp;
}

#if defined(__x86_64__) && !defined(__ILP32__)
#define SPY_COUNTS_SLOW_ALL_STUB                                                                            \
	__asm__("\t.text\n"                                                                                 \
		"\t.globl __spy_counts_slow_all\n"                                                          \
		"\t.type __spy_counts_slow_all, @function\n"                                                \
		"__spy_counts_slow_all:\n"                                                                  \
		"\t.globl __spy_counts_slow_in_libspyrt\n"                                                  \
		"\t.type __spy_counts_slow_in_libspyrt, @function\n"                                        \
		"__spy_counts_slow_in_libspyrt:\n"                                                          \
		"\t.cfi_startproc\n"                                                                        \
		"\tpush %rbp\n"                                                                             \
		"\t.cfi_def_cfa_offset 16\n"                                                                \
		"\t.cfi_offset %rbp, -16\n"                                                                 \
		"\tmov %rsp, %rbp\n"                                                                        \
		"\t.cfi_def_cfa_register %rbp\n"                                                            \
		"\tpush %rbx\n"                                                                             \
		"\tpush %rcx\n"                                                                             \
		"\tpush %rdx\n"                                                                             \
		"\tpush %rsi\n"                                                                             \
		"\tpush %rdi\n"                                                                             \
		"\tpush %r8\n"                                                                              \
		"\tpush %r9\n"                                                                              \
		"\tpush %r10\n"                                                                             \
		"\tpush %r11\n"                                                                             \
		"\tand $-64, %rsp\n" /* the XSAVE area's size, or 1 without XSAVE: asked once, then kept */ \
		"\tmov spy_stub_xsave_size(%rip), %ebx\n"                                                   \
		"\ttest %ebx, %ebx\n"                                                                       \
		"\tjnz 1f\n"                                                                                \
		"\tmov $1, %eax\n"                                                                          \
		"\tcpuid\n"                                                                                 \
		"\tmov $1, %ebx\n"                                                                          \
		"\tbt $27, %ecx\n" /* OSXSAVE */                                                            \
		"\tjnc 0f\n"                                                                                \
		"\tmov $13, %eax\n"                                                                         \
		"\txor %ecx, %ecx\n"                                                                        \
		"\tcpuid\n" /* ebx: the XSAVE area's size for what XCR0 enables */                          \
		"0:\n"                                                                                      \
		"\tmov %ebx, spy_stub_xsave_size(%rip)\n"                                                   \
		"1:\n"                                                                                      \
		"\tcmp $1, %ebx\n"                                                                          \
		"\tje 2f\n"                                                                                 \
		"\tsub %rbx, %rsp\n"                                                                        \
		"\tand $-64, %rsp\n"                                                                        \
		"\txor %eax, %eax\n" /* XRSTOR wants the header's reserved bytes zero */                    \
		"\tmov %rax, 512(%rsp)\n"                                                                   \
		"\tmov %rax, 520(%rsp)\n"                                                                   \
		"\tmov %rax, 528(%rsp)\n"                                                                   \
		"\tmov %rax, 536(%rsp)\n"                                                                   \
		"\tmov %rax, 544(%rsp)\n"                                                                   \
		"\tmov %rax, 552(%rsp)\n"                                                                   \
		"\tmov %rax, 560(%rsp)\n"                                                                   \
		"\tmov %rax, 568(%rsp)\n"                                                                   \
		"\tmov $-1, %eax\n"                                                                         \
		"\tmov $-1, %edx\n"                                                                         \
		"\txsave (%rsp)\n"                                                                          \
		"\tcall __spy_counts_slow@PLT\n"                                                            \
		"\tmov %rax, %rbx\n"                                                                        \
		"\tmov $-1, %eax\n"                                                                         \
		"\tmov $-1, %edx\n"                                                                         \
		"\txrstor (%rsp)\n"                                                                         \
		"\tjmp 3f\n"                                                                                \
		"2:\n"                                                                                      \
		"\tsub $512, %rsp\n"                                                                        \
		"\tfxsave (%rsp)\n"                                                                         \
		"\tcall __spy_counts_slow@PLT\n"                                                            \
		"\tmov %rax, %rbx\n"                                                                        \
		"\tfxrstor (%rsp)\n"                                                                        \
		"3:\n"                                                                                      \
		"\tmov %rbx, %rax\n"                                                                        \
		"\tlea -72(%rbp), %rsp\n"                                                                   \
		"\tpop %r11\n"                                                                              \
		"\tpop %r10\n"                                                                              \
		"\tpop %r9\n"                                                                               \
		"\tpop %r8\n"                                                                               \
		"\tpop %rdi\n"                                                                              \
		"\tpop %rsi\n"                                                                              \
		"\tpop %rdx\n"                                                                              \
		"\tpop %rcx\n"                                                                              \
		"\tpop %rbx\n"                                                                              \
		"\tpop %rbp\n"                                                                              \
		"\t.cfi_def_cfa %rsp, 8\n"                                                                  \
		"\tret\n"                                                                                   \
		"\t.cfi_endproc\n"                                                                          \
		"\t.size __spy_counts_slow_all, .-__spy_counts_slow_all\n"                                  \
		"\t.local spy_stub_xsave_size\n"                                                            \
		"\t.comm spy_stub_xsave_size, 4, 4\n")
#else
#define SPY_COUNTS_SLOW_ALL_STUB
#endif

#endif
