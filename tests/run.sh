#!/bin/bash
# Run spy's tests (the cmocka unit binaries and the e2e scripts, each printing TAP) and count their test
# points. The last line is always "N passed, N failed"; the exit status is 1 iff a test failed or none ran.
# Each test's line ends with the progress, "[done/total, elapsed]".
#
# usage: tests/run.sh [-v] [--filter PATTERN] [FILE...]
#   FILE     a tests/e2e/t*.sh script, a unit test binary or its tests/unit/test-*.c source, or any TAP
#            program or script; default: every tests/unit/test-*.c's binary and every tests/e2e/t*.sh
#   PATTERN  shell pattern (extglob) matched anywhere in a test's path (`make check T=PATTERN`)
#   -v       show every test's whole output, not only the failures'
# environment in: BUILD (default build, relative to the repo root), SAN, CC, CXX, SPY_TEST_TIMEOUT (300 s)
# environment out: SPY_SRC SPY_BUILD SPY_PLUGIN SPY_TRACE_DIR SPY_SAN SPY_SAN_FLAGS CC CXX, and
#   CMOCKA_MESSAGE_OUTPUT=TAP. Each test runs in its own empty directory, $SPY_BUILD/tests/work/NAME;
#   its stdout (the TAP) and stderr are kept in $SPY_BUILD/tests/log/NAME.{tap,err}.
#
# Counting: each line beginning "ok" or "not ok" is one test point ("not ok ... # TODO" counts as passed,
# as in prove). A test adds one more failure, once, if it bails out, times out, prints no plan, prints a
# plan its points do not match, or exits non-zero without having reported a failing point.
set -u
shopt -s extglob # PATTERN may be an extended pattern: T='@(t101|t126)'

verbose=0
filter=
args=()
while (($#)); do
	case $1 in
	-v) verbose=1 ;;
	--filter) filter=${2-}; shift ;;
	--filter=*) filter=${1#--filter=} ;;
	-h | --help) sed -n '2,/^set -u/{/^set -u/d;s/^# \{0,1\}//;p}' "$0"; exit 0 ;;
	--) shift; args+=("$@"); break ;;
	*) args+=("$1") ;;
	esac
	shift
done

