#!/bin/bash
# t113: SPYRT_WATCH=faults: a software perf event per thread signals on page faults; a function that
# touches 2000 fresh pages is charged about 2000 faults, by the faulting instruction's stack.
. "$(dirname "$0")/lib-sample.sh"
tsan_skip_all "it holds an asynchronous signal until the thread's next intercepted call, so sampling ticks are merged and lost"
rt_setup
tap_plan 3

cat >"$T/faults.c" <<'EOC'
#include <stdio.h>
#include <sys/mman.h>
#include "sample.h"
#define PAGES 2000
NOINL void toucher(char *m, long pg)
{
	for (long i = 0; i < PAGES; i++) {
		m[i * pg] = 1;
		BARRIER();
	}
}
int main(void)
{
	long pg = 4096;
	char *m = mmap(NULL, PAGES * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		return 1;
	madvise(m, PAGES * pg, MADV_NOHUGEPAGE); /* one fault per page */
	toucher(m, pg);
	return 0;
}
EOC
# AddressSanitizer's shadow (an eighth of the memory written) is faulted in by the same instructions
HI=2200
[ -n "$SPY_SAN_FLAGS" ] && HI=$((HI + 2000 / 8))
P=$T/faults
if ! check "the program builds" rt_cc "$P" "$CC" "$T/faults.c"; then
	for _ in $(seq 2); do not_ok "not built"; done
	tap_done
fi

faults() {
	local w f
	RT_ENV=SPYRT_WATCH=faults rt_run "$P" || return 1
	if grep -q 'perf_event_open' "$P.stderr"; then
		echo "# no perf events here: $(cat "$P.stderr")"
		[ "$(( $(samp_line "$P.out" flags) & 2 ))" -ne 0 ] # NOSOURCE said
		return
	fi
	w=$(SAMP_FIELD=weight inner_sum "$P.out" toucher)
	f=$(samp_line "$P.out" faults)
	echo "toucher charged $w faults (process: $f)"
	[ "$w" -ge 1900 ] && [ "$w" -le "$HI" ] && [ "$f" -ge "$w" ]
}
check "faults: the function touching 2000 new pages is charged about 2000 faults" faults

divisor() {
	local w c
	RT_ENV="SPYRT_WATCH=faults SPYRT_DIVISOR=10" rt_run "$P" || return 1
	grep -q 'perf_event_open' "$P.stderr" && return 0
	w=$(SAMP_FIELD=weight inner_sum "$P.out" toucher)
	c=$(inner_sum "$P.out" toucher)
	echo "divisor 10: toucher $c samples weighing $w faults"
	[ "$w" -ge 1900 ] && [ "$w" -le "$HI" ] && [ "$c" -ge 150 ] && [ "$c" -le $((HI / 10)) ]
}
check "faults, SPYRT_DIVISOR=10: one signal per 10 faults, weights still count them all" divisor
tap_done
