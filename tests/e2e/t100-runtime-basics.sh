#!/bin/bash
# t100: the runtime's basics: samples/calls.c and samples/recursion.c built with the plugin and linked
# with libspyrt give exact counts and arcs in each SPYRT_MODE, static and shared; the file starts
# "gmonSPY\1" and GNU gprof refuses it cleanly; recursion is counted once; the reader refuses a cut file.
. "$(dirname "$0")/lib-runtime.sh"

# ---- the tests of t100 ----

rt_setup
tap_plan 16

P=$T/calls
if ! check "calls builds with the plugin and libspyrt" rt_sample calls "$P"; then
	for _ in $(seq 15); do not_ok "calls (not built)"; done
	tap_done
fi
count_only() {
	rt_run "$1" || return 1
	rt_facts "$1.out" >"$1.facts"
	grep -v '^arc' "$SAMPLES/calls.expect" >"$T/calls-count.expect"
	rt_compare "$T/calls-count.expect" "$1.facts"
}
RT_ENV=SPYRT_MODE=time check "calls, SPYRT_MODE=time: counts and arcs exact" rt_check_expect calls "$P"
cp "$P.out" "$T/calls-time.out"
RT_ENV=SPYRT_MODE=arcs check "calls, SPYRT_MODE=arcs: counts and arcs exact" rt_check_expect calls "$P"
cp "$P.out" "$T/calls-arcs.out"
RT_ENV=SPYRT_MODE=count check "calls, SPYRT_MODE=count: counts exact" count_only "$P"
cp "$P.out" "$T/calls-count.out"

mode_shape() {
	local f=$T/calls-$1.out arcs times
	[ "$(rt_get "$f" header mode)" = "$1" ] || { echo "header mode $(rt_get "$f" header mode), want $1"; return 1; }
	arcs=$(rt_dump "$f" | grep -c '^arc ')
	times=$(rt_dump "$f" | grep -c '^time ')
	case $1 in
	time) [ "$arcs" -gt 0 ] && [ "$times" -gt 0 ] && [ "$(rt_get "$f" times tsc_hz)" -gt 0 ] ;;
	arcs) [ "$arcs" -gt 0 ] && [ "$times" -eq 0 ] ;;
	count) [ "$arcs" -eq 0 ] && [ "$times" -eq 0 ] ;;
	esac || { echo "mode $1: $arcs arc lines, $times time lines"; return 1; }
}
for m in time arcs count; do
	check "SPYRT_MODE=$m records what the mode says" mode_shape $m
done

magic() {
	[ "$(head -c 8 "$T/calls-time.out" | od -An -c | tr -d ' \n')" = 'gmonSPY001' ] ||
		{ od -An -c "$T/calls-time.out" | head -n 1; return 1; }
}
check "the file begins with gmon and the version SPY\\1" magic

gprof_refuses() {
	local out rc
	command -v gprof >/dev/null || { echo "no gprof"; return 0; }
	out=$(gprof "$P" "$T/calls-time.out" 2>&1)
	rc=$?
	[ $rc -ne 0 ] && grep -q 'unsupported version' <<<"$out" || { echo "gprof: status $rc: $out"; return 1; }
}
check "GNU gprof stops with 'unsupported version'" gprof_refuses

plugin_count() {
	local p=$T/calls-pcount
	rt_sample calls "$p" -fplugin-arg-spyinstr-mode=count || return 1
	count_only "$p" || return 1
	[ "$(rt_dump "$p.out" | grep -c '^arc ')" -eq 0 ] && rt_dump "$p.out" | grep -q '^func c count=60 .*mode=count'
}
check "plugin mode=count, SPYRT_MODE=time: counts exact, no arcs" plugin_count

static_link() {
	rt_cc_static "$T/calls-static" "$CC" "$SAMPLES/calls.c" && rt_check_expect calls "$T/calls-static"
}
check "static libspyrt.a: counts and arcs exact" static_link

R=$T/recursion
check "recursion builds" rt_sample recursion "$R"
check "recursion: counts and arcs exact" rt_check_expect recursion "$R"

# fib's inclusive time is its outermost call's: close to main's, not 10^4 times it
recursion_once() {
	local d main fib fibarc
	d=$(rt_dump "$R.out")
	main=$(awk '$1 == "time" && $3 == "func=main" { sub("incl=", "", $5); print $5 }' <<<"$d")
	fib=$(awk '$1 == "time" && $3 == "func=fib" { sub("incl=", "", $5); print $5 }' <<<"$d")
	fibarc=$(awk '$1 == "arc" && $3 == "caller=main" && $4 == "callee=fib" { sub("incl=", "", $6); print $6 }' <<<"$d")
	echo "main incl $main, fib incl $fib, arc main->fib incl $fibarc"
	[ -n "$main" ] && [ -n "$fib" ] && [ "$fib" -le "$main" ] && [ $((fib * 2)) -gt "$main" ] &&
		[ "$fib" = "$fibarc" ] &&
		awk '$1 == "arc" && $3 == "caller=fib" && $4 == "callee=fib" && $6 != "incl=0" { exit 1 }' <<<"$d"
}
check "recursion: fib's inclusive time counted once (<= main's, its outermost arc's)" recursion_once

overhead() {
	local o
	o=$(rt_dump "$R.out" | grep '^overhead')
	echo "$o"
	awk '{ for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] + 0 } }
	     END { exit !(v["hook_out"] > 0 && v["tsc_read"] > 0) }' <<<"$o"
}
check "the hooks' calibrated cost is in the header" overhead

cut_refused() {
	local n out rc
	n=$(stat -c %s "$R.out")
	head -c $((n - 5)) "$R.out" >"$T/cut.out"
	out=$("$T/gmon-dump" "$T/cut.out" 2>&1 >/dev/null)
	rc=$?
	echo "$out"
	[ $rc -eq 2 ] && [ "$(wc -l <<<"$out")" -eq 1 ] && grep -q "cut.out: .*truncated" <<<"$out"
}
check "a cut file: one line naming it and 'truncated', status 2" cut_refused

tap_done
