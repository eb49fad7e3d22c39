#!/bin/bash
# t295: GNU mode keeps the functions gprof keeps, byte for byte, where gprof's symbol filter reads past
# a local name (issue 23, item 13): gprof 2.40's scan of a name that ends in ".constprop.N" (or ".N")
# steps over its NUL and goes on into the next string of the string table, so it drops such a
# function when a name with a '.' not followed by digits comes next there (memcached 1.6.18 -pg:
# do_slabs_free_chunked.constprop.0, followed by memory_release.part.0, is not in gprof's profile, and
# every index after it was one lower than spinprof's). names.c gives its static functions those names
# by asm labels, in that order: alpha.constprop.0 then beta.part.0 (gprof drops alpha), and
# gamma.constprop.0 then delta (gprof keeps gamma). gprof itself must show both, or the test proves
# nothing; then spinprof -b and -b -z print what gprof prints. And of two static names at one address
# (alias.c) both keep the symbol table's first, where spinprof took the shorter (sqlite 3.40.1 -pg:
# fts3HashMalloc for gprof's sqlite3Fts3MallocZero, and the indexes after it one higher).
. "$(dirname "$0")/lib-spinprof.sh"

sp_setup
command -v gprof >/dev/null || tap_skip_all "no gprof"
tap_plan 6

cat >"$T/names.c" <<'EOS'
static volatile unsigned long sink;
static int alpha(int n) __asm__("alpha.constprop.0");
static int beta(int n) __asm__("beta.part.0");
static int gamma_(int n) __asm__("gamma.constprop.0");
static int delta(int n) __asm__("delta");
__attribute__((noinline, used)) static int alpha(int n) { sink += n; return n + 1; }
__attribute__((noinline, used)) static int beta(int n) { sink += n; return n + 2; }
__attribute__((noinline, used)) static int gamma_(int n) { sink += n; return n + 3; }
__attribute__((noinline, used)) static int delta(int n) { sink += n; return n + 4; }
int main(void)
{
	int s = 0;
	for (int i = 0; i < 1000; i++)
		s += alpha(i) + beta(i) + gamma_(i) + delta(i);
	return s == 0;
}
EOS

built() {
	gcc -O0 -pg "$T/names.c" -o "$T/names" >"$T/cc.log" 2>&1 || { cat "$T/cc.log"; return 1; }
	(cd "$T" && ./names) && [ -s "$T/gmon.out" ] || { echo "no gmon.out"; return 1; }
	# the string table holds them in that order
	strings -a "$T/names" | grep -A1 -x 'alpha.constprop.0' | tail -n 1 | grep -qx 'beta.part.0' &&
		strings -a "$T/names" | grep -A1 -x 'gamma.constprop.0' | tail -n 1 | grep -qx 'delta' ||
		{ echo "the string table's order is not the source's"; return 1; }
}
if ! sp_check "names.c builds with -pg and runs, its names in the source's order" built; then
	for _ in 1 2 3; do not_ok "no profile"; done
	tap_done
fi

gprof_shows() {
	(cd "$T" && gprof -b -z ./names gmon.out) >"$T/gz.txt" 2>&1 || { cat "$T/gz.txt"; return 1; }
	grep -c 'alpha.constprop.0\|gamma.constprop.0' "$T/gz.txt"
	! grep -q 'alpha.constprop.0' "$T/gz.txt" && grep -q 'gamma.constprop.0' "$T/gz.txt"
}
sp_check "gprof drops alpha.constprop.0 (beta.part.0 next) and keeps gamma.constprop.0 (delta next)" gprof_shows

same() {
	(cd "$T" && gprof "$@" ./names gmon.out) >"$T/g.txt" 2>&1 || { cat "$T/g.txt"; return 1; }
	(cd "$T" && "$SPINPROF" "$@" ./names gmon.out) >"$T/s.txt" 2>&1 || { cat "$T/s.txt"; return 1; }
	diff -u "$T/g.txt" "$T/s.txt"
}
sp_check "spinprof -b prints what gprof -b prints" same -b
sp_check "spinprof -b -z prints what gprof -b -z prints" same -b -z

# Two static functions at one address (GCC's identical-code folding made sqlite's fts3HashMalloc and
# sqlite3Fts3MallocZero one, and spinprof named it by the shorter name): gprof keeps the first of the
# symbol table, here first_of_two_names, before its alias b.
cat >"$T/alias.c" <<'EOS'
static volatile unsigned long sink;
__attribute__((noinline, used)) static int first_of_two_names(int n) { sink += n; return n + 1; }
static int b(int n) __attribute__((alias("first_of_two_names")));
int main(void)
{
	int s = 0;
	for (int i = 0; i < 1000; i++)
		s += b(i);
	return s == 0;
}
EOS
alias_same() {
	mkdir -p "$T/alias" && gcc -O0 -pg "$T/alias.c" -o "$T/alias/alias" >"$T/alias/cc.log" 2>&1 &&
		(cd "$T/alias" && ./alias) || { cat "$T/alias/cc.log"; return 1; }
	readelf -sW "$T/alias/alias" | grep -E ' (first_of_two_names|b)$'
	(cd "$T/alias" && gprof -b ./alias gmon.out) >"$T/alias/g.txt" 2>&1 &&
		grep -q ' first_of_two_names$' "$T/alias/g.txt" || { cat "$T/alias/g.txt"; return 1; }
	(cd "$T/alias" && "$SPINPROF" -b ./alias gmon.out) >"$T/alias/s.txt" 2>&1 &&
		diff -u "$T/alias/g.txt" "$T/alias/s.txt"
}
sp_check "two static names at one address: spinprof -b names it as gprof -b does (the table's first)" alias_same
alias_z() {
	(cd "$T/alias" && gprof -b -z ./alias gmon.out) >"$T/alias/gz.txt" 2>&1 &&
		(cd "$T/alias" && "$SPINPROF" -b -z ./alias gmon.out) >"$T/alias/sz.txt" 2>&1 &&
		diff -u "$T/alias/gz.txt" "$T/alias/sz.txt"
}
sp_check "and spinprof -b -z as gprof -b -z" alias_z
tap_done
