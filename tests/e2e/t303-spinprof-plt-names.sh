#!/bin/bash
# t303: time in a module's PLT is named as objdump -d and perf name it, NAME@plt (spinprof/modsym.c),
# not left to the anonymous [MODULE]. A synthetic sampled profile, written through gmon_encode by a
# generator compiled here (on tests/e2e/spygen.h), lists the machine's real libc.so.6 (its build-id
# read by readelf -n) and a library built here with the IBT PLT layout (.plt.sec beside .plt, 16-byte
# .plt.got entries: -fcf-protection -z ibtplt), stripped, its symbols in a separate debug file found
# by its debuglink; the main module's binary is gone. The samples' PCs are each PLT entry objdump -d
# labels <NAME@plt> (libc's .plt and 8-byte .plt.got, the library's .plt.sec and .plt.got) plus 0, 2,
# 4 or 6 bytes, and every 16-byte slot of .plt that objdump labels no <NAME@plt> (PLT0, the IBT
# layout's lazy binding stubs), with 20 to 24 ticks each, 40 PCs to a profile (so that each is 1 % of
# its profile at least, all listed). The reference is binutils' (lib-plt.sh): the name is objdump's
# label, objdump's "*ABS*+0xADDR@plt" (an IRELATIVE entry: a call of the module's own ifunc, libc's
# memcpy, strlen...) named after the ifunc whose resolver is at ADDR as readelf -s lists it. Checked,
# on the Spy report's highly active procedures at cutoff 0 (each procedure with the ticks of each of
# its PCs):
#   - each of libc's PLT entries is a procedure NAME@plt holding exactly its PC and ticks,
#   - libc's PLT0 stays [libc.so.6],
#   - the library's .plt.sec and .plt.got entries likewise, its own hidden ifunc (in no .dynsym) named
#     from the debug file's symbols,
#   - its PLT0 and lazy stubs stay [libibt.so],
#   - the same library unstripped, whose .symtab's _init (in .init) comes before .plt: the same names,
#     no PC of the PLT given to _init (gprof's range of _init runs up to the next symbol),
#   - the report lists nothing else.
. "$(dirname "$0")/lib-spinprof.sh"
. "$(dirname "$0")/lib-plt.sh"

sp_setup
[ "$(uname -m)" = x86_64 ] || tap_skip_all "PLT names are made for x86-64 only"
for tool in objdump readelf objcopy; do
	command -v $tool >/dev/null || tap_skip_all "no $tool (binutils, mk/deps.sh)"
done
LIBC=
for f in /lib/x86_64-linux-gnu/libc.so.6 "$($CC -print-file-name=libc.so.6)"; do
	[ -f "$f" ] && LIBC=$(readlink -f "$f") && break
done
[ -n "$LIBC" ] || tap_skip_all "no libc.so.6 found"

cat >"$T/gen.c" <<'EOF'
#include "spygen.h"

/* a build-id from its hex digits */
static uint8_t *hex_bytes(const char *h, uint32_t *n)
{
	size_t len = strlen(h) / 2;
	uint8_t *b = calloc(len + 1, 1);
	for (size_t i = 0; i < len; i++)
		sscanf(h + 2 * i, "%2hhx", &b[i]);
	*n = (uint32_t)len;
	return b;
}

/* stdin: up to three "module PATH BUILDID BASE TEXTLO TEXTHI" (hex; the first two in place of
 * spygen's libc and runtime), then "at M OFFSET TICKS": a PC at module M's (1 to 3) base + OFFSET
 * (hex), one stack each, in main, of thread 100, wall at 1000 Hz */
