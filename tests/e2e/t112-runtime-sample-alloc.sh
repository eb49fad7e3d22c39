#!/bin/bash
# t112: SPYRT_WATCH=alloc and allocbytes: malloc, calloc, realloc and posix_memalign are seen at their
# call sites with the shadow stack; with divisor 1 the bytes and the calls per call site are exactly the
# program's, known by construction; SPYRT_DIVISOR keeps one in N with unbiased weights; the totals;
# nothing when not watching. Under AddressSanitizer its allocator is the program's: skipped.
. "$(dirname "$0")/lib-sample.sh"
[ -n "$SPY_SAN_FLAGS" ] && tap_skip_all "the sanitizer's malloc takes the interposition (SAN=$SPY_SAN)"
rt_setup
tap_plan 6

cat >"$T/alloc.c" <<'EOC'
#include <stdlib.h>
#include "sample.h"
static void *keep[4000];
static int nk;
/* site_a: 1000 mallocs of 100 + i bytes = 599500 bytes */
NOINL void site_a(int i) { keep[nk++] = malloc(100 + i); BARRIER(); }
/* site_b: 500 callocs of 3 x 64 = 96000 bytes */
NOINL void site_b(void) { keep[nk++] = calloc(3, 64); BARRIER(); }
/* site_c: 200 reallocs to 4096 bytes = 819200 bytes */
NOINL void site_c(void) { keep[nk - 1] = realloc(keep[nk - 1], 4096); BARRIER(); }
/* site_d: 300 posix_memalign of 256 bytes = 76800 bytes */
NOINL void site_d(void) { void *p; if (!posix_memalign(&p, 64, 256)) keep[nk++] = p; BARRIER(); }
int main(void)
{
	for (int i = 0; i < 1000; i++) site_a(i);
	for (int i = 0; i < 500; i++) site_b();
	for (int i = 0; i < 200; i++) site_c();
	for (int i = 0; i < 300; i++) site_d();
	for (int i = 0; i < nk; i++) free(keep[i]);
	return 0;
}
EOC
P=$T/alloc
if ! check "the program builds" rt_cc "$P" "$CC" "$T/alloc.c"; then
	for _ in $(seq 5); do not_ok "not built"; done
	tap_done
fi

# per_site FIELD: "site_a N site_b N site_c N site_d N"
per_site() {
	local s out=
	for s in site_a site_b site_c site_d; do
		out="$out$s $(SAMP_FIELD=$1 inner_sum "$P.out" $s) "
	done
	echo "${out% }"
}

bytes() {
	local got
	RT_ENV=SPYRT_WATCH=allocbytes rt_run "$P" || return 1
	got=$(per_site weight)
	echo "bytes: $got"
	[ "$got" = "site_a 599500 site_b 96000 site_c 819200 site_d 76800" ] || return 1
	got=$(per_site count)
	echo "calls: $got"
	[ "$got" = "site_a 1000 site_b 500 site_c 200 site_d 300" ]
}
check "allocbytes, divisor 1: bytes and calls per call site exactly the program's" bytes

totals() {
	local a b
	a=$(samp_line "$P.out" allocs)
	b=$(samp_line "$P.out" alloc_bytes)
	echo "allocs $a alloc_bytes $b watch $(samp_line "$P.out" watch)"
	[ "$(samp_line "$P.out" watch)" = allocbytes ] && [ "$a" -ge 2000 ] && [ "$b" -ge 1591500 ] &&
		[ "$a" -lt 2100 ] && [ "$(samp_line "$P.out" taken)" -eq "$a" ]
}
check "allocbytes: totals count every allocation of the program (none of the runtime's)" totals

allocs() {
	local got
	RT_ENV=SPYRT_WATCH=alloc rt_run "$P" || return 1
	got=$(per_site weight)
	echo "alloc weights: $got"
	[ "$got" = "site_a 1000 site_b 500 site_c 200 site_d 300" ]
}
check "alloc: one per allocation, per call site" allocs

divisor() {
	local w c
	RT_ENV="SPYRT_WATCH=allocbytes SPYRT_DIVISOR=10" rt_run "$P" || return 1
	c=$(per_site count)
	w=$(SAMP_FIELD=weight inner_sum "$P.out" site_b)
	echo "divisor 10: counts $c; site_b weight $w"
	# one allocation in 10 of the thread's, each weighing 10 times its bytes
	awk -v c="$c" -v w="$w" 'BEGIN { split(c, a, " "); exit !(a[2] >= 99 && a[2] <= 101 && a[4] >= 49 && a[4] <= 51 && w >= 0.95 * 96000 && w <= 1.05 * 96000) }'
}
check "SPYRT_DIVISOR=10: one allocation in 10, weights scaled (totals unbiased)" divisor

# The default watch is the CPU: its ticks may land in the sites (in malloc under them) on a busy machine,
# which is no allocation seen; the runtime's allocation totals are what must stay 0.
cpu_only() {
	rt_run "$P" || return 1
	echo "watch $(samp_line "$P.out" watch), allocs $(samp_line "$P.out" allocs), bytes $(samp_line "$P.out" alloc_bytes); ticks at the sites: $(per_site count)"
	[ "$(samp_line "$P.out" watch)" = cpu ] && [ "$(samp_line "$P.out" allocs)" -eq 0 ] &&
		[ "$(samp_line "$P.out" alloc_bytes)" -eq 0 ]
}
check "not watching allocations: none recorded" cpu_only
tap_done
