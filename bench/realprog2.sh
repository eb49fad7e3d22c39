#!/bin/bash
# bench/realprog2.sh: is the first screen right on real -O2 code? (issue 23). Fetches Debian's sqlite3,
# ninja-build, memcached and grep sources (apt-get source through a private apt configuration, as
# bench/realprog.sh does), builds the sqlite3 shell, ninja and memcached plain (-O2 -g) and with
# `gcc -specs=spy.specs` in modes count, arcs and time, and GNU grep plain and in mode time; runs each
# one's workload and prints, per program:
#   1. spy's call arcs against callgrind's (valgrind --tool=callgrind on the plain build, the same
#      smaller workload on both sides), restricted to the functions spy instrumented: arcs equal,
#      different, missing on either side, each difference in a class that says why (goal >= 99.5 %
#      equal in modes arcs and time); spy's call counts per function against callgrind's in every mode;
#   2. time mode's top ten by self time (spinprof -b -p) against perf's (perf record -e cpu-clock
#      -F 4000 on the plain build; a sample in the kernel counted for the user-space function below
#      it, as spy counts a system call's time): the two sets (goal: the same within one) and each of
#      perf's ten's shares side by side (goal: within a quarter of perf's);
#   3. the sum of time mode's self seconds against the plain build's CPU time (goal: within 25 %);
# and grep's regex case: grep -E with a back-reference on 30 MB, mode time: the first ten lines of the
# default report's flat profile, and whether a glibc regex function is among them.
# Each goal line says "met" or "missed". bench/realprog2.py does the comparing.
#
# Workloads (seconds each on the plain build):
#   sqlite3    a generated SQL script into an in-memory database: 200 k INSERTs in one transaction,
#              two indexes, a table of 50 k built by INSERT ... SELECT, joins, GROUP BY, ORDER BY
#   ninja      ninja -n on a generated manifest of 40 k edges (36 k compiles of 5 headers each)
#   memcached  -t 4 (four workers) on 127.0.0.1, bench/mcload.c's 4 connections doing 100 k sets then
#              100 k gets, one request in flight each; stopped by SIGTERM, so it writes its profile
#   grep       grep -E -c '([a-z]{3,}) \1' on 30 MB of C source (the fetched sources, repeated)
# callgrind runs a tenth of sqlite3's and memcached's workload (and all of ninja's), and spy's runs for
# the comparison of arcs are on that same smaller workload; mode arcs runs it twice, and an arc whose
# count differs between those two runs is "varies run to run", not a defect.
#
# usage: bench/realprog2.sh [PROGRAM...]   (default: sqlite3 ninja memcached grep)
# env:   SPY_BUILD   the spy build to measure (default build/): spy.specs, spinprof, libspyrt
#        BENCH_CACHE where sources, builds, inputs and callgrind's runs are kept for the next run
#                    (default build/realprog2/ of this tree; git-ignored). The plain builds and
#                    callgrind's runs are reused; spy's builds are redone when the plugin, the runtime
#                    or spy.specs changed (a different SPY_BUILD included), and those of the spy used
#                    before stay too (two in all). BENCH_FRESH=1 empties it.
#        BENCH_KEEP=1 keeps this run's work directory (profiles, perf data, reports)
#        CC (gcc), CXX (g++)
# Exit status: 0 when it ran (goals missed or not), 1 when a run failed, 2 when something needed is
# missing. Not part of `make check` (t304 checks its comparer on a small program): the first run builds
# 14 programs (about 1,050 s of CPU: 55 minutes on 2 cores shared with other work), a run that finds
# them in the cache takes 5 to 10 minutes, most of it spy's mode time and callgrind.
set -eu

# shellcheck source=bench/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
CXX=${CXX:-g++}
specs=$build/spy.specs
sp=$build/spinprof
bench_need "$specs" "$sp" "$plugin" "$rtlib/libspyrt.so" "$rtlib/libspyrt.a" "$here/realprog2.py" "$here/mcload.c"
for t in valgrind perf /usr/bin/time apt-get dpkg-source tclsh python3 sha1sum; do
	command -v "$t" >/dev/null || { echo "bench: $t is missing (make deps installs it)" >&2; exit 2; }
