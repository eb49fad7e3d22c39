#!/bin/bash
# t100: the runtime's basics: samples/calls.c and samples/recursion.c built with the plugin and linked
# with libspyrt give exact counts and arcs in each SPYRT_MODE, static and shared; the file starts
# "gmonSPY\1" and GNU gprof refuses it cleanly; recursion is counted once; the reader refuses a cut file.
#
# Sourced by the other t1*-runtime-*.sh scripts for its helpers (everything above the guard):
#   rt_setup                 work dir $T, the runtime ($RT_DIR: the build's, else built here), the dumper
#   rt_cc OUT CC ARG...      compile and link ARGs with the plugin and libspyrt.so (OUT.log has errors)
#   rt_cc_static OUT CC ARG... the same with libspyrt.a
#   rt_sample NAME OUT [ARG...]  build samples/NAME (its .expect's sources) at -O2 with rt_cc
#   rt_check_expect NAME PROG [ARG...]  run PROG, compare with samples/NAME.expect
#   rt_run PROG [ARG...]     run with SPYRT_OUT=PROG.out and $RT_ENV; PROG.stdout, PROG.stderr
#   rt_dump FILE             the profile as text (gmon_dump), or exit 2 with one line on stderr
#   rt_facts FILE            "func NAME COUNT" and "arc CALLER CALLEE COUNT" summed over units and threads
#   rt_compare EXPECT FACTS  print every difference from the func/arc lines of a samples .expect
#   rt_get FILE LINE KEY     value of KEY= on the dump's first line starting with LINE
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

rt_setup() {
	need_plugin
	setup_workdir
	RT_DIR=$SPY_BUILD
	if [ ! -f "$RT_DIR/libspyrt.so" ] || [ ! -f "$RT_DIR/libspyrt.a" ]; then
		local f
		RT_DIR=$T/rt
		mkdir -p "$RT_DIR/obj"
		for f in "$SPY_SRC"/runtime/*.c; do
			# shellcheck disable=SC2086
			$CC -std=gnu17 -O2 -g -fPIC -fvisibility=hidden $SPY_SAN_FLAGS -I"$SPY_SRC/common" \
				-I"$SPY_SRC/runtime" -c "$f" -o "$RT_DIR/obj/$(basename "$f" .c).o" || exit 1
		done
		for f in $RT_COMMON; do
			# shellcheck disable=SC2086
			$CC -std=gnu17 -O2 -g -fPIC -fvisibility=hidden $SPY_SAN_FLAGS $RT_COMMON_DEFS \
				-c "$SPY_SRC/common/$f.c" -o "$RT_DIR/obj/common-$f.o" || exit 1
		done
		# shellcheck disable=SC2086
		$CC -shared $SPY_SAN_FLAGS -o "$RT_DIR/libspyrt.so" "$RT_DIR"/obj/*.o -lpthread -ldl || exit 1
		ar rcs "$RT_DIR/libspyrt.a" "$RT_DIR"/obj/*.o || exit 1
	fi
	# the tree's (make check builds it), else made here
	if [ -x "$SPY_BUILD/gmon-dump" ]; then
		ln -sf "$SPY_BUILD/gmon-dump" "$T/gmon-dump"
	else
		# shellcheck disable=SC2086
		$CC -O2 -g $SPY_SAN_FLAGS -I"$SPY_SRC/common" "$SPY_SRC/tests/gmon-dump.c" "$SPY_SRC"/common/*.c \
			-o "$T/gmon-dump" -lz || exit 1
	fi
}

rt_cc() {
	local out=$1 cc=$2
	shift 2
	# shellcheck disable=SC2086
	$cc -fplugin="$SPY_PLUGIN" -O2 -g -I"$SAMPLES" -I"$SPY_SRC/runtime" "$@" $SPY_SAN_FLAGS -o "$out" \
		-L"$RT_DIR" -lspyrt -Wl,-rpath,"$RT_DIR" -lpthread -ldl >"$out.log" 2>&1 ||
		{ echo "compile failed: $cc $*"; head -n 30 "$out.log"; return 1; }
}

rt_cc_static() {
	local out=$1 cc=$2
	shift 2
	# shellcheck disable=SC2086
	$cc -fplugin="$SPY_PLUGIN" -O2 -g -I"$SAMPLES" -I"$SPY_SRC/runtime" "$@" $SPY_SAN_FLAGS -o "$out" \
		"$RT_DIR/libspyrt.a" -lpthread -ldl >"$out.log" 2>&1 ||
		{ echo "compile failed: $cc $*"; head -n 30 "$out.log"; return 1; }
}

rt_sample() {
	local name=$1 out=$2 srcs cc=$CC s paths=()
	shift 2
	srcs=$(expect_directive "$SAMPLES/$name.expect" sources)
	if [ -z "$srcs" ]; then
		srcs=$name.c
		[ -f "$SAMPLES/$name.cc" ] && srcs=$name.cc
	fi
	case $srcs in *.cc*) cc=$CXX ;; esac
	for s in $srcs; do paths+=("$SAMPLES/$s"); done
	rt_cc "$out" "$cc" "$@" "${paths[@]}"
}

rt_dump() {
	"$T/gmon-dump" "$1"
}

rt_facts() {
	rt_dump "$1" | awk '
		function val(k,   i) { for (i = 2; i <= NF; i++) if (index($i, k "=") == 1) return substr($i, length(k) + 2) }
		$1 == "func" { f[$2] += val("count") }
		$1 == "arc" { a[val("caller") " " val("callee")] += val("count") }
		END { for (k in f) print "func", k, f[k]; for (k in a) print "arc", k, a[k] }' | sort
}

rt_compare() {
	awk -v level=O2 '
		FNR == NR {
			sub(/#.*/, "")
			if ($1 ~ /^@/) {
				if (index("," substr($1, 2) ",", "," level ",") == 0)
					next
				sub(/^[ \t]*@[^ \t]+[ \t]+/, "")
			}
			if ($1 == "func") { ef[$2] = $3; listed[$2] = 1 }
			if ($1 == "arc") ea[$2 " " $3] = $4
			next
		}
		$1 == "func" { f[$2] = $3 }
		$1 == "arc" { a[$2 " " $3] = $4 }
		END {
			for (k in ef) if (f[k] != ef[k]) { print "func " k ": " f[k] + 0 ", want " ef[k]; bad++ }
			for (k in ea) if (a[k] != ea[k]) { print "arc " k ": " a[k] + 0 ", want " ea[k]; bad++ }
			for (k in a) {
				split(k, p, " ")
				if (!(k in ea) && (p[2] in listed) && ((p[1] in listed) || p[1] == "<spontaneous>")) {
					print "arc " k ": " a[k] ", want none"; bad++
				}
			}
			exit bad != 0
		}' "$1" "$2"
}

