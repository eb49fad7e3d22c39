#!/bin/bash
# t286: the sample types of the other watches, exact by construction, through go tool pprof and the
# chrome format. SPYRT_WATCH=calls:work on samples/twocallers.c: a "calls" profile whose -traces give
# work 100 calls from heavy and 10 000 from light. SPYRT_WATCH=allocbytes on a program of two call
# sites (big: 100 mallocs of 1000 bytes; small: 1000 of 10 bytes, from main): alloc_space is 100 000
# bytes in big and 10 000 in small, the samples 100 and 1000; the chrome format's timeDeltas (one unit
# a byte) give the same split. Skipped under AddressSanitizer, whose malloc takes the interposition.
. "$(dirname "${BASH_SOURCE[0]}")/lib-pprof.sh"

[ -x "$SPINPROF" ] || tap_skip_all "no spinprof"
[ -n "$SPY_SAN_FLAGS" ] && tap_skip_all "the sanitizer's malloc takes the interposition (SAN=$SPY_SAN)"
rt_setup
pp_go_setup

P=$T/twocallers
A=$T/alloc
cat >"$A.c" <<'EOC'
#include <stdlib.h>
#include "sample.h"
static void *keep[1100];
static int nk;
NOINL void big(void) { keep[nk++] = malloc(1000); BARRIER(); }
NOINL void small(void) { keep[nk++] = malloc(10); BARRIER(); }
int main(void)
{
	for (int i = 0; i < 100; i++) big();
	for (int i = 0; i < 1000; i++) small();
	for (int i = 0; i < nk; i++) free(keep[i]);
	return 0;
}
EOC

run_it() {
	rt_sample twocallers "$P" || return 1
	RT_ENV="SPYRT_WATCH=calls:work" rt_run "$P" 100 || return 1
	sp_export pprof "$P.pb.gz" "$P.out" || return 1
	rt_cc "$A" "$CC" "$A.c" || return 1
	RT_ENV="SPYRT_WATCH=allocbytes" rt_run "$A" || return 1
	"$SPINPROF" --format=pprof -o "$A.pb.gz" "$A.out" 2>"$A.err" || { cat "$A.err"; return 1; }
	"$SPINPROF" --format=chrome -o "$A.json" "$A.out" 2>>"$A.err" || { cat "$A.err"; return 1; }
}
tap_plan 4
if ! sp_check "twocallers (calls:work) and the allocating program run; spinprof writes pprof and chrome" run_it; then
	for _ in 1 2 3; do not_ok "(no profile)"; done
	tap_done
fi

calls() {
	pp -traces "$P.pb.gz" >"$P.traces" || { cat "$T/pprof.err"; return 1; }
	grep -q '^Type: calls$' "$P.traces" || { head "$P.traces"; return 1; }
	awk '/^-----/ { on = 1; if (n) end(); n = 0; next }
		!on || $1 ~ /:$/ { next }
		{ v[++n] = $1; fr[n] = $NF }
		function end() { if (fr[1] == "work" && fr[2] == "heavy") h += v[1]; if (fr[1] == "work" && fr[2] == "light") l += v[1] }
		END { if (n) end(); if (h != 100 || l != 10000) { print "work from heavy " h ", from light " l; exit 1 } }' "$P.traces" ||
		{ head -n 40 "$P.traces"; return 1; }
}
check "calls:work: a calls profile, work called 100 times from heavy, 10 000 from light" calls

bytes() {
	pp -top -nodefraction=0 -sample_index=alloc_space -unit=B "$A.pb.gz" >"$A.bytes" || { cat "$T/pprof.err"; return 1; }
	pp -top -nodefraction=0 -sample_index=samples "$A.pb.gz" >"$A.samples" || return 1
	local got
	got="$(pp_top "$A.bytes" big 1) $(pp_top "$A.bytes" small 1) $(pp_top "$A.samples" big 1) $(pp_top "$A.samples" small 1)"
	[ "$got" = "100000B 10000B 100 1000" ] || { echo "big, small: $got"; cat "$A.bytes" "$A.samples"; return 1; }
}
check "allocbytes: alloc_space 100 000 bytes in big, 10 000 in small; 100 and 1000 samples" bytes

chrome() {
	python3 - "$A.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
w = {}
for e in d["traceEvents"]:
    if e["ph"] == "P" and e["name"] == "ProfileChunk":
        data = e["args"]["data"]
        nodes = {n["id"]: n["callFrame"]["functionName"] for n in data["cpuProfile"]["nodes"]}
        for s, dt in zip(data["cpuProfile"]["samples"], data["timeDeltas"][1:]):
            w[nodes[s]] = w.get(nodes[s], 0) + dt
if round(w.get("big", 0)) != 100000 or round(w.get("small", 0)) != 10000:
    print("leaves: %r" % w)
    sys.exit(1)
EOF
}
check "allocbytes, chrome: big's samples weigh 100 000, small's 10 000" chrome

tap_done