done
[ -f /usr/include/event2/event.h ] || { echo "bench: libevent-dev is missing (memcached needs it; make deps installs it)" >&2; exit 2; }
[[ $(dpkg -s libc6-dbg 2>/dev/null) == *"Status: install ok installed"* ]] ||
	{ echo "bench: libc6-dbg is missing (spinprof names glibc's functions with it; make deps installs it)" >&2; exit 2; }

progs=("$@")
[ ${#progs[@]} -gt 0 ] || progs=(sqlite3 ninja memcached grep)
for p in "${progs[@]}"; do
	case $p in sqlite3 | ninja | memcached | grep) ;; *) echo "bench: unknown program $p (sqlite3 ninja memcached grep)" >&2; exit 2 ;; esac
done

t_start=$(date +%s)
cache=${BENCH_CACHE:-$src/build/realprog2}
[ "${BENCH_FRESH:-}" != 1 ] || rm -rf "$cache"
mkdir -p "$cache"
cache=$(cd "$cache" && pwd)
bench_workdir spy-realprog2
# what the build was made from: its tree's commit, and how many of spy's sources differ from it
if rev=$(git -C "$build" rev-parse --short HEAD 2>/dev/null); then
	rev="$(git -C "$build" rev-parse --abbrev-ref HEAD 2>/dev/null) at $rev, $(git -C "$build" status --porcelain -- \
		"$(git -C "$build" rev-parse --show-toplevel)"/{plugin,runtime,spinprof,common} 2>/dev/null | wc -l) files of plugin/ runtime/ spinprof/ common/ changed"
else
	rev="not in a git tree"
fi
echo "spy build: $build ($rev); cache: $cache"

# --- sources (once) ----------------------------------------------------------------------------------
declare -A pkg=([sqlite3]=sqlite3 [ninja]=ninja-build [memcached]=memcached [grep]=grep)
declare -A srcdir
if [ ! -f "$cache/src/.ok" ]; then
	rm -rf "$cache/src" "$cache/apt"
	apt=(-o Dir::Etc::SourceList="$cache/apt/sources.list" -o Dir::Etc::SourceParts=/nonexistent
		-o Dir::State::Lists="$cache/apt/lists" -o Dir::Cache="$cache/apt/cache")
	mkdir -p "$cache/apt/lists/partial" "$cache/apt/cache/archives/partial" "$cache/src"
	codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-bookworm}")
	echo "deb-src http://deb.debian.org/debian $codename main" >"$cache/apt/sources.list"
	if ! apt-get "${apt[@]}" update >"$cache/apt.log" 2>&1 ||
		! (cd "$cache/src" && apt-get "${apt[@]}" source sqlite3 ninja-build memcached grep) >>"$cache/apt.log" 2>&1; then
		echo "bench: apt-get source sqlite3 ninja-build memcached grep failed: $(tail -n 1 "$cache/apt.log")" >&2
		exit 2
	fi
	touch "$cache/src/.ok"
fi
for p in sqlite3 ninja memcached grep; do
	srcdir[$p]=$(find "$cache/src" -mindepth 1 -maxdepth 1 -type d -name "${pkg[$p]}-[0-9]*" | head -n 1)
	[ -n "${srcdir[$p]}" ] || { echo "bench: apt-get source ${pkg[$p]} unpacked nothing in $cache/src" >&2; exit 2; }
done
echo "sources: $(cd "$cache/src" && ls -d -- */ | tr -d / | tr '\n' ' ')"

