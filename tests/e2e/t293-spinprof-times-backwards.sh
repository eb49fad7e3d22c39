#!/bin/bash
# t293: a profile whose header ends before it starts (end_ns < start_ns: written so, or damaged), as
# AFL++ found: its duration once wrapped to 18446744072.7 s in the text report and converted an
# out-of-range double to int64 in --format=pprof (undefined; UBSan's float-cast-overflow, which
# `make SAN=address,undefined` now builds with). samples/nodes.c in mode time (traces, nodes, legs) and
# sampled (mode arcs, cpu), each profile rewritten with end_ns one second before start_ns, goes through
# the text report (the header and the Spy report say "duration: unknown: ..." once), every --format,
# --dump, --diff, -s, --stopwatch, --trace: status 0 (or 2 with one line, for a format the profile has
# nothing for), no sanitizer report, no wrapped duration anywhere, pprof's duration 0.
. "$(dirname "$0")/lib-spinprof.sh"
. "$(dirname "$0")/lib-runtime.sh"

[ -x "$SPINPROF" ] || tap_skip_all "no spinprof"
rt_setup
tap_plan 4
P=$T/nodes

cat >"$T/backwards.c" <<'EOF'
/* backwards IN OUT: IN with its header's end_ns one second before its start_ns */
#include <stdio.h>
#include <stdlib.h>
#include "gmon-format.h"

int main(int argc, char **argv)
{
	struct gmon_profile p;
	char err[256] = "out of memory";
	uint8_t *buf;
	size_t len;

	if (argc != 3 || gmon_read_file(argv[1], &p, err, sizeof(err)) ||
	    (p.hdr.end_ns = p.hdr.start_ns - 1000000000ull, gmon_encode(&p, 0, &buf, &len) < 0) ||
	    gmon_write_file(argv[2], buf, len, GMON_WRITE_NAMED, err, sizeof(err)) < 0) {
		fprintf(stderr, "backwards: %s\n", err);
		return 1;
	}
	free(buf);
	gmon_profile_release(&p);
	return 0;
}
EOF

prepare() {
	rt_sample nodes "$P" -lpthread || return 1
	RT_ENV="SPYRT_MODE=time SPYRT_TRACE=rec SPYRT_LEGS=start>end" rt_run "$P" || return 1
	mv "$P.out" "$T/time.real"
	RT_ENV="SPYRT_MODE=arcs SPYRT_WATCH=cpu SPYRT_HZ=20000" rt_run "$P" || return 1
	mv "$P.out" "$T/cpu.real"
	# shellcheck disable=SC2086
	$CC -O2 -g $SPY_SAN_FLAGS -I"$SPY_SRC/common" "$T/backwards.c" "$GMON_IO" \
		-o "$T/backwards" -lz || return 1
	"$T/backwards" "$T/time.real" "$T/time.out" && "$T/backwards" "$T/cpu.real" "$T/cpu.out" || return 1
	"$SPINPROF" --dump "$T/time.out" | grep -q '^times start_ns=\([0-9]*\) end_ns=' || return 1
}
if ! check "samples/nodes.c in mode time and sampled, each profile's end_ns set a second before its start_ns" prepare; then
	echo "Bail out! no profiles"
	exit 1
fi

cd "$T" || exit 1
# run OUT ARGS...: spinprof ARGS into OUT and OUT.err: status 0, or 2 with one line; no sanitizer's
# report, and no wrapped duration (18446744072 s, 1.8e19 ns) nor a negative one in the output
run() {
	local out=$1 rc
	shift
	"$SPINPROF" "$@" >"$out" 2>"$out.err"
	rc=$?
	if grep -E -q 'runtime error|Sanitizer|^SUMMARY' "$out.err"; then
		echo "spinprof $*: a sanitizer's report"
		cat "$out.err"
		return 1
	fi
	case $rc in
	0) ;;
	2) [ "$(wc -l <"$out.err")" = 1 ] || { echo "spinprof $*: status 2 and"; cat "$out.err"; return 1; } ;;
	*) echo "spinprof $*: status $rc"; cat "$out.err"; return 1 ;;
	esac
	if LC_ALL=C grep -a -E -q '18446744|1\.8446|duration[^0-9]*-' "$out"; then
		echo "spinprof $*: a wrapped duration"
		LC_ALL=C grep -a -E '18446744|1\.8446|duration[^0-9]*-' "$out" | head -3
		return 1
	fi
}

reports() {
	local p
	for p in time cpu; do
		run $p.txt $p.out || return 1
		[ "$(grep -c '^duration: unknown: a profile.s end time precedes its start' $p.txt)" = 2 ] ||
			{ echo "$p: want the header's and the Spy report's duration unknown:"; grep '^duration' $p.txt; return 1; }
		run $p.spy --spy $p.out && run $p.dump --dump $p.out && run $p.sum -s $p.out $p.out &&
			run $p.sumdump --dump gmon.sum || return 1
		grep -q '^duration: unknown' $p.spy || return 1
	done
	run diff.txt --diff time.out cpu.out && grep -q '^duration  *unknown  *unknown$' diff.txt || { cat diff.txt; return 1; }
	run sw.txt --stopwatch time.out && run tr.txt --trace time.out
}
check "the text report, --spy, --dump, -s, --diff, --stopwatch, --trace: duration unknown, said once in each part" reports

formats() {
	local p f
	for p in time cpu; do
		for f in callgrind dot json pprof chrome folded svg icicle html; do
			run $p.$f --format=$f -o $p.$f $p.out || return 1
		done
		python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
assert d["header"]["duration_seconds"] == 0, d["header"]["duration_seconds"]' $p.json || return 1
	done
}
check "every --format: no sanitizer report, nothing wrapped; JSON's duration_seconds 0" formats

pprof_duration() {
	if ! command -v go >/dev/null; then
		echo "no go"
		return 0
	fi
	export GOPATH=$T/go GOCACHE=$T/gocache PPROF_TMPDIR=$T/pprof HOME=$T GOFLAGS= GOTOOLCHAIN=local
	mkdir -p "$GOPATH" "$GOCACHE" "$PPROF_TMPDIR"
	local p
	for p in time cpu; do
		go tool pprof -raw $p.pprof >$p.raw 2>$p.raw.err || { cat $p.raw.err; return 1; }
		! grep '^Duration: ' $p.raw | grep -v '^Duration: 0$' || return 1
	done
}
check "go tool pprof reads the pprof: its duration 0, not a wrapped one$(command -v go >/dev/null || echo ' # SKIP no go')" pprof_duration

tap_done
