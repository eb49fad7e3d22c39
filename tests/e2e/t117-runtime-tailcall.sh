#!/bin/bash
# t117: tail calls in libspyrt (ABI 5): samples/tailchain.c at -O2, where its tail calls are jumps.
# Every arc comes from the logical caller, with a call site inside that caller's code, in each
# SPYRT_MODE (count keeps exact counts) and from code built with mode=arcs; in mode time a tail
# caller's inclusive time contains its tail callee's (t_a >= t_b >= t_c >= t_c's spin, t_direct >=
# its spin: they end at the same time stamp), and its self time is its own; spinprof's call graph
# and Spy tree show t_b under t_a and t_c under t_b. Deep tail recursion stays off the machine stack
# (2 MiB hold 300 000 calls only as jumps): exact below the shadow stack's 262 144 frames, and
# past them too, where the frames dropped are reported and nothing is left abandoned.
. "$(dirname "$0")/lib-runtime.sh"
rt_setup
tap_plan 11

P=$T/tailchain
PA=$T/tailchain-arcs
check "tailchain builds (mode time, mode arcs)" eval 'rt_sample tailchain "$P" && rt_sample tailchain "$PA" -fplugin-arg-spyinstr-mode=arcs'

facts_in() {
	local prog=$1 expect=$2
	shift 2
	RT_ENV="$*" rt_run "$prog" || return 1
	rt_facts "$prog.out" >"$prog.facts"
	rt_compare "$expect" "$prog.facts"
}
check "SPYRT_MODE=time: arcs from the logical callers" facts_in "$P" "$SAMPLES/tailchain.expect" SPYRT_MODE=time
cp "$P.out" "$T/time.out"
check "SPYRT_MODE=arcs: the same" facts_in "$P" "$SAMPLES/tailchain.expect" SPYRT_MODE=arcs
grep '^func' "$SAMPLES/tailchain.expect" >"$T/funcs.expect"
count_only() {
	facts_in "$P" "$T/funcs.expect" SPYRT_MODE=count || return 1
	! grep -q '^arc' "$P.facts" || { echo "arcs in mode count:"; grep '^arc' "$P.facts"; return 1; }
}
check "SPYRT_MODE=count: exact counts" count_only
check "code built with mode=arcs: the same arcs" facts_in "$PA" "$SAMPLES/tailchain.expect"