# --- builds (plain once; spy's again when spy changed) ---------------------------------------------
# spy's builds are keyed on the plugin, the runtime and spy.specs (which names the build directory)
key=$(cat "$plugin" "$rtlib/libspyrt.so" "$rtlib/libspyrt.a" "$specs" | sha1sum | cut -c1-10)
declare -A extra=(
	[plain]=""
	[count]="-specs=$specs -fplugin-arg-spyinstr-mode=count"
	[arcs]="-specs=$specs -fplugin-arg-spyinstr-mode=arcs"
	[time]="-specs=$specs -fplugin-arg-spyinstr-mode=time"
)
declare -A bin=([sqlite3]=sqlite3 [ninja]=ninja [memcached]=memcached [grep]=src/grep)
declare -A variants=([sqlite3]="plain count arcs time" [ninja]="plain count arcs time"
	[memcached]="plain count arcs time" [grep]="plain time")
# Debian's own defines for its sqlite3 (debian/rules), less the extension loading
sqlite_cflags="-O2 -g -fno-strict-aliasing -DSQLITE_SECURE_DELETE -DSQLITE_ENABLE_COLUMN_METADATA \
-DSQLITE_ENABLE_FTS3 -DSQLITE_ENABLE_FTS3_PARENTHESIS -DSQLITE_ENABLE_RTREE=1 -DSQLITE_SOUNDEX=1 \
-DSQLITE_ENABLE_UNLOCK_NOTIFY -DSQLITE_OMIT_LOOKASIDE=1 -DSQLITE_ENABLE_DBSTAT_VTAB \
-DSQLITE_ENABLE_UPDATE_DELETE_LIMIT=1 -DSQLITE_ENABLE_JSON1 -DSQLITE_LIKE_DOESNT_MATCH_BLOBS \
-DSQLITE_THREADSAFE=1 -DSQLITE_USE_URI=1 -DSQLITE_MAX_SCHEMA_RETRY=25 -DSQLITE_ENABLE_STMTVTAB"
# pmake ARG...: make without the variables of a make that runs this script
pmake() {
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL nice make "$@"
}
# build PROG VARIANT DIR: configure and make in DIR (an empty directory), out of the source tree where
# the package allows it
build() {
	local p=$1 v=$2 d=$3 cc="$CC ${extra[$2]}" cxx="$CXX ${extra[$2]}"
	local noregen=(ACLOCAL=: AUTOCONF=: AUTOHEADER=: AUTOMAKE=: MAKEINFO=:)
	cd "$d"
	case $p in
	sqlite3)
		"${srcdir[$p]}/configure" CC="$cc" CFLAGS="$sqlite_cflags" --disable-shared --disable-tcl --disable-readline \
			--enable-threadsafe --enable-fts4 --enable-fts5 --enable-json --disable-load-extension
		pmake -j2 sqlite3
		;;
	ninja)
		cp -a "${srcdir[$p]}/." .
		if command -v ninja >/dev/null; then
			CXX="$cxx" nice python3 configure.py && nice ninja -j2 ninja
		else
			CXX="$cxx" nice python3 configure.py --bootstrap
		fi
		;;
	memcached)
		"${srcdir[$p]}/configure" CC="$cc" CFLAGS="-O2 -g"
		pmake -j2 memcached
		;;
	grep)
		"${srcdir[$p]}/configure" CC="$cc" CFLAGS="-O2 -g" --without-included-regex --disable-nls
		# Debian's patches touch src/Makefile.am: make must not run automake (nor makeinfo) again
		pmake -j2 -C lib "${noregen[@]}" && pmake -j2 -C src "${noregen[@]}" grep
		;;
	esac
}
# bdir PROG VARIANT: where that build lives
bdir() {
	if [ "$2" = plain ]; then echo "$cache/b/$1-plain"; else echo "$cache/b/$1-$2-$key"; fi
}
mkdir -p "$cache/b"
for p in "${progs[@]}"; do
	for v in ${variants[$p]}; do
		d=$(bdir "$p" "$v")
		[ ! -f "$d/.ok" ] || { touch "$d/.ok"; continue; }
		# of spy's builds of other spies, the one used last stays (a build tree and another, in turn)
		if [ "$v" != plain ]; then
			# shellcheck disable=SC2012
			ls -dt "$cache/b/$p-$v-"*/.ok 2>/dev/null | tail -n +2 | while read -r old; do
				old=${old%/.ok}
				rm -rf "$old" "$old.log" "$old.time"
			done
		fi
		rm -rf "$d"
		mkdir -p "$d"
		if ! /usr/bin/time -f '%U %S' -o "$d.time" bash -c "$(declare -f pmake build); \
			$(declare -p srcdir extra); CC='$CC' CXX='$CXX' sqlite_cflags='$sqlite_cflags'; build $p $v '$d'" >"$d.log" 2>&1 ||
			[ ! -x "$d/${bin[$p]}" ]; then
			echo "bench: building $p ($v) failed (log: $d.log):" >&2
			tail -n 15 "$d.log" >&2
			exit 2
		fi
		touch "$d/.ok"
		echo "built $p ($v): $(awk '{ print $1 + $2 }' "$d.time") s CPU"
	done
