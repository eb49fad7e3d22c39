#!/bin/bash
# t230: spinprof on inputs that are legal but unusual, or hostile to its reading:
#   - a profile that lists no function (a program linked with libspyrt, built without the plugin) and
#     the sum of a profile without a THREAD record with one that has them, both orders: read without
#     complaint (under SAN= the sanitizers once stopped both: qsort and memcpy given NULL);
# Synthetic profiles come from a generator compiled here (through gmon_encode, as t206's).
. "$(dirname "$0")/t200-spinprof-gprof.sh"

sp_setup

cat >"$T/robgen.c" <<'EOF'
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gmon-format.h"

#define EXE 0x401000ull

/* robgen KIND OUT: KIND nofuncs (a thread, no FUNCS record), nothreads (main and work, no THREAD
 * record; work counted 4 times), calls (main and work, main calls work 3 times) */
int main(int argc, char **argv)
{
	struct gmon_profile p;
	char err[256] = "out of memory";
	uint8_t *buf;
	size_t len;

	if (argc != 3)
		return 1;
	const char *k = argv[1];
	int funcs = strcmp(k, "nofuncs") != 0, threads = strcmp(k, "nothreads") != 0;
	gmon_profile_init(&p);
	p.hdr.tool = strdup("robgen");
	p.hdr.abi = 4;
	p.hdr.pid = 100;
	p.hdr.mode = 1; /* arcs */
	p.hdr.start_ns = 1000000000ull;
	p.hdr.end_ns = 2000000000ull;
	p.hdr.tsc_hz = 1000000000ull;
	p.hdr.error = strdup("");
	p.nmodules = 1;
	p.modules = calloc(1, sizeof(*p.modules));
	p.modules[0] = (struct gmon_module){ 1, 0, 0, EXE, EXE + 0x1000, strdup("/nonexistent/robgen-prog"), 0, NULL };
	if (funcs) {
		p.nfuncsets = 1;
		p.funcsets = calloc(1, sizeof(*p.funcsets));
		p.funcsets[0] = (struct gmon_funcs){ 1, 1, 2, calloc(2, sizeof(struct gmon_func)) };
		p.funcsets[0].funcs[0] = (struct gmon_func){ EXE, 1, 3, 0, strdup("main"), strdup("r.c") };
		p.funcsets[0].funcs[1] = (struct gmon_func){ EXE + 0x100, threads ? 3 : 4, 9, 0, strdup("work"), strdup("r.c") };
	}
	if (threads) {
		p.nthreads = 1;
		p.threads = calloc(1, sizeof(*p.threads));
		p.threads[0] = (struct gmon_thread){ .tid = 100, .flags = GMON_THREAD_MAIN, .name = strdup("prog") };
	}
	if (funcs && threads) {
		p.threads[0].narcs = 2;
		p.threads[0].arcs = calloc(2, sizeof(struct gmon_arc));
		p.threads[0].arcs[0] = (struct gmon_arc){ 0x7f0000001000ull, GMON_CALLER_NONE, EXE, 1, 0, 0 };
		p.threads[0].arcs[1] = (struct gmon_arc){ EXE + 0x10, EXE, EXE + 0x100, 3, 0, 0 };
	}
	if (gmon_encode(&p, 0, &buf, &len) < 0 || gmon_write_file(argv[2], buf, len, err, sizeof(err)) < 0) {
		fprintf(stderr, "robgen: %s\n", err);
		return 1;
	}
	free(buf);
	gmon_profile_release(&p);
	return 0;
}
EOF
# shellcheck disable=SC2086
$CC -O2 $SPY_SAN_FLAGS -I"$SPY_SRC/common" "$T/robgen.c" "$SPY_SRC/common/gmon-io.c" -o "$T/robgen" -lz ||
	{ echo "Bail out! robgen does not build"; exit 1; }
for k in nofuncs nothreads calls; do
	"$T/robgen" $k "$T/$k.out" || { echo "Bail out! robgen $k failed"; exit 1; }
done

# clean NAME ARGS...: spinprof ARGS exits 0 with nothing on stderr but its warnings; output in $T/NAME.txt
clean() {
	local name=$1 rc
	shift
	"$SPINPROF" "$@" >"$T/$name.txt" 2>"$T/$name.err"
	rc=$?
	if [ $rc -ne 0 ] || grep -qv '^spinprof: warning: ' "$T/$name.err"; then
		echo "spinprof $*: status $rc, stderr:"
		head -n 10 "$T/$name.err"
		return 1
	fi
}

# calls_of FILE NAME: the calls column of NAME's line in the flat profile
calls_of() { awk -v n="$2" '/^Flat profile/ { on = 1 } on && $NF == n { print $4; exit }' "$1"; }

tap_plan 3

check "a profile that lists no function is read without complaint" clean nofuncs "$T/nofuncs.out"
sum_nothreads() {
	clean sum1 "$T/calls.out" "$T/nothreads.out" || return 1
	clean sum2 "$T/nothreads.out" "$T/calls.out" || return 1
	# the counts add up (3 + 4), the arcs are calls.out's
	local a b
	a=$(calls_of "$T/sum1.txt" work) b=$(calls_of "$T/sum2.txt" work)
	[ "$a" = 3 ] && [ "$b" = 3 ] || { echo "work's calls: $a and $b, want 3 and 3"; return 1; }
	grep -q 'work' "$T/sum1.txt" || return 1
}
check "a profile without a THREAD record summed with one that has it, both orders" sum_nothreads
check "the empty profile summed with itself" clean nofuncs2 "$T/nofuncs.out" "$T/nofuncs.out"
tap_done
