#!/bin/bash
# t260: spinprof --dump FILE... prints every record of spy profiles as text (docs/FORMAT.md, "Text
# dump"). samples/calls.c (main 1, a 10, b 30, c 60; arcs <spontaneous>->main 1, main->a 10, a->b 30,
# b->c 60) run under the runtime: the dump's func, arc (summed over call sites), time and count lines
# give those exact numbers; the thread line has revision 2's off-CPU fields, the hflags line names
# the bits of the header's flags; the end line gives the revision, the END record's count and the file's
# length; the text equals the test tool's (common/gmon-dump.c); two files are dumped one after the
# other; -o writes the same text; a report option with --dump is one line and status 2; --help and
# the usage line name it. A program that names its thread "a b<tab>c" and is run with the arguments
# "x y" and "p<newline>q" keeps one fact a line (the strings escaped). A truncated file, garbage, a missing file and a GNU gmon.out give
# one line "spinprof: FILE: ..." on stderr, nothing on stdout, status 2.
. "$(dirname "$0")/lib-spinprof.sh"
. "$(dirname "$0")/lib-runtime.sh"

[ -x "$SPINPROF" ] || tap_skip_all "no spinprof"
rt_setup

tap_plan 16

P=$T/calls
build() { rt_sample calls "$P" && rt_run "$P"; }
if ! check "calls.c builds with the plugin and runs" build; then
	for _ in $(seq 15); do not_ok "calls (not built)"; done
	tap_done
fi
cd "$T" || exit 1

dump() {
	"$SPINPROF" --dump "$@" >"$T/dump.txt" 2>"$T/dump.err" || { echo "status $?"; cat "$T/dump.err"; return 1; }
	[ ! -s "$T/dump.err" ] || { echo "stderr:"; cat "$T/dump.err"; return 1; }
}
check "spinprof --dump calls.out: status 0, nothing on stderr" dump calls.out

# facts: func NAME COUNT, arc CALLER CALLEE COUNT (summed over call sites), time NAME CALLS, count NAME COUNT
facts() {
	awk '
		function val(k,   i) { for (i = 2; i <= NF; i++) if (index($i, k "=") == 1) return substr($i, length(k) + 2) }
		$1 == "func" { print "func", $2, val("count") }
		$1 == "arc" { a[val("caller") " " val("callee")] += val("count") }
		$1 == "time" { print "time", val("func"), val("calls") }
		$1 == "count" { print "count", val("func"), val("count") }
		END { for (k in a) print "arc", k, a[k] }' "$1" | sort
}
exact() {
	facts "$T/dump.txt" >"$T/got"
	sort >"$T/want" <<'W'
arc <spontaneous> main 1
arc a b 30
arc b c 60
arc main a 10
count a 10
count b 30
count c 60
count main 1
func a 10
func b 30
func c 60
func main 1
time a 10
time b 30
time c 60
time main 1
W
	diff "$T/want" "$T/got"
}
check "the dump's func, arc, time and count lines are calls.c's exact counts" exact

# the hflags line's set= names exactly the bits 0-5 of the header's flags; the write at exit says final
hdrflags() {
	local line flags want="" i names=(tsc_invariant final forked offcpu_none signal incomplete)
	line=$(grep '^header ' dump.txt)
	flags=$(sed -n 's/.* flags=\(0x[0-9a-f]*\)$/\1/p' <<<"$line")
	[ -n "$flags" ] || { echo "no flags: $line"; return 1; }
	for i in 0 1 2 3 4 5; do (((flags >> i) & 1)) && want+="${names[i]},"; done
	grep -qx "hflags set=$want tsc_source=[a-z]*" dump.txt || { echo "want set=$want: $line"; grep '^hflags' dump.txt; return 1; }
	(((flags & 2) == 2)) || { echo "not final: $line"; return 1; }
}
check "the hflags line names the header's flags and the TSC source" hdrflags

# one thread, with revision 2's fields; every arc line has the three off-CPU fields
offcpu() {
	[ "$(grep -c '^thread ' dump.txt)" -eq 1 ] || return 1
	grep '^thread ' dump.txt | grep -E ' off_blocked=[0-9]+ off_preempted=[0-9]+ off_switches=[0-9]+ off_lost=[0-9]+$' || return 1
	! grep '^arc ' dump.txt | grep -vE ' off_incl=[0-9]+ off_self=[0-9]+ off_self_pre=[0-9]+$'
}
check "revision 2's off-CPU fields on the thread and every arc" offcpu

