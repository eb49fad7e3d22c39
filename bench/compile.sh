#!/bin/bash
# bench/compile.sh: what the plugin costs the compiler, on a real C codebase nobody here wrote.
# Fetches Debian's expat source (apt-get source, through a private apt configuration: the system's
# sources are not touched), configures it out of tree once per variant (plain -O2, spy count, spy
# time, spy arcs, -pg, -finstrument-functions), then times "make clean; make -j2 && make -j2 check TESTS="
# (the library, xmlwf and the test programs, not running them) for every variant ROUNDS times,
# interleaved, and prints the median CPU time (user + sys of make and everything it runs), the
# overhead against plain -O2 and the .text size of libexpat.so. Then it runs expat's own test suite
# on the three spy builds. Goal (issue 2): plugin compile overhead <= 10 % against plain -O2.
#
# usage: bench/compile.sh [ROUNDS] [EXPAT_SRC]   (default 3; EXPAT_SRC: an unpacked expat source)
# env:   SPY_BUILD (default build/), SPY_PLUGIN ($SPY_BUILD/spyinstr.so), SPY_RTLIB
#        ($SPY_BUILD), CC (gcc), BENCH_KEEP=1 keeps the work directory. Exit status 1 when the
#        goal is missed, 2 when something needed is missing.
set -eu

# shellcheck source=bench/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
rounds=${1:-3}
expat=${2:-}

bench_need "$plugin" "$rtlib/libspyrt.so"
bench_workdir spy-compile

if [ -z "$expat" ]; then
	apt="-o Dir::Etc::SourceList=$w/apt/sources.list -o Dir::Etc::SourceParts=/nonexistent"
	apt="$apt -o Dir::State::Lists=$w/apt/lists -o Dir::Cache=$w/apt/cache"
	mkdir -p "$w/apt/lists/partial" "$w/apt/cache/archives/partial" "$w/src"
	codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-bookworm}")
	echo "deb-src http://deb.debian.org/debian $codename main" >"$w/apt/sources.list"
	# shellcheck disable=SC2086
	if ! apt-get $apt update >"$w/apt.log" 2>&1 || ! (cd "$w/src" && apt-get $apt source expat) >>"$w/apt.log" 2>&1; then
		echo "bench: apt-get source expat failed (see below); pass an unpacked expat source instead" >&2
		tail -5 "$w/apt.log" >&2
		exit 2
	fi
	expat=$(echo "$w"/src/expat-*/)
fi
[ -f "$expat/expat/configure.ac" ] && expat=${expat%/}/expat
# Debian's source has no generated configure script
if [ ! -x "$expat/configure" ] && [ -f "$expat/configure.ac" ]; then
	(cd "$expat" && autoreconf -fi) >"$w/autoreconf.log" 2>&1 || {
		echo "bench: autoreconf failed in $expat (make deps installs autoconf, automake, libtool):" >&2
		tail -5 "$w/autoreconf.log" >&2
		exit 2
	}
fi
if [ ! -x "$expat/configure" ]; then
	echo "bench: $expat has no configure script" >&2
	exit 2
fi
echo "expat source: $expat ($(sed -n 's/^PACKAGE_VERSION=.\([^'"'"']*\).*/\1/p' "$expat/configure"))"

