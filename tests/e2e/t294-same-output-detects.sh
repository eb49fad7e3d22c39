#!/bin/bash
# t294: tests/same-output.sh, the byte-identity check of issue 27, cannot pass silently. On a corpus of
# two profiles (seeds of the fuzz corpus, made by hand so that nothing is built), the same spinprof twice
# is "N outputs compared, 0 differ" with N the 2 x 23 outputs of the profiles at least, status 0; a
# spinprof that adds a byte to the --format=json of one profile alone, or that exits 3 on its --dump
# alone, makes it say "differs:" for exactly that output, and exit 1; a binary that is not one is 2.
. "$(dirname "$0")/lib.sh"
: "${SPINPROF:=$SPY_BUILD/spinprof}"

[ -x "$SPINPROF" ] || tap_skip_all "no spinprof"
setup_workdir
tap_plan 5
C=$T/corpus
mkdir -p "$C"
cp "$SPY_SRC/tests/fuzz/corpus/fuzz-gmon-decode/seed-calls-time" "$C/a.out"
cp "$SPY_SRC/tests/fuzz/corpus/fuzz-gmon-decode/seed-twocallers-cpu" "$C/b.out"
touch "$C/.made" # the script's mark of a made corpus: it builds nothing
SAME=$SPY_SRC/tests/same-output.sh

# a spinprof that differs on b.out as $1 says: json (a byte more on --format=json), dump (status 3 on
# --dump); on anything else it is spinprof
fake() {
	cat >"$T/fake-$1" <<EOS
#!/bin/bash
"$SPINPROF" "\$@"
rc=\$?
case " \$* " in
*" --format=json b.out "*) [ $1 = json ] && echo x ;;
*" --dump b.out "*) [ $1 = dump ] && exit 3 ;;
esac
exit \$rc
EOS
	chmod +x "$T/fake-$1"
}
fake json
fake dump

same_twice() {
	local out rc n
	out=$("$SAME" "$SPINPROF" "$SPINPROF" "$C" 2>&1)
	rc=$?
	n=$(printf '%s\n' "$out" | sed -n 's/^\([0-9]*\) outputs compared, 0 differ$/\1/p')
	if [ "$rc" != 0 ] || [ -z "$n" ] || [ "$n" -lt 46 ]; then
		printf 'status %s\n%s\n' "$rc" "$out"
		return 1
	fi
}
check "the same spinprof twice: no difference, status 0" same_twice

# differs KIND WHAT: the script exits 1, says "1 differ" and its one "differs:" line is WHAT
differs() {
	local out rc
	out=$("$SAME" "$SPINPROF" "$T/fake-$1" "$C" 2>&1)
	rc=$?
	local lines
	lines=$(printf '%s\n' "$out" | grep '^differs:' | sed 's/ ([0-9]*\.out)$//')
	if [ "$rc" != 1 ] || [ "$lines" != "$2" ] ||
		! printf '%s\n' "$out" | grep -q '^[0-9]* outputs compared, 1 differ$'; then
		printf 'status %s\n%s\n' "$rc" "$out"
		return 1
	fi
}
check "a byte more in b.out's --format=json: that output differs, status 1" \
	differs json "differs: b.out: spinprof --format=json b.out: output"
check "status 3 on b.out's --dump: that output differs by its status, status 1" \
	differs dump 'differs: b.out: spinprof --dump b.out: status 0 -> 3'

not_exe() {
	"$SAME" "$SPINPROF" "$T/nothing" "$C" >/dev/null 2>&1
	[ $? = 2 ]
}
check "a new binary that is not there: status 2" not_exe
usage() {
	"$SAME" "$SPINPROF" >/dev/null 2>&1
	[ $? = 2 ]
}
check "one argument: the usage, status 2" usage
tap_done
