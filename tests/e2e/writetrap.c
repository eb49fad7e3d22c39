/* Runs a program in a hostile moment of its profile write, for the tests of the atomic write (t144):
 *   writetrap notmpfile PROG [ARG...]  PROG sees a file system without O_TMPFILE: a seccomp filter
 *                                      answers openat(O_TMPFILE) with EOPNOTSUPP (NFS's answer)
 *   writetrap kill PROG [ARG...]       PROG is traced; at its first write() to a descriptor above 2 (the
 *                                      profile's file, the only one the test program has) that
 *                                      descriptor is printed ("fd N: TARGET", TARGET as /proc/PID/fd/N
 *                                      reads) and PROG is killed with SIGKILL before the write happens
 * Exit status: notmpfile, PROG's; kill, 0 when PROG was killed so, 1 when it ended without such a
 * write; 77 when this machine forbids the filter or the tracing (the caller skips).
 * Built by the test: cc -O2 writetrap.c -o writetrap. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#if defined(__x86_64__)
#define ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define ARCH AUDIT_ARCH_AARCH64
#elif defined(__powerpc64__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define ARCH AUDIT_ARCH_PPC64LE
#elif defined(__s390x__)
#define ARCH AUDIT_ARCH_S390X
#elif defined(__riscv) && __riscv_xlen == 64
#define ARCH AUDIT_ARCH_RISCV64
#endif

/* the low 32 bits of a syscall argument in struct seccomp_data */
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define ARG_LO(i) (offsetof(struct seccomp_data, args) + 8 * (i))
#else
#define ARG_LO(i) (offsetof(struct seccomp_data, args) + 8 * (i) + 4)
#endif

static int no_tmpfile(char **argv)
{
	struct sock_filter f[] = {
#ifdef ARCH
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, ARCH, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
#endif
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_openat, 0, 3),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG_LO(2)),
		BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, O_TMPFILE & ~O_DIRECTORY, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EOPNOTSUPP),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { sizeof(f) / sizeof(f[0]), f };

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) || prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog)) {
		fprintf(stderr, "writetrap: cannot install a seccomp filter: %s\n", strerror(errno));
		return 77;
	}
	execvp(argv[0], argv);
	fprintf(stderr, "writetrap: %s: %s\n", argv[0], strerror(errno));
	return 126;
}

static int kill_at_write(char **argv)
{
	struct __ptrace_syscall_info si;
	int st, sig = 0;
	pid_t pid = fork();

	if (pid < 0)
		return 77;
	if (!pid) {
		if (ptrace(PTRACE_TRACEME, 0, NULL, NULL)) {
			fprintf(stderr, "writetrap: cannot be traced: %s\n", strerror(errno));
			_exit(77);
		}
		raise(SIGSTOP);
		execvp(argv[0], argv);
		fprintf(stderr, "writetrap: %s: %s\n", argv[0], strerror(errno));
		_exit(126);
	}
	if (waitpid(pid, &st, 0) != pid || !WIFSTOPPED(st))
		return WIFEXITED(st) && WEXITSTATUS(st) == 77 ? 77 : 1;
	if (ptrace(PTRACE_SETOPTIONS, pid, NULL,
		   (void *)(long)(PTRACE_O_TRACESYSGOOD | PTRACE_O_TRACEEXEC | PTRACE_O_EXITKILL))) {
		fprintf(stderr, "writetrap: PTRACE_SETOPTIONS: %s\n", strerror(errno));
		kill(pid, SIGKILL);
		return 77;
	}
	for (;;) {
		if (ptrace(PTRACE_SYSCALL, pid, NULL, (void *)(long)sig))
			return 1;
		sig = 0;
		if (waitpid(pid, &st, 0) != pid)
			return 1;
		if (WIFEXITED(st) || WIFSIGNALED(st)) {
			fprintf(stderr, "writetrap: the program ended without writing to a file\n");
			return 1;
		}
		if (!WIFSTOPPED(st))
			continue;
		if (WSTOPSIG(st) != (SIGTRAP | 0x80)) {
			/* the stop at exec, and the initial SIGSTOP, are ours; other signals are the program's */
			if (WSTOPSIG(st) != SIGTRAP && WSTOPSIG(st) != SIGSTOP)
				sig = WSTOPSIG(st);
			continue;
		}
		if (ptrace(PTRACE_GET_SYSCALL_INFO, pid, (void *)sizeof(si), &si) <= 0) {
			fprintf(stderr, "writetrap: PTRACE_GET_SYSCALL_INFO: %s\n", strerror(errno));
			kill(pid, SIGKILL);
			return 77;
		}
		if (si.op == PTRACE_SYSCALL_INFO_ENTRY && si.entry.nr == __NR_write && si.entry.args[0] > 2) {
			char link[64], to[4096];
			ssize_t n;

			snprintf(link, sizeof(link), "/proc/%d/fd/%d", (int)pid, (int)si.entry.args[0]);
			n = readlink(link, to, sizeof(to) - 1);
			to[n < 0 ? 0 : n] = 0;
			printf("fd %d: %s\n", (int)si.entry.args[0], to);
			fflush(stdout);
			kill(pid, SIGKILL);
			waitpid(pid, &st, 0);
			return 0;
		}
	}
}

int main(int argc, char **argv)
{
	if (argc > 2 && !strcmp(argv[1], "notmpfile"))
		return no_tmpfile(argv + 2);
	if (argc > 2 && !strcmp(argv[1], "kill"))
		return kill_at_write(argv + 2);
	fprintf(stderr, "usage: writetrap notmpfile|kill PROG [ARG...]\n");
	return 2;
}