int main(int argc, char **argv)
{
	struct gmon_profile p;
	char kind[16], path[4096], bid[256];
	unsigned long long base, lo, hi, off, ticks;
	int nmod = 0, m;
	uint64_t taken = 0;

	if (argc != 2)
		return 1;
	syn_profile(&p, 2, LIBC + 0x1500);
	sampling(&p, GMON_WATCH_WALL, 1000, 1, "");
	thread(&p, 100);
	while (scanf("%15s", kind) == 1) {
		if (strcmp(kind, "module") == 0 && nmod < 3 &&
		    scanf("%4095s %255s %llx %llx %llx", path, bid, &base, &lo, &hi) == 5) {
			if (1 + nmod == (int)p.nmodules) {
				p.modules = realloc(p.modules, (p.nmodules + 1) * sizeof(*p.modules));
				p.modules[p.nmodules] = (struct gmon_module){ .id = p.nmodules + 1, .path = NULL };
				p.nmodules++;
			}
			struct gmon_module *m = &p.modules[1 + nmod++];
			free(m->path);
			m->path = strdup(path);
			m->base = base;
			m->text_lo = lo;
			m->text_hi = hi;
			m->build_id = hex_bytes(bid, &m->build_id_len);
		} else if (strcmp(kind, "at") == 0 && scanf("%d %llx %llu", &m, &off, &ticks) == 3 && m >= 1 &&
			   m <= nmod) {
			stack(ticks, ticks * 1000000, p.modules[m].base + off, 0, 1, MAIN, LIBC + 0x1500);
			taken += ticks;
		} else {
			fprintf(stderr, "gen: bad input at %s\n", kind);
			return 1;
		}
	}
	p.sampling->taken = taken;
	thread(&p, 0);
	return syn_write(&p, argv[1]);
}
EOF
# shellcheck disable=SC2086
$CC -O2 $SPY_SAN_FLAGS -I"$SPY_SRC/common" -I"$SPY_SRC/tests/e2e" "$T/gen.c" "$GMON_IO" \
	-o "$T/gen" -lz || exit 1

# the library: calls through .plt.sec (ext_b, ext_c), through .plt.got (ext_a, whose address is taken
# too; __cxa_finalize), and of its own hidden ifunc (IRELATIVE), stripped with a debuglink
cat >"$T/ibt.c" <<'EOF'
void ext_a(void);
void ext_b(int);
int ext_c(const char *);
void (*volatile keep)(void);
static int fast(int x) { return x + 1; }
static int (*pick(void))(int) { return fast; }
__attribute__((visibility("hidden"))) int own(int) __attribute__((ifunc("pick")));
int lib_entry(int n)
{
	ext_a();
	keep = ext_a;
	ext_b(n);
	return ext_c("x") + own(n);
}
EOF
IBT=$T/libibt.so
IBT_WHY=
if ! $CC -O2 -fPIC -shared -fcf-protection=full -Wl,-z,ibtplt -o "$IBT" "$T/ibt.c" 2>"$T/ibt.err"; then
	IBT_WHY="the IBT PLT layout cannot be built here (-fcf-protection=full -Wl,-z,ibtplt): $(head -1 "$T/ibt.err")"
elif ! readelf -SW "$IBT" | grep -q ' \.plt\.sec '; then
	IBT_WHY="the linker made no .plt.sec with -z ibtplt"
else
	# a copy with its .symtab, where _init (in .init) is the symbol before .plt
	cp "$IBT" "$T/libsym.so" &&
		objcopy --only-keep-debug "$IBT" "$IBT.debug" && objcopy --strip-all --add-gnu-debuglink="$IBT.debug" "$IBT" ||
		exit 1
fi

build_id() { readelf -n "$1" | awk '/Build ID:/ { print $3 }'; }
# shellcheck disable=SC2016
HEX='function hex(s,  i, v) { s = tolower(s); sub(/^0x/, "", s); v = 0
	for (i = 1; i <= length(s); i++) v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
	return v }'
# "module PATH BUILDID BASE TEXTLO TEXTHI" of ELF file PATH loaded at BASE (hex): its executable segment
module() {
	local lo hi
	read -r lo hi < <(readelf -lW "$1" 2>/dev/null | awk "$HEX"'$1 == "LOAD" && $(NF - 1) ~ /E/ { print hex($3), hex($3) + hex($6); exit }')
	printf 'module %s %s %s %x %x\n' "$1" "$(build_id "$1")" "$2" $((0x$2 + lo)) $((0x$2 + hi))
}
# the sampled PCs of module M (1 or 2 in the profile), ELF file FILE with its symbols also in DEBUG
# (which may be missing): "at M OFFSET TICKS" into PCS, and the expected procedure of each on stdout,
# "MODULE+0xOFFSET NAME TICKS" (OFFSET from the load base, in hex as the report prints it)
expect() {
	plt_names "$2" "$3" | awk -v m="$1" -v mod="${2##*/}" -v pcs="$4" "$HEX"'
		{ off = hex($1) + (NR % 4) * 2; t = 20 + NR % 5
		  printf "%s+0x%x %s %d\n", mod, off, $2, t
		  printf "at %d %x %d\n", m, off, t > pcs }'
}

