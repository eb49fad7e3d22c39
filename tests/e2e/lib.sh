# tests/e2e/lib.sh: shared by the plugin tests (t0*): TAP output, building a sample with the
# plugin against libspytrace (tests/trace), and comparing its trace with the sample's .expect.
#
# Environment (defaults let a script run by hand from the repo root after `make`):
#   SPY_SRC repo root, SPY_BUILD build dir, SPY_PLUGIN spyinstr.so, SPY_TRACE_DIR the dir of
#   libspytrace.so, CC, CXX, SPY_SAN_FLAGS (added to every sample compile and link),
#   SPY_KEEP=1 keeps the work directory.
#
# An .expect file (samples/NAME.expect) has one fact a line; '#' starts a comment:
#   func NAME N          NAME (clone suffixes stripped) counted N times, and entered N times
#   arc CALLER CALLEE N  N calls from CALLER to CALLEE; with hooks, an arc between two listed
#                        functions (or from <spontaneous>) that is not listed is an error
#   exit NAME N          N exits instead of one per enter (longjmp)
#   repaired N           shadow-stack frames repaired (default 0)
#   open N               frames left open at exit (default 0)
#   absent NAME          no function of that base name may appear
#   present NAME         a function of exactly that name must appear (a clone, say)
#   sources F...         the sample's files (default NAME.c or NAME.cc)
#   cflags F...          extra compile flags;  env K=V  run environment;  args A...  run arguments
#   @O2,O3,Os LINE       LINE holds only at those levels (O0 O1 O2 O3 Os); O2-nosan or O2-san:
#                        at that level only without (with) the sanitizers of SAN=

: "${SPY_SRC:=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}"
: "${SPY_BUILD:=$SPY_SRC/build}"
: "${SPY_PLUGIN:=$SPY_BUILD/spyinstr.so}"
: "${SPY_TRACE_DIR:=$SPY_BUILD/tests}"
: "${CC:=gcc}"
: "${CXX:=g++}"
: "${SPY_SAN_FLAGS:=}"
SAMPLES=$SPY_SRC/samples
# The file format's library (common/) for a test's own generators and readers, compiled plainly with the
# tree's flags: the archive make check builds (make testtools), linked after the program's sources, with -lz
GMON_IO=$SPY_BUILD/libgmon.a
[ -f "$GMON_IO" ] || echo "# no $GMON_IO: make testtools builds it" >&2
# The parts of common/ in the runtime (it writes, and reads nothing), and the flags they take there: as
# GNUmakefile's RT_COMMON_SRCS and RT_COMMON_DEFS, for the tests that build a runtime of their own
# shellcheck disable=SC2034
RT_COMMON="gmon-io gmon-encode gmon-write"
# shellcheck disable=SC2034
RT_COMMON_DEFS="-DGMON_ZLIB_DLOPEN -DGMON_RUNTIME_NAMES"
# The ABI version the plugin and the tracing library were built with.
SPY_ABI=$(sed -n 's/^#define SPY_ABI_VERSION \([0-9]*\).*/\1/p' "$SPY_SRC/common/spy-abi.h")
# shellcheck disable=SC2034
OPT_LEVELS="O0 O1 O2 O3 Os"

# ---- TAP ----

tap_n=0
tap_failed=0

tap_plan() { echo "1..$1"; }

tap_skip_all() {
	echo "1..0 # SKIP $*"
	exit 0
}

# Under ThreadSanitizer (SAN=thread) SPY_TSAN is 1. What cannot work under it (signals that end the run,
# perf events, timing, huge thread counts) skips with its reason: tsan_skip_all REASON for a whole
# script; for one point, its description ends with $(tsan_skip REASON) and its check returns early.
case $SPY_SAN_FLAGS in *=thread*) SPY_TSAN=1 ;; *) SPY_TSAN= ;; esac
tsan_skip_all() { [ -z "$SPY_TSAN" ] || tap_skip_all "under ThreadSanitizer: $*"; }
tsan_skip() { [ -z "$SPY_TSAN" ] || echo " # SKIP under ThreadSanitizer: $*"; }
# the reasons shared by several scripts
TSAN_NO_OPENMP="libgomp is not built with it, so the end of a parallel region is invisible and every OpenMP program reports a race"
TSAN_NO_TAILCALLS="no tail calls: its exit hook follows every call"
TSAN_DELAYS_SIGNALS="it delays each signal handler to the thread's next intercepted call, so no handler lands in instrumented code"

