# lib-spinprof.sh: the helpers of the t2*-spinprof-*.sh scripts, which source it:
#   sp_setup                 work dir $T, $SPINPROF (skip all when it is not built)
#   sp_check DESC CMD...     check, with a status: whether the test passed
#   sp_facts [FILE]          gprof-layout text (flat profile and/or call graph) as facts, one a line:
#                              flat NAME = CALLS PCT SELF            (CALLS "-" when the column is blank)
#                              prim NAME = CALLED PCT SELF CHILDREN  (CALLED "A" or "A+B", "-" if blank)
#                              parent CALLEE CALLER = COUNT SELF CHILDREN   (COUNT is the numerator of A/B)
#                              child CALLER CALLEE = COUNT SELF CHILDREN
#                              member NAME = CYCLE                   (CYCLE: its members, sorted, joined by ,)
#                            names lose their " <cycle N>" and " [N]"; "<cycle N as a whole>" becomes
#                            "<cycle:MEMBERS>", so two tools' different cycle numbers compare equal
#   sp_compare GOT WANT [PREFIXES]  every difference between two fact files (keys missing on either side,
#                            counts unequal, seconds off by more than 0.01, percents by more than 0.1);
#                            PREFIXES (a regex, default any) picks the kinds of facts compared
#   sp_header FILE           the lines of spinprof's output before "Flat profile:" / the call graph
#   sp_export FORMAT OUT ARGS...  spinprof --format=FORMAT -o OUT ARGS: status 0 and nothing on stderr,
#                            else what went wrong and status 1
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

: "${SPINPROF:=$SPY_BUILD/spinprof}"

# sp_check DESC CMD...: lib.sh's check (whose status says whether the point passed)
sp_check() { check "$@"; }

sp_export() {
	local fmt=$1 out=$2
	shift 2
	"$SPINPROF" --format="$fmt" -o "$out" "$@" 2>"$out.err" ||
		{ echo "spinprof --format=$fmt: status $?"; cat "$out.err"; return 1; }
	[ ! -s "$out.err" ] || { echo "spinprof --format=$fmt says:"; cat "$out.err"; return 1; }
}

sp_setup() {
	[ -x "$SPINPROF" ] || tap_skip_all "no spinprof"
	setup_workdir
}

