#!/bin/bash
# t125: SPYRT_OUT naming something that is not a regular file: a character device (mknod c 1 3, as
# /dev/null) and a FIFO are written into as streams and stay what they were, /dev/stdout (a symlink to
# the process's stdout) carries the profile, a FIFO without a reader and a directory are one line on
# stderr and no write, and the program's exit status stays its own.
. "$(dirname "$0")/lib-runtime.sh"
rt_setup
tap_plan 7

cat >"$T/d.c" <<'EOC'
#include <stdlib.h>
#include "sample.h"
NOINL int f(int x) { BARRIER(); return x + 1; }
int main(int argc, char **argv)
{
	int s = 0;
	for (int i = 0; i < 300; i++)
		s += f(i);
	return argc > 1 ? atoi(argv[1]) : s == 0;
}
EOC
D=$T/d
check "the program builds" rt_cc "$D" "$CC" "$T/d.c"

chardev() {
	local err
	[ "$(id -u)" -eq 0 ] || { echo "not root: mknod needs CAP_MKNOD"; return 1; }
	cd "$T" || return 1
	rm -f null
	mknod null c 1 3 || return 1
	err=$(SPYRT_OUT=$T/null "$D" 3 2>&1)
	[ $? -eq 3 ] && [ -z "$err" ] && [ -c null ] && [ "$(stat -c %t:%T null)" = 1:3 ] &&
		[ -z "$(ls -A | grep 'null.tmp')" ] || { echo "$err"; ls -la; return 1; }
}
check "a character device stays a device (written into), status 3 kept, nothing on stderr" chardev

fifo_read() {
	local err
	cd "$T" || return 1
	rm -f fifo got
	mkfifo fifo || return 1
	# the shell holds the FIFO open (read and write) before the program runs, so that it has a
	# reader however late cat gets to its open() on a busy machine; cat sees the end once the
	# program and the shell have closed it
	exec 3<>fifo
	timeout 20 cat fifo >got 3>&- &
	err=$(SPYRT_OUT=$T/fifo timeout 20 "$D" 2>&1 3>&-)
	local rc=$?
	exec 3>&-
	[ $rc -eq 0 ] || { echo "status $rc: $err"; return 1; }
	wait
	[ -p fifo ] && [ -z "$err" ] && grep -qx 'func f 300' <(rt_facts got) || { echo "$err"; ls -la; return 1; }
}
check "a FIFO with a reader gets the whole profile and stays a FIFO" fifo_read

fifo_noreader() {
	local err rc
	cd "$T" || return 1
	rm -f fifo2
	mkfifo fifo2 || return 1
	err=$(SPYRT_OUT=$T/fifo2 timeout 20 "$D" 4 2>&1)
	rc=$?
	echo "$err"
	[ $rc -eq 4 ] && [ -p fifo2 ] && [ "$(grep -c . <<<"$err")" -eq 1 ] && grep -q "fifo2'.*no reader" <<<"$err"
}
check "a FIFO without a reader: one line, no hang, status 4 kept" fifo_noreader

# /dev/stdout's shape, in the work directory: the old writer would replace the system's as root
stdout_link() {
	cd "$T" || return 1
	rm -f stdout
	ln -s /proc/self/fd/1 stdout || return 1
	SPYRT_OUT=$T/stdout "$D" | cat >piped || return 1
	[ -L stdout ] && grep -qx 'func f 300' <(rt_facts piped)
}
check "a symlink to the process's stdout (as /dev/stdout) writes the profile through the pipe and stays" stdout_link

directory() {
	local err rc
	cd "$T" || return 1
	mkdir -p adir
	err=$(SPYRT_OUT=$T/adir "$D" 2>&1)
	rc=$?
	echo "$err"
	[ $rc -eq 0 ] && [ -d adir ] && [ "$(grep -c . <<<"$err")" -eq 1 ] && grep -q "adir'.*is a directory" <<<"$err"
}
check "a directory: one line, left alone" directory

regular() {
	cd "$T" || return 1
	echo old >reg
	SPYRT_OUT=$T/reg "$D" && [ -f reg ] && grep -qx 'func f 300' <(rt_facts reg)
}
check "a regular file is still replaced" regular

tap_done
