#!/bin/bash
# t102: fork: the child starts empty and writes its own file, gmon.out.PID, or the SPYRT_OUT pattern's
# with %p; the parent's counts are its own; a grandchild too; the child's profile says it was forked.
. "$(dirname "$0")/lib-runtime.sh"
rt_setup
tap_plan 6

cat >"$T/fork.c" <<'EOC'
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
#include "sample.h"
NOINL int leaf(int x) { BARRIER(); return x + 1; }
NOINL int work(int n) { int s = 0; for (int i = 0; i < n; i++) { s += leaf(i); BARRIER(); } return s; }
NOINL void child(int n, int depth)
{
	work(n);
	if (depth > 0) {
		pid_t p = fork();
		if (p == 0) { child(n + 1, depth - 1); exit(0); }
		printf("grandchild %d\n", (int)p);
		waitpid(p, NULL, 0);
	}
}
int main(void)
{
	work(10);
	fflush(stdout);
	pid_t p = fork();
	if (p == 0) { child(7, 1); exit(0); }
	printf("child %d\n", (int)p);
	waitpid(p, NULL, 0);
	work(5);
	return 0;
}
EOC
F=$T/fork
check "fork builds" rt_cc "$F" "$CC" "$T/fork.c"

files() {
	rt_run "$F" || return 1
	C=$(awk '$1 == "child" { print $2 }' "$F.stdout")
	G=$(awk '$1 == "grandchild" { print $2 }' "$F.stdout")
	[ -n "$C" ] && [ -n "$G" ] && [ -s "$F.out" ] && [ -s "$F.out.$C" ] && [ -s "$F.out.$G" ] ||
		{ ls "$T"; cat "$F.stdout"; return 1; }
}
check "parent, child and grandchild each write a file (gmon.out.PID)" files
C=$(awk '$1 == "child" { print $2 }' "$F.stdout")
G=$(awk '$1 == "grandchild" { print $2 }' "$F.stdout")

counts() {
	local f=$1 want=$2
	rt_facts "$f" | grep '^func' | sort >"$f.got"
	printf '%s\n' $want | sed 's/:/ /; s/^/func /; s/=/ /' | sort >"$f.want"
	diff "$f.want" "$f.got"
}
check "parent: main 1, work 2, leaf 15, child 0" counts "$F.out" "main=1 work=2 leaf=15 child=0"
check "child starts empty: work 1, leaf 7, child 1 (+ what its own fork did)" \
	counts "$F.out.$C" "main=0 work=1 leaf=7 child=1"
check "grandchild: work 1, leaf 8, child 1" counts "$F.out.$G" "main=0 work=1 leaf=8 child=1"

pattern() {
	local c f
	rm -f "$T"/prof.*
	RT_ENV=SPYRT_OUT=$T/prof.%p.out
	env SPYRT_OUT="$T/prof.%p.out" "$F" >"$F.stdout2" || return 1
	c=$(awk '$1 == "child" { print $2 }' "$F.stdout2")
	for f in "$T/prof.$c.out" "$T"/prof.*.out; do
		[ -s "$f" ] || { ls "$T"; return 1; }
	done
	[ "$(ls "$T"/prof.*.out | wc -l)" -eq 3 ] && [ ! -e "$T/prof.$c.out.$c" ] &&
		[ "$(rt_get "$T/prof.$c.out" header pid)" = "$c" ] &&
		rt_dump "$T/prof.$c.out" | grep -q '^header .*flags=0x[0-9a-f]*[4567cdef]$' ||
		{ ls "$T"; rt_dump "$T/prof.$c.out" | head -n 2; return 1; }
}
check "SPYRT_OUT with %p: one file per process, no suffix; the child's header says forked" pattern
tap_done