# rt_is COND VAR=VALUE...: the awk condition COND over the values (numbers compare as numbers);
# prints them and COND
rt_is() {
	local cond=$1 a args=()
	shift
	echo "$* : $cond"
	for a in "$@"; do args+=(-v "$a"); done
	awk "${args[@]}" "BEGIN { exit !($cond) }"
}

rt_get() {
	rt_dump "$1" | awk -v l="$2" -v k="$3" '
		$1 == l { for (i = 2; i <= NF; i++) if (index($i, k "=") == 1) { print substr($i, length(k) + 2); exit } }'
}

# rt_run PROG [ARG...]: run with SPYRT_OUT=PROG.out and the assignments in $RT_ENV; fail on a
# non-zero status or no profile. Output in PROG.stdout, PROG.stderr.
rt_run() {
	local prog=$1 rc
	shift
	rm -f "$prog.out"
	# shellcheck disable=SC2086
	env ${RT_ENV:-} SPYRT_OUT="$prog.out" "$prog" "$@" >"$prog.stdout" 2>"$prog.stderr"
	rc=$?
	if [ $rc -ne 0 ]; then
		echo "$prog $* exited with status $rc"
		head -n 20 "$prog.stderr"
		return 1
	fi
	[ -s "$prog.out" ] || { echo "$prog wrote no profile"; cat "$prog.stderr"; return 1; }
}

# rt_check_expect NAME PROG [ARG...]: run PROG and compare its facts with samples/NAME.expect
rt_check_expect() {
	local name=$1 prog=$2
	shift 2
	rt_run "$prog" "$@" || return 1
	rt_facts "$prog.out" >"$prog.facts"
	rt_compare "$SAMPLES/$name.expect" "$prog.facts"
}

if [[ ${BASH_SOURCE[0]} != "$0" ]]; then
	return 0
fi

# ---- the tests of t100 ----

rt_setup
tap_plan 16

P=$T/calls
if ! check "calls builds with the plugin and libspyrt" rt_sample calls "$P"; then
	for _ in $(seq 15); do not_ok "calls (not built)"; done
	tap_done
fi
count_only() {
	rt_run "$1" || return 1
	rt_facts "$1.out" >"$1.facts"
	grep -v '^arc' "$SAMPLES/calls.expect" >"$T/calls-count.expect"
	rt_compare "$T/calls-count.expect" "$1.facts"
}
RT_ENV=SPYRT_MODE=time check "calls, SPYRT_MODE=time: counts and arcs exact" rt_check_expect calls "$P"
cp "$P.out" "$T/calls-time.out"
RT_ENV=SPYRT_MODE=arcs check "calls, SPYRT_MODE=arcs: counts and arcs exact" rt_check_expect calls "$P"
cp "$P.out" "$T/calls-arcs.out"
RT_ENV=SPYRT_MODE=count check "calls, SPYRT_MODE=count: counts exact" count_only "$P"
cp "$P.out" "$T/calls-count.out"