SPY_SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${BUILD:-build}
case $build in /*) ;; *) build=$SPY_SRC/$build ;; esac
mkdir -p "$build/tests/log" "$build/tests/work"
SPY_BUILD=$(cd "$build" && pwd)
SPY_SAN=${SAN-}
# GCC's undefined leaves out float-cast-overflow: added, as the GNUmakefile adds it
case ,$SPY_SAN, in *,undefined,*) SPY_SAN_FLAGS="-fsanitize=$SPY_SAN,float-cast-overflow -fno-omit-frame-pointer" ;;
*) SPY_SAN_FLAGS=${SPY_SAN:+-fsanitize=$SPY_SAN -fno-omit-frame-pointer} ;; esac
export SPY_SRC SPY_BUILD SPY_SAN SPY_SAN_FLAGS
export SPY_PLUGIN=$SPY_BUILD/spyinstr.so SPY_TRACE_DIR=$SPY_BUILD/tests
export CC=${CC:-gcc} CXX=${CXX:-g++}
export CMOCKA_MESSAGE_OUTPUT=TAP
if [[ -n $SPY_SAN ]]; then
	export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
	# a race stops the program (status 66): a test sees it as a wrong status or a missing profile.
	# Threads left running or unjoined at exit are what several tests are about: not a report.
	export TSAN_OPTIONS=${TSAN_OPTIONS:-halt_on_error=1:exitcode=66:report_thread_leaks=0}
fi
timeout=${SPY_TEST_TIMEOUT:-300}

# A test's name: its path relative to the repo root when it is inside it.
name_of()
{
	case $1 in
	"$SPY_SRC"/*) echo "${1#"$SPY_SRC"/}" ;;
	*) echo "$1" ;;
	esac
}

# The file to run for an argument: unit sources map to their binaries; everything becomes absolute.
resolve()
{
	local f=$1
	case $f in
	*tests/unit/test-*.c) f=$SPY_BUILD/tests/unit/$(basename "$f" .c) ;;
	/*) ;;
	*) f=$PWD/$f ;;
	esac
	echo "$f"
}

tests=()
if ((${#args[@]})); then
	for a in "${args[@]}"; do
		tests+=("$(resolve "$a")")
	done
else
	for s in "$SPY_SRC"/tests/unit/test-*.c; do
		[[ -f $s ]] && tests+=("$SPY_BUILD/tests/unit/$(basename "$s" .c)")
	done
	for s in "$SPY_SRC"/tests/e2e/t*.sh; do
		[[ -f $s ]] && tests+=("$s")
	done
fi

passed=0 failed=0 files=0 bad_files=()

# Count one test's TAP: prints "pass fail points plan skipall bailout".
count_tap()
{
	awk '
		/^ok([ \t]|$)/ { n++; pass++; next }
		/^not ok([ \t]|$)/ { n++; if (tolower($0) ~ /#[ \t]*todo/) pass++; else fail++; next }
		/^1\.\.[0-9]+/ { plan = substr($1, 4) + 0; if (tolower($0) ~ /#[ \t]*skip/) skipall = 1; next }
		/^Bail out!/ { bail = 1 }
		END { printf "%d %d %d %s %d %d\n", pass, fail, n, (plan == "" ? "-" : plan), skipall, bail }
	' "$1"
}

# The failing points of a TAP file with the diagnostics under each, at most 40 lines.
show_failures()
{
	awk '/^not ok/ && tolower($0) !~ /#[ \t]*todo/ { show = 1; print; next }
	     /^(ok|not ok)([ \t]|$)/ { show = 0; next }
	     show && /^#/ { print }' "$1" | head -n 40 | sed 's/^/    /'
}

# how many will run, for the progress at the end of each line: [done/total, elapsed]
total=0
for t in "${tests[@]}"; do
	name=$(name_of "$t")
	[[ -n $filter && $name != *$filter* ]] || total=$((total + 1))
done
start=$SECONDS
progress() { printf '  [%d/%d, %dm%02ds]' "$files" "$total" $(((SECONDS - start) / 60)) $(((SECONDS - start) % 60)); }

for t in "${tests[@]}"; do
	name=$(name_of "$t")
	if [[ -n $filter && $name != *$filter* ]]; then
		continue
	fi
	files=$((files + 1))
	base=$(basename "$t")
	base=${base%.sh}
	log=$SPY_BUILD/tests/log/${name//\//_}
	work=$SPY_BUILD/tests/work/$base
	rm -rf "$work" && mkdir -p "$work"

	status=0
	secs=0
	if [[ ! -f $t ]]; then
		echo "no such test (not built?): $t" >"$log.err"
		: >"$log.tap"
		status=127
	else
		if [[ $t == *.sh && ! -x $t ]]; then
			cmd=(bash "$t")
		else
			cmd=("$t")
		fi
		# (the outer 2>/dev/null silences bash's own "Segmentation fault" line; the reason is reported below)
		t0=$SECONDS
		{ (cd "$work" && exec timeout -k 10 "$timeout" "${cmd[@]}") >"$log.tap" 2>"$log.err" </dev/null; } 2>/dev/null
		status=$?
		secs=$((SECONDS - t0))
	fi

	read -r p f n plan skipall bail < <(count_tap "$log.tap")
	why=
	if ((bail)); then
		why="bailed out"
	elif ((status == 124 || status == 137)); then
		why="timed out after ${timeout}s"
	elif [[ $plan == - ]]; then
		if ((status > 128)); then
			why="killed by signal $((status - 128)), no plan"
		elif ((status != 0)); then
			why="exit status $status, no plan"
		else
			why="no plan"
		fi
	elif ((plan != n)); then
		why="planned $plan, ran $n"
		((status > 128)) && why+=", killed by signal $((status - 128))"
		((status > 0 && status <= 128)) && why+=", exit status $status"
	elif ((status != 0 && f == 0)); then
		why="exit status $status"
		((status > 128)) && why="killed by signal $((status - 128))"
	fi
	[[ -n $why ]] && f=$((f + 1))
	passed=$((passed + p))
	failed=$((failed + f))

	if ((f)); then
		bad_files+=("$name")
		printf 'FAIL %-50s %d/%d ok%s %ds%s\n' "$name" "$p" $((p + f)) "${why:+ ($why)}" "$secs" "$(progress)"
		show_failures "$log.tap"
		if [[ -s $log.err ]]; then
			echo "    stderr (last lines of $log.err):"
			tail -n 15 "$log.err" | sed 's/^/    | /'
		fi
	elif ((skipall && n == 0)); then
		printf 'skip %-50s %s %ds%s\n' "$name" "$(grep -m1 '^1\.\.' "$log.tap" | sed 's/^1\.\.0 *#* *//')" "$secs" \
			"$(progress)"
	else
		printf 'ok   %-50s %d/%d ok %ds%s\n' "$name" "$p" "$n" "$secs" "$(progress)"
	fi
	if ((verbose)); then
		sed 's/^/    /' "$log.tap"
		[[ -s $log.err ]] && sed 's/^/    | /' "$log.err"
	fi
done

if ((${#bad_files[@]})); then
	echo "failed: ${bad_files[*]}"
fi
if ((passed + failed == 0)); then
	if ((files == 0)); then
		echo "run.sh: no tests to run${filter:+ matching \"$filter\"}" >&2
	else
		echo "run.sh: no test points ran" >&2
	fi
fi
echo "$passed passed, $failed failed"
((failed == 0 && passed + failed > 0))