# sites_in_callers FILE PROG: each arc's call site (the byte before it) lies in its caller's code
sites_in_callers() {
	local name addr size site caller rc=0 n=0
	declare -A lo hi
	while read -r addr size _ name; do
		lo[$name]=$((16#$addr)) hi[$name]=$((16#$addr + 16#$size))
	done < <(nm -S --defined-only "$2" | awk '$3 ~ /^[tT]$/')
	# the dump's addresses are where the program ran: its text's offsets from its base
	local base
	base=$(rt_dump "$1" | awk '$1 == "module" && $2 == "id=0" { for (i = 3; i <= NF; i++) if (index($i, "base=0x") == 1) print substr($i, 8) }')
	while read -r caller site; do
		[ -n "${lo[$caller]:-}" ] || continue
		site=$((16#$site - 16#$base - 1))
		n=$((n + 1))
		if [ $site -lt "${lo[$caller]}" ] || [ $site -ge "${hi[$caller]}" ]; then
			echo "arc from $caller: site $(printf %#x $site) outside [$(printf %#x "${lo[$caller]}"), $(printf %#x "${hi[$caller]}"))"
			rc=1
		fi
	done < <(rt_dump "$1" | awk '$1 == "arc" { c = ""; s = ""; for (i = 2; i <= NF; i++) { if (index($i, "caller=") == 1) c = substr($i, 8); if (index($i, "site=0x") == 1) s = substr($i, 8) } print c, s }')
	[ $n -ge 14 ] || { echo "only $n arcs from instrumented callers"; rc=1; }
	return $rc
}
check "each call site lies in its logical caller's code" sites_in_callers "$T/time.out" "$P"

# arc_val FILE CALLER CALLEE KEY
arc_val() {
	rt_dump "$1" | awk -v c="caller=$2" -v e="callee=$3" -v k="$4=" '
		$1 == "arc" && $3 == c && $4 == e { for (i = 2; i <= NF; i++) if (index($i, k) == 1) n += substr($i, length(k) + 1) }
		END { printf "%.0f\n", n }' # an integer, however large (awk would print 4.7e+09)
}
nested_times() {
	local f=$T/time.out a b c cs d ds sa sb
	[ -z "$SPY_TSAN" ] || return 0
	a=$(arc_val "$f" main t_a incl) b=$(arc_val "$f" t_a t_b incl) c=$(arc_val "$f" t_b t_c incl)
	cs=$(arc_val "$f" t_c spin incl) d=$(arc_val "$f" main t_direct incl) ds=$(arc_val "$f" t_direct spin incl)
	sa=$(arc_val "$f" main t_a self) sb=$(arc_val "$f" t_a t_b self)
	echo "incl: t_a $a >= t_b $b >= t_c $c >= spin $cs; t_direct $d >= spin $ds; self t_a $sa, t_b $sb"
	[ "$cs" -gt 0 ] && [ "$ds" -gt 0 ] && [ "$a" -ge "$b" ] && [ "$b" -ge "$c" ] && [ "$c" -ge "$cs" ] &&
		[ "$d" -ge "$ds" ] && [ $((2 * sa)) -lt "$cs" ] && [ $((2 * sb)) -lt "$cs" ]
}
check "mode time: a tail caller's inclusive time contains its tail callee's, its self time its own$(tsan_skip no tail calls: its exit hook follows every call)" nested_times

spinprof_tree() {
	local out lb lc
	[ -z "$SPY_TSAN" ] || return 0
	out=$("$SPY_BUILD/spinprof" -b -q "$T/time.out") || return 1
	for pair in t_a:t_b t_b:t_c t_direct:spin t_c:spin; do
		awk -v p="${pair%%:*}" -v c="${pair#*:}" '
			/^\[[0-9]+\]/ { cur = $(NF - 1) } $1 ~ /^-+$/ { cur = "" }
			cur == p && $NF ~ /^\[/ && $(NF - 1) == c { found = 1 } END { exit !found }' <<<"$out" ||
			{ echo "call graph: no ${pair#*:} under ${pair%%:*}"; echo "$out"; return 1; }
	done
	# the Spy tree lists each callee under its caller's entry, at the call site's line
	out=$("$SPY_BUILD/spinprof" --spy --cutoff=0 "$T/time.out") || return 1
	lb=$(grep -n 'return t_b(x + 1);' "$SAMPLES/tailchain.c" | cut -d: -f1)
	lc=$(grep -n 'return t_c(x + 1);' "$SAMPLES/tailchain.c" | cut -d: -f1)
	# an entry's line: leaders (! and blanks), its mark (. or !), then its name, perhaps marked heavy (*)
	# or not called by its dominator (~), then "(N refs)"; a call line: leaders, "(FILE:LINE) NAME"
	awk -v lb="(tailchain.c:$lb)" -v lc="(tailchain.c:$lc)" '
		/ \([0-9]+ refs?\) / { s = $0; sub(/ \([0-9]+ refs?\) .*/, "", s); n = split(s, w, " ")
			cur = w[n]; sub(/^[*~]+/, "", cur) }
		{ for (i = 1; i < NF; i++) {
			if (cur == "t_a" && $i == lb && $(i + 1) == "t_b") b = 1
			if (cur == "t_b" && $i == lc && $(i + 1) == "t_c") c = 1 } }
		END { exit !(b && c) }' <<<"$out" ||
		{ echo "Spy tree: no t_b under t_a at line $lb or no t_c under t_b at line $lc"; grep -E 't_[abc]' <<<"$out"; return 1; }
}
check "spinprof: t_b under t_a, t_c under t_b, spin under t_direct and t_c$(tsan_skip no tail calls: its exit hook follows every call)" spinprof_tree

# deep DEPTH: the recursion in a 2 MiB stack, its arcs exact; prints the frames dropped
deep() {
	local d=$1
	(ulimit -s 2048 && RT_ENV=SPYRT_MODE=time rt_run "$P" "$d" 1) || return 1
	rt_facts "$P.out" >"$P.facts"
	sed -e "s/^func down .*/func down $((d + 1))/" -e "s/^arc down down .*/arc down down $d/" \
		"$SAMPLES/tailchain.expect" >"$P.deep.expect"
	rt_compare "$P.deep.expect" "$P.facts" || return 1
	[ "$(rt_get "$P.out" lost abandoned)" = 0 ] && [ "$(rt_get "$P.out" lost unmatched)" = 0 ] ||
		{ rt_dump "$P.out" | grep '^lost'; return 1; }
	[ "$(arc_val "$P.out" main down incl)" -gt 0 ] || { echo "no time for down"; return 1; }
}
deep_under() {
	[ -z "$SPY_TSAN" ] || return 0
	deep 200000 || return 1
	[ "$(rt_get "$P.out" lost dropped_frames)" = 0 ] || { rt_dump "$P.out" | grep '^lost'; return 1; }
}
check "tail recursion 200 000 deep: exact, off the machine stack, no frame dropped$(tsan_skip no tail calls: its exit hook follows every call)" deep_under
deep_past() {
	[ -z "$SPY_TSAN" ] || return 0
	deep 300000 || return 1
	[ "$(rt_get "$P.out" lost dropped_frames)" -gt 0 ] || { rt_dump "$P.out" | grep '^lost'; return 1; }
}
check "tail recursion 300 000 deep: past the shadow stack, arcs exact, frames dropped said$(tsan_skip no tail calls: its exit hook follows every call)" deep_past
NS=$T/tailchain-nosib
check "with -fno-optimize-sibling-calls the 200 000 calls overflow 2 MiB" eval \
	'rt_sample tailchain "$NS" -fno-optimize-sibling-calls && ! (ulimit -s 2048 && SPYRT_OUT=$NS.out "$NS" 200000 1 >/dev/null 2>&1)'
tap_done