# shellcheck disable=SC2016
SP_FACTS_AWK='
function flush_block(   i) {
	if (prim == "")
		return
	for (i = 1; i <= npar; i++)
		out[++nout] = "parent " prim " " par[i]
	for (i = 1; i <= nchi; i++)
		out[++nout] = "child " prim " " chi[i]
	out[++nout] = "prim " prim " = " primv
	prim = ""; npar = 0; nchi = 0
}
# parse one call-graph or flat line from field FIRST on: numbers, then the name
function parse(first,   i, n, nm, m) {
	L_self = "-"; L_child = "-"; L_called = "-"; L_nnum = 0
	for (i = first; i <= NF; i++) {
		if ($i ~ /^-?[0-9]+\.[0-9]+$/) {
			if (L_nnum == 0) L_self = $i; else L_child = $i
			L_nnum++
		} else if ($i ~ /^[0-9]+(\+[0-9]+)?(\/[0-9]+)?$/ && L_called == "-") {
			L_called = $i
		} else if ($i == "-" && L_nnum >= 2 && L_called == "-") {
			# an arc into code without hooks: its count not counted
		} else
			break
	}
	nm = ""
	for (; i <= NF; i++)
		nm = nm (nm == "" ? "" : " ") $i
	sub(/ \[[0-9]+\]$/, "", nm)
	L_cyc = ""
	if (match(nm, / <cycle [0-9]+>$/)) {
		L_cyc = substr(nm, RSTART + 8, RLENGTH - 9)
		nm = substr(nm, 1, RSTART - 1)
	}
	if (match(nm, /^<cycle [0-9]+ as a whole>$/)) {
		m = nm; sub(/^<cycle /, "", m); sub(/ as a whole>$/, "", m)
		nm = "@CYCLE" m "@"
	}
	L_name = nm
}
function count_of(c) { sub(/\/.*/, "", c); return c }
/^Flat profile:/ { sec = "flat"; off = 0; next }
/^[ \t]*Call graph/ { sec = "cgpre"; next }
/^index[ \t]+% time/ { sec = "cg"; off = index($0, "off cpu") > 0; next }
# a time profile with off-CPU time has an off cpu column before the names: cut out (gprof has none)
sec == "flat" && /^ +% +cumulative .*off cpu/ { off = 1 }
sec == "flat" && off && length($0) > 64 { $0 = substr($0, 1, 54) substr($0, 65) }
sec == "cg" && off && length($0) > 54 { $0 = substr($0, 1, 45) substr($0, 55) }
/^Index by function name/ { flush_block(); sec = "index"; next }
sec == "flat" && NF >= 4 && $1 ~ /^[0-9]+\.[0-9]+$/ && $2 ~ /^[0-9]+\.[0-9]+$/ && $3 ~ /^[0-9]+\.[0-9]+$/ {
	calls = "-"; first = 4
	if (NF >= 7 && $4 ~ /^[0-9]+$/ && $5 ~ /^[0-9]+\.[0-9]+$/ && $6 ~ /^[0-9]+\.[0-9]+$/) {
		calls = $4; first = 7
	}
	nm = ""
	for (i = first; i <= NF; i++)
		nm = nm (nm == "" ? "" : " ") $i
	sub(/ <cycle [0-9]+>$/, "", nm)
	out[++nout] = "flat " nm " = " calls " " $1 " " $3
	next
}
sec == "cg" && /^-+$/ { flush_block(); next }
sec == "cg" && /^\[[0-9]+\]/ {
	pct = $2
	parse(3)
	prim = L_name
	primv = L_called " " pct " " L_self " " L_child
	if (L_cyc != "") {
		cyc[L_cyc] = cyc[L_cyc] " " prim
		member[prim] = L_cyc
	}
	next
}
sec == "cg" && /<spontaneous>/ { npar++; par[npar] = "<spontaneous> = - - -"; next }
sec == "cg" && NF >= 2 {
	parse(1)
	if (L_cyc != "")
		member[L_name] = L_cyc
	v = L_name " = " count_of(L_called) " " L_self " " L_child
	if (prim == "") par[++npar] = v; else chi[++nchi] = v
	next
}
END {
	flush_block()
	for (c in cyc) {
		n = split(substr(cyc[c], 2), mem, " ")
		# insertion sort: awk has no portable sort
		for (i = 2; i <= n; i++)
			for (j = i; j > 1 && mem[j - 1] > mem[j]; j--) { t = mem[j]; mem[j] = mem[j - 1]; mem[j - 1] = t }
		s = mem[1]
		for (i = 2; i <= n; i++) s = s "," mem[i]
		cname[c] = s
	}
	for (i = 1; i <= nout; i++) {
		line = out[i]
		while (match(line, /@CYCLE[0-9]+@/)) {
			c = substr(line, RSTART + 6, RLENGTH - 7)
			line = substr(line, 1, RSTART - 1) "<cycle:" cname[c] ">" substr(line, RSTART + RLENGTH)
		}
		print line
	}
	for (m in member)
		print "member " m " = " cname[member[m]]
}'

sp_facts() {
	awk "$SP_FACTS_AWK" "$@" | sort
}

# shellcheck disable=SC2016
SP_COMPARE_AWK='
function num(s) { return s == "-" ? -1 : s + 0 }
function split_fact(line, kv,   at) {
	at = index(line, " = ")
	kv[1] = substr(line, 1, at - 1)
	kv[2] = substr(line, at + 3)
}
function bad(msg) { problems++; if (problems <= 30) print msg }
FNR == NR { if ($0 ~ pick) { split_fact($0, kv); want[kv[1]] = kv[2] } next }
{ if ($0 ~ pick) { split_fact($0, kv); got[kv[1]] = kv[2] } }
END {
	for (k in want) {
		if (!(k in got)) { bad("missing: " k " = " want[k]); continue }
		nw = split(want[k], w, " "); split(got[k], g, " ")
		kind = k; sub(/ .*/, "", kind)
		for (i = 1; i <= nw; i++) {
			# which column: counts exact; flat: CALLS PCT SELF; prim: CALLED PCT SELF CHILDREN;
			# parent/child: COUNT SELF CHILDREN; member: a name list
			if (i == 1 || kind == "member") tol = 0
			else if ((kind == "flat" || kind == "prim") && i == 2) tol = 0.1001
			else tol = 0.01001
			if (tol == 0 ? g[i] != w[i] : (g[i] == "-") != (w[i] == "-") || (num(g[i]) - num(w[i]) > tol || num(w[i]) - num(g[i]) > tol)) {
				bad(k ": got " got[k] ", want " want[k])
				break
			}
		}
	}
	for (k in got)
		if (!(k in want))
			bad("unexpected: " k " = " got[k])
	if (problems > 30)
		print "... " problems " differences in all"
	exit problems != 0
}'