ok() {
	tap_n=$((tap_n + 1))
	echo "ok $tap_n - $*"
}

not_ok() {
	tap_n=$((tap_n + 1))
	tap_failed=$((tap_failed + 1))
	echo "not ok $tap_n - $*"
}

# todo DESC REASON: a point that fails for a known defect, REASON: TAP's TODO, counted as passed and
# shown in the log
todo() {
	tap_n=$((tap_n + 1))
	echo "not ok $tap_n - $1 # TODO $2"
}

diag() { sed -e 's/^/# /'; }

# check DESC CMD [ARG...]: one test that passes when CMD succeeds; on failure the first lines of
# its output become TAP diagnostics and the status is 1, so that `if ! check ...` can skip what
# needs the point.
check() {
	local desc=$1 out
	shift
	if out=$("$@" 2>&1); then
		ok "$desc"
	else
		not_ok "$desc"
		printf '%s\n' "$out" | head -n 40 | diag
		return 1
	fi
}

tap_done() {
	[ "$tap_failed" -eq 0 ]
	exit
}

# ---- setup ----

# setup_workdir: make $T, removed at exit (unless SPY_KEEP=1); build libspytrace there when the
# build tree has none (a run by hand before `make`).
setup_workdir() {
	T=$(mktemp -d "${TMPDIR:-/tmp}/spy-t0.XXXXXX") || exit 1
	if [ "${SPY_KEEP:-}" = 1 ]; then
		echo "# work directory: $T"
	else
		trap 'rm -rf "$T"' EXIT
	fi
	if [ ! -f "$SPY_TRACE_DIR/libspytrace.so" ]; then
		mkdir -p "$T/trace"
		# shellcheck disable=SC2086
		$CC -O2 -g -fPIC -shared -fno-omit-frame-pointer $SPY_SAN_FLAGS -I"$SPY_SRC/common" \
			-I"$SPY_SRC/tests/trace" "$SPY_SRC"/tests/trace/*.c -o "$T/trace/libspytrace.so" \
			-lpthread -ldl || exit 1
		SPY_TRACE_DIR=$T/trace
	fi
}

need_plugin() {
	[ -f "$SPY_PLUGIN" ] || tap_skip_all "no plugin at $SPY_PLUGIN (run make first)"
}

# ---- building and running ----

# spycc OUT COMPILER ARG...: compile and link ARGs with the plugin against libspytrace;
# the compiler's output goes to OUT.log.
spycc() {
	local out=$1 cc=$2
	shift 2
	# shellcheck disable=SC2086
	$cc -fplugin="$SPY_PLUGIN" -g "$@" $SPY_SAN_FLAGS -o "$out" -L"$SPY_TRACE_DIR" -lspytrace \
		-Wl,-rpath,"$SPY_TRACE_DIR" -lpthread -ldl >"$out.log" 2>&1
}

# expect_directive FILE KEY: the rest of the first "KEY ..." line of FILE.
expect_directive() {
	sed -n -e "s/^$2[ \t][ \t]*//p" "$1" | head -n 1
}

# build_sample NAME LEVEL OUT [FLAG...]: build samples/NAME at -LEVEL with FLAGs (plugin
# arguments, say) into OUT.
# sample_sources NAME: the sample's source files, from its .expect or NAME.c / NAME.cc
sample_sources() {
	local srcs
	srcs=$(expect_directive "$SAMPLES/$1.expect" sources)
	if [ -z "$srcs" ]; then
		srcs=$1.c
		[ -f "$SAMPLES/$1.cc" ] && srcs=$1.cc
	fi
	echo "$srcs"
}

