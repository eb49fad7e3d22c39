#!/bin/bash
# bench/realprog.sh: real programs, side by side (issue 11). Fetches Debian's zstd, gawk and lzip (C++)
# sources (apt-get source through a private apt configuration, as bench/compile.sh does: the system's
# sources are untouched), builds each as plain -O2, -O2 -pg and with make CC="gcc -specs=spy.specs" in
# the plugin's modes count, arcs and time (one build each, its CPU time from /usr/bin/time), then runs
# a real workload on each ROUNDS times, interleaved:
#   zstd  zstd -T2 -12 on 64 MB (a tarball of the three unpacked sources, 30 MB, repeated)
#   gawk  word frequencies (tolower, an associative array, sort) over 20 MB of words from that tarball
#   lzip  lzip -3 on ~12 MB of that tarball (lzip is C++)
# plus `perf record -e cpu-clock` (software clock, 4 kHz) on the plain build (with --no-bpf-event: without it,
# as root, perf 6.1 holds its exit about a second, even after `true`), and `uftrace record` on the
# -pg build. uftrace is 10-100 times slower, so it runs a tenth of the input, next to the plain build on
# the same tenth, and its slowdown is that ratio. Prints the median wall time of each, its slowdown
# against plain, and the compile time against plain. Each spy run must have written a profile with
# counts (checked with spinprof), else exit 1.
#
# usage: bench/realprog.sh [ROUNDS]   (default 3)
# env:   SPY_BUILD (default build/: spy.specs, spinprof), CC (gcc), CXX (g++), BENCH_KEEP=1 keeps the
#        work directory. Exit status 2 when something needed is missing.
set -eu

# shellcheck source=bench/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
rounds=${1:-3}
CXX=${CXX:-g++}
specs=$build/spy.specs
bench_need "$specs" "$build/spinprof" "$rtlib/libspyrt.so"
for t in uftrace perf /usr/bin/time apt-get dpkg-source; do
	command -v "$t" >/dev/null || { echo "bench: $t is missing (make deps installs it)" >&2; exit 2; }
done
bench_workdir spy-realprog

# --- sources ---------------------------------------------------------------------------------------
apt=(-o Dir::Etc::SourceList="$w/apt/sources.list" -o Dir::Etc::SourceParts=/nonexistent
	-o Dir::State::Lists="$w/apt/lists" -o Dir::Cache="$w/apt/cache")
mkdir -p "$w/apt/lists/partial" "$w/apt/cache/archives/partial" "$w/src"
codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-bookworm}")
echo "deb-src http://deb.debian.org/debian $codename main" >"$w/apt/sources.list"
if ! apt-get "${apt[@]}" update >"$w/apt.log" 2>&1 ||
	! (cd "$w/src" && apt-get "${apt[@]}" source zstd gawk lzip) >>"$w/apt.log" 2>&1; then
	echo "bench: apt-get source zstd gawk lzip failed:" >&2
	tail -5 "$w/apt.log" >&2
	exit 2
fi
declare -A srcdir
for p in zstd gawk lzip; do
	srcdir[$p]=$(find "$w/src" -mindepth 1 -maxdepth 1 -type d -name "*$p-*" | head -n 1)
	[ -n "${srcdir[$p]}" ] || { echo "bench: apt-get source $p unpacked nothing" >&2; exit 2; }
done
echo "sources: $(cd "$w/src" && ls -d -- */ | tr -d / | tr '\n' ' ')"

# --- builds ----------------------------------------------------------------------------------------
# variant name -> what CC (and CXX) gets after the compiler: in CC, so that it reaches every compile
# and every link, configure's probes included
vars=(plain pg count arcs time)
declare -A extra=(
	[plain]=""
	[pg]="-pg"
	[count]="-specs=$specs -fplugin-arg-spyinstr-mode=count"
	[arcs]="-specs=$specs -fplugin-arg-spyinstr-mode=arcs"
	[time]="-specs=$specs -fplugin-arg-spyinstr-mode=time"
)
declare -A label=([plain]="plain -O2" [pg]="-pg" [count]="spy count" [arcs]="spy arcs" [time]="spy time")
# pmake ARG...: make without the variables of a make that runs this script
pmake() {
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make "$@"
}
# build PROG VARIANT DIR: configure (where there is one) and make, in DIR, a copy of the source
build() {
	local p=$1 v=$2 d=$3 cc="$CC ${extra[$2]}" cxx="$CXX ${extra[$2]}"
	cp -a "${srcdir[$p]}" "$d"
	case $p in
	zstd) pmake -C "$d/programs" -j2 zstd CC="$cc" CFLAGS=-O2 ;;
	gawk) (cd "$d" && ./configure CC="$cc" CFLAGS=-O2 && pmake -C support -j2 && pmake -j2 gawk) ;;
	lzip) (cd "$d" && ./configure CXX="$cxx" CXXFLAGS=-O2 && pmake -j2) ;;
	esac
}
declare -A bin=([zstd]=programs/zstd [gawk]=gawk [lzip]=lzip)
declare -A ctime
for p in zstd gawk lzip; do
	for v in "${vars[@]}"; do
		d=$w/b/$p-$v
		mkdir -p "$w/b"
		if ! /usr/bin/time -f '%U %S' -o "$w/b/$p-$v.time" bash -c "$(declare -f pmake build); \
			$(declare -p srcdir extra); CC='$CC' CXX='$CXX'; build $p $v '$d'" >"$w/b/$p-$v.log" 2>&1 ||
			[ ! -x "$d/${bin[$p]}" ]; then
			echo "bench: building $p ($v) failed:" >&2
			tail -n 15 "$w/b/$p-$v.log" >&2
			exit 2
		fi
		ctime[$p-$v]=$(awk '{ print $1 + $2 }' "$w/b/$p-$v.time")
		echo "built $p ($v): ${ctime[$p-$v]} s CPU"
	done
