#!/bin/bash
# t226: gprof's last two option forms: -B (the call graph only, as -q) and @FILE (libiberty's
# expandargv: the arguments FILE holds, split at blanks, '...' and "..." quoting, \ escaping, nested
# @FILEs). GNU mode, byte for byte against gprof on a program with a cycle and a static function:
# -B alone and with -z, -b; response files with plain options, quoted ones, a symspec with a backslash,
# one naming another, one that is empty, and one giving the operands too. An @FILE naming no file
# stays an operand: gprof and spinprof both fail on it (spinprof with one line and status 2).
. "$(dirname "$0")/lib-spinprof.sh"

sp_setup
command -v gprof >/dev/null || tap_skip_all "no gprof"

cat >"$T/p.c" <<'EOS'
static volatile unsigned long sink;
__attribute__((noinline)) static void leaf(int k) { for (unsigned long i = 0; i < 300000ul * (unsigned long)k; i++) sink += i; }
__attribute__((noinline)) void pong(int n);
__attribute__((noinline)) void ping(int n) { leaf(1); if (n > 0) pong(n - 1); }
__attribute__((noinline)) void pong(int n) { leaf(2); if (n > 0) ping(n - 1); }
int main(void) { for (int i = 0; i < 30; i++) ping(i % 5); leaf(3); return 0; }
EOS

D=$T/d
build() {
	mkdir -p "$D"
	# shellcheck disable=SC2086
	$CC -O0 -g -pg "$T/p.c" -o "$D/prog" $SPY_SAN_FLAGS >"$D/cc.log" 2>&1 || { head "$D/cc.log"; return 1; }
	(cd "$D" && ./prog) && [ -s "$D/gmon.out" ] || return 1
	printf -- '-b\n-p\n' >"$D/plain"
	printf -- "\"-b\" '-q'\n" >"$D/quoted"
	printf -- '-b -q\\\nping\n' >"$D/escaped" # -q, then "\<newline>ping": a newline, escaped, then ping
	printf -- '-b -qpi\\ng\n' >"$D/escaped2"   # -qping: the backslash takes the n
	printf -- '@plain -z\n' >"$D/nested"
	: >"$D/empty"
	printf -- '-b -p ./prog gmon.out\n' >"$D/operands"
}
# same ARGS...: spinprof's output and status are gprof's (in $D)
same() {
	local gs ss
	(cd "$D" && gprof "$@") >"$D/g.txt" 2>&1
	gs=$?
	(cd "$D" && "$SPINPROF" "$@") >"$D/s.txt" 2>&1
	ss=$?
	[ "$gs" -eq "$ss" ] || { echo "status: gprof $gs, spinprof $ss"; cat "$D/s.txt"; return 1; }
	[ -s "$D/g.txt" ] || { echo "gprof printed nothing"; return 1; }
	diff -u "$D/g.txt" "$D/s.txt"
}

MATRIX=$(cat <<'EOS'
-B -b ./prog gmon.out
-B -b -z ./prog gmon.out
-b -B -p ./prog gmon.out
@plain ./prog gmon.out
@quoted ./prog gmon.out
@escaped2 ./prog gmon.out
@nested ./prog gmon.out
-b @empty -p ./prog gmon.out
@operands
EOS
)
nlines=$(grep -c . <<<"$MATRIX")
tap_plan $((1 + nlines + 2))
if sp_check "the program builds with -pg and runs" build; then
	while read -r args; do
		# shellcheck disable=SC2086
		check "spinprof $args = gprof $args" same $args
	done <<<"$MATRIX"
	# the escaped newline: part of a word, as in gprof; both print the same (whatever it means)
	check "spinprof @escaped = gprof @escaped (an escaped newline in a word)" eval \
		'(cd "$D" && gprof @escaped ./prog gmon.out >g2.txt 2>&1; echo $? >>g2.txt; "$SPINPROF" @escaped ./prog gmon.out >s2.txt 2>&1; echo $? >>s2.txt) && grep -q . "$D/g2.txt" && [ "$(tail -n 1 "$D/g2.txt")" = 0 ] && diff -u "$D/g2.txt" "$D/s2.txt"'
else
	for ((i = 0; i < nlines + 1; i++)); do not_ok "not built"; done
fi
missing() {
	local out st
	out=$(cd "$D" && "$SPINPROF" -b @nosuchfile gmon.out 2>&1)
	st=$?
	[ $st = 2 ] && [ "$(wc -l <<<"$out")" = 1 ] && [[ $out == "spinprof: @nosuchfile: "* ]] ||
		{ echo "status $st: $out"; return 1; }
	! (cd "$D" && gprof -b @nosuchfile gmon.out >/dev/null 2>&1) || { echo "gprof succeeded"; return 1; }
}
check "@FILE naming no file is an operand: one line naming it, status 2 (gprof fails too)" missing
tap_done