# threads_expect N M: the facts of samples/threads.c run with N threads of M calls
threads_expect() {
	cat <<EOT
func main 1
func worker $1
func work $(($1 * $2))
arc <spontaneous> main 1
arc <spontaneous> worker $1
arc worker work $(($1 * $2))
EOT
}

build_sample() {
	local name=$1 level=$2 out=$3 exp srcs cflags cc=$CC s
	shift 3
	exp=$SAMPLES/$name.expect
	srcs=$(sample_sources "$name")
	case $srcs in *.cc*) cc=$CXX ;; esac
	cflags=$(expect_directive "$exp" cflags)
	local paths=()
	for s in $srcs; do paths+=("$SAMPLES/$s"); done
	# shellcheck disable=SC2086
	if ! spycc "$out" "$cc" -"$level" -I"$SAMPLES" $cflags "$@" "${paths[@]}"; then
		echo "compile failed: $cc -$level $cflags $* $srcs"
		head -n 30 "$out.log"
		return 1
	fi
}

# run_traced PROG TRACE [ARG...]: run PROG (environment from the caller) writing TRACE.
run_traced() {
	local prog=$1 trace=$2 rc
	shift 2
	rm -f "$trace"
	SPYTRACE_OUT=$trace "$prog" "$@" >"$prog.run" 2>&1
	rc=$?
	if [ $rc -ne 0 ]; then
		echo "$prog $* exited with status $rc"
		head -n 20 "$prog.run"
		return 1
	fi
	if [ ! -s "$trace" ]; then
		echo "$prog wrote no trace"
		return 1
	fi
}

# run_sample NAME PROG TRACE: run PROG with the env and args of samples/NAME.expect.
run_sample() {
	local exp=$SAMPLES/$1.expect envs args
	envs=$(sed -n -e 's/^env[ \t][ \t]*//p' "$exp" | tr '\n' ' ')
	args=$(expect_directive "$exp" args)
	(
		# shellcheck disable=SC2086,SC2163
		[ -z "$envs" ] || export $envs
		# shellcheck disable=SC2086
		run_traced "$2" "$3" $args
	)
}

# ---- comparing ----

# trace_compare EXPECT TRACE LEVEL MODE: print every difference between the trace and the
# facts of EXPECT at LEVEL for plugin mode MODE (count|arcs|time); fail if there is one.
trace_compare() {
	awk -v level="$3" -v mode="$4" -v abi="$SPY_ABI" -v san="${SPY_SAN_FLAGS:+1}" "$TRACE_AWK" "$1" "$2"
}

# check_sample NAME LEVEL MODE [FLAG...]: build, run and compare; the body of one test.
check_sample() {
	local name=$1 level=$2 mode=$3 out
	shift 3
	out=$T/$name-$level-$mode
	build_sample "$name" "$level" "$out" -fplugin-arg-spyinstr-mode="$mode" "$@" || return 1
	run_sample "$name" "$out" "$out.trace" || return 1
	trace_compare "$SAMPLES/$name.expect" "$out.trace" "$level" "$mode"
}