done

# --- inputs ----------------------------------------------------------------------------------------
tar -C "$w/src" -cf "$w/src.tar" "${srcdir[zstd]##*/}" "${srcdir[gawk]##*/}" "${srcdir[lzip]##*/}"
for ((i = 0; i < 64; i++)); do cat "$w/src.tar"; done | head -c 64000000 >"$w/zstd.in"
head -c 6400000 "$w/zstd.in" >"$w/zstd.small"
# words: letters only, one space between, in lines of the tarball's lines
tr -c 'A-Za-z\n' ' ' <"$w/zstd.in" | tr -s ' ' | head -c 20000000 >"$w/gawk.in"
head -c 2000000 "$w/gawk.in" >"$w/gawk.small"
head -c 12000000 "$w/zstd.in" >"$w/lzip.in"
head -c 1200000 "$w/lzip.in" >"$w/lzip.small"
cat >"$w/words.awk" <<'EOF'
{ for (i = 1; i <= NF; i++) n[tolower($i)]++ }
END { for (k in n) if (n[k] > 50) print n[k], k | "sort -rn"; close("sort -rn"); print NR, length(n) }
EOF

# cmd PROG BIN INPUT: the workload's command line
cmd() {
	case $1 in
	zstd) echo "$2 -q -T2 -12 -c $3" ;;
	gawk) echo "$2 -f $w/words.awk $3" ;;
	lzip) echo "$2 -q -3 -c $3" ;;
	esac
}
# run TAG PREFIX CMD...: run in $w/run (where -pg's gmon.out goes), output to /dev/null, wall time
# appended to $w/t/TAG
mkdir -p "$w/run" "$w/t" "$w/prof"
run() {
	local tag=$1 t0 t1
	shift
	t0=$(date +%s.%N)
	(cd "$w/run" && "$@" >/dev/null) || { echo "bench: $tag failed: $*" >&2; exit 1; }
	t1=$(date +%s.%N)
	echo "$t0 $t1" | awk '{ print $2 - $1 }' >>"$w/t/$tag"
}
median() {
	sort -g "$w/t/$1" | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'
}

echo "load before the runs: $(cut -d' ' -f1-3 /proc/loadavg)"
for ((r = 0; r < rounds; r++)); do
	for p in zstd gawk lzip; do
		for v in "${vars[@]}"; do
			# shellcheck disable=SC2046
			run "$p-$v" env SPYRT_OUT="$w/prof/$p-$v.out" $(cmd $p "$w/b/$p-$v/${bin[$p]}" "$w/$p.in")
		done
		# shellcheck disable=SC2046
		run "$p-perf" perf record -q --no-bpf-event -e cpu-clock -F 4000 -o "$w/prof/$p.perf" -- \
			$(cmd $p "$w/b/$p-plain/${bin[$p]}" "$w/$p.in")
		# shellcheck disable=SC2046
		run "$p-plain-small" $(cmd $p "$w/b/$p-plain/${bin[$p]}" "$w/$p.small")
		# shellcheck disable=SC2046
		run "$p-uftrace-small" uftrace record --no-pager -d "$w/prof/$p.uftrace" \
			$(cmd $p "$w/b/$p-pg/${bin[$p]}" "$w/$p.small")
	done
done
echo "load after the runs:  $(cut -d' ' -f1-3 /proc/loadavg)"

# --- sanity: each spy variant wrote a profile with counts ------------------------------------------
bad=0
for p in zstd gawk lzip; do
	for v in count arcs time; do
		f=$w/prof/$p-$v.out
		n=0
		[ -s "$f" ] && n=$("$build/spinprof" -b -p "$f" 2>/dev/null | awk '$0 ~ /^ *[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9]+ / { n++ } END { print n + 0 }')
		if [ "$n" -lt 10 ]; then
			echo "bench: $p ($v): the profile $f has $n functions with counts" >&2
			bad=1
		fi
		echo "$p $v: $n functions with counts in the profile" >>"$w/sanity.txt"
	done
done
sed 's/^/sanity: /' "$w/sanity.txt"

# --- table -----------------------------------------------------------------------------------------
echo
echo "median wall time of $rounds rounds; slowdown = variant / plain -O2; compile = CPU time of the build"
echo "(uftrace: on a tenth of the input, against plain on the same tenth)"
echo
printf '| %-26s |' "variant"
for p in zstd gawk lzip; do printf ' %-22s |' "$p run (x plain)"; done
for p in zstd gawk lzip; do printf ' %-18s |' "$p build (x)"; done
echo
printf '| --- |'
for _ in 1 2 3 4 5 6; do printf ' --- |'; done
echo
row() {
	local name=$1 tag=$2 base=$3 p m b
	printf '| %-26s |' "$name"
	for p in zstd gawk lzip; do
		m=$(median "$p-$tag")
		b=$(median "$p-$base")
		printf ' %-22s |' "$(awk -v m="$m" -v b="$b" 'BEGIN { printf "%.2f s (%.2f)", m, m / b }')"
	done
	for p in zstd gawk lzip; do
		if [ -n "${ctime[$p-$tag]:-}" ]; then
			printf ' %-18s |' "$(awk -v m="${ctime[$p-$tag]}" -v b="${ctime[$p-plain]}" 'BEGIN { printf "%.1f s (%.2f)", m, m / b }')"
		else
			printf ' %-18s |' ""
		fi
	done
	echo
}
for v in "${vars[@]}"; do row "${label[$v]}" "$v" plain; done
row "perf record -e cpu-clock" perf plain
row "plain -O2, a tenth" plain-small plain-small
row "uftrace record (-pg), tenth" uftrace-small plain-small
exit $bad
