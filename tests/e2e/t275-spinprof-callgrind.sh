#!/bin/bash
# t275: spinprof --format=callgrind writes valgrind's callgrind format, read by valgrind's own
# callgrind_annotate. samples/calls.c (main 1, a 10, b 30, c 60; arcs main->a 10, a->b 30, b->c 60)
# in time mode: callgrind_annotate reads it without a warning, names the functions with their file,
# its call tree (--tree=caller) gives exactly the three arcs and their counts, and with
# --inclusive=yes main's inclusive cycles are the program's total (the calls' inclusive costs add up
# with the selves; within the 3 cycles that rounding each cost to an integer allows) and the leaf's
# inclusive is its self. In count mode (no times) the event is Calls:
# each function's cost is its exact count and the total 101 (no samples: SPYRT_WATCH=none, or a
# tick landing in the run would make the event Ticks). samples/recursion.c gives its arcs
# (mutual recursion is_even/is_odd 50 each way, fib->fib 21890). A gcc -pg build of calls.c read with
# its gmon.out gives the same call counts. -o and standard output hold the same text.
. "$(dirname "$0")/lib-spinprof.sh"
. "$(dirname "$0")/lib-runtime.sh"

[ -x "$SPINPROF" ] || tap_skip_all "no spinprof"
command -v callgrind_annotate >/dev/null || tap_skip_all "no callgrind_annotate (valgrind, in mk/deps.sh)"
rt_setup

tap_plan 9

cd "$T" || exit 1

# cg FILE.cg PROFILE...: spinprof --format=callgrind, status 0 and nothing on stderr
cg() { sp_export callgrind "$@"; }

# ann FILE.cg OPTS...: callgrind_annotate's output (every function: --threshold=100), failing on any
# warning it prints
ann() {
	local f=$1
	shift
	callgrind_annotate --threshold=100 "$@" "$f" 2>"$f.annerr" || { echo "callgrind_annotate failed"; cat "$f.annerr"; return 1; }
	[ ! -s "$f.annerr" ] || { echo "callgrind_annotate warns:" >&2; cat "$f.annerr" >&2; return 1; }
}

# arcs FILE.cg: "arc CALLER CALLEE N" from callgrind_annotate --tree=caller (names without the file)
arcs() {
	ann "$1" --tree=caller >"$1.tree" || return 1
	awk '
		function name(s) { sub(/^[^:]*:/, "", s); return s }
		/^ *[0-9,.]+.* < / { for (i = 1; i <= NF; i++) if ($i == "<") { c = $(i + 2); gsub(/[(),x]/, "", c); pend[++np] = name($(i + 1)) " " c }; next }
		/^ *[0-9,.]+.* \* / { for (i = 1; i <= NF; i++) if ($i == "*") callee = name($(i + 1))
			for (k = 1; k <= np; k++) { split(pend[k], q, " "); print "arc", q[1], callee, q[2] }
			np = 0 }' "$1.tree" | sort
}

# selves FILE.cg [OPTS]: "NAME COST" per function (the first event), and "total COST"
selves() {
	local f=$1
	shift
	ann "$f" "$@" >"$f.flat" || return 1
	awk '
		/PROGRAM TOTALS/ { t = $1; gsub(/,/, "", t); print "total", t }
		/file:function/ { on = 1; getline; next }
		on && /^-+$/ { on = 0 }
		on && NF >= 2 { c = $1; gsub(/,/, "", c); n = $NF; sub(/^[^:]*:/, "", n); print n, c }' "$f.flat" | sort
}

P=$T/calls
build() { rt_sample calls "$P" && rt_run "$P"; }
if ! check "calls.c builds with the plugin and runs (time mode)" build; then
	for _ in $(seq 8); do not_ok "calls (not built)"; done
	tap_done
fi

check "--format=callgrind -o calls.cg: status 0, nothing on stderr; the same text on standard output" \
	eval 'cg calls.cg calls.out && "$SPINPROF" --format=callgrind calls.out | cmp - calls.cg'

# fncost FILE.cg: "NAME FILE COST" per function from the file itself (names compressed as "(N) name"
# and reused as "(N)"; a cost line after calls= is the call's inclusive cost, not the caller's self)
fncost() {
	awk '
		function ref(s, map,   id, rest) {
			id = s; sub(/\).*/, "", id); sub(/^\(/, "", id)
			rest = s; sub(/^\([0-9]+\) ?/, "", rest)
			if (rest != "") map[id] = rest
			return map[id]
		}
		/^fl=/ { fl = ref(substr($0, 4), fls); next }
		/^cfi=/ { ref(substr($0, 5), fls); next }
		/^cfn=/ { ref(substr($0, 5), fns); next }
		/^fn=/ { fn = ref(substr($0, 4), fns); file[fn] = fl; next }
		/^calls=/ { skip = 1; next }
		/^[0-9+-]/ { if (skip) { skip = 0; next } cost[fn] += $2; next }
		END { for (f in file) print f, file[f], cost[f] + 0 }' "$1"
}

