#!/bin/bash
# t021: the shadow stack that mode=arcs's inline path keeps is what CPU samples read (SIGPROF lands
# anywhere, in the middle of the inline code too), so every sampled stack must be a chain the program
# can have: two threads run the same mid and leaf under different callers (worker1 -> outer -> mid ->
# leaf, worker2 -> top2 -> mid -> leaf, and leaf also straight from outer), each spinning in every
# function, sampled at 2 kHz. Each stack (innermost first) must be the tail of one of those chains; the
# deep ones must be there; counts and arcs are exact by construction, per thread too.
. "$(dirname "$0")/lib-runtime.sh"
rt_setup
tap_plan 4

ARCS=-fplugin-arg-spyinstr-mode=arcs
N=${SPY_T021_N:-40000}

cat >"$T/stacks.c" <<'EOC'
#include <pthread.h>
#include <stdlib.h>
#include "sample.h"

static __thread volatile unsigned long sink; /* per thread: no race between the workers */

static void spin(int k)
{
	unsigned long x = sink;
	for (int i = 0; i < k; i++) {
		x = x * 6364136223846793005ul + 1;
		BARRIER();
	}
	sink = x;
}
NOINL void leaf(int k) { spin(k); BARRIER(); }
NOINL void mid(int k)
{
	spin(k);
	leaf(k);
	BARRIER();
	spin(k);
}
NOINL void outer(int k)
{
	spin(k);
	mid(k);
	BARRIER();
	leaf(k);
	BARRIER();
}
NOINL void top2(int k)
{
	mid(k);
	BARRIER();
	spin(k);
}
static int n;
NOINL void *worker1(void *arg)
{
	for (int i = 0; i < n; i++) {
		outer(2000);
		BARRIER();
	}
	return arg;
}
NOINL void *worker2(void *arg)
{
	for (int i = 0; i < n; i++) {
		top2(2000);
		BARRIER();
	}
	return arg;
}
int main(int argc, char **argv)
{
	pthread_t a, b;

	n = atoi(argv[1]);
	pthread_create(&a, NULL, worker1, NULL);
	pthread_create(&b, NULL, worker2, NULL);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	return 0;
}
EOC

P=$T/stacks
check "the sample builds with mode=arcs (inline arcs)" rt_cc "$P" "$CC" $ARCS "$T/stacks.c" -pthread

exact() {
	RT_ENV="SPYRT_MODE=arcs SPYRT_WATCH=cpu SPYRT_HZ=2000" rt_run "$P" "$N" || return 1
	rt_facts "$P.out" >"$P.facts"
	printf '%s\n' "func worker1 1" "func worker2 1" "arc <spontaneous> worker1 1" "arc <spontaneous> worker2 1" "func outer $N" "func top2 $N" "func mid $((2 * N))" \
		"func leaf $((3 * N))" "arc worker1 outer $N" "arc worker2 top2 $N" "arc outer mid $N" \
		"arc top2 mid $N" "arc mid leaf $((2 * N))" "arc outer leaf $N" >"$P.expect"
	rt_compare "$P.expect" "$P.facts" || return 1
	[ "$(rt_get "$P.out" lost abandoned)" = 0 ] && [ "$(rt_get "$P.out" lost unmatched)" = 0 ] ||
		{ rt_dump "$P.out" | grep '^lost'; return 1; }
}
check "two threads, same callees under other callers: counts and arcs exact" exact

per_thread() {
	# each thread's own arcs: mid's caller is outer on one and top2 on the other, never both
	rt_dump "$P.out" | awk '
		function val(k,   i) { for (i = 2; i <= NF; i++) if (index($i, k "=") == 1) return substr($i, length(k) + 2) }
		$1 == "arc" && val("callee") == "mid" { c[val("tid")] = c[val("tid")] " " val("caller") ":" val("count") }
		END { for (t in c) { print t c[t]; n++ } exit n != 2 }' >"$P.mid" || { cat "$P.mid"; return 1; }
	grep -q " outer:$N\$" "$P.mid" && grep -q " top2:$N\$" "$P.mid" || { cat "$P.mid"; return 1; }
}
check "per thread: mid called from outer on one thread, top2 on the other, N each" per_thread

stacks() {
	[ -z "$SPY_TSAN" ] || return 0
	rt_dump "$P.out" | awk '
		BEGIN {
			chain[1] = "leaf,mid,outer,worker1"
			chain[2] = "leaf,mid,top2,worker2"
			chain[3] = "leaf,outer,worker1"
		}
		function frames(   i, f, n, p, out) {
			f = ""
			for (i = 2; i <= NF; i++)
				if (index($i, "frames=") == 1)
					f = substr($i, 8)
			# "-": no frame at all, as a tick in the exit code of the main thread after main returned
			# (deregister_tm_clones, in the longer exit under AddressSanitizer: 1 run in 15-30)
			if (f == "-")
				return ""
			n = split(f, p, ",")
			out = ""
			for (i = 1; i <= n; i++) {
				sub(/@.*/, "", p[i])
				if (p[i] == "main" || p[i] ~ /^</)
					continue
				out = out (out == "" ? "" : ",") p[i]
			}
			return out
		}
		function tail_of(s,   c, k) {
			for (c in chain) {
				k = chain[c]
				if (s == k || (length(k) > length(s) && substr(k, length(k) - length(s)) == "," s))
					return 1
			}
			return 0
		}
		$1 == "stack" {
			s = frames()
			if (s == "")
				next
			for (i = 2; i <= NF; i++)
				if (index($i, "count=") == 1)
					c = substr($i, 7) + 0
			total += c
			if (!tail_of(s)) { print "impossible stack: " s " (" $0 ")"; bad++ }
			if (s ~ /^leaf,mid,/) deep += c
		}
		END {
			print total " stacks, " deep " with leaf under mid"
			exit bad != 0 || total < 50 || deep < 5
		}'
}
check "every sampled stack is a chain the program has (and deep ones were sampled)$(tsan_skip "$TSAN_DELAYS_SIGNALS")" stacks

tap_done
