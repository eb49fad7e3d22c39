#!/bin/bash
# t149: a program that changes directory before it exits, as every daemon does (issue 25, item 9),
# still writes its profile where it was started: a relative SPYRT_OUT, and the default gmon.out,
# resolve against the directory the program started in (a '%' in that directory's name is its own,
# not a pattern's), not against the one it is in at exit; spy_dump(PATH) with a relative PATH is the
# program's own call and opens PATH as open() would, in its directory at the call.
. "$(dirname "$0")/lib-runtime.sh"
rt_setup
tap_plan 5

cat >"$T/cd.c" <<'EOC'
#include <stdio.h>
#include <unistd.h>
#include "spy.h"
__attribute__((noinline)) int work(int x) { return x * 3; }
int main(int argc, char **argv)
{
	int s = work(argc);
	/* argv[1]: where to go before exiting; argv[2]: a spy_dump there, first */
	if (argc > 1 && chdir(argv[1]))
		return 2;
	if (argc > 2 && spy_dump(argv[2]))
		return 3;
	printf("%d\n", s);
	return 0;
}
EOC
P=$T/cd
if ! check "the program builds" rt_cc "$P" "$CC" -I"$SPY_SRC/runtime" "$T/cd.c"; then
	for _ in 1 2 3 4; do not_ok "not built"; done
	tap_done
fi
mkdir -p "$T/start/rel" "$T/elsewhere" "$T/a%pb"

# runs PROG from DIR with ENV..., the program's arguments after --
from() {
	local dir=$1
	shift
	(cd "$dir" && env "$@") >"$T/run.out" 2>&1 || { cat "$T/run.out"; return 1; }
}

default_name() {
	rm -f "$T/start/gmon.out" "$T/elsewhere/gmon.out"
	from "$T/start" "$P" "$T/elsewhere" || return 1
	[ -s "$T/start/gmon.out" ] || { echo "no gmon.out where it started"; ls "$T/start" "$T/elsewhere"; return 1; }
	[ ! -e "$T/elsewhere/gmon.out" ] || { echo "gmon.out in the directory it went to"; return 1; }
	rt_facts "$T/start/gmon.out" | grep -qx 'arc main work 1'
}
check "gmon.out: in the directory the program started in, not the one it went to" default_name

relative_out() {
	rm -f "$T"/start/rel/* "$T"/elsewhere/rel/*
	mkdir -p "$T/elsewhere/rel"
	from "$T/start" SPYRT_OUT=rel/p.%p.out "$P" "$T/elsewhere" || return 1
	ls "$T/start/rel" | grep -Eqx 'p\.[0-9]+\.out' || { echo "no rel/p.PID.out where it started"; ls -R "$T/start" "$T/elsewhere"; return 1; }
	[ -z "$(ls "$T/elsewhere/rel")" ] || { echo "written where it went"; return 1; }
}
check "a relative SPYRT_OUT (with %p): against the directory it started in" relative_out

percent_dir() {
	rm -f "$T/a%pb/gmon.out"
	from "$T/a%pb" "$P" "$T/elsewhere" || return 1
	[ -s "$T/a%pb/gmon.out" ] || { echo "no gmon.out in a%pb"; ls "$T"; return 1; }
}
check "a directory whose name holds %p: its own name, not a pattern" percent_dir

dumped() {
	rm -f "$T/elsewhere/d.out" "$T/start/d.out" "$T/start/gmon.out"
	from "$T/start" "$P" "$T/elsewhere" d.out || return 1
	[ -s "$T/elsewhere/d.out" ] && [ ! -e "$T/start/d.out" ] && [ -s "$T/start/gmon.out" ] ||
		{ echo "d.out not where the program was at the call"; ls "$T/start" "$T/elsewhere"; return 1; }
}
check "spy_dump(\"d.out\"): the program's own call, in its directory at the call" dumped
tap_done
