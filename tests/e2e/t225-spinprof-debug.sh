#!/bin/bash
# t225: spinprof -d[N] (--debug[=N]) prints the analysed model before the report, one fact a line:
# N's bits 1 the profile, 2 the functions ([symbol]), 4 the arcs ([arc]), 8 the cycles ([cycle]);
# -d alone all. By construction: samples/calls.c (spy profile): the functions' calls main 1, a 10,
# b 30, c 60 and exactly the arcs main -> a 10, a -> b 30, b -> c 60; samples/recursion.c: one cycle
# of is_even and is_odd, entered once, 100 calls inside it (50 each way), fib (self-recursive) in
# none, with the spy profile and in GNU mode (gcc -pg), where each function's address range starts
# at nm's address of it. The report after the debug lines is the report without -d; each N prints
# only its categories; a bad N is one line and status 2.
. "$(dirname "$0")/lib-spinprof.sh"
. "$(dirname "$0")/lib-runtime.sh"

[ -x "$SPINPROF" ] || tap_skip_all "no spinprof"
rt_setup

tap_plan 10

C=$T/calls
R=$T/recursion
built=1
sp_check "calls.c and recursion.c build with the plugin and run" \
	eval 'rt_sample calls "$C" && rt_run "$C" && rt_sample recursion "$R" && rt_run "$R"' ||
	built=0
[ -s "$R.out" ] || built=0

# calls_of FILE FUNC: the calls= of FUNC's [symbol] line
calls_of() { awk -v f="$2" '$1 == "[symbol]" && $3 == f { for (i = 4; i <= NF; i++) if ($i ~ /^calls=/) print substr($i, 7) }' "$1"; }

spy_symbols() {
	"$SPINPROF" -d2 -b -p "$C.out" >"$T/d2.txt" || return 1
	local fn want got
	for fn in main:1 a:10 b:30 c:60; do
		want=${fn#*:}
		got=$(calls_of "$T/d2.txt" "${fn%:*}")
		[ "$got" = "$want" ] || { echo "${fn%:*}: calls '$got', want $want"; return 1; }
	done
	[ "$(grep -c '^\[symbol\]' "$T/d2.txt")" = 4 ] || { echo "not 4 symbols"; cat "$T/d2.txt"; return 1; }
	! grep -q '^\[arc\]\|^\[cycle\]\|^\[profile\]' "$T/d2.txt" || { echo "other categories with -d2"; return 1; }
}
spy_arcs() {
	"$SPINPROF" --debug=4 -b -p "$C.out" >"$T/d4.txt" || return 1
	awk '$1 == "[arc]" { print $2, $4, $5 }' "$T/d4.txt" | sort >"$T/arcs"
	printf '%s\n' "a b count=30" "b c count=60" "main a count=10" >"$T/want"
	diff -u "$T/want" "$T/arcs"
}
same_report() {
	"$SPINPROF" -b "$C.out" >"$T/plain.txt" && "$SPINPROF" -d -b "$C.out" >"$T/dall.txt" || return 1
	grep -v '^\[\(profile\|symbol\|arc\|cycle\)\] ' "$T/dall.txt" | diff -u "$T/plain.txt" - || return 1
	for c in profile symbol arc; do
		grep -q "^\[$c\] " "$T/dall.txt" || { echo "-d: no [$c] line"; return 1; }
	done
	[ "$(head -n 1 "$T/dall.txt" | cut -d' ' -f1)" = "[profile]" ] || { echo "the report came first"; return 1; }
}
# cycles FILE: recursion's cycle, and fib in none
cycles() {
	local line
	line=$(grep '^\[cycle\] ' "$1")
	[ "$(wc -l <<<"$line")" = 1 ] || { echo "cycles: $line"; return 1; }
	[[ $line == *" calls=1 internal=100 members:"* ]] || { echo "$line"; return 1; }
	[ "$(echo "${line#*members: }" | tr ' ' '\n' | sort | tr '\n' ' ')" = "is_even is_odd " ] || { echo "$line"; return 1; }
	! grep '^\[symbol\] .* fib ' "$1" | grep -q cycle= || { echo "fib in a cycle"; return 1; }
}
if [ $built = 1 ]; then
	check "spy -d2: [symbol] lines only, calls main 1, a 10, b 30, c 60" spy_symbols
	check "spy --debug=4: exactly the arcs main->a 10, a->b 30, b->c 60" spy_arcs
	check "spy -d: profile, symbols, arcs first, then the report without -d's, unchanged" same_report
	check "spy -d8: recursion's cycle is_even/is_odd, entered once, 100 calls inside, fib in none" \
		eval '"$SPINPROF" -d8 -b -p "$R.out" >"$T/d8.txt" && cycles "$T/d8.txt"'
else
	for _ in 1 2 3 4; do not_ok "not built"; done
fi

# GNU mode: recursion.c with -pg
G=$T/gnu
gnu_build() {
	mkdir -p "$G"
	# shellcheck disable=SC2086
	$CC -O2 -pg -I"$SAMPLES" "$SAMPLES/recursion.c" -o "$G/prog" $SPY_SAN_FLAGS >"$G/cc.log" 2>&1 || { head "$G/cc.log"; return 1; }
	(cd "$G" && ./prog >/dev/null) && [ -s "$G/gmon.out" ]
}
gnu_addr() {
	local fn a want
	"$SPINPROF" -d2 -b -p "$G/prog" "$G/gmon.out" >"$G/d2.txt" || return 1
	for fn in fib is_even is_odd main; do
		a=$(awk -v f="$fn" '$1 == "[symbol]" && $4 == f { split($3, r, "-"); print r[1] }' "$G/d2.txt")
		want=$(nm "$G/prog" | awk -v f="$fn" '$3 == f { sub(/^0+/, "", $1); print "0x" $1 }')
		[ -n "$a" ] && [ "$a" = "$want" ] || { echo "$fn: $a, nm: $want"; return 1; }
	done
}
gnu_calls() {
	local got
	got=$(awk '$1 == "[symbol]" && ($4 == "is_even" || $4 == "is_odd" || $4 == "fib") {
		for (i = 5; i <= NF; i++) if ($i ~ /^(calls|self_calls)=/) print $4, $i }' "$G/d2.txt" | sort | tr '\n' ' ')
	[ "$got" = "fib calls=1 fib self_calls=21890 is_even calls=51 is_even self_calls=0 is_odd calls=50 is_odd self_calls=0 " ] ||
		{ echo "got: $got"; return 1; }
}
if sp_check "recursion.c builds with -O2 -pg and runs" gnu_build; then
	check "GNU -d2: each function's range starts at nm's address" gnu_addr
	check "GNU -d2: calls is_even 51, is_odd 50, fib 1 (+21890 from itself)" gnu_calls
	check "GNU -d8: the cycle is_even/is_odd, entered once, 100 calls inside" \
		eval '"$SPINPROF" -d8 -b -p "$G/prog" "$G/gmon.out" >"$G/d8.txt" && cycles "$G/d8.txt"'
else
	for _ in 1 2 3; do not_ok "not built"; done
fi
bad() {
	local out st
	out=$("$SPINPROF" -dx "$C.out" 2>&1)
	st=$?
	[ $st = 2 ] && [ "$(wc -l <<<"$out")" = 1 ] || { echo "status $st: $out"; return 1; }
}
check "-dx: one line, status 2" bad
tap_done
