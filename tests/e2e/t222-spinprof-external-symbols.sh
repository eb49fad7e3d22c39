#!/bin/bash
# t222: spinprof -S FILE (--external-symbol-table=FILE) takes GNU mode's symbols from FILE's lines
# "ADDR TYPE NAME" (nm's output; T and t lines are functions, t static) instead of the program's, as
# gprof -S does: byte for byte against gprof with nm's table of the program for a set of options
# (-b, -z, -p, -q, -l, -a, -C, -c, -r, -T, -s -p; the table has no source lines, so no files in
# the index); on the program stripped (no symbols of its own), where the flat profile from nm's table
# of the unstripped program gives the unstripped program's calls (by construction: main -> work 25,
# work -> leaf 50); with a table of renamed functions (the names are the table's) and one of work and
# main only (work's 25 calls; leaf, below the first symbol, is no function). A missing or empty table is one line
# naming it and status 2, and so is -S with a spy profile (which names its own functions).
. "$(dirname "$0")/lib-spinprof.sh"

sp_setup
command -v gprof >/dev/null || tap_skip_all "no gprof"
command -v nm >/dev/null || tap_skip_all "no nm"

cat >"$T/ext.c" <<'EOS'
static volatile unsigned long sink;
__attribute__((noinline)) static void leaf(int k)
{
	for (unsigned long i = 0; i < 400000ul * (unsigned long)k; i++)
		sink += i;
}
__attribute__((noinline)) void work(int k)
{
	leaf(k % 3 + 1);
	for (unsigned long i = 0; i < 900000; i++)
		sink += i;
	leaf(1);
}
int main(void)
{
	for (int i = 0; i < 25; i++)
		work(i);
	return 0;
}
EOS

MATRIX=$(cat <<'EOS'
-b
-b -z
-b -p
-b -q
-b -l
-b -a
-b -C
-b -c
-r
-b -T
-b -s -p
EOS
)
nlines=$(grep -c . <<<"$MATRIX")
tap_plan $((1 + nlines + 4 + 3))

D=$T/d
build() {
	mkdir -p "$D"
	# shellcheck disable=SC2086
	$CC -O0 -g -pg "$T/ext.c" -o "$D/prog" $SPY_SAN_FLAGS >"$D/cc.log" 2>&1 || { head "$D/cc.log"; return 1; }
	(cd "$D" && ./prog) && [ -s "$D/gmon.out" ] || { echo "no gmon.out"; return 1; }
	nm "$D/prog" >"$D/syms" && [ -s "$D/syms" ] || return 1
	cp "$D/prog" "$D/stripped" && strip "$D/stripped"
}
if ! sp_check "the program builds with -pg, runs, and nm lists its symbols" build; then
	for ((i = 0; i < nlines + 4; i++)); do not_ok "not built"; done
else
	while read -r opts; do
		# shellcheck disable=SC2086
		check "spinprof $opts -S nm's table = gprof's" sp_same "$D" prog $opts -S syms
	done <<<"$MATRIX"
	check "the stripped program with -S: gprof's report" sp_same "$D" stripped -b -S syms
	# calls NAME WANT [OPTS]: the flat profile of spinprof -S gives NAME WANT calls
	calls() {
		local got
		got=$(cd "$D" && "$SPINPROF" -b -p "${@:3}" ./stripped gmon.out | awk -v f="$1" '$NF == f && NF == 7 { print $4 }')
		[ "$got" = "$2" ] || { echo "$1: '$got' calls, want $2"; return 1; }
	}
	check "stripped with -S: work 25 calls, leaf 50 (the program's, by construction)" \
		eval 'calls work 25 -S syms && calls leaf 50 -S syms'
	renamed() {
		sed -e 's/ T work$/ T travail/' -e 's/ t leaf$/ t feuille/' "$D/syms" >"$D/renamed"
		calls travail 25 -S renamed && calls feuille 50 -S renamed &&
			sp_same "$D" stripped -b -S renamed
	}
	check "a table of renamed functions: its names, the same calls, gprof's report" renamed
	two() {
		grep -E ' [Tt] (work|main)$' "$D/syms" >"$D/two"
		[ "$(wc -l <"$D/two")" = 2 ] || { echo "the table:"; cat "$D/two"; return 1; }
		calls work 25 -S two && sp_same "$D" stripped -b -S two &&
			! grep -q leaf "$D/s.txt" || { echo "leaf is listed"; return 1; }
	}
	check "a table of work and main only: work's 25 calls, leaf (below the first symbol) unknown, gprof's report" two
fi

# bad TABLE: spinprof -S TABLE prints one line naming TABLE, status 2
bad() {
	local out st
	out=$(cd "$D" && "$SPINPROF" -b -S "$1" ./prog gmon.out 2>&1)
	st=$?
	[ $st = 2 ] && [ "$(wc -l <<<"$out")" = 1 ] && [[ $out == "spinprof: $1: "* ]] ||
		{ echo "status $st: $out"; return 1; }
}
check "a missing table: one line naming it, status 2" bad nosuchfile
: >"$D/empty"
check "a table without T or t lines: one line naming it, status 2" eval 'printf "0 D data\n" >"$D/empty" && bad empty'

spy() {
	local out st
	printf 'gmon\003\000\000\000' >"$T/spy.out"
	out=$("$SPINPROF" -S "$D/syms" "$T/spy.out" 2>&1)
	st=$?
	[ $st = 2 ] && [ "$(wc -l <<<"$out")" = 1 ] || { echo "status $st: $out"; return 1; }
}
check "-S with a spy profile: one line, status 2" spy
tap_done
