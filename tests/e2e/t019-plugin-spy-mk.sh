#!/bin/bash
# t019: mk/spy.mk as its top comment tells: the comment's example Makefile, copied as it stands (only the
# prefix changed to a temporary `make install` PREFIX), builds a plain program with `make`, an instrumented
# one with exact counts with `make PROFILE=1`, and with `make PROFILE=1 CFLAGS='-O2 -flto'` too (the link
# loads the plugin through spy.specs; before, the LTO link had no plugin and nothing was counted).
. "$(dirname "$0")/lib-runtime.sh"
rt_setup
tap_plan 4

P=$T/prefix
D=$T/proj
mkdir -p "$D"
env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -C "$SPY_SRC" --no-print-directory -o all BUILD="$SPY_BUILD" SAN="$SPY_SAN" CC="$CC" CXX="$CXX" \
	install PREFIX="$P" >"$T/install.log" 2>&1 || { tail -n 20 "$T/install.log" | diag; }
# the example: the first run of "#<TAB>" lines of spy.mk, with the installed prefix for /usr/local
sed -n '/^#\t/{s/^#\t//;p;b};/^#$/{x;/./q;x}' "$SPY_SRC/mk/spy.mk" | awk 'NF || seen { seen = 1; print }' |
	sed "s|^SPY_PREFIX = /usr/local|SPY_PREFIX = $P|" >"$D/Makefile"
cat >"$D/main.c" <<'EOF'
int work(int x);
int main(void) { int s = 0; for (int i = 0; i < 25; i++) s += work(i); return s != 600; }
EOF
cat >"$D/util.c" <<'EOF'
__attribute__((noinline)) int work(int x) { return 2 * x; }
EOF
cat >"$T/proj.expect" <<'EOF'
func main 1
func work 25
arc <spontaneous> main 1
arc main work 25
EOF

# mk ARG...: make in the project (not the variables of a make that runs this test)
mk() {
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -C "$D" --no-print-directory "$@" >"$T/make.log" 2>&1 || { echo "make $*:"; tail -n 20 "$T/make.log"; return 1; }
}

plain() {
	grep -q "^include \$(SPY_PREFIX)/share/spy/spy.mk" "$D/Makefile" && grep -q "^SPY_PREFIX = $P" "$D/Makefile" ||
		{ echo "the example is not as expected:"; cat "$D/Makefile"; return 1; }
	# shellcheck disable=SC2086
	mk CFLAGS="-O2 $SPY_SAN_FLAGS" LDFLAGS="$SPY_SAN_FLAGS" || return 1
	[ -x "$D/build/prog" ] && "$D/build/prog" || { echo "build/prog did not run"; return 1; }
	! nm "$D/build/prog" | grep -q __spy || { echo "build/prog is instrumented"; return 1; }
}
check "the example of spy.mk's top comment, copied: make builds build/prog, plain" plain

profiled() {
	local dir=$1
	shift
	# shellcheck disable=SC2086
	mk PROFILE=1 OBJDIR="$dir" "$@" LDFLAGS="$SPY_SAN_FLAGS" || return 1
	rt_run "$D/$dir/prog" || return 1
	rt_facts "$D/$dir/prog.out" >"$D/$dir/prog.facts"
	rt_compare "$T/proj.expect" "$D/$dir/prog.facts"
}
check "make PROFILE=1: build-prof/prog counted exactly" profiled build-prof CFLAGS="-O2 $SPY_SAN_FLAGS"
check "make PROFILE=1 CFLAGS='-O2 -flto': counted exactly" profiled build-lto CFLAGS="-O2 -flto $SPY_SAN_FLAGS"
# SPY_PLUGIN_ARGS reach the LTO link's lto1, where the plugin decides
excluded() {
	# shellcheck disable=SC2086
	mk PROFILE=1 OBJDIR=build-excl CFLAGS="-O2 -flto $SPY_SAN_FLAGS" LDFLAGS="$SPY_SAN_FLAGS" \
		SPY_PLUGIN_ARGS=-fplugin-arg-spyinstr-exclude-function=work || return 1
	rt_run "$D/build-excl/prog" || return 1
	rt_facts "$D/build-excl/prog.out" >"$D/build-excl/prog.facts"
	grep -q '^func main 1$' "$D/build-excl/prog.facts" && ! grep -q '^func work' "$D/build-excl/prog.facts" ||
		{ echo "facts:"; cat "$D/build-excl/prog.facts"; return 1; }
}
check "make PROFILE=1 CFLAGS='-O2 -flto' SPY_PLUGIN_ARGS=...exclude-function=work: work not counted" excluded
tap_done