mode_shape() {
	local f=$T/calls-$1.out arcs times
	[ "$(rt_get "$f" header mode)" = "$1" ] || { echo "header mode $(rt_get "$f" header mode), want $1"; return 1; }
	arcs=$(rt_dump "$f" | grep -c '^arc ')
	times=$(rt_dump "$f" | grep -c '^time ')
	case $1 in
	time) [ "$arcs" -gt 0 ] && [ "$times" -gt 0 ] && [ "$(rt_get "$f" times tsc_hz)" -gt 0 ] ;;
	arcs) [ "$arcs" -gt 0 ] && [ "$times" -eq 0 ] ;;
	count) [ "$arcs" -eq 0 ] && [ "$times" -eq 0 ] ;;
	esac || { echo "mode $1: $arcs arc lines, $times time lines"; return 1; }
}
for m in time arcs count; do
	check "SPYRT_MODE=$m records what the mode says" mode_shape $m
done

magic() {
	[ "$(head -c 8 "$T/calls-time.out" | od -An -c | tr -d ' \n')" = 'gmonSPY001' ] ||
		{ od -An -c "$T/calls-time.out" | head -n 1; return 1; }
}
check "the file begins with gmon and the version SPY\\1" magic

gprof_refuses() {
	local out rc
	command -v gprof >/dev/null || { echo "no gprof"; return 0; }
	out=$(gprof "$P" "$T/calls-time.out" 2>&1)
	rc=$?
	[ $rc -ne 0 ] && grep -q 'unsupported version' <<<"$out" || { echo "gprof: status $rc: $out"; return 1; }
}
check "GNU gprof stops with 'unsupported version'" gprof_refuses

plugin_count() {
	local p=$T/calls-pcount
	rt_sample calls "$p" -fplugin-arg-spyinstr-mode=count || return 1
	count_only "$p" || return 1
	[ "$(rt_dump "$p.out" | grep -c '^arc ')" -eq 0 ] && rt_dump "$p.out" | grep -q '^func c count=60 .*mode=count'
}
check "plugin mode=count, SPYRT_MODE=time: counts exact, no arcs" plugin_count

static_link() {
	rt_cc_static "$T/calls-static" "$CC" "$SAMPLES/calls.c" && rt_check_expect calls "$T/calls-static"
}
check "static libspyrt.a: counts and arcs exact" static_link

R=$T/recursion
check "recursion builds" rt_sample recursion "$R"
check "recursion: counts and arcs exact" rt_check_expect recursion "$R"

# fib's inclusive time is its outermost call's: close to main's, not 10^4 times it
recursion_once() {
	local d main fib fibarc
	d=$(rt_dump "$R.out")
	main=$(awk '$1 == "time" && $3 == "func=main" { sub("incl=", "", $5); print $5 }' <<<"$d")
	fib=$(awk '$1 == "time" && $3 == "func=fib" { sub("incl=", "", $5); print $5 }' <<<"$d")
	fibarc=$(awk '$1 == "arc" && $3 == "caller=main" && $4 == "callee=fib" { sub("incl=", "", $6); print $6 }' <<<"$d")
	echo "main incl $main, fib incl $fib, arc main->fib incl $fibarc"
	[ -n "$main" ] && [ -n "$fib" ] && [ "$fib" -le "$main" ] && [ $((fib * 2)) -gt "$main" ] &&
		[ "$fib" = "$fibarc" ] &&
		awk '$1 == "arc" && $3 == "caller=fib" && $4 == "callee=fib" && $6 != "incl=0" { exit 1 }' <<<"$d"
}
check "recursion: fib's inclusive time counted once (<= main's, its outermost arc's)" recursion_once

overhead() {
	local o
	o=$(rt_dump "$R.out" | grep '^overhead')
	echo "$o"
	awk '{ for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] + 0 } }
	     END { exit !(v["hook_out"] > 0 && v["tsc_read"] > 0) }' <<<"$o"
}
check "the hooks' calibrated cost is in the header" overhead

cut_refused() {
	local n out rc
	n=$(stat -c %s "$R.out")
	head -c $((n - 5)) "$R.out" >"$T/cut.out"
	out=$("$T/gmon-dump" "$T/cut.out" 2>&1 >/dev/null)
	rc=$?
	echo "$out"
	[ $rc -eq 2 ] && [ "$(wc -l <<<"$out")" -eq 1 ] && grep -q "cut.out: .*truncated" <<<"$out"
}
check "a cut file: one line naming it and 'truncated', status 2" cut_refused

tap_done
