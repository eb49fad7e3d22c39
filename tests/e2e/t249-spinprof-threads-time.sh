#!/bin/bash
# t249: Cedar's breakdown of threads for a time-mode profile without samples (issue 23, item 9): each
# thread's weight is its functions' self cycles (the hooks' cost taken off, as in the flat profile), and
# its heaviest procedures are listed with theirs (docs/spinprof.1). A program of two threads that run
# functions of their own, thread "ta" worker_a -> spin_a N times, thread "tb" worker_b -> spin_b 3N
# times, main joining them, in mode time with SPYRT_WATCH=none: thread ta weighs exactly the self
# cycles of worker_a and spin_a (json's functions, the flat profile's), tb those of worker_b and
# spin_b, main main's; under each thread its spin function with its self cycles. Before, every thread
# was "= 0 (0.0%)": the functions' per-thread records it read were freed once read.
. "$(dirname "$0")/lib-spinprof.sh"
. "$(dirname "$0")/lib-runtime.sh"

[ -x "$SPINPROF" ] || tap_skip_all "no spinprof"
command -v python3 >/dev/null || tap_skip_all "no python3 (in mk/deps.sh)"
rt_setup
tap_plan 3

cat >"$T/two.c" <<'EOF'
#define _GNU_SOURCE
#include <pthread.h>
#include <stdlib.h>
#include "sample.h"
static volatile unsigned long sink;
NOINL void spin_a(void) { for (int i = 0; i < 2000; i++) { sink += i; BARRIER(); } }
NOINL void spin_b(void) { for (int i = 0; i < 2000; i++) { sink ^= i; BARRIER(); } }
static long n;
NOINL void *worker_a(void *arg) { pthread_setname_np(pthread_self(), "ta"); for (long i = 0; i < n; i++) spin_a(); return arg; }
NOINL void *worker_b(void *arg) { pthread_setname_np(pthread_self(), "tb"); for (long i = 0; i < 3 * n; i++) spin_b(); return arg; }
int main(int argc, char **argv)
{
	pthread_t a, b;
	n = argc > 1 ? atol(argv[1]) : 1000;
	if (pthread_create(&a, NULL, worker_a, NULL) || pthread_create(&b, NULL, worker_b, NULL))
		return 2;
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	return 0;
}
EOF

P=$T/two
run_it() {
	rt_cc "$P" "$CC" "$T/two.c" || return 1
	RT_ENV="SPYRT_WATCH=none" rt_run "$P" 2000 || return 1
	"$SPINPROF" --spy "$P.out" >"$P.txt" 2>"$P.err" || { cat "$P.err"; return 1; }
	sp_export json "$P.json" "$P.out" || return 1
	grep -q '^mode: time' "$P.txt" || { echo "not mode time:"; head -n 5 "$P.txt"; }
}
if ! check "two threads of their own functions, mode time without samples: built, run, read" run_it; then
	not_ok "no profile"
	not_ok "no profile"
	tap_done
fi

# thread NAME's weight in the Spy report, and the lines under it: "NAME WEIGHT" then "  PROC WEIGHT"
thread_lines() {
	awk '/^Breakdown of threads/ { on = 1; next } on && /^~/ && seen { exit }
		on && /^Thread / { seen = 1; n = $0; sub(/^Thread [0-9]+ "/, "", n); sub(/".*/, "", n)
			w = $0; sub(/.* = /, "", w); sub(/ .*/, "", w); print n, w; next }
		on && /^    / { p = $1; w = $0; sub(/.* = /, "", w); sub(/ .*/, "", w); print "  " p, w }' "$P.txt"
}
thread_lines >"$P.threads"

weights() {
	python3 - "$P.json" "$P.threads" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
f = {x["name"]: x["self"] for x in d["functions"]}
got, cur = {}, None
for line in open(sys.argv[2]):
    if line.startswith("  "):
        p, w = line.split()
        got.setdefault(cur, {})[p] = float(w)
    else:
        cur, w = line.split()
        got[cur] = {"": float(w)}
want = {"ta": f["worker_a"] + f["spin_a"], "tb": f["worker_b"] + f["spin_b"], "two": f["main"]}
bad = 0
for t, w in want.items():
    g = got.get(t, {}).get("", None)
    if g is None or abs(g - w) > 1 + 1e-9 * w:
        print("thread %s: %s cycles, want %.0f (its functions' self cycles)" % (t, g, w))
        bad = 1
for t, p in (("ta", "spin_a"), ("tb", "spin_b")):
    g = got.get(t, {}).get(p, None)
    if g is None or abs(g - f[p]) > 1 + 1e-9 * f[p]:
        print("thread %s: %s = %s, want %.0f" % (t, p, g, f[p]))
        bad = 1
sys.exit(bad)
PY
}
check "each thread weighs its own functions' self cycles (json's, the flat profile's)" weights
# none of them 0, and they add up to the program's 100 %
adds_up() {
	awk '!/^  / { n++; if ($2 <= 0) { print $1 " = " $2; bad = 1 } } END { if (n < 3) { print n " threads"; bad = 1 } exit bad }' "$P.threads"
}
check "three threads listed, none of weight 0" adds_up
tap_done