$CC -O2 -c "$here/cyg-hooks.c" -o "$w/cyg-hooks.o"
rt="-L$rtlib -Wl,-rpath,$rtlib -lspyrt"
P="-fplugin=$plugin"
# name | CFLAGS | LIBS
variants=(
	"plain -O2|-O2|"
	"spy count|-O2 $P -fplugin-arg-spyinstr-mode=count|$rt"
	"spy time (default)|-O2 $P|$rt"
	"spy arcs|-O2 $P -fplugin-arg-spyinstr-mode=arcs|$rt"
	"gprof -pg|-O2 -pg|"
	"-finstrument-functions|-O2 -finstrument-functions|$w/cyg-hooks.o"
)
i=0
for v in "${variants[@]}"; do
	IFS='|' read -r name cflags libs <<<"$v"
	mkdir -p "$w/b$i"
	if ! (cd "$w/b$i" && "$expat/configure" CC="$CC" CFLAGS="$cflags" CXXFLAGS="$cflags" LIBS="$libs" \
		--without-docbook --without-examples >"$w/b$i/configure.log" 2>&1); then
		echo "bench: configure failed for $name:" >&2
		tail -5 "$w/b$i/config.log" >&2
		exit 2
	fi
	i=$((i + 1))
done

declare -A cpu
for ((r = 0; r < rounds; r++)); do
	i=0
	for v in "${variants[@]}"; do
		IFS='|' read -r name _ _ <<<"$v"
		make -C "$w/b$i" clean >/dev/null 2>&1
		if ! /usr/bin/time -o "$w/time" -f '%U %S' sh -c "make -C '$w/b$i' -j2 && make -C '$w/b$i' -j2 check TESTS=" >"$w/b$i/make.log" 2>&1; then
			echo "bench: the build failed for $name:" >&2
			tail -5 "$w/b$i/make.log" >&2
			exit 2
		fi
		cpu[$name]="${cpu[$name]:-} $(awk '{ printf "%.2f", $1 + $2 }' "$w/time")"
		i=$((i + 1))
	done
	echo "round $((r + 1)) of $rounds done (load $(cut -d' ' -f1-3 /proc/loadavg))"
done

median() { tr ' ' '\n' | sed '/^$/d' | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
text() { size -A "$1" 2>/dev/null | awk '$1 == ".text" { print $2 }'; }
base=$(median <<<"${cpu["plain -O2"]}")
base_text=$(text "$w/b0/lib/.libs/libexpat.so")
echo
printf '%-26s %12s %9s %12s %9s   %s\n' variant "CPU s" overhead ".text bytes" growth "runs"
i=0
declare -A over
for v in "${variants[@]}"; do
	IFS='|' read -r name _ _ <<<"$v"
	m=$(median <<<"${cpu[$name]}")
	t=$(text "$w/b$i/lib/.libs/libexpat.so")
	over[$name]=$(awk -v m="$m" -v b="$base" 'BEGIN { printf "%.1f", 100 * (m / b - 1) }')
	awk -v n="$name" -v m="$m" -v o="${over[$name]}" -v t="$t" -v bt="$base_text" -v runs="${cpu[$name]}" \
		'BEGIN { printf "%-26s %12.2f %+8.1f%% %12d %+8.1f%%  %s\n", n, m, o, t, 100 * (t / bt - 1), runs }'
	i=$((i + 1))
done

# the instrumented builds must still pass expat's own tests
echo
for i in 1 2 3; do
	IFS='|' read -r name _ _ <<<"${variants[$i]}"
	mkdir -p "$w/gmon$i"
	if SPYRT_OUT="$w/gmon$i/gmon.%p" make -C "$w/b$i" -j2 check >"$w/b$i/check.log" 2>&1; then
		echo "$name: expat's test suite passes ($(sed -n 's/^# PASS: *//p' "$w/b$i/tests/test-suite.log" 2>/dev/null | head -1) programs); $(find "$w/gmon$i" -type f | wc -l) profiles written"
	else
		echo "$name: expat's test suite FAILED (see $w/b$i/check.log)"
		status=1
	fi
done

echo
status=${status:-0}
for name in "spy count" "spy time (default)" "spy arcs"; do
	if awk -v o="${over[$name]}" 'BEGIN { exit !(o <= 10) }'; then
		echo "goal met:    $name compile overhead ${over[$name]}% <= 10%"
	else
		echo "goal missed: $name compile overhead ${over[$name]}% <= 10%"
		status=1
	fi
done
exit "$status"
