#!/bin/bash
# t010: call sites. __spy_enter's call_site is the caller's return address; for the callsite-sample
# lines of a few samples, addr2line (the independent reference, reading DWARF and symbols) must
# name the function the trace's shadow stack named as the caller. Offsets are relative to the
# module's load base, which is what addr2line takes for PIE executables and DSOs.
. "$(dirname "$0")/lib.sh"
need_plugin
setup_workdir

# strip clone suffixes (.constprop.0, .part.0, .cold, .lto_priv.0, .0)
base() { sed -E -e ':a' -e 's/\.(constprop|isra|part|cold|lto_priv|localalias)(\.[0-9]+)?$|\.[0-9]+$//' -e 'ta' <<<"$1"; }

callsites_ok() {
	local tr=$1 min=$2 n=0 caller off mod callee got
	while read -r _ caller off mod callee; do
		got=$(addr2line -f -e "$mod" "$off" | head -n 1)
		if [ "$(base "$got")" != "$(base "$caller")" ]; then
			echo "call site of $callee at $mod+$off: trace says $caller, addr2line says $got"
			return 1
		fi
		n=$((n + 1))
	done < <(grep '^callsite-sample ' "$tr")
	[ $n -ge "$min" ] || { echo "only $n call sites checked, want $min"; grep '^callsite' "$tr"; return 1; }
}

# sample:minimum number of (caller, callee) pairs with a checked call site
cases="calls:3 recursion:5 tailcall:4 nested:2 exceptions:10 cxxinit:4 openmp:1 inline:2"
tap_plan $((2 * $(wc -w <<<"$cases")))
for c in $cases; do
	s=${c%%:*} min=${c#*:}
	for lv in O0 O2; do
		if [ -n "$SPY_TSAN" ] && [ "$s" = openmp ]; then
			ok "$s -$lv: callsite-sample lines agree with addr2line$(tsan_skip "$TSAN_NO_OPENMP")"
			continue
		fi
		check "$s -$lv: callsite-sample lines agree with addr2line" eval \
			'check_sample "$s" "$lv" time && callsites_ok "$T/$s-$lv-time.trace" "$min"'
	done
done
tap_done
