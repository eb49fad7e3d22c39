#!/bin/bash
# t223: spinprof --inline-file-names names each function "NAME (FILE:LINE)" as gprof does. GNU mode,
# byte for byte against gprof on a program with statics in two files, a cycle and recursion, built
# -O0 -g, for a set of options (flat profile, call graph, index with the statics' files, -z, -l (whose
# names stay "NAME (FILE:LINE @ ADDR)"), -L (the whole path, also with -l), -T, -C, -r, symspecs);
# without -g there is no line, the names stay bare, as gprof's. A spy profile of samples/calls.c: its
# four functions named with calls.c and the lines of their definitions (found in the source by
# construction), and the same order as without the option.
. "$(dirname "$0")/t200-spinprof-gprof.sh"
. "$(dirname "$0")/t100-runtime-basics.sh"

[ -x "$SPINPROF" ] || tap_skip_all "no spinprof"
command -v gprof >/dev/null || tap_skip_all "no gprof"
rt_setup

cat >"$T/main.c" <<'EOS'
extern int util_mix(int n);
static volatile unsigned long sink;
#define WORK(n) for (unsigned long i_ = 0; i_ < 8 * (n); i_++) sink += i_
__attribute__((noinline)) static void leaf(void) { WORK(30000); }
__attribute__((noinline)) void pong(int n);
__attribute__((noinline)) void ping(int n) { WORK(40000); if (n > 0) pong(n - 1); }
__attribute__((noinline)) void pong(int n) { leaf(); WORK(20000); if (n > 0) ping(n - 1); }
__attribute__((noinline)) int fact(int n) { WORK(30000); return n <= 1 ? 1 : n * fact(n - 1); }
__attribute__((noinline)) void beta(void) { leaf(); leaf(); WORK(300000); }
int main(void)
{
	for (int i = 0; i < 20; i++) {
		beta();
		leaf();
	}
	ping(10);
	sink += (unsigned long)fact(12);
	sink += (unsigned long)util_mix(30);
	return 0;
}
EOS
cat >"$T/util.c" <<'EOS'
static volatile unsigned long usink;
__attribute__((noinline)) static void ustep(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		usink += i;
}
__attribute__((noinline)) static int uhelp(int k)
{
	ustep(480000);
	return k + 1;
}
__attribute__((noinline)) int util_mix(int n)
{
	int s = 0;
	for (int i = 0; i < n; i++)
		s += uhelp(i);
	return s;
}
EOS

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
	$CC "$@" -pg "$T/main.c" "$T/util.c" -o "$d/prog" $SPY_SAN_FLAGS >"$d/cc.log" 2>&1 || { head "$d/cc.log"; return 1; }
	(cd "$d" && ./prog) && [ -s "$d/gmon.out" ] || { echo "no gmon.out"; return 1; }
}
same() {
	local d=$1 gs ss
	shift
	(cd "$d" && gprof "$@" ./prog gmon.out) >"$d/g.txt" 2>&1
	gs=$?
	(cd "$d" && "$SPINPROF" "$@" ./prog gmon.out) >"$d/s.txt" 2>&1
	ss=$?
	[ "$gs" -eq "$ss" ] || { echo "status: gprof $gs, spinprof $ss"; return 1; }
	[ -s "$d/g.txt" ] || { echo "gprof printed nothing"; return 1; }
	diff -u "$d/g.txt" "$d/s.txt"
}
if sp_check "the program builds with -O0 -g -pg and runs" build "$T/g" -O0 -g; then
	while read -r opts; do
		# shellcheck disable=SC2086
		check "spinprof $opts = gprof $opts" same "$T/g" $opts
	done <<<"$MATRIX"
else
	for ((i = 0; i < nlines; i++)); do not_ok "not built"; done
fi
nog() {
	build "$T/n" -O1 || return 1
	same "$T/n" -b --inline-file-names || return 1
	! grep -q '(main.c:' "$T/n/s.txt" || { echo "a name with a line without -g"; return 1; }
}
check "without -g: no lines, the names bare, gprof's report" nog
withg() { grep -q '^ *[0-9.]* *[0-9.]* *[0-9.]* *[0-9]* *[0-9.]* *[0-9.]* *beta (main.c:9)$' "$T/g/s.txt" ||
	{ same "$T/g" -b -p --inline-file-names; grep 'beta' "$T/g/s.txt"; return 1; }; }
check "with -g: beta (main.c:9), the line of its first instruction" eval 'same "$T/g" -b -p --inline-file-names && withg'

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
