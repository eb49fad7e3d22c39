# lib-signals.sh, sourced by t128 and t129 after lib-runtime.sh's rt_setup: samples/signals.c
# built plain ($T/plain) and with the plugin ($T/sig), and ws, which runs a program and prints its wait
# status ("exit N" or "signal N"); sig_build builds them, asan=1 under AddressSanitizer.
cat >"$T/ws.c" <<'EOC'
/* ws PROG ARG...: run PROG, print "exit N" or "signal N" */
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>
int main(int argc, char **argv)
{
	int st;
	pid_t p = fork();
	if (p == 0) {
		execv(argv[1], argv + 1);
		_exit(127);
	}
	if (argc < 2 || waitpid(p, &st, 0) != p)
		return 1;
	if (WIFSIGNALED(st))
		printf("signal %d\n", WTERMSIG(st));
	else
		printf("exit %d\n", WEXITSTATUS(st));
	return 0;
}
EOC
# shellcheck disable=SC2086
sig_build() {
	$CC -O2 "$T/ws.c" -o "$T/ws" && $CC -O2 -I"$SAMPLES" $SPY_SAN_FLAGS "$SAMPLES/signals.c" -o "$T/plain" -lpthread &&
		rt_cc "$T/sig" "$CC" "$SAMPLES/signals.c"
}
asan=0
case $SPY_SAN_FLAGS in *address*) asan=1 ;; esac
