#!/bin/bash
# t119: a call's caller is the function that made it, in every mode (issue 23): samples/livecaller.c,
# where mode arcs' shadow stack (no exit hooks) still holds a callee that returned when the next call
# comes: a callee with arguments on the stack (its key below the returned sibling's, one frame and
# two), callbacks from code without hooks (a recursion of its own, libc's qsort), and C++'s main
# after a static constructor (samples/cxxinit.cc), tail calls into code without hooks (alone and at
# the end of a chain of tail calls). Exact arcs from code built with mode=time run in SPYRT_MODE time
# and arcs, and from code built with mode=arcs, nothing abandoned; spinprof's self-check says each
# caller holds its call site; in mode arcs the samples under the callback are its real caller's.
. "$(dirname "$0")/lib-runtime.sh"
rt_setup
tap_plan 8

P=$T/live
PA=$T/live-arcs
# livecaller-foreign.c is the code without hooks (livecaller.expect's cflags)
NOHOOKS=-fplugin-arg-spyinstr-exclude-file=livecaller-foreign
check "livecaller builds (mode time, mode arcs)" eval 'rt_sample livecaller "$P" $NOHOOKS && rt_sample livecaller "$PA" $NOHOOKS -fplugin-arg-spyinstr-mode=arcs'

# cmp's calls: all of qsort's, all from sorter
cmp_from_sorter() {
	awk '$1 == "func" && $2 == "cmp" { n = $3 }
		$1 == "arc" && $3 == "cmp" { if ($2 == "sorter") a = $4; else { print "arc " $2 " cmp " $4 ", want none"; bad = 1 } }
		END { if (n == 0 || a != n) { print "sorter -> cmp " a + 0 " of cmp'"'"'s " n + 0 " calls"; bad = 1 } exit bad }' "$1"
}

arcs_in() {
	local prog=$1
	shift
	RT_ENV="$*" rt_run "$prog" || return 1
	rt_facts "$prog.out" >"$prog.facts"
	rt_compare "$SAMPLES/livecaller.expect" "$prog.facts" || return 1
	cmp_from_sorter "$prog.facts" || return 1
	"$SPY_BUILD/spinprof" "$prog.out" >"$prog.report" 2>&1 || { echo "spinprof failed"; head "$prog.report"; return 1; }
	grep -q '^self-check: [0-9]* arcs, each caller holds its call site$' "$prog.report" ||
		{ grep '^self-check' "$prog.report"; return 1; }
	# every call returned: tail chains into code without hooks end as calls do
	[ "$(rt_get "$prog.out" lost abandoned)" = 0 ] || { rt_dump "$prog.out" | grep '^lost'; return 1; }
}
check "mode time: every arc from its real caller" arcs_in "$P" SPYRT_MODE=time
check "SPYRT_MODE=arcs on code with exit hooks: the same" arcs_in "$P" SPYRT_MODE=arcs
check "code built with mode=arcs: the same" arcs_in "$PA"

# C++: main is called by libc after the static constructors, whose frames (mode arcs) returned unseen
X=$T/cxxinit-arcs
if check "cxxinit builds with mode=arcs" rt_sample cxxinit "$X" -fplugin-arg-spyinstr-mode=arcs; then
	check "C++ main after a static constructor: spontaneous, not called by it" rt_check_expect cxxinit "$X"
else
	not_ok "C++ main after a static constructor # not built"
fi

# the samples under cb (which spins) belong to loopy's call, never to sib, which returned before
samples_under() {
	RT_ENV="SPYRT_WATCH=cpu SPYRT_HZ=2000" rt_run "$PA" 200000 || return 1
	"$SPY_BUILD/spinprof" -b -q "$PA.out" >"$PA.graph" 2>&1 || return 1
	awk '
		/^\[[0-9]+\]/ { if ($NF ~ /^\[/) { name = $(NF - 1) } ; pct[name] = $2 }
		END {
			if (pct["loopy"] + 0 < 50) { print "loopy " pct["loopy"] "% in all, want most of the run"; bad = 1 }
			if (pct["sib"] + 0 > 5) { print "sib " pct["sib"] "% in all, want almost none"; bad = 1 }
			exit bad
		}' "$PA.graph" || { sed -n '1,40p' "$PA.graph"; return 1; }
}
check "mode arcs: the callback's samples are its caller's, not a returned sibling's" samples_under

# the self-check catches a caller that does not hold the call site: the same program's profile with
# every arc's recorded caller made sib (a synthetic profile through the encoder)
selfcheck_catches() {
	cat >"$T/recaller.c" <<'EOC'
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gmon-format.h"
/* argv[1] -> argv[2], arcs from caller to seven recorded as from sib */
int main(int argc, char **argv)
{
	struct gmon_profile p;
	char err[256];
	uint64_t sib = 0, caller = 0;
	uint8_t *buf;
	size_t len;
	FILE *f;

	if (argc != 3 || gmon_read_file(argv[1], &p, err, sizeof(err)))
		return 2;
	for (uint32_t s = 0; s < p.nfuncsets; s++)
		for (uint64_t i = 0; i < p.funcsets[s].nr; i++) {
			if (!strcmp(p.funcsets[s].funcs[i].name, "sib"))
				sib = p.funcsets[s].funcs[i].addr;
			if (!strcmp(p.funcsets[s].funcs[i].name, "caller"))
				caller = p.funcsets[s].funcs[i].addr;
		}
	for (uint32_t t = 0; t < p.nthreads; t++)
		for (uint64_t j = 0; j < p.threads[t].narcs; j++)
			if (p.threads[t].arcs[j].caller == caller)
				p.threads[t].arcs[j].caller = sib;
	if (!sib || !caller || gmon_encode(&p, 1, &buf, &len) || !(f = fopen(argv[2], "wb")))
		return 3;
	fwrite(buf, 1, len, f);
	free(buf);
	gmon_profile_release(&p);
	return fclose(f) != 0;
}
EOC
	# shellcheck disable=SC2086
	$CC -O1 -g $SPY_SAN_FLAGS -I"$SPY_SRC/common" "$T/recaller.c" "$GMON_IO" -o "$T/recaller" -lz ||
		return 1
	"$T/recaller" "$PA.out" "$T/wrong.out" || { echo "recaller failed"; return 1; }
	"$SPY_BUILD/spinprof" "$T/wrong.out" 2>&1 | grep '^self-check: 2 of [0-9]* arcs name a caller that does not hold their call site' ||
		{ "$SPY_BUILD/spinprof" "$T/wrong.out" 2>&1 | grep '^self-check'; return 1; }
}
check "the self-check names arcs whose recorded caller does not hold the call site" selfcheck_catches
tap_done