done

# --- inputs (once) -----------------------------------------------------------------------------------
in=$cache/in
mkdir -p "$in"
# sqlite3: N inserts of pseudo-random rows (an LCG exact in awk's doubles), then indexes and queries
sqlgen() {
	awk -v n="$1" 'BEGIN {
		x = 12345
		print "CREATE TABLE t(id INTEGER PRIMARY KEY, a INTEGER, b TEXT, c REAL);"
		print "BEGIN;"
		for (i = 0; i < n; i++) {
			x = (x * 69069 + 1) % 4294967296; a = x % 100000
			x = (x * 69069 + 1) % 4294967296; b = x % 1000000
			x = (x * 69069 + 1) % 4294967296; c = x % 10000
			printf "INSERT INTO t(a, b, c) VALUES(%d, %c%s%d-%d%c, %d.%02d);\n", a, 39, "w", b, i % 97, 39, c, i % 100
		}
		print "COMMIT;"
		print "CREATE INDEX t_a ON t(a);"
		print "CREATE INDEX t_b ON t(b);"
		print "CREATE TABLE u(id INTEGER PRIMARY KEY, a INTEGER, name TEXT);"
		print "INSERT INTO u(a, name) SELECT a, upper(b) FROM t WHERE id % 4 = 0;"
		print "CREATE INDEX u_a ON u(a);"
		print "SELECT count(*), sum(t.c) FROM t JOIN u ON u.a = t.a;"
		print "SELECT t.a % 100 AS g, count(*), avg(length(u.name)) FROM t JOIN u ON u.a = t.a GROUP BY g ORDER BY 2 DESC LIMIT 5;"
		print "SELECT b, c FROM t ORDER BY c DESC, b LIMIT 3;"
		print "SELECT count(*) FROM t WHERE b LIKE \047w1%\047;"
		print "SELECT count(DISTINCT substr(b, 1, 4)) FROM t;"
		print "UPDATE t SET c = c * 2 WHERE a % 7 = 0;"
		print "DELETE FROM t WHERE a % 11 = 0;"
		print "SELECT count(*), sum(c) FROM t;"
	}'
}
[ -s "$in/sqlite3.sql" ] || sqlgen 200000 >"$in/sqlite3.sql"
[ -s "$in/sqlite3-small.sql" ] || sqlgen 20000 >"$in/sqlite3-small.sql"
# ninja: 36,000 compiles (each of a .c file and 5 of 500 headers), 3,600 links of 10 objects each,
# 400 phony groups of 9 programs, all: 40,001 edges; the sources exist, no output does
if [ ! -f "$in/ninja/.ok" ]; then
	rm -rf "$in/ninja"
	mkdir -p "$in/ninja/inc"
	(
		cd "$in/ninja"
		for ((d = 0; d < 100; d++)); do mkdir "src$d"; done
		awk 'BEGIN {
			print "rule cc\n  command = cc -MD -MF $out.d -c $in -o $out\n  description = CC $out"
			print "rule link\n  command = cc $in -o $out\n  description = LINK $out"
			for (i = 0; i < 36000; i++)
				printf "build obj/src%d/f%d.o: cc src%d/f%d.c | inc/h%d.h inc/h%d.h inc/h%d.h inc/h%d.h inc/h%d.h\n",
					i % 100, i, i % 100, i, i % 500, (i * 7) % 500, (i * 13 + 1) % 500, (i * 31 + 2) % 500, (i * 101 + 3) % 500
			for (p = 0; p < 3600; p++) {
				printf "build bin/p%d: link", p
				for (k = 0; k < 10; k++) printf " obj/src%d/f%d.o", (p * 10 + k) % 100, p * 10 + k
				printf "\n"
			}
			for (g = 0; g < 400; g++) {
				printf "build g%d: phony", g
				for (k = 0; k < 9; k++) printf " bin/p%d", g * 9 + k
				printf "\n"
			}
			printf "build all: phony"
			for (g = 0; g < 400; g++) printf " g%d", g
			print "\ndefault all"
		}' >build.ninja
		for ((i = 0; i < 500; i++)); do echo "inc/h$i.h"; done | xargs touch
		for ((i = 0; i < 36000; i++)); do echo "src$((i % 100))/f$i.c"; done | xargs touch
	)
	touch "$in/ninja/.ok"
