#!/bin/bash
# t159: cycles per instruction, which this machine kind cannot count (no hardware counters): spinprof
# reads synthetic time-mode profiles written through gmon_encode by a generator compiled here, whose
# threads carry SPYRT_COUNTERS' totals of instructions and cycles known by construction:
#   main -> hot  10 calls: instructions 1000, cycles 2500 (CPI 2.50)
#   main -> cold  4 calls: instructions 4000, cycles 2000 (CPI 0.50)
#   main itself:           instructions  100, cycles  300 (CPI 3.00), inclusive 5100 and 4800
# The flat profile has a CPI column with those, and each counter's self and total per call (hot's
# instructions 100.00 a call); the json export each function's and arc's cpi; callgrind the two events.
# Without cycles (instructions only) there is no CPI column and no cpi key. A second thread whose
# counters are page-faults adds a third column (names matched across threads), and its CPI stays.
. "$(dirname "$0")/lib-spinprof.sh"
sp_setup
tap_plan 5

cat >"$T/ctrgen.c" <<'EOF'
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gmon-format.h"

#define EXE 0x401000ull
enum { MAIN, HOT, COLD, NF };
static const char *names[NF] = { "main", "hot", "cold" };
static uint64_t fa(int f) { return EXE + 0x100 * (uint64_t)f; }

int main(int argc, char **argv)
{
	struct gmon_profile p;
	struct gmon_thread *t;
	char err[256] = "out of memory";
	uint8_t *buf;
	size_t len;
	const char *sc = argc > 1 ? argv[1] : "";
	int cycles = strcmp(sc, "nocycles") != 0, two = strcmp(sc, "twothreads") == 0;

	if (argc != 3)
		return 1;
	gmon_profile_init(&p);
	p.hdr.tool = strdup("ctrgen");
	p.hdr.abi = 5;
	p.hdr.pid = 100;
	p.hdr.mode = 2; /* time */
	p.hdr.start_ns = 1000000000ull;
	p.hdr.end_ns = 2000000000ull;
	p.hdr.tsc_hz = 1000000000ull;
	p.hdr.error = strdup("");
	p.hdr.argc = 1;
	p.hdr.argv = calloc(1, sizeof(char *));
	p.hdr.argv[0] = strdup("./ctr");
	p.nmodules = 1;
	p.modules = calloc(1, sizeof(*p.modules));
	p.modules[0] = (struct gmon_module){ 1, GMON_MOD_MAIN | GMON_MOD_INSTRUMENTED, 0, EXE, EXE + 0x10000,
					     strdup("/nonexistent/spy-ctr"), 0, NULL };
	p.nfuncsets = 1;
	p.funcsets = calloc(1, sizeof(*p.funcsets));
	p.funcsets[0].module = 1;
	p.funcsets[0].plugin_mode = 2;
	p.funcsets[0].nr = NF;
	p.funcsets[0].funcs = calloc(NF, sizeof(struct gmon_func));
	for (int f = 0; f < NF; f++)
		p.funcsets[0].funcs[f] = (struct gmon_func){ fa(f), 0, 5 + 10 * (uint32_t)f, 1, strdup(names[f]), strdup("ctr.c") };
	p.nthreads = two ? 2 : 1;
	p.threads = calloc(2, sizeof(*p.threads));
	t = &p.threads[0];
	*t = (struct gmon_thread){ .tid = 100, .flags = GMON_THREAD_MAIN | GMON_THREAD_COUNTERS, .name = strdup("ctr") };
	t->narcs = 3;
	t->arcs = calloc(3, sizeof(struct gmon_arc));
	t->arcs[0] = (struct gmon_arc){ 0x7f0000001500ull, GMON_CALLER_NONE, fa(MAIN), 1, 10000, 1000 };
	t->arcs[1] = (struct gmon_arc){ fa(MAIN) + 0x10, fa(MAIN), fa(HOT), 10, 5000, 5000 };
	t->arcs[2] = (struct gmon_arc){ fa(MAIN) + 0x20, fa(MAIN), fa(COLD), 4, 4000, 4000 };
	t->nctrs = cycles ? 2 : 1;
	t->ctr_names[0] = strdup("instructions");
	if (cycles)
		t->ctr_names[1] = strdup("cycles");
	t->arcctrs = calloc(3, sizeof(struct gmon_arcctr));
	t->arcctrs[0] = (struct gmon_arcctr){ { 5100, 4800 }, { 100, 300 } };
	t->arcctrs[1] = (struct gmon_arcctr){ { 1000, 2500 }, { 1000, 2500 } };
	t->arcctrs[2] = (struct gmon_arcctr){ { 4000, 2000 }, { 4000, 2000 } };
	if (two) { /* a second thread: hot once more, its page faults counted */
		t = &p.threads[1];
		*t = (struct gmon_thread){ .tid = 101, .flags = GMON_THREAD_COUNTERS, .name = strdup("worker") };
		t->narcs = 1;
		t->arcs = calloc(1, sizeof(struct gmon_arc));
		t->arcs[0] = (struct gmon_arc){ 0x7f0000002000ull, GMON_CALLER_NONE, fa(HOT), 1, 700, 700 };
		t->nctrs = 1;
		t->ctr_names[0] = strdup("page-faults");
		t->arcctrs = calloc(1, sizeof(struct gmon_arcctr));
		t->arcctrs[0] = (struct gmon_arcctr){ { 33 }, { 33 } };
	}
	if (gmon_encode(&p, 0, &buf, &len) < 0 || gmon_write_file(argv[2], buf, len, GMON_WRITE_NAMED, err, sizeof(err)) < 0) {
		fprintf(stderr, "ctrgen: %s\n", err);
		return 1;
	}
	free(buf);
	gmon_profile_release(&p);
	return 0;
}
EOF
# shellcheck disable=SC2086
$CC -O2 $SPY_SAN_FLAGS -I"$SPY_SRC/common" "$T/ctrgen.c" "$GMON_IO" -o "$T/ctrgen" -lz || exit 1
for s in cpi nocycles twothreads; do
	"$T/ctrgen" $s "$T/$s.out" || { echo "Bail out! ctrgen $s failed"; exit 1; }
