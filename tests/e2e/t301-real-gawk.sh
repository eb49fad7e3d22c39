#!/bin/bash
# t301: a real autotools build, Debian's gawk source (issue 11). With the plugin in CFLAGS its configure
# stops at "C compiler cannot create executables" (the test program links without libspyrt). Configured
# plain and with CC="gcc -specs=spy.specs" (the build tree's), the two write the same config.h and the same
# library substitutions (readline, MPFR/GMP, ...), the gawk programs link the same libraries apart from
# libspyrt, and the instrumented gawk prints what the plain one prints (MPFR arithmetic included) and
# writes a profile with counts. Only gawk itself is built, not its extensions, docs or tests. Skipped
# with the reason when the source cannot be fetched.
. "$(dirname "$0")/lib-runtime.sh"
. "$(dirname "$0")/lib-debsrc.sh"
rt_setup
SPECS=$SPY_BUILD/spy.specs
if [ ! -f "$SPECS" ]; then
	tap_plan 1
	not_ok "make wrote $SPECS"
	tap_done
fi
debsrc_fetch gawk "$T/deb"
[ -x "$DEBSRC/configure" ] || tap_skip_all "$DEBSRC has no configure script"
tap_plan 6

old_way() {
	mkdir -p "$T/old"
	if (cd "$T/old" && "$DEBSRC/configure" CC="$CC" CFLAGS="-O1 -fplugin=$SPY_PLUGIN" >"$T/old.log" 2>&1); then
		echo "configure passed"
		return 1
	fi
	grep -q 'C compiler cannot create executables' "$T/old.log" || { tail -n 5 "$T/old.log"; return 1; }
}
check "(the two flags: the plugin in CFLAGS, configure cannot create executables)" old_way

# conf DIR CC: configure out of tree in $T/DIR
conf() {
	mkdir -p "$T/$1"
	(cd "$T/$1" && "$DEBSRC/configure" CC="$2" CFLAGS=-O1 >"$T/$1.log" 2>&1) ||
		{ echo "configure CC='$2' failed:"; tail -n 20 "$T/$1/config.log"; return 1; }
}
configured() {
	local rc=0
	# both at once: configure is mostly one process at a time
	conf plain "$CC $SPY_SAN_FLAGS" &
	local pid=$!
	conf spy "$CC -specs=$SPECS $SPY_SAN_FLAGS" || rc=1
	wait $pid || rc=1
	return $rc
}
if ! check "configure runs plain and with CC=\"gcc -specs=spy.specs\"" configured; then
	for _ in 1 2 3 4; do not_ok "(not configured)"; done
	tap_done
fi

# the substitutions of libraries and the feature macros: what configure found
found() {
	grep '^S\["\(LIB\|LTLIB\)[A-Z_]*"\]=' "$T/$1/config.status" | sort
}
same_found() {
	cmp -s "$T/plain/config.h" "$T/spy/config.h" ||
		{ echo "config.h differs (plain < > spy):"; diff "$T/plain/config.h" "$T/spy/config.h" | head -n 20; return 1; }
	diff <(found plain) <(found spy) >/dev/null || { echo "plain < > spy:"; diff <(found plain) <(found spy); return 1; }
	grep -q '^#define HAVE_MPFR 1' "$T/plain/config.h" || echo "# (no MPFR found on this machine)"
}
check "the same config.h and library substitutions" same_found
found plain | grep -v '""$' | diag

# build DIR: gawk alone (and the support library it needs)
build() {
	(pmake -C "$T/$1/support" -j2 && pmake -C "$T/$1" -j2 gawk) >"$T/$1.make.log" 2>&1 ||
		{ echo "make in $1 failed:"; tail -n 20 "$T/$1.make.log"; return 1; }
}
built() {
	build plain && build spy && same_libs "$T/plain/gawk" "$T/spy/gawk"
}
check "gawk builds both ways and links the same libraries, apart from libspyrt" built
echo "linked: $(needed_libs "$T/plain/gawk" | tr '\n' ' ')" | diag

cat >"$T/words.awk" <<'EOF'
{ for (i = 1; i <= NF; i++) n[tolower($i)]++ }
END { for (w in n) if (n[w] > 20) print w, n[w] | "sort"; close("sort"); print NR, length(n) }
EOF
# same OUT ARG...: plain and instrumented gawk print the same; the instrumented one's profile in OUT.out
same() {
	local out=$T/$1
	shift
	"$T/plain/gawk" "$@" >"$out.plain" 2>&1 || { echo "plain gawk $* failed"; cat "$out.plain"; return 1; }
	SPYRT_OUT="$out.out" "$T/spy/gawk" "$@" >"$out.spy" 2>"$out.err" || { echo "spy gawk $* failed"; cat "$out.err"; return 1; }
	cmp -s "$out.plain" "$out.spy" || { echo "outputs differ:"; diff "$out.plain" "$out.spy" | head; return 1; }
	[ ! -s "$out.err" ] || { echo "stderr:"; cat "$out.err"; return 1; }
	rt_facts "$out.out" >"$out.facts" || return 1
	grep -q '^func main 1$' "$out.facts" && [ "$(awk '$1 == "func" && $3 > 0' "$out.facts" | wc -l)" -ge 20 ] ||
		{ echo "too few functions counted:"; head -n 20 "$out.facts"; return 1; }
}
check "the instrumented gawk counts words as the plain one does, with a profile" same words -f "$T/words.awk" \
	"$DEBSRC/NEWS"
mpfr() {
	grep -q '^#define HAVE_MPFR 1' "$T/plain/config.h" || { echo "# no MPFR: skipped"; return 0; }
	same mpfr -M 'BEGIN { print 2^100, 1/3 }' && grep -q '^1267650600228229401496703205376 ' "$T/mpfr.spy" ||
		{ echo "gawk -M printed:"; cat "$T/mpfr.spy"; return 1; }
}
check "gawk -M (MPFR, found by both configures) works instrumented" mpfr
tap_done