fi
# memcached's client
if [ ! -x "$in/mcload" ] || [ "$here/mcload.c" -nt "$in/mcload" ]; then
	$CC -O2 -Wall -Wextra -pthread -o "$in/mcload" "$here/mcload.c" ||
		{ echo "bench: building bench/mcload.c failed" >&2; exit 2; }
fi
# grep: 30 MB of the C sources fetched, repeated
if [ ! -s "$in/grep.txt" ]; then
	find "$cache/src" -name '*.c' -size +20k | sort | xargs cat >"$in/grep.one"
	for ((i = 0; i < 100; i++)); do cat "$in/grep.one"; done | head -c 30000000 >"$in/grep.txt"
	rm -f "$in/grep.one"
fi

# --- runs ----------------------------------------------------------------------------------------------
# args PROG SIZE: the workload's arguments after the program (SIZE full or small), one a line
args() {
	case $1 in
	sqlite3) printf '%s\n' :memory: ".read $in/sqlite3$([ "$2" = full ] || echo -small).sql" ;;
	ninja) printf '%s\n' -C "$in/ninja" -n ;;
	grep) printf '%s\n' -E -c '([a-z]{3,}) \1' "$in/grep.txt" ;;
	esac
}
# memcached's workload: the client's request count for SIZE
mcreq() { if [ "$1" = full ]; then echo 100000; else echo 10000; fi; }
mcport() {
	local p
	for ((;;)); do
		p=$((20000 + RANDOM % 20000))
		[[ $(ss -ltn 2>/dev/null) == *":$p "* ]] || { echo "$p"; return; }
	done
}
# measure TAG PROG SIZE BIN [WRAPPER...]: runs PROG's workload (SIZE full or small) with the binary BIN,
# its command line after WRAPPER's (perf record ..., valgrind ...), under /usr/bin/time; appends "user
# sys wall" to $w/t/TAG and keeps the output in $w/out/TAG. The program's environment: the caller's.
mkdir -p "$w/t" "$w/out" "$w/prof" "$w/a"
measure() {
	local tag=$1 p=$2 size=$3 bin a pidf port rc=0 cpid i
	shift 3
	bin=$1
	shift
	if [ "$p" != memcached ]; then
		mapfile -t a < <(args "$p" "$size")
		/usr/bin/time -f '%U %S %e' -a -o "$w/t/$tag" "$@" "$bin" "${a[@]}" >"$w/out/$tag" 2>"$w/out/$tag.err" || rc=$?
		# grep -c exits 1 when it counted nothing: not a failure here
		if [ $rc -ne 0 ] && ! { [ "$p" = grep ] && [ $rc -eq 1 ]; }; then
			echo "bench: $tag failed (status $rc): $* $bin ${a[*]}: $(tail -n 1 "$w/out/$tag.err")" >&2
			exit 1
		fi
		return 0
	fi
	# memcached: the server in the background (its pid written by the shell that execs it, so that
	# SIGTERM reaches memcached itself, or valgrind, which hands it on), the client in front
	pidf=$w/mc.pid
	rm -f "$pidf"
	port=$(mcport)
	local user=() cmd
	[ "$(id -u)" -ne 0 ] || user=(-u root)
	# the shell that writes the pid goes right before memcached, or before valgrind, which runs it in
	# its own process
	# shellcheck disable=SC2016
	local writer=(bash -c 'echo $$ >"$0"; exec "$@"' "$pidf")
	if [ "${1:-}" = valgrind ]; then cmd=("${writer[@]}" "$@" "$bin"); else cmd=("$@" "${writer[@]}" "$bin"); fi
	# memcached sets its limit of open files to -c; under valgrind that must be valgrind's own limit
	# (the hard limit less what it keeps for itself), so every run gets the same limit and -c
	(
		ulimit -n "$mc_nofile"
		exec /usr/bin/time -f '%U %S %e' -a -o "$w/t/$tag" "${cmd[@]}" -t 4 -p "$port" -l 127.0.0.1 -U 0 \
			-m 256 -c "$mc_conns" "${user[@]}"
	) >"$w/out/$tag.server" 2>&1 &
	cpid=$!
	for ((i = 0; i < 600; i++)); do
		[ ! -s "$pidf" ] || break
		sleep 0.1
	done
	if ! "$in/mcload" "$port" 4 "$(mcreq "$size")" >"$w/out/$tag" 2>"$w/out/$tag.err"; then
		kill -TERM "$(cat "$pidf")" 2>/dev/null || true
		wait "$cpid" || true
		echo "bench: $tag: the client failed: $(tail -n 1 "$w/out/$tag.err"); the server said: $(tail -n 2 "$w/out/$tag.server" | tr '\n' ' ')" >&2
		exit 1
	fi
	# let the workers go back to epoll_wait, as a daemon would between clients
	sleep 0.2
	kill -TERM "$(cat "$pidf")"
	wait "$cpid" || { echo "bench: $tag: the server ended with status $?: $(tail -n 2 "$w/out/$tag.server" | tr '\n' ' ')" >&2; exit 1; }
}
# cpu_median TAG, wall_median TAG: the median of TAG's runs, user + sys CPU and wall, in seconds
cpu_median() {
	awk '{ print $1 + $2 }' "$w/t/$1" | sort -g | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'
}
wall_median() {
	awk '{ print $3 }' "$w/t/$1" | sort -g | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'
}
# same_output TAG REF: the spy build printed what the plain one did (memcached: the client's tally)
same_output() {
	cmp -s "$w/out/$1" "$w/out/$2" || { echo "bench: $1 printed other output than $2 ($w/out/)" >&2; exit 1; }
}