# shellcheck disable=SC2016
TRACE_AWK='
function base(n) {
	for (;;) {
		if (match(n, /\.(constprop|isra|part|cold|lto_priv|localalias|clone)(\.[0-9]+)?$/))
			n = substr(n, 1, RSTART - 1)
		else if (match(n, /\.[0-9]+$/))
			n = substr(n, 1, RSTART - 1)
		else
			return n
	}
}
function bad(msg) { problems++; print msg }
function field(key,   i, kv) {
	for (i = 3; i <= NF; i++)
		if (index($i, key "=") == 1)
			return substr($i, length(key) + 2) + 0
	bad("no " key "= in: " $0)
	return -1
}
BEGIN {
	hooks = mode != "count"
	wantmode = mode == "count" ? 0 : mode == "arcs" ? 1 : 2
	erepaired = 0; eopen = 0
}
FNR == NR {
	sub(/#.*/, "")
	if (NF == 0)
		next
	if ($1 ~ /^@/) {
		if (index("," substr($1, 2) ",", "," level ",") == 0 &&
		    index("," substr($1, 2) ",", "," level (san ? "-san" : "-nosan") ",") == 0)
			next
		sub(/^[ \t]*@[^ \t]+[ \t]+/, "")
	}
	if ($1 == "func") { efunc[$2] = $3; listed[$2] = 1 }
	else if ($1 == "arc") earc[$2 SUBSEP $3] = $4
	else if ($1 == "exit") eexit[$2] = $3
	else if ($1 == "repaired") erepaired = $2
	else if ($1 == "open") eopen = $2
	else if ($1 == "absent") eabsent[$2] = 1
	else if ($1 == "present") epresent[$2] = 1
	next
}
$1 == "func" {
	nfuncs++
	b = base($2)
	exact[$2] = 1
	c = field("count"); e = field("enter"); x = field("exit")
	cnt[b] += c; ent[b] += e; ext[b] += x; seen[b] = 1
	if (hooks && c != e)
		bad("func " $2 ": counter " c " != enters " e)
	if (mode == "time" && !(b in eexit) && x != e)
		bad("func " $2 ": exits " x " != enters " e)
	if (mode == "arcs" && x != 0)
		bad("func " $2 ": " x " exits in mode arcs, which has no exit hook")
	if (!hooks && (e != 0 || x != 0))
		bad("func " $2 ": hooks ran in mode count (enter=" e " exit=" x ")")
	next
}
$1 == "arc" { arcs[base($2) SUBSEP base($3)] += $4; narcs++; next }
$1 == "callsite" { csbad = field("bad"); next }
$1 == "overflow" {
	if ($0 !~ /stack=0 arcs=0 funcs=0/)
		bad("trace overflow: " $0)
	next
}
$1 == "module" {
	nmods++
	if (field("mode") != wantmode)
		bad("module " $2 " registered with mode " field("mode") ", want " wantmode)
	if (field("abi") != abi)
		bad("module " $2 ": abi " field("abi"))
	next
}
NF == 2 { stat[$1] = $2 }
END {
	if (nfuncs == 0)
		bad("no func lines in the trace")
	if (nmods == 0)
		bad("no module registered")
	for (f in efunc) {
		if (!(f in seen))
			bad("func " f ": missing, want " efunc[f])
		else if (cnt[f] != efunc[f])
			bad("func " f ": count " cnt[f] ", want " efunc[f])
		else if (hooks && ent[f] != efunc[f])
			bad("func " f ": enter " ent[f] ", want " efunc[f])
	}
	for (f in eexit)
		if (mode == "time" && ext[f] != eexit[f])
			bad("func " f ": exit " ext[f] ", want " eexit[f])
	for (f in eabsent)
		if (f in seen)
			bad("func " f ": must not be instrumented")
	for (f in epresent)
		if (!(f in exact))
			bad("func " f ": missing (a clone that should exist at " level ")")
	if (hooks) {
		for (k in earc) {
			split(k, p, SUBSEP)
			if (arcs[k] != earc[k])
				bad("arc " p[1] " -> " p[2] ": " arcs[k] + 0 ", want " earc[k])
		}
		for (k in arcs) {
			split(k, p, SUBSEP)
			if ((p[2] in listed) && ((p[1] in listed) || p[1] == "<spontaneous>") && !(k in earc))
				bad("arc " p[1] " -> " p[2] ": " arcs[k] ", want none")
		}
	} else if (narcs) {
		bad("mode count: " narcs " arcs recorded")
	}
	if (csbad != 0)
		bad("callsite bad=" csbad " (call sites outside the shadow-stack caller)")
	# mode arcs: the frame of a returned call is dropped by a later call, which is no repair
	want["repaired"] = mode == "time" ? erepaired : 0; want["open"] = mode == "time" ? eopen : 0
	want["unmatched_exit"] = 0; want["slot0"] = 0; want["unknown_self"] = 0
	want["duplicate_records"] = 0; want["reentered"] = 0; want["bad_abi"] = 0
	for (s in want) {
		if (!(s in stat))
			bad("no " s " line in the trace")
		else if (stat[s] != want[s])
			bad(s " " stat[s] ", want " want[s])
	}
	exit problems != 0
}'