# the end line: the revision of the file header (bytes 8-11), the record count (HEADER, a MODULE per
# module line, the one FUNCS, a THREAD per thread line, SAMPLING if any, a NODES per nodes line,
# COUNTERS) and the file's size
endline() {
	local size rev recs want
	size=$(stat -c %s calls.out)
	rev=$(od -An -tu4 -j8 -N4 calls.out | tr -d ' ')
	recs=$(($(grep -c '^module ' dump.txt) + 1 + $(grep -c '^thread ' dump.txt) + 2 + $(grep -c '^sampling ' dump.txt) + $(grep -c '^nodes ' dump.txt) + $(grep -q '^tail ' dump.txt && echo 1 || echo 0)))
	want="end revision=$rev records=$recs length=$size file=calls.out"
	[ "$(tail -n 1 dump.txt)" = "$want" ] || { echo "want: $want"; tail -n 1 dump.txt; return 1; }
	[ "$rev" -eq 5 ]
}
check "the end line: revision 5, the records and the file's length" endline

same_as_tool() {
	"$T/gmon-dump" calls.out >"$T/tool.txt" || return 1
	cmp "$T/tool.txt" dump.txt
}
check "spinprof --dump prints what the test tool gmon-dump prints" same_as_tool

two() {
	cp calls.out again.out
	"$SPINPROF" --dump calls.out again.out >"$T/two.txt" || return 1
	{ cat dump.txt; sed 's/ file=calls\.out$/ file=again.out/' dump.txt; } | cmp - "$T/two.txt"
}
check "two files: one dump after the other" two

with_o() {
	"$SPINPROF" --dump -o "$T/o.txt" calls.out >"$T/o.stdout" || return 1
	[ ! -s "$T/o.stdout" ] && cmp "$T/o.txt" dump.txt
}
check "--dump -o FILE writes the same text to FILE" with_o

report_opts() {
	local o err
	for o in -p -P -q -Q -b -z -s --spy --threads --cutoff=5 --no-demangle; do
		err=$("$SPINPROF" --dump "$o" calls.out 2>&1 >/dev/null)
		[ $? -eq 2 ] || { echo "$o: status not 2"; return 1; }
		[ "$(printf '%s\n' "$err" | wc -l)" -eq 1 ] && [[ $err == "spinprof: --dump "*"${o%%=*}"* ]] ||
			{ echo "$o: $err"; return 1; }
	done
}
check "--dump with a report option: one line, status 2" report_opts
helps() { "$SPINPROF" --help | grep -- '--dump' && "$SPINPROF" --no-such-option 2>&1 | grep -- '--dump'; }
check "--help and the usage line name --dump" helps

# strings keep one fact a line: a thread name with a blank and a tab (the runtime reads comm up to a newline), arguments with a blank and a newline
cat >"$T/names.c" <<'C'
#include <sys/prctl.h>
__attribute__((noinline)) int f(int x) { return x + 1; }
int main(int argc, char **argv)
{
	(void)argv;
	prctl(PR_SET_NAME, "a b\tc");
	return f(argc) == 0;
}
C
escaped() {
	rt_cc "$T/names" "$CC" "$T/names.c" && rt_run "$T/names" "x y" $'p\nq' "" z || return 1
	"$SPINPROF" --dump names.out >"$T/names.txt" || return 1
	grep -qx 'argv [^ ]*/names x\\x20y p\\x0aq  z' "$T/names.txt" || { grep '^argv' "$T/names.txt"; return 1; }
	grep -q '^thread .* name=a\\x20b\\x09c arcs=' "$T/names.txt" || { grep '^thread' "$T/names.txt"; return 1; }
	# every line starts with a known word
	! grep -vE '^(header|hflags|times|overhead|tailcost|lost|error|argv|module|func|thread|arc|time|count|sampling|stack|tail|counter|end) ' "$T/names.txt"
}
check "strings escaped: a thread name with a blank and a tab, arguments with a blank and a newline, stay on their line" escaped

# bad FILE: status 2, nothing on stdout, one line "spinprof: FILE: ..." on stderr
bad() {
	local f=$1 rc
	"$SPINPROF" --dump "$f" >"$T/bad.out" 2>"$T/bad.err"
	rc=$?
	[ $rc -eq 2 ] || { echo "status $rc"; return 1; }
	[ ! -s "$T/bad.out" ] || { echo "stdout:"; head -n 3 "$T/bad.out"; return 1; }
	[ "$(wc -l <"$T/bad.err")" -eq 1 ] && grep -q "^spinprof: $f: ." "$T/bad.err" || { cat "$T/bad.err"; return 1; }
}
cut() {
	local n size
	size=$(stat -c %s calls.out)
	for n in 0 10 16 40 $((size / 2)) $((size - 1)); do
		head -c "$n" calls.out >cut.out
		bad cut.out || { echo "cut at $n"; return 1; }
	done
}
check "a truncated profile: one line naming it, status 2" cut
garbage() { head -c 4096 /dev/urandom >garbage.out && bad garbage.out; }
check "garbage: one line naming it, status 2" garbage
check "a missing file: one line naming it, status 2" bad missing.out
gnu() { printf 'gmon\1\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0' >gnu.out && bad gnu.out && grep -q 'GNU' "$T/bad.err"; }
check "a GNU gmon.out: one line naming it, status 2" gnu

tap_done
