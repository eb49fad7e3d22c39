#!/bin/sh
# Install the Debian packages spy needs to build and test, and only those that are missing, so a fresh
# machine needs nothing by hand and a ready one pays one dpkg call.
#
# usage: mk/deps.sh [STAMP]   check (and install), then write the package list into STAMP
#        mk/deps.sh --list     print the package list (the key the GNUmakefile compares STAMP with)
set -eu

# The plugin must be built against the headers of the GCC that will load it.
major=$("${CC:-gcc}" -dumpversion 2>/dev/null | cut -d. -f1) || major=
case $major in '' | *[!0-9]*) major=12 ;; esac

pkgs="make gcc g++ gcc-$major-plugin-dev libelf-dev binutils-dev zlib1g-dev libcmocka-dev libgomp1"
# Tests only: another GCC build to load the plugin into (t012 checks it refuses clearly).
[ "$major" = 11 ] || pkgs="$pkgs gcc-11"
# Tests only: libFuzzer (tests/fuzz/, t204), AFL++ (make fuzz-afl) and /usr/bin/time
# (bench/spinprof-bench.sh, t230).
pkgs="$pkgs clang-14 libclang-rt-14-dev afl++ time"
# Benchmarks only: uftrace, an anchor of bench/run.sh; hyperfine (bench/startup.sh); what bench/compile.sh needs to fetch and
# build expat from its Debian source; perf, an anchor of bench/realprog.sh.
pkgs="$pkgs uftrace hyperfine dpkg-dev autoconf automake libtool linux-perf"
# Benchmarks only: what bench/realprog2.sh needs to build sqlite3's shell (tclsh makes its amalgamation)
# and memcached (libevent) from their Debian sources.
pkgs="$pkgs tcl libevent-dev"
# Tests only: the libraries zstd's and gawk's own probes look for (t300, t301 build them from Debian's
# source, plain and with spy.specs, and compare what each build found).
pkgs="$pkgs liblzma-dev liblz4-dev libreadline-dev libmpfr-dev libgmp-dev"
# spinprof: libdw names addresses in any module (separate debug files by build-id), protobuf-c writes
# pprof's profile.proto. Tests only: each output format's real consumer (callgrind_annotate, xmllint, dot,
# go tool pprof, headless chromium) and libc's debug symbols (t-names of libc's functions).
pkgs="$pkgs libdw-dev libprotobuf-c-dev protobuf-c-compiler valgrind libxml2-utils graphviz golang-go"
# spinprof: Intel ISA-L inflates big profiles about twice as fast as zlib (common/gmon-read.c)
pkgs="$pkgs libisal-dev"
pkgs="$pkgs chromium libc6-dbg"
# Tests only: node and npm install and run the real viewers of tests/e2e/viewer (speedscope, driven in
# headless chromium by playwright-core; t287-t289), whose npm packages are pinned by its package-lock.json.
# Debian's npm is a package of its own, NodeSource's nodejs holds npm (and conflicts with Debian's): npm is
# asked for below only when nodejs brought no npm command.
pkgs="$pkgs nodejs"
# Tests only: python3 reads spinprof's JSON and graphviz's (t276, t277).
pkgs="$pkgs python3"
# make SAN=thread and t136: ThreadSanitizer's runtime (gcc's own libgcc-dev pulls it in too)
pkgs="$pkgs libtsan2"
# Tests only: setcap gives t141's program a file capability (setpriv, which runs it as another user, is
# util-linux's, always there)
pkgs="$pkgs libcap2-bin"

if [ "${1-}" = --list ]; then
	echo "$pkgs"
	exit 0
fi
stamp=${1-}

write_stamp()
{
	if [ -n "$stamp" ]; then
		mkdir -p "$(dirname "$stamp")"
		echo "$pkgs" >"$stamp"
	fi
}

if ! command -v dpkg >/dev/null 2>&1; then
	echo "mk/deps.sh: no dpkg (not Debian?); make sure these are installed: $pkgs" >&2
	write_stamp
	exit 0
fi

# One dpkg call for all; a package counts only when fully installed (not "deinstall ... config-files").
# shellcheck disable=SC2086
missing=$(dpkg -s $pkgs 2>/dev/null | awk -v want="$pkgs" '
	/^Package:/ { p = $2 }
	/^Status: install ok installed/ { ok[p] = 1 }
	END { n = split(want, w, " "); for (i = 1; i <= n; i++) if (!ok[w[i]]) printf "%s ", w[i] }')

if [ -n "$missing" ]; then
	echo "mk/deps.sh: installing missing packages: $missing" >&2
	if [ "$(id -u)" -eq 0 ]; then
		sudo=
	elif command -v sudo >/dev/null 2>&1; then
		sudo=sudo
	else
		echo "mk/deps.sh: not root and no sudo; install by hand: apt-get install $missing" >&2
		exit 1
	fi
	$sudo apt-get update
	# shellcheck disable=SC2086
	$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y $missing
fi

# The viewers' npm packages: `npm ci` from the lock file into tests/e2e/viewer/node_modules (ignored by
# git), again whenever the lock file changes (a copy of it in node_modules tells). A failure leaves the
# build alone: only t287-t289 need them, and they fail saying so.
viewer=$(dirname "$0")/../tests/e2e/viewer
if [ -f "$viewer/package-lock.json" ] && ! cmp -s "$viewer/package-lock.json" "$viewer/node_modules/.spy-lock"; then
	if ! command -v npm >/dev/null 2>&1 && command -v apt-get >/dev/null 2>&1; then
		echo "mk/deps.sh: installing npm" >&2
		sudo=
		[ "$(id -u)" -eq 0 ] || sudo=sudo
		$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y npm >&2 || true
	fi
	if command -v npm >/dev/null 2>&1; then
		echo "mk/deps.sh: npm ci in tests/e2e/viewer" >&2
		if (cd "$viewer" && npm ci --no-audit --no-fund --loglevel=error >&2); then
			cp "$viewer/package-lock.json" "$viewer/node_modules/.spy-lock"
		else
			echo "mk/deps.sh: npm ci in tests/e2e/viewer failed; t287-t289 will fail" >&2
		fi
	else
		echo "mk/deps.sh: no npm; t287-t289 will skip" >&2
	fi
fi
write_stamp
