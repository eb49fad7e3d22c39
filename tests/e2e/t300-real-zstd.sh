#!/bin/bash
# t300: a real plain-Makefile build with feature probes, Debian's zstd source (issue 11): its programs/
# Makefile probes threads, zlib, lzma and lz4 by compiling and linking a test program with $(CC). Built
# plain and with `make CC="gcc -specs=spy.specs"` (the build tree's), the two find the same features and
# link the same libraries (apart from libspyrt), and the instrumented zstd gives the plain one's output in
# every format and writes a profile with counts. Only zstd's programs are built, at -O1, to stay within a
# minute or two on 2 cores. Skipped with the reason when the source cannot be fetched.
. "$(dirname "$0")/lib-runtime.sh"
. "$(dirname "$0")/lib-debsrc.sh"
rt_setup
SPECS=$SPY_BUILD/spy.specs
if [ ! -f "$SPECS" ]; then
	tap_plan 1
	not_ok "make wrote $SPECS"
	tap_done
fi
debsrc_fetch zstd "$T/deb"
tap_plan 5

# What the one flag replaces: the plugin in CFLAGS makes every probe fail (it compiles with the plugin
# and links without libspyrt), and zstd builds without threads, zlib, lzma and lz4, silently.
old_way() {
	local lost
	cp -r "$DEBSRC" "$T/old"
	lost=$(pmake -C "$T/old/programs" -n zstd CFLAGS="-O1 -fplugin=$SPY_PLUGIN" 2>&1 | grep -c '==> no ')
	[ "$lost" -ge 2 ] || { echo "the plugin in CFLAGS lost only $lost features"; return 1; }
}
check "(the two flags: the plugin in CFLAGS makes zstd's probes fail, features lost)" old_way

cp -r "$DEBSRC" "$T/plain"
cp -r "$DEBSRC" "$T/spy"
# build DIR CC: zstd's programs/zstd; make's output in DIR.log
build() {
	pmake -C "$T/$1/programs" -j2 zstd CC="$2" CFLAGS=-O1 >"$T/$1.log" 2>&1 ||
		{ echo "make CC='$2' failed:"; tail -n 20 "$T/$1.log"; return 1; }
}
built() {
	build plain "$CC $SPY_SAN_FLAGS" && build spy "$CC -specs=$SPECS $SPY_SAN_FLAGS"
}
if ! check "zstd builds plain and with make CC=\"gcc -specs=spy.specs\"" built; then
	for _ in 1 2 3; do not_ok "(not built)"; done
	tap_done
fi

# the Makefile's own report of its probes: "==> building with threading support" and so on
features() {
	grep '^==>' "$T/$1.log" | sort -u
}
same_features() {
	diff <(features plain) <(features spy) >/dev/null || { echo "plain < > spy:"; diff <(features plain) <(features spy); return 1; }
	[ "$(features plain | grep -c 'with')" -ge 1 ] || { echo "no feature found at all:"; features plain; return 1; }
}
check "the same features found (threads, zlib, lzma, lz4 as the machine has them)" same_features
features plain | diag

check "the same libraries linked, apart from libspyrt" same_libs "$T/plain/programs/zstd" "$T/spy/programs/zstd"
echo "linked: $(needed_libs "$T/plain/programs/zstd" | tr '\n' ' ')" | diag

head -c 2000000 "$SPY_BUILD/spinprof" >"$T/in.dat"
# roundtrip ARG...: compress in.dat with each zstd (the spy one writing a profile), compare, decompress
roundtrip() {
	local fmt=$1 z=$T/spy/programs/zstd
	shift
	"$T/plain/programs/zstd" -q -f "$@" "$T/in.dat" -o "$T/plain.$fmt" || { echo "plain zstd $* failed"; return 1; }
	SPYRT_OUT="$T/c-$fmt.out" "$z" -q -f "$@" "$T/in.dat" -o "$T/spy.$fmt" 2>"$T/c-$fmt.err" ||
		{ echo "spy zstd $* failed:"; cat "$T/c-$fmt.err"; return 1; }
	cmp "$T/plain.$fmt" "$T/spy.$fmt" || { echo "$fmt: the outputs differ"; return 1; }
	SPYRT_OUT="$T/d-$fmt.out" "$z" -q -d -f "$T/spy.$fmt" -o "$T/back.$fmt" && cmp "$T/in.dat" "$T/back.$fmt" ||
		{ echo "$fmt: no way back"; return 1; }
	[ ! -s "$T/c-$fmt.err" ] || { echo "stderr:"; cat "$T/c-$fmt.err"; return 1; }
	rt_facts "$T/c-$fmt.out" >"$T/c-$fmt.facts" || return 1
	grep -q '^func main 1$' "$T/c-$fmt.facts" &&
		[ "$(awk '$1 == "func" && $3 > 0' "$T/c-$fmt.facts" | wc -l)" -ge 20 ] ||
		{ echo "$fmt: too few functions counted:"; head -n 20 "$T/c-$fmt.facts"; return 1; }
}
formats() {
	local f
	roundtrip zst -T2 || return 1
	for f in gzip:.gz xz:.xz lz4:.lz4; do
		features plain | grep -qF "with ${f#*:}" || continue
		roundtrip "${f%%:*}" --format="${f%%:*}" || return 1
	done
}
check "the instrumented zstd: plain zstd's output in every format found, a profile with counts" formats
tap_done
