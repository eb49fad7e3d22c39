#!/bin/bash
# t223: spinprof --inline-file-names names each function "NAME (FILE:LINE)" as gprof does. GNU mode,
# byte for byte against gprof on a program with statics in two files, a cycle and recursion, built
# -O0 -g, for a set of options (flat profile, call graph, index with the statics' files, -z, -l (whose
# names stay "NAME (FILE:LINE @ ADDR)"), -L (the whole path, also with -l), -T, -C, -r, symspecs);
# without -g there is no line, the names stay bare, as gprof's. A spy profile of samples/calls.c: its
# four functions named with calls.c and the lines of their definitions (found in the source by
# construction), and the same order as without the option.
. "$(dirname "$0")/lib-spinprof.sh"
. "$(dirname "$0")/lib-runtime.sh"

[ -x "$SPINPROF" ] || tap_skip_all "no spinprof"
command -v gprof >/dev/null || tap_skip_all "no gprof"
rt_setup

sp_gnu_sources 8

MATRIX=$(cat <<'EOS'
-b --inline-file-names
--brief --inline-file-names
-b -z --inline-file-names
-b -p --inline-file-names
-b -q --inline-file-names
-b -l --inline-file-names
-b -L --inline-file-names
-b -l -L --inline-file-names
-b -L -z
-b -l -L
-b -T --inline-file-names
-b -C --inline-file-names
-r --inline-file-names
-b -qleaf --inline-file-names
-b -putil.c --inline-file-names
-b -w 60 --inline-file-names
EOS
)
nlines=$(grep -c . <<<"$MATRIX")
tap_plan $((1 + nlines + 2 + 3))

# build DIR FLAGS...
build() {
	local d=$1
	shift
	mkdir -p "$d"
	# shellcheck disable=SC2086
	$CC "$@" -pg "$T/opts.c" "$T/util.c" -o "$d/prog" $SPY_SAN_FLAGS >"$d/cc.log" 2>&1 || { head "$d/cc.log"; return 1; }
	(cd "$d" && ./prog) && [ -s "$d/gmon.out" ] || { echo "no gmon.out"; return 1; }
}
if sp_check "the program builds with -O0 -g -pg and runs" build "$T/g" -O0 -g; then
	while read -r opts; do
		# shellcheck disable=SC2086
		check "spinprof $opts = gprof $opts" sp_same "$T/g" prog $opts
	done <<<"$MATRIX"
else
	for ((i = 0; i < nlines; i++)); do not_ok "not built"; done
fi
nog() {
	build "$T/n" -O1 || return 1
	sp_same "$T/n" prog -b --inline-file-names || return 1
	! grep -q '(opts.c:' "$T/n/s.txt" || { echo "a name with a line without -g"; return 1; }
}
check "without -g: no lines, the names bare, gprof's report" nog
withg() { grep -q '^ *[0-9.]* *[0-9.]* *[0-9.]* *[0-9]* *[0-9.]* *[0-9.]* *beta (opts.c:11)$' "$T/g/s.txt" ||
	{ sp_same "$T/g" prog -b -p --inline-file-names; grep 'beta' "$T/g/s.txt"; return 1; }; }
check "with -g: beta (opts.c:11), the line of its first instruction" eval 'sp_same "$T/g" prog -b -p --inline-file-names && withg'

# a spy profile: calls.c's functions with the lines of their definitions
P=$T/calls
if check "calls.c builds with the plugin and runs" eval 'rt_sample calls "$P" && rt_run "$P"'; then
	spynames() {
		local fn line want got
		"$SPINPROF" -b -p --inline-file-names "$P.out" >"$T/spy.txt" || return 1
		for fn in main a b c; do
			line=$(grep -n -E "^(NOINL void|int) $fn\(void\)" "$SAMPLES/calls.c" | cut -d: -f1)
			want="$fn (calls.c:$line)"
			grep -q -F -- " $want" "$T/spy.txt" || { echo "no '$want' in:"; cat "$T/spy.txt"; return 1; }
		done
	}
	check "spy: main, a, b, c named (calls.c:LINE), LINE their definitions'" spynames
	order() {
		local plain named
		plain=$("$SPINPROF" -b -p "$P.out" | awk 'NF >= 7 && $1 ~ /^[0-9.]+$/ { print $NF }')
		named=$("$SPINPROF" -b -p --inline-file-names "$P.out" | awk 'NF >= 8 && $1 ~ /^[0-9.]+$/ { print $(NF - 1) }')
		[ -n "$plain" ] && [ "$plain" = "$named" ] || { echo "plain: $plain; named: $named"; return 1; }
	}
	check "spy: the flat profile's order is unchanged" order
else
	not_ok "spy: not built"
	not_ok "spy: not built"
fi
tap_done
