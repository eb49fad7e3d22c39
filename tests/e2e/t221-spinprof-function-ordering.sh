#!/bin/bash
# t221: spinprof -r (--function-ordering) prints gprof's suggested function order. GNU mode, byte for
# byte against gprof -r: a program with a cycle (ping, pong), recursion (fact), a function of several
# callers (leaf, static), a second file of statics and one function never called, built -O0 -g and -O2,
# with -r alone and with other options (-b, -p, -q, -z, -a, -c, -D, -l, -T, -e, -C, -s, --function-
# ordering; -k, -q and -Q FROM/TO, whose arc specs gprof also turns into arcs of count 0 between
# copies of their ends, placed with the others); and a generated program of 240 functions, where two hubs are called from most of them
# (gprof's group of functions called from many hot arcs: 1.25 % of the called functions, while more
# than five hot arcs call them). For a spy profile the same placement on the exact arcs, checked by
# construction on samples/calls.c (main -> a 10, a -> b 30, b -> c 60): the chain grows along the
# heaviest arcs, b -> c then a -> b, and main, whose arc is in the last 1 %, comes after: a b c main.
# -r with -R is one line and status 2 (gprof refuses the pair too).
. "$(dirname "$0")/lib-spinprof.sh"
. "$(dirname "$0")/lib-runtime.sh"

[ -x "$SPINPROF" ] || tap_skip_all "no spinprof"
command -v gprof >/dev/null || tap_skip_all "no gprof"
rt_setup

sp_gnu_sources 8
# many.c: f0..f239; most call hub, some hub2 (hub calls hub2 too), a chain f(i) -> f(i+1) by depth,
# some forward calls, rare() from a few
awk -v nf=240 'BEGIN {
	print "static volatile unsigned long sink;"
	for (i = 0; i < nf; i++) print "__attribute__((noinline)) void f" i "(int d);"
	print "__attribute__((noinline)) void hub2(int k) { sink += 2 * k; }"
	print "__attribute__((noinline)) void hub(int k) { sink += k; if (k % 4 == 0) hub2(k); }"
	print "__attribute__((noinline)) void rare(int k) { sink += 3 * k; }"
	for (i = 0; i < nf; i++) {
		printf "__attribute__((noinline)) void f%d(int d) { sink += d;", i
		if (i % 20 < 12) printf " for (int k = 0; k < %d; k++) hub(k);", 50 + (i * 7) % 31
		if (i % 30 < 8) printf " for (int k = 0; k < %d; k++) hub2(k);", 20 + i % 9
		if (i % 47 == 3) printf " rare(d);"
		if (i + 1 < nf) printf " if (d > 0) f%d(d - 1);", i + 1
		if (i % 9 == 0 && i + 5 < nf) printf " f%d(0);", i + 5
		printf " }\n"
	}
	printf "int main(void) { for (int i = 0; i < 240; i += 6) f1(i %% 7);"
	for (i = 0; i < nf; i += 3) printf " f%d(%d);", i, i % 4
	print " return 0; }"
}' >"$T/many.c"

MATRIX=$(cat <<'EOS'
-r
-b -r
--function-ordering
-b -r -p
-b -r -q
-r -z
-r -a
-r -c
-r -D
-r -l
-b -r -T
-r -e leaf
-r -C
-r -s
-r --no-demangle
-r -k main/leaf
-r -k /leaf
-r -k beta/
-r -k util.c/
-r -k main/leaf -k main/beta
-b -r -qbeta/leaf
-b -r -Qpong/ping
EOS
)
nlines=$(grep -c . <<<"$MATRIX")
tap_plan $((2 * (1 + nlines) + 2 + 3 + 1))

# build DIR FLAGS...: DIR/prog from opts.c and util.c, run; its gmon.out
build() {
	local d=$1
	shift
	mkdir -p "$d"
	# shellcheck disable=SC2086
	$CC "$@" -pg "$T/opts.c" "$T/util.c" -o "$d/prog" $SPY_SAN_FLAGS >"$d/cc.log" 2>&1 ||
		{ head -n 20 "$d/cc.log"; return 1; }
	(cd "$d" && ./prog) && [ -s "$d/gmon.out" ] || { echo "no gmon.out"; return 1; }
}
for b in "O0 -O0 -g" "O2 -O2"; do
	dir=$T/${b%% *}
	# shellcheck disable=SC2086
	if ! sp_check "${b%% *}: the program builds with ${b#* } -pg and runs" build "$dir" ${b#* }; then
		for ((i = 0; i < nlines; i++)); do not_ok "no profile"; done
		continue
	fi
	while read -r opts; do
		# shellcheck disable=SC2086
		check "${b%% *}: spinprof $opts = gprof $opts" sp_same "$dir" prog $opts
	done <<<"$MATRIX"
done

# the hubs: many functions, most called; the group of hot multi-caller functions is formed
many() {
	local d=$T/many
	mkdir -p "$d"
	# shellcheck disable=SC2086
	$CC -O0 -pg "$T/many.c" -o "$d/prog" $SPY_SAN_FLAGS >"$d/cc.log" 2>&1 || { head "$d/cc.log"; return 1; }
	(cd "$d" && ./prog) && [ -s "$d/gmon.out" ] || return 1
	# by construction: more than 80 called functions, and hub called from more than five callers
	[ "$(gprof -b -p "$d/prog" "$d/gmon.out" | awk 'NF == 7 && $4 > 0' | wc -l)" -gt 80 ] ||
		{ echo "fewer than 81 called functions"; return 1; }
	local callers
	callers=$(gprof -b -q "$d/prog" "$d/gmon.out" | awk '/^-+$/ { n = 0; next }
		/^\[/ { if ($0 ~ / hub \[[0-9]+\]$/) { print n; exit } n = -100000; next } { n++ }')
	[ "${callers:-0}" -gt 5 ] || { echo "hub has ${callers:-no} callers"; return 1; }
}
if sp_check "many.c (240 functions, two hubs) builds with -pg and runs" many; then
	check "many: spinprof -r = gprof -r" sp_same "$T/many" prog -r
else
	not_ok "many: not built"
fi

# a spy profile: samples/calls.c
P=$T/calls
if check "calls.c builds with the plugin and runs" eval 'rt_sample calls "$P" && rt_run "$P"'; then
	order() {
		local got
		got=$("$SPINPROF" -r "$P.out" | tr '\n' ' ')
		[ "$got" = "a b c main " ] || { echo "got: $got"; return 1; }
	}
	check "calls (spy): -r is a b c main (the chain along b->c 60, a->b 30; main->a in the last 1 %)" order
	flatr() {
		"$SPINPROF" -b -p -r "$P.out" >"$T/pr.txt" || return 1
		grep -q '^Flat profile:' "$T/pr.txt" && [ "$(tail -n 4 "$T/pr.txt" | tr '\n' ' ')" = "a b c main " ]
	}
	check "calls (spy): -p -r prints the flat profile, then the order" flatr
else
	not_ok "calls (spy): not built"
	not_ok "calls (spy): not built"
fi

both() {
	local out st
	out=$("$SPINPROF" -r -R /dev/null "$T/O0/prog" "$T/O0/gmon.out" 2>&1)
	st=$?
	[ $st = 2 ] && [ "$(wc -l <<<"$out")" = 1 ] || { echo "status $st: $out"; return 1; }
}
check "-r with -R: one line, status 2" both
tap_done