sp_compare() {
	awk -v pick="${3:-.}" "$SP_COMPARE_AWK" "$2" "$1"
}

sp_header() {
	awk '/^Flat profile:/ || /^[ \t]*Call graph/ || /^index[ \t]+% time/ { exit } { print }' "$1"
}

# sp_same DIR PROG OPTS...: in DIR, `spinprof OPTS ./PROG gmon.out` prints what `gprof OPTS ./PROG
# gmon.out` prints (DIR/g.txt, DIR/s.txt), and exits with its status; gprof printed something, unless
# SP_SAME_EMPTY is 1 (-A without line information prints nothing). A gmon.sum of a run before is
# removed first, for -s.
sp_same() {
	local d=$1 prog=$2 gs ss
	shift 2
	(cd "$d" && rm -f gmon.sum && gprof "$@" "./$prog" gmon.out) >"$d/g.txt" 2>&1
	gs=$?
	(cd "$d" && rm -f gmon.sum && "$SPINPROF" "$@" "./$prog" gmon.out) >"$d/s.txt" 2>&1
	ss=$?
	[ "$gs" -eq "$ss" ] || { echo "status: gprof $gs, spinprof $ss"; head -n 20 "$d/s.txt"; return 1; }
	[ -s "$d/g.txt" ] || [ "${SP_SAME_EMPTY:-}" = 1 ] || { echo "gprof printed nothing"; return 1; }
	diff -u "$d/g.txt" "$d/s.txt"
}

# sp_gnu_sources MUL: $T/opts.c and $T/util.c, the two-file program of the gprof option tests (t216,
# t221, t223): time in several functions (work loops MUL times as long), a cycle (ping, pong),
# recursion (fact), a function of several callers (leaf, static), util.c's statics (ustep, uhelp) for
# the FILE, FILE:FUNC and FILE:LINE symspecs, and never, never run. Lines: ping 7, fact 9, beta 11 of
# opts.c; uhelp 7 of util.c.
sp_gnu_sources() {
	cat >"$T/opts.c" <<EOS
extern int util_mix(int n);
static volatile unsigned long sink;
#define WORK(n) for (unsigned long i_ = 0; i_ < $1 * (n); i_++) sink += i_
__attribute__((noinline)) void never(void);
__attribute__((noinline)) static void leaf(void) { WORK(30000); }
__attribute__((noinline)) void pong(int n);
__attribute__((noinline)) void ping(int n) { WORK(40000); if (n > 0) pong(n - 1); }
__attribute__((noinline)) void pong(int n) { leaf(); WORK(20000); if (n > 0) ping(n - 1); }
__attribute__((noinline)) int fact(int n) { WORK(30000); return n <= 1 ? 1 : n * fact(n - 1); }
__attribute__((noinline)) void alpha(void) { leaf(); WORK(150000); }
__attribute__((noinline)) void beta(void) { leaf(); leaf(); WORK(300000); }
int main(int argc, char **argv)
{
	(void)argv;
	for (int i = 0; i < 20; i++) {
		alpha();
		beta();
		leaf();
	}
	ping(10); /* ping 6 calls, pong 5: the members never tie */
	sink += (unsigned long)fact(12);
	sink += (unsigned long)util_mix(30);
	if (argc > 5)
		never();
	return 0;
}
__attribute__((noinline)) void never(void) { alpha(); }
EOS
	cat >"$T/util.c" <<EOS
static volatile unsigned long usink;
__attribute__((noinline)) static void ustep(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		usink += i;
}
__attribute__((noinline)) static int uhelp(int k)
{
	ustep($(($1 * 60000)));
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
}

# sp_build_pg NAME [ARG]: samples/NAME.c (or .cc) built -O2 -pg -g as $T/NAME/prog, run there with ARG:
# its gmon.out
sp_build_pg() {
	local d=$T/$1 src=$SAMPLES/$1.c cc=$CC
	mkdir -p "$d"
	[ -f "$SAMPLES/$1.cc" ] && { src=$SAMPLES/$1.cc; cc=$CXX; }
	# shellcheck disable=SC2086
	$cc -O2 -pg -g -I"$SAMPLES" "$src" -o "$d/prog" $SPY_SAN_FLAGS -lpthread >"$d/cc.log" 2>&1 ||
		{ echo "compile failed: $1"; head -n 20 "$d/cc.log"; return 1; }
	(cd "$d" && ./prog ${2:+"$2"} >run.stdout 2>run.stderr) || { echo "$1 failed"; head "$d/run.stderr"; return 1; }
	[ -s "$d/gmon.out" ] || { echo "$1 wrote no gmon.out"; return 1; }
}