done

# col FILE FUNC N: the flat profile's field N counted back from the name (1: the field before it)
col() { "$SPINPROF" -b -p "$1" 2>/dev/null | awk -v f="$2" -v n="$3" '$NF == f { print $(NF - n) }'; }
is() {
	echo "$1: $2 (want $3)"
	[ "$2" = "$3" ]
}

flat() {
	"$SPINPROF" -b -p "$T/cpi.out" 2>&1 | head -8
	"$SPINPROF" -b -p "$T/cpi.out" 2>/dev/null | grep -q ' CPI  name *$' &&
		is "hot CPI" "$(col "$T/cpi.out" hot 1)" 2.50 && is "cold CPI" "$(col "$T/cpi.out" cold 1)" 0.50 &&
		is "main CPI" "$(col "$T/cpi.out" main 1)" 3.00 &&
		is "hot cycles total/call" "$(col "$T/cpi.out" hot 2)" 250.00 &&
		is "hot cycles self/call" "$(col "$T/cpi.out" hot 3)" 250.00 &&
		is "hot instructions self/call" "$(col "$T/cpi.out" hot 5)" 100.00 &&
		is "main instructions total/call" "$(col "$T/cpi.out" main 4)" 5100.00 &&
		is "cold instructions self/call" "$(col "$T/cpi.out" cold 5)" 1000.00
}
check "flat profile: CPI of each function's own code, and the counters per call" flat

json() {
	"$SPINPROF" --format=json -o "$T/cpi.json" "$T/cpi.out" || return 1
	python3 - "$T/cpi.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
name = {f["id"]: f["name"] for f in d["functions"]}
fn = {f["name"]: f for f in d["functions"]}
arc = {(name[a["caller"]], name[a["callee"]]): a for a in d["arcs"]}
got = [
    ("header.counters", d["header"]["counters"], ["instructions", "cycles"]),
    ("hot cpi", fn["hot"]["cpi"], 2.5),
    ("cold cpi", fn["cold"]["cpi"], 0.5),
    ("main cpi", fn["main"]["cpi"], 3.0),
    ("main -> hot cpi", arc[("main", "hot")]["cpi"], 2.5),
    ("main -> cold cycles", arc[("main", "cold")]["counters"]["cycles"], {"self": 2000, "total": 2000}),
    ("main instructions", fn["main"]["counters"]["instructions"], {"self": 100, "total": 5100}),
]
bad = 0
for what, g, w in got:
    print(what, g, "want", w)
    bad += g != w
sys.exit(bad != 0)
PY
}
if command -v python3 >/dev/null; then
	check "json: each function's and arc's cpi" json
else
	ok "json # SKIP no python3 (in mk/deps.sh)"
fi

cg() {
	"$SPINPROF" --format=callgrind -o "$T/cpi.cg" "$T/cpi.out" || return 1
	grep -qx 'events: Cycles instructions cycles' "$T/cpi.cg" &&
		grep -qx 'event: instructions : instructions (SPYRT_COUNTERS)' "$T/cpi.cg" &&
		grep -qx 'summary: 10000 5100 4800' "$T/cpi.cg"
}
check "callgrind: instructions and cycles as events, their totals the summary" cg

nocycles() {
	! "$SPINPROF" -b -p "$T/nocycles.out" 2>/dev/null | grep -q 'CPI' &&
		is "hot instructions self/call" "$(col "$T/nocycles.out" hot 2)" 100.00 &&
		! "$SPINPROF" --format=json "$T/nocycles.out" 2>/dev/null | grep -q '"cpi"'
}
check "instructions without cycles: no CPI column, no cpi key" nocycles

two() {
	"$SPINPROF" -b -p "$T/twothreads.out" 2>&1 | sed -n '4,5p'
	"$SPINPROF" -b -p "$T/twothreads.out" 2>/dev/null | grep -m1 cumulative | grep -q 'instructions  *cycles  *page-faults' &&
		is "hot CPI" "$(col "$T/twothreads.out" hot 1)" 2.50 &&
		is "hot page-faults self/call (33 over 11 calls)" "$(col "$T/twothreads.out" hot 3)" 3.00 &&
		is "hot instructions self/call (1000 over 11)" "$(col "$T/twothreads.out" hot 7)" 90.91
}
check "two threads, different counters: a column for each name, CPI of the thread that had both" two
tap_done