# every function is under calls.c in the file; callgrind_annotate shows each one that has a cost with
# its file (a function whose corrected self is 0 cycles, as b's or c's can be once the hooks' cost is
# taken off a body of a few instructions, is one callgrind_annotate leaves out); main's is not 0
names() {
	ann calls.cg >calls.ann || return 1
	fncost calls.cg >calls.fn || return 1
	local f fl cost
	for f in main a b c; do
		read -r fl cost < <(awk -v f="$f" '$1 == f { print $2, $3 }' calls.fn)
		[[ $fl == */samples/calls.c ]] || { echo "$f: file '$fl' in calls.cg"; cat calls.fn; return 1; }
		[ "$f" != main ] || [ "$cost" -gt 0 ] || { echo "main costs 0"; cat calls.fn; return 1; }
		[ "$cost" -eq 0 ] || grep -Eq "^ *[0-9][0-9,]* .* [^ ]*/samples/calls\.c:$f\$" calls.ann ||
			{ echo "no $f with its file (cost $cost)"; cat calls.ann; return 1; }
	done
	grep -q '^events: Cycles' calls.cg || { echo "time mode: want the event Cycles"; grep '^events' calls.cg; return 1; }
}
check "callgrind_annotate reads it without a warning; main, a, b, c with calls.c; event Cycles" names

exact_arcs() {
	local want=$1 f=$2
	arcs "$f" >"$f.arcs" || return 1
	diff <(sort <<<"$want") "$f.arcs"
}
check "--tree=caller: exactly main->a 10x, a->b 30x, b->c 60x" exact_arcs \
	$'arc main a 10\narc a b 30\narc b c 60' calls.cg

inclusive() {
	selves calls.cg >self.txt || return 1
	selves calls.cg --inclusive=yes >incl.txt || return 1
	local total main c_self c_incl
	total=$(awk '$1 == "total" { print $2 }' incl.txt)
	main=$(awk '$1 == "main" { print $2 }' incl.txt)
	c_self=$(awk '$1 == "c" { print $2 }' self.txt)
	c_incl=$(awk '$1 == "c" { print $2 }' incl.txt)
	[ -n "$total" ] && [ "$total" -gt 0 ] || { echo "no total"; cat incl.txt; return 1; }
	# costs are the model's cycles rounded to integers: main's inclusive (its self and one call's cost,
	# two roundings) and the total (four selves) may differ by at most 0.5 a rounding, 3 cycles
	[ $((main > total ? main - total : total - main)) -le 3 ] || { echo "main inclusive $main, program total $total"; return 1; }
	[ "$c_self" = "$c_incl" ] || { echo "leaf c: self $c_self, inclusive $c_incl"; return 1; }
	# the selves add up to the total (no function left out)
	[ "$(awk '$1 != "total" { s += $2 } END { print s }' self.txt)" = "$total" ] || { cat self.txt; return 1; }
}
check "--inclusive=yes: main's inclusive is the program total (to rounding), the leaf's is its self; selves sum to it" inclusive

count_mode() {
	RT_ENV="SPYRT_MODE=count SPYRT_WATCH=none" rt_run "$P" || return 1
	cg count.cg calls.out || return 1
	grep -q '^events: Calls$' count.cg || { grep '^events' count.cg; return 1; }
	selves count.cg >count.txt || return 1
	diff <(printf '%s\n' 'a 10' 'b 30' 'c 60' 'main 1' 'total 101') count.txt
}
check "count mode: event Calls, each function's cost its exact count (1, 10, 30, 60), total 101" count_mode

R=$T/recursion
recursion() {
	rt_sample recursion "$R" && rt_run "$R" || return 1
	cg rec.cg recursion.out || return 1
	exact_arcs $'arc main is_even 1\narc is_even is_odd 50\narc is_odd is_even 50\narc main fib 1\narc fib fib 21890' rec.cg
}
check "recursion.c: main->is_even 1, is_even<->is_odd 50 each, main->fib 1, fib->fib 21890" recursion

gnu() {
	mkdir -p gnu
	# shellcheck disable=SC2086
	$CC -O2 -pg -I"$SAMPLES" "$SAMPLES/calls.c" -o gnu/prog $SPY_SAN_FLAGS || return 1
	(cd gnu && ./prog) && [ -s gnu/gmon.out ] || { echo "no gmon.out"; return 1; }
	(cd gnu && cg ../gnu.cg ./prog gmon.out) || return 1
	grep -q '^events: Ticks$' gnu.cg || { grep '^events' gnu.cg; return 1; }
	exact_arcs $'arc main a 10\narc a b 30\narc b c 60' gnu.cg
}
check "gcc -pg calls.c with its gmon.out: event Ticks, the same three arcs and counts" gnu

bad() {
	head -c 4096 /dev/urandom >garbage.out
	"$SPINPROF" --format=callgrind garbage.out >bad.out 2>bad.err
	[ $? -eq 2 ] && [ ! -s bad.out ] && [ "$(wc -l <bad.err)" -eq 1 ] && grep -q '^spinprof: garbage.out: ' bad.err
}
check "a garbage profile: one line naming it, status 2, nothing written" bad

tap_done
