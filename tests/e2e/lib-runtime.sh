# lib-runtime.sh: the helpers of the t1*-runtime-*.sh scripts, which source it:
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