libc_bid=$(build_id "$LIBC")
libc_debug=/usr/lib/debug/.build-id/${libc_bid:0:2}/${libc_bid:2}.debug
expect 1 "$LIBC" "$libc_debug" "$T/libc.pcs" >"$T/want.1"
{
	module "$LIBC" 7f0000000000
	[ -n "$IBT_WHY" ] || module "$IBT" 7f1000000000
	[ -n "$IBT_WHY" ] || module "$T/libsym.so" 7f2000000000
} >"$T/gen.mods"
cp "$T/libc.pcs" "$T/gen.pcs"
if [ -z "$IBT_WHY" ]; then
	expect 2 "$IBT" "$IBT.debug" "$T/ibt.pcs" >>"$T/want.1"
	cat "$T/ibt.pcs" >>"$T/gen.pcs"
	expect 3 "$T/libsym.so" "$T/libsym.so" "$T/sym.pcs" >>"$T/want.1"
	cat "$T/sym.pcs" >>"$T/gen.pcs"
fi
sort "$T/want.1" >"$T/want"

# the highly active procedures' PCs in report FILE: "MODULE+0xOFFSET NAME TICKS"
got() {
	awk '/^Breakdown of highly active procedures/ { on = 1; next } /^PC listing/ { on = 0 }
		on && /^[^ ~].* \([0-9]+ refs?\) = / { n = $0; sub(/ \([0-9]+ refs?\) = .*/, "", n); next }
		on && /^    \(/ { w = $0; sub(/^    \(/, "", w); t = w; sub(/\) = .*/, "", w)
			sub(/.*\) = /, "", t); sub(/ .*/, "", t); print w, n, t }' "$1"
}
tap_plan 7

# the PCs 40 to a profile, each PC's 20 to 24 ticks 1 % or more of its profile's: all highly active
run_it() {
	local c
	split -l 40 "$T/gen.pcs" "$T/chunk."
	for c in "$T"/chunk.*; do
		cat "$T/gen.mods" "$c" | "$T/gen" "$c.out" || return 1
		"$SPINPROF" -b --spy --cutoff=0 "$c.out" >"$c.txt" 2>"$c.err" ||
			{ echo "spinprof: status $?"; cat "$c.err"; return 1; }
		got "$c.txt"
	done | sort >"$T/got"
}
sp_check "a profile with samples in libc's PLT$([ -n "$IBT_WHY" ] || echo " and an IBT-layout library's") read" run_it

# compare the lines of want and got that match REGEX; at least MIN of them
same() {
	local n
	n=$(grep -cE "$1" "$T/want")
	diff -u <(grep -E "$1" "$T/want") <(grep -E "$1" "$T/got") || return 1
	echo "$n PCs"
	[ "$n" -ge "$2" ]
}
irel=$(objdump -d "$LIBC" | grep -c '<\*ABS\*+0x[0-9a-f]*@plt>:')
libc_named() {
	echo "$irel IRELATIVE entries (objdump's *ABS*+0xADDR@plt)"
	same '^libc\.so\.6\+0x[0-9a-f]+ [^[]' 1 || return 1
	! grep -q '^libc\.so\.6+.*\*ABS\*' "$T/want" || { echo "an IRELATIVE entry's ifunc is in no readelf -s"; return 1; }
}
check "libc's PLT entries are procedures NAME@plt, as objdump labels them (IRELATIVE ones by the ifunc at the addend), with their PCs' ticks" libc_named
check "libc's PLT0 (objdump: no NAME@plt) stays [libc.so.6]" same '^libc\.so\.6\+0x[0-9a-f]+ \[libc\.so\.6\] ' 1

ibt_named() {
	[ -z "$IBT_WHY" ] || return 0
	grep -q ' own@plt ' "$T/want" || { echo "objdump or readelf do not show own's PLT entry as own@plt"; return 1; }
	same '^libibt\.so\+0x[0-9a-f]+ [^[]' 5
}
check "the library's .plt.sec and 16-byte .plt.got entries are NAME@plt, its hidden ifunc named from its debug file$([ -z "$IBT_WHY" ] || echo " # SKIP $IBT_WHY")" ibt_named
ibt_stubs() {
	[ -z "$IBT_WHY" ] || return 0
	same '^libibt\.so\+0x[0-9a-f]+ \[libibt\.so\] ' 2
}
check "the library's PLT0 and lazy binding stubs in .plt (objdump: no NAME@plt) stay [libibt.so]$([ -z "$IBT_WHY" ] || echo " # SKIP $IBT_WHY")" ibt_stubs
sym_named() {
	[ -z "$IBT_WHY" ] || return 0
	same '^libsym\.so\+0x[0-9a-f]+ ' 7
}
check "the same library unstripped (_init before .plt in its .symtab): NAME@plt, its PLT0 and stubs [libsym.so], no _init$([ -z "$IBT_WHY" ] || echo " # SKIP $IBT_WHY")" sym_named
check "the report's procedures hold these PCs and no other" diff -u "$T/want" "$T/got"
tap_done
