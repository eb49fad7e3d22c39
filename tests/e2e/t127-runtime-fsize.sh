#!/bin/bash
# t127: a file-size limit smaller than the profile (ulimit -f 1): the program is not killed by
# SIGXFSZ at exit, its exit status and its buffered stdout are whole, no temporary file is left, and
# stderr has one line saying why the profile was not written. Also with spy_dump() mid-run.
. "$(dirname "$0")/lib-runtime.sh"
rt_setup
tap_plan 5

cat >"$T/z.c" <<'EOC'
#include <stdio.h>
#include <stdlib.h>
#include "spy.h"
#include "sample.h"
NOINL int f(int x) { BARRIER(); return x + 1; }
int main(int argc, char **argv)
{
	int s = 0;
	for (int i = 0; i < 2000; i++) {
		s += f(i);
		printf("line %d\n", i);
	}
	if (argc > 1 && spy_dump(argv[1]))
		printf("dump failed\n");
	printf("end %d\n", s);
	return 0;
}
EOC
Z=$T/z
check "the program builds" rt_cc "$Z" "$CC" "$T/z.c"

# the same program without the limit: what its stdout is
ref() {
	cd "$T" && SPYRT_OUT=$T/ref.out "$Z" >ref.txt && [ "$(wc -l <ref.txt)" -eq 2001 ] &&
		[ "$(stat -c %s ref.out)" -gt 1024 ]
}
check "without a limit: 2001 lines, a profile above 1 KiB" ref

# stdout goes through a pipe to a cat outside the limit: only the profile meets it
limited() {
	local rc n=$1 want=$2
	shift 2
	cd "$T" && rm -rf lim && mkdir lim && cd lim || return 1
	{
		(ulimit -f 1 && SPYRT_OUT=$T/lim/gmon.out exec "$Z" "$@" 2>err)
		echo $? >rc
	} | cat >out
	rc=$(cat rc)
	cat err
	[ "$rc" -eq 0 ] || { echo "exit status $rc"; return 1; }
	cmp -s out "$want" || { echo "stdout differs: $(wc -l <out) lines"; return 1; }
	[ -z "$(ls -A | grep -v '^out$\|^err$\|^rc$')" ] || { ls -la; return 1; }
	[ "$(grep -c . err)" -eq "$n" ] && [ "$(grep -c 'File too large' err)" -eq "$n" ]
}
check "ulimit -f 1: status 0, stdout whole, no file left, one line on stderr" limited 1 "$T/ref.txt"
# spy_dump() returns -1 there: the program says so before its last line
limited2() {
	sed '$i dump failed' "$T/ref.txt" >"$T/ref2.txt" && limited 2 "$T/ref2.txt" mid.out
}
check "the same with spy_dump(mid.out) mid-run: two lines (dump, exit), no file left" limited2

# the program's buffered stdout is flushed before the profile is written: in one pipe with stderr,
# the runtime's line comes after the program's last
order() {
	cd "$T" && mkdir -p ord || return 1
	{ (ulimit -f 1 && SPYRT_OUT=$T/ord/gmon.out exec "$Z" 2>&1); } | cat >ord/both
	tail -n 2 ord/both
	[ "$(wc -l <ord/both)" -eq 2002 ] && tail -n 2 ord/both | head -n 1 | grep -qx 'end [0-9]*' &&
		tail -n 1 ord/both | grep -q "^spy: cannot write profile .*File too large"
}
check "stdout is flushed before the profile's write: its line comes last" order

tap_done