cgver=$(valgrind --version)
mc_nofile=1024
if [[ " ${progs[*]} " == *" memcached "* ]]; then
	mc_conns=$( (ulimit -n "$mc_nofile" && valgrind -q bash -c 'ulimit -Hn') 2>/dev/null) || mc_conns=
	case $mc_conns in '' | *[!0-9]*) echo "bench: valgrind's limit of open files under ulimit -n $mc_nofile: '$mc_conns'" >&2; exit 2 ;; esac
fi
echo "load before the runs: $(cut -d' ' -f1-3 /proc/loadavg)"
for p in "${progs[@]}"; do
	[ "$p" != grep ] || continue
	ad=$w/a/$p
	mkdir -p "$ad"
	plain=$(bdir "$p" plain)/${bin[$p]}
	# the plain build's CPU time: the median of three
	for r in 1 2 3; do measure "$p-plain" "$p" full "$plain"; done
	# spy, every mode, the whole workload
	for v in count arcs time; do
		SPYRT_OUT=$w/prof/$p-$v.out measure "$p-$v" "$p" full "$(bdir "$p" "$v")/${bin[$p]}"
		same_output "$p-$v" "$p-plain"
	done
	# perf on the plain build, call chains (by frame pointer: only the first user-space frame is used)
	measure "$p-perf" "$p" full "$plain" perf record -q --no-bpf-event -e cpu-clock -F 4000 -g -o "$w/prof/$p.perf" --
	perf script -i "$w/prof/$p.perf" -F tid,ip,sym,dso --no-demangle 2>/dev/null >"$ad/perf.txt"
	# callgrind on the plain build, the smaller workload; kept in the cache for the next run
	cgkey=$( (cat "$plain"; args "$p" small; mcreq small; echo "$cgver"; cat "$in/sqlite3-small.sql" "$in/ninja/build.ninja" "$in/mcload") | sha1sum | cut -c1-10)
	cgdir=$cache/cg/$p-$cgkey
	if [ ! -f "$cgdir/.ok" ]; then
		rm -rf "$cache/cg/$p"-*
		mkdir -p "$cgdir"
		echo "callgrind: $p (the smaller workload; kept for the next run)"
		measure "$p-callgrind" "$p" small "$plain" valgrind -q --tool=callgrind --separate-threads=yes \
			--callgrind-out-file="$cgdir/callgrind.out" --demangle=no
		cp "$w/t/$p-callgrind" "$cgdir/time"
		touch "$cgdir/.ok"
	fi
	mkdir -p "$ad/cg"
	cp "$cgdir"/callgrind.out* "$ad/cg/"
	# spy on the same smaller workload: modes arcs and time twice each (what varies run to run), count
	for v in count arcs arcs2 time time2; do
		SPYRT_OUT=$w/prof/$p-$v-small.out measure "$p-$v-small" "$p" small "$(bdir "$p" "${v%2}")/${bin[$p]}"
		"$sp" --dump "$w/prof/$p-$v-small.out" >"$ad/dump-$v.txt"
	done
	"$sp" -b -p --no-demangle "$w/prof/$p-time.out" >"$ad/flat-time.txt"
	"$sp" --dump "$w/prof/$p-time.out" >"$ad/dump-time-full.txt"
	{
		echo "plain_cpu $(cpu_median "$p-plain")"
		echo "plain_wall $(wall_median "$p-plain")"
		for v in count arcs time perf; do echo "${v}_cpu $(cpu_median "$p-$v")"; echo "${v}_wall $(wall_median "$p-$v")"; done
		echo "callgrind_wall $(awk '{ print $3 }' "$cgdir/time")"
		echo "binary $(bdir "$p" plain)/${bin[$p]}"
	} >"$ad/cpu.txt"
	python3 "$here/realprog2.py" "$p" "$ad" >"$ad/report.txt"
	cat "$ad/report.txt"
