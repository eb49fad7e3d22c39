#!/bin/bash
# t001: every C sample at every optimisation level, mode time: exact counts and arcs from
# samples/*.expect, counters equal to enters, exits equal to enters (unless the sample says),
# no unmatched exit, no call site outside its caller, nothing left open, nothing in slot 0.
. "$(dirname "$0")/lib.sh"
need_plugin
setup_workdir

samples="calls recursion threads tailcall tailpaths tokens copytail noreturn longjmp nested inline attrs"
tap_plan $(( $(wc -w <<<"$samples") * $(wc -w <<<"$OPT_LEVELS") ))
for s in $samples; do
	for lv in $OPT_LEVELS; do
		check "$s -$lv" check_sample "$s" "$lv" time
	done
done
tap_done
