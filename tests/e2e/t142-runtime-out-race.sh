#!/bin/bash
# t142: SPYRT_OUT names a symlink that another process flips, as fast as it can, between /dev/null
# and a victim file, while the program writes its profile 5000 times (spy_dump) and at exit (issue 24):
# the victim never changes. The old writer checked the name (lstat, stat: a link to a device), then
# opened it again and wrote through whatever it led to by then: in 10 runs here the victim was first
# written over at write 102 to 2778, hence 5000. Each write goes either into /dev/null or over the
# link, never through it into the file. (The default name is never followed at all: t143.)
. "$(dirname "$0")/lib-runtime.sh"
rt_setup
tap_plan 2

cat >"$T/r.c" <<'EOC'
#include <stdlib.h>
#include "spy.h"
#include "sample.h"
NOINL int f(int x) { BARRIER(); return x + 1; }
int main(int argc, char **argv)
{
	int s = 0, n = argc > 1 ? atoi(argv[1]) : 0;

	for (int i = 0; i < 300; i++)
		s += f(i);
	for (int i = 0; i < n; i++)
		if (spy_dump(NULL))
			return 9;
	return s == 0;
}
EOC
# the flipper: LINK made anew (symlink, then rename over it) to each target in turn, until killed
cat >"$T/flip.c" <<'EOC'
#include <stdio.h>
#include <unistd.h>
int main(int argc, char **argv)
{
	char tmp[4096];

	if (argc != 4)
		return 2;
	snprintf(tmp, sizeof(tmp), "%s.flip", argv[1]);
	for (unsigned long i = 0;; i++) {
		unlink(tmp);
		if (symlink(argv[2 + (i & 1)], tmp) || rename(tmp, argv[1]))
			return 1;
	}
}
EOC
check "the program and the flipper build" eval 'rt_cc "$T/r" "$CC" "$T/r.c" && $CC -O2 "$T/flip.c" -o "$T/flip"'

race() {
	local fp err rc
	cd "$T" || return 1
	printf 'the victim'"'"'s own bytes\n' >victim
	cp victim victim.orig
	ln -sfn /dev/null link
	./flip "$T/link" /dev/null "$T/victim" &
	fp=$!
	err=$(SPYRT_MODE=arcs SPYRT_OUT=$T/link ./r 5000 2>&1)
	rc=$?
	# still flipping at the end, or the race was not run
	kill $fp || { echo "the flipper had stopped"; return 1; }
	wait $fp 2>/dev/null
	[ $rc -eq 0 ] && [ -z "$err" ] || { echo "status $rc: $err"; return 1; }
	cmp victim victim.orig || { echo "the victim was written over: $(wc -c <victim) bytes"; return 1; }
	[ -c /dev/null ] && [ "$(stat -c %t:%T /dev/null)" = 1:3 ]
}
check "a symlink flipped between /dev/null and a file during 5000 writes: the file never changes" race
tap_done