done

# --- grep: a regex with a back-reference, glibc's matcher doing the work ----------------------------------
if [[ " ${progs[*]} " == *" grep "* ]]; then
	ad=$w/a/grep
	mkdir -p "$ad"
	plain=$(bdir grep plain)/${bin[grep]}
	measure grep-plain grep full "$plain"
	SPYRT_OUT=$w/prof/grep-time.out measure grep-time grep full "$(bdir grep time)/${bin[grep]}"
	same_output grep-time grep-plain
	measure grep-perf grep full "$plain" perf record -q --no-bpf-event -e cpu-clock -F 4000 -g -o "$w/prof/grep.perf" --
	perf script -i "$w/prof/grep.perf" -F tid,ip,sym,dso --no-demangle 2>/dev/null >"$ad/perf.txt"
	"$sp" "$w/prof/grep-time.out" >"$ad/report.txt"
	{
		echo "plain_cpu $(cpu_median grep-plain)"
		echo "plain_wall $(wall_median grep-plain)"
		echo "time_cpu $(cpu_median grep-time)"
		echo "time_wall $(wall_median grep-time)"
		echo "binary $plain"
	} >"$ad/cpu.txt"
	python3 "$here/realprog2.py" grep "$ad" >"$ad/report-bench.txt"
	cat "$ad/report-bench.txt"
fi
echo
echo "load after the runs: $(cut -d' ' -f1-3 /proc/loadavg); the whole script took $(($(date +%s) - t_start)) s"
