#!/bin/bash
# t140: the file's header names the mode the data was recorded in. samples/calls.c built with the
# plugin's mode=count has only add-one counters, whatever SPYRT_MODE asks: its header says count (it
# said time), with the exact counts and no arcs; a time build still says time.
. "$(dirname "$0")/lib-runtime.sh"

rt_setup
tap_plan 5

P=$T/calls
check "calls.c with mode=count builds" rt_sample calls "$P" -fplugin-arg-spyinstr-mode=count

# mode_is WANT [ENV]: run with ENV, the header's mode is WANT
mode_is() {
	local want=$1 got
	RT_ENV=${2:-} rt_run "$3" || return 1
	got=$(rt_get "$3.out" header mode)
	[ "$got" = "$want" ] || { echo "header mode $got, want $want"; return 1; }
}
check "mode=count build: header mode count" mode_is count "" "$P"
check "mode=count build under SPYRT_MODE=arcs: header mode count" mode_is count SPYRT_MODE=arcs "$P"
counts_only() {
	rt_facts "$P.out" >"$P.facts"
	grep -v '^arc' "$SAMPLES/calls.expect" >"$T/want"
	rt_compare "$T/want" "$P.facts" && ! grep '^arc' "$P.facts"
}
check "mode=count build: exact counts, no arcs" counts_only

T2=$T/calls-time
check "mode=time build: header mode time" eval 'rt_sample calls "$T2" && mode_is time "" "$T2"'
tap_done
