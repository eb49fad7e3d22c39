#!/bin/bash
# t280: the callgrind, dot and json formats and --diff on awkward input. A truncated profile,
# garbage, a missing file and an unwritable -o are one line "spinprof: FILE: ..." on stderr, nothing
# on stdout, status 2, for each. C++ names (samples/exceptions.cc in count mode: thrower1(int) 1000,
# Counter::bump(int) 4, int twice<int>(int) 2, demangled, with blanks, <> and ::) keep their exact
# counts through callgrind_annotate, graphviz (dot -Tjson) and python3's json module, and --diff
# matches them by name. A thread named with a byte that is no UTF-8 and a control byte stays valid
# JSON, the bytes as \u00XX.
. "$(dirname "$0")/lib-spinprof.sh"
. "$(dirname "$0")/lib-runtime.sh"

[ -x "$SPINPROF" ] || tap_skip_all "no spinprof"
for tool in callgrind_annotate dot python3; do
	command -v $tool >/dev/null || tap_skip_all "no $tool (in mk/deps.sh)"
done
rt_setup

tap_plan 8

cd "$T" || exit 1
P=$T/calls
build() { rt_sample calls "$P" && rt_run "$P"; }
if ! check "calls.c builds with the plugin and runs" build; then
	for _ in $(seq 7); do not_ok "(not built)"; done
	tap_done
fi

# bad FILE ARGS...: spinprof ARGS: status 2, nothing on stdout, one line naming FILE on stderr
bad() {
	local f=$1 rc
	shift
	"$SPINPROF" "$@" >bad.out 2>bad.err
	rc=$?
	[ $rc -eq 2 ] || { echo "$*: status $rc"; return 1; }
	[ ! -s bad.out ] || { echo "$*: stdout:"; head -n 3 bad.out; return 1; }
	[ "$(wc -l <bad.err)" -eq 1 ] && grep -q "^spinprof: $f: ." bad.err || { echo "$*:"; cat bad.err; return 1; }
}

inputs() {
	local size n fm
	size=$(stat -c %s calls.out)
	head -c 4096 /dev/urandom >garbage.out
	for fm in callgrind dot json; do
		for n in 0 16 $((size / 2)) $((size - 1)); do
			head -c "$n" calls.out >cut.out
			bad cut.out --format=$fm cut.out || { echo "cut at $n"; return 1; }
		done
		bad garbage.out --format=$fm garbage.out || return 1
		bad missing.out --format=$fm missing.out || return 1
	done
	bad garbage.out --diff calls.out garbage.out && bad garbage.out --diff garbage.out calls.out &&
		bad missing.out --diff missing.out calls.out
}
check "truncated, garbage, missing: one line naming the file, status 2, for each format and --diff" inputs

unwritable() {
	local fm
	for fm in callgrind dot json; do
		bad nodir/x --format=$fm -o nodir/x calls.out || return 1
	done
	bad nodir/x --diff -o nodir/x calls.out calls.out
}
check "-o in a directory that does not exist: one line, status 2" unwritable

X=$T/exceptions
cxx() {
	RT_ENV="SPYRT_MODE=count SPYRT_WATCH=none"
	rt_sample exceptions "$X" && rt_run "$X" || return 1
	"$SPINPROF" --format=callgrind -o x.cg exceptions.out &&
		"$SPINPROF" --format=dot --cutoff=0 -o x.dot exceptions.out &&
		"$SPINPROF" --format=json -o x.json exceptions.out
}
check "exceptions.cc (C++) in count mode: callgrind, dot and json written" cxx

cxx_callgrind() {
	callgrind_annotate --threshold=100 x.cg >x.ann 2>x.annerr && [ ! -s x.annerr ] || { cat x.annerr; return 1; }
	local name want
	for want in '1,000 thrower1(int)' '4 Counter::bump(int)' '2 int twice<int>(int)'; do
		name=${want#* }
		awk -v n="$name" -v c="${want%% *}" '{ i = index($0, ":" n); if (i && i + length(n) == length($0) && $1 == c) f = 1 } END { exit !f }' x.ann ||
			{ echo "want $want"; grep -F "$name" x.ann; return 1; }
	done
}
check "callgrind_annotate: thrower1(int) 1,000, Counter::bump(int) 4, int twice<int>(int) 2" cxx_callgrind

cxx_dot_json() {
	dot -Tjson x.dot | python3 -c '
import json, sys
d = json.load(sys.stdin)
got = {o["label"].split("\\n")[0]: o["label"].split("\\n")[3] for o in d["objects"]}
want = {"thrower1(int)": "1000×", "Counter::bump(int)": "4×", "int twice<int>(int)": "2×"}
bad = {k: got.get(k) for k in want if got.get(k) != want[k]}
sys.exit(print("dot:", bad) if bad else 0)
' || return 1
	python3 -c '
import json, sys
d = json.load(open("x.json"))
got = {f["name"]: (f["calls"] + f["self_calls"], f.get("symbol")) for f in d["functions"]}
want = {"thrower1(int)": (1000, "_Z8thrower1i"), "Counter::bump(int)": (4, "_ZN7Counter4bumpEi"), "int twice<int>(int)": (2, "_Z5twiceIiET_S0_")}
bad = {k: got.get(k) for k in want if got.get(k) != want[k]}
sys.exit(print("json:", bad) if bad else 0)
'
}
check "graphviz and json keep the demangled names and counts (json: the mangled symbol beside)" cxx_dot_json

cxx_diff() {
	cp exceptions.out x2.out
	"$SPINPROF" --diff exceptions.out x2.out >xd.txt || return 1
	grep -Eq '^ .* 4 +4 +\+0 +1\.000  Counter::bump\(int\)$' xd.txt && grep -Eq '^ .* 2 +2 +\+0 +1\.000  int twice<int>\(int\)$' xd.txt ||
		{ cat xd.txt; return 1; }
}
check "--diff matches C++ names with blanks" cxx_diff

cat >"$T/names.c" <<'C'
#include <sys/prctl.h>
__attribute__((noinline)) int f(int x) { return x + 1; }
int main(int argc, char **argv)
{
	(void)argv;
	prctl(PR_SET_NAME, "a\xff\x01z");
	return f(argc) == 0;
}
C
bytes() {
	RT_ENV=
	rt_cc "$T/names" "$CC" "$T/names.c" && rt_run "$T/names" || return 1
	"$SPINPROF" --format=json names.out >names.json || return 1
	grep -q '"name": "a\\u00ff\\u0001z"' names.json || { grep '"tid"' names.json; return 1; }
	python3 -c '
import json, sys
d = json.load(open("names.json"))
sys.exit(0 if d["threads"][0]["name"] == "a\u00ff\u0001z" else print(d["threads"]))'
}
check "a thread name with a byte that is no UTF-8 and a control byte: valid JSON, \\u00ff and \\u0001" bytes

tap_done
