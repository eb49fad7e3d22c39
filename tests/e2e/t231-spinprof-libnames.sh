#!/bin/bash
# t231: time in modules spy did not instrument carries those modules' own names (spinprof/modsym.c,
# elfutils' libdwfl), and no run-specific absolute address is printed. An instrumented program spends
# its time in libc (memcpy over 4 MiB buffers, strlen over a 4 MiB string, qsort calling an instrumented
# comparator), in an instrumented loop whose work is an inlined function, and in a stripped,
# uninstrumented libhot.so whose hot loop is a static function (named by no symbol: only the exported
# hot_entry is in its .dynsym). Run with CPU sampling; `spinprof --dump`
# gives each sample's PC and each module's load base. The references are independent of spinprof:
# binutils' nm (libc's symbols, from libc6-dbg's separate debug file found by libc's build-id, and
# libhot's .dynsym) and addr2line (lines, and inlined functions with -f -i). Checked:
#   - every sampled function of libc is a procedure named by one of the symbols at the function's start
#     (the largest sized symbol at or below the PC, or the PLT entry objdump -d labels NAME@plt: libc
#     calls through its PLT, often under ThreadSanitizer, lib-plt.sh) with exactly the ticks of the PCs
#     it holds (PLT0, which objdump names not, is [libc.so.6]),
#   - each of its (FILE:LINE) lines (those above 1 %) has the ticks of the PCs addr2line puts there
#     (a PC without a line, as in the PLT, as libc.so.6+0xOFFSET),
#   - libc's memcpy and strlen (whatever variant the CPU chose) have ticks, no "[libc.so.6]" is left
#     (but for PLT0's PCs); under ThreadSanitizer, which delays the ticks' signals, only the latter,
#   - libhot's static loop is "[libhot.so]" with its PCs as libhot.so+0xOFFSET (offset from the load
#     base, the dump's PC less the module's base) with their ticks,
#   - churn's loop, all of it step() inlined, has lines "(FILE:LINE in step, inlined at FILE:LINE)"
#     with the ticks of the PCs addr2line -f -i puts there (the same form checks libc's lines above),
#   - the whole report (flat profile, call graph, Spy report at cutoff 0) holds no absolute address.
# Without libc6-dbg (mk/deps.sh installs it) the libc checks skip.
. "$(dirname "$0")/lib-spinprof.sh"
. "$(dirname "$0")/lib-runtime.sh"
. "$(dirname "$0")/lib-plt.sh"

[ -x "$SPINPROF" ] || tap_skip_all "no spinprof"
command -v nm >/dev/null && command -v addr2line >/dev/null && command -v strip >/dev/null &&
	command -v objdump >/dev/null && command -v readelf >/dev/null || tap_skip_all "no binutils (nm, addr2line, strip, objdump, readelf)"
rt_setup

cat >"$T/hot.c" <<'EOS'
static volatile unsigned long sink;
__attribute__((noinline)) static void spin(long n)
{
	unsigned long x = sink;
	for (long i = 0; i < n; i++) {
		x = x * 6364136223846793005ul + 1;
		__asm__ volatile("" ::: "memory");
	}
	sink = x;
}
void hot_entry(long n) { spin(n); __asm__ volatile("" ::: "memory"); }
EOS
cat >"$T/libs.c" <<'EOS'
#include <stdlib.h>
#include <string.h>
#include "sample.h"
void hot_entry(long n);
char a[1 << 22], b[1 << 22]; /* not static: the memory clobber keeps the copies */
static int cmp(const void *x, const void *y)
{
	int p = *(const int *)x, q = *(const int *)y;
	return (p > q) - (p < q);
}
NOINL void copy(int n) { for (int i = 0; i < n; i++) { memcpy(b, a, sizeof(a)); BARRIER(); } }
NOINL size_t length(int n) { size_t s = 0; for (int i = 0; i < n; i++) { s += strlen(a); BARRIER(); } return s; }
NOINL void sort(int n)
{
	int *v = malloc(n * sizeof(int));
	for (int i = 0; i < n; i++)
		v[i] = (int)((i * 2654435761u) % 1000003);
	qsort(v, n, sizeof(int), cmp);
	free(v);
}
static volatile unsigned long sink;
static inline unsigned long step(unsigned long x)
{
	return x * 6364136223846793005ul + 1;
}
NOINL void churn(long n)
{
	unsigned long x = sink;
	for (long i = 0; i < n; i++) {
		x = step(x);
		BARRIER();
	}
	sink = x;
}
int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 100;
	memset(a, 1, sizeof(a) - 1);
	churn(n * 50000L);
	copy(n);
	length(n);
	sort(n * 500);
	hot_entry(n * 100000L);
	return 0;
}
EOS

N=${SPY_LIBNAMES_N:-1500}
P=$T/libs
tap_plan 7

run_it() {
	$CC -O2 -fPIC -shared -o "$T/libhot.so" "$T/hot.c" && strip --strip-all "$T/libhot.so" || return 1
	rt_cc "$P" "$CC" "$T/libs.c" -L"$T" -lhot -Wl,-rpath,"$T" || return 1
	RT_ENV="SPYRT_MODE=count SPYRT_WATCH=cpu" rt_run "$P" "$N" || return 1
	"$SPINPROF" -b --cutoff=0 "$P.out" >"$P.txt" 2>"$P.err" || { echo "spinprof: status $?"; cat "$P.err"; return 1; }
	"$SPINPROF" --dump "$P.out" >"$P.dump" 2>"$P.err" || { echo "spinprof --dump: status $?"; cat "$P.err"; return 1; }
}
if ! sp_check "libc, a stripped library and an instrumented program, run with CPU sampling, read" run_it; then
	for _ in 1 2 3 4 5; do not_ok "no profile"; done
	tap_done
fi

# shellcheck disable=SC2016
HEX='function hex(s,  i, v) { s = tolower(s); sub(/^0x/, "", s); v = 0
	for (i = 1; i <= length(s); i++) v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
	return v }'
# field VALUE of "key=VALUE" in a dump line
# shellcheck disable=SC2016
FIELD='function field(k,  i) { for (i = 1; i <= NF; i++) if (index($i, k "=") == 1) return substr($i, length(k) + 2); return "" }'

module_line() { awk -v m="$1" '$1 == "module" && $NF ~ ("/" m "$")' "$P.dump"; }
libc_mod=$(module_line 'libc\.so\.6')
hot_mod=$(module_line 'libhot\.so')
libc_bid=$(printf '%s\n' "$libc_mod" | sed -n 's/.* build_id=\([0-9a-f]*\) .*/\1/p')
libc_debug=/usr/lib/debug/.build-id/${libc_bid:0:2}/${libc_bid:2}.debug

# ticks per sampled PC in a module's text (not the profiler's): "OFFSET TICKS", OFFSET in hex from its base
pcs_of() {
	printf '%s\n' "$1" | cat - "$P.dump" | awk "$HEX $FIELD"'
		NR == 1 { base = hex(field("base")); split(field("text"), tx, "-"); lo = hex(tx[1]); hi = hex(tx[2]); next }
		$1 == "sampling" { period = 1e9 / field("hz") }
		$1 == "stack" && field("flags") !~ /runtime/ {
			pc = hex(field("pc"))
			if (pc >= lo && pc < hi) t[pc - base] += field("weight") / period }
		END { for (o in t) printf "%x %s\n", o, t[o] }' | sort
}
# a procedure's lines in the Spy report's "highly active procedures": "(WHERE) TICKS"
proc_lines() {
	awk -v p="$1" '/^Breakdown of highly active procedures/ { on = 1; next }
		/^PC listing/ { on = 0 }
		on && index($0, p " (") == 1 { in_p = 1; next }
		on && in_p && /^    \(/ { w = $0; sub(/^    /, "", w); t = w; sub(/ = .*/, "", w)
			sub(/.* = /, "", t); sub(/ .*/, "", t); printf "%s\t%.0f\n", w, t; next }
		{ in_p = 0 }' "$P.txt" | sort
}
# whether NAME is among the highly active procedures (1 % of the ticks at least)
is_active() {
	awk -v p="$1" '/^Breakdown of highly active procedures/ { on = 1; next } /^PC listing/ { on = 0 }
		on && index($0, p " (") == 1 { f = 1 } END { exit !f }' "$P.txt"
}
# where_of ELF MODULE: for each "OFFSET TICKS" read, addr2line's (FILE:LINE) of the offset in ELF, or, in
# code inlined there, (FILE:LINE in FUNC, inlined at FILE:LINE), or without a line (MODULE+0xOFFSET);
# the ticks summed per place
where_of() {
	local off tk
	while read -r off tk; do
		addr2line -f -i -e "$1" "0x$off" | sed 's/ (discriminator [0-9]*)//' |
			awk -v tk="$tk" -v pc="$2+0x$off" 'function base(s) { sub(/.*\//, "", s); return s }
				{ l[NR] = $0 }
				END { if (NR >= 4) printf "(%s in %s, inlined at %s)\t%s\n", base(l[2]), l[1], base(l[4]), tk
				      else if (l[2] ~ /^\?\?:/) printf "(%s)\t%s\n", pc, tk
				      else printf "(%s)\t%s\n", base(l[2]), tk }'
	done | awk -F '\t' '{ w[$1] += $2 } END { for (l in w) printf "%s\t%.0f\n", l, w[l] }' | sort
}
# the report's procedures and their self ticks: "NAME TICKS"
procs() {
	awk '/^Breakdown of procedures/ { on = 1; next } /^Breakdown of highly/ { on = 0 }
		on && /\(.* refs\) = / { n = $0; sub(/^[.!] \**/, "", n); sub(/ \(.*/, "", n)
			w = $0; sub(/.* refs\) = /, "", w); sub(/,.*/, "", w); print n, w }' "$P.txt"
}

if [ -z "$libc_bid" ] || [ ! -f "$libc_debug" ]; then
	for w in "libc's functions by its symbols" "libc's lines by addr2line" "memcpy and strlen named"; do
		ok "# SKIP $w: no separate debug file for libc ($libc_debug; libc6-dbg, mk/deps.sh)"
	done
else
	pcs_of "$libc_mod" >"$T/libc.pcs"
	# libc's sized function symbols and its PLT entries, by address: "ADDR NAME"
	libc_path=$(printf '%s\n' "$libc_mod" | sed -n 's/.* path=//p')
	{
		nm -n -S --defined-only "$libc_debug" | awk 'NF == 4 && $3 ~ /^[tTwWi]$/ { print $1, $4 }'
		plt_names "$libc_path" "$libc_debug"
	} | sort -s -k1,1 >"$T/libc.syms"
	procs >"$T/procs"
	# per function start: the names there and the ticks of the PCs it holds, "START TICKS NAME,NAME..."
	awk "$HEX"'
		FILENAME == ARGV[1] { a = hex($1); if (!(a in names)) { addr[n++] = a; names[a] = $2 } else names[a] = names[a] "," $2; next }
		{ o = hex($1); lo = 0; hi = n
		  while (lo < hi) { mid = int((lo + hi) / 2); if (addr[mid] <= o) lo = mid + 1; else hi = mid }
		  s = lo ? addr[lo - 1] : -1; t[s] += $2 }
		END { for (s in t) printf "%x %s %s\n", s, t[s], s < 0 ? "-" : names[s] }' \
		"$T/libc.syms" "$T/libc.pcs" >"$T/libc.starts"
	libc_funcs() {
		[ -s "$T/libc.starts" ] || { echo "no sample in libc"; return 1; }
		# functions of the same names (two PLT entries of one function, static functions of one name in
		# several files) are as many procedures of that name: their ticks are compared summed
		awk 'FNR == 1 { f++ }
			f == 1 { w[$1] += $2; next }
			f == 2 { tot[$3] += $2; next }
			{ k = split($3, nm, ","); hit = ""
			  for (i = 1; i <= k; i++) if ((nm[i] in w) && sprintf("%.0f", w[nm[i]]) == sprintf("%.0f", tot[$3])) hit = nm[i]
			  printf "libc+0x%s: %.0f ticks%s, symbols %s: %s\n", $1, $2, tot[$3] != $2 ? sprintf(" (%.0f with the others so named)", tot[$3]) : "",
				$3, hit == "" ? "NOT IN THE REPORT" : "reported as " hit
			  bad += hit == "" }
			END { exit bad > 0 }' "$T/procs" "$T/libc.starts" "$T/libc.starts"
	}
	check "libc's sampled functions are procedures named by libc's symbols, with their PCs' ticks" libc_funcs
	libc_lines() {
		local bad=0 s nm1 got want compared=0
		while read -r s _ nms; do
			nm1=
			for n in ${nms//,/ }; do awk -v n="$n" '$1 == n { f = 1 } END { exit !f }' "$T/procs" && nm1=$n; done
			[ -n "$nm1" ] || { echo "0x$s: not reported"; bad=1; continue; }
			is_active "$nm1" || { echo "$nm1: under 1 %, not among the highly active"; continue; }
			compared=$((compared + 1))
			got=$(proc_lines "$nm1")
			# the PCs of this function, their lines by addr2line, ticks summed per line
			want=$(awk -v s="$s" "$HEX"'BEGIN { lo = hex(s) }
					FILENAME == ARGV[1] { a = hex($1); if (a > lo && (nx == "" || a < nx)) nx = a; next }
					{ o = hex($1); if (o >= lo && (nx == "" || o < nx)) print $1, $2 }' "$T/libc.syms" "$T/libc.pcs" |
				where_of "$libc_debug" libc.so.6)
			if [ "$got" != "$want" ]; then
				echo "$nm1: the report has"; printf '%s\n' "$got"; echo "addr2line has"; printf '%s\n' "$want"
				bad=1
			fi
		done <"$T/libc.starts"
		echo "$compared functions compared"
		[ "$compared" -gt 0 ] && return $bad
	}
	check "libc's functions' (FILE:LINE) lines hold the ticks addr2line puts on them" libc_lines
	# Under ThreadSanitizer a CPU tick's signal waits for the thread's next intercepted call, so where
	# it lands is chance: memcpy had no tick in 2 runs of 14, strlen always had.
	named() {
		awk -v tsan="$SPY_TSAN" 'FILENAME == ARGV[1] { if ($3 == "[libc.so.6]") plt0 = 1; next }
			$1 ~ /^(__)?(memcpy|memmove)/ && $2 > 0 { m = 1 } $1 ~ /^(__)?strlen/ && $2 > 0 { s = 1 }
			$1 == "[libc.so.6]" { left = 1 }
			END { print "memcpy: " m ", strlen: " s ", [libc.so.6]: " left ", ticks in PLT0: " plt0
			      exit !((tsan || (m && s)) && (!left || plt0)) }' "$T/libc.starts" "$T/procs"
	}
	check "libc's memcpy and strlen variants have ticks under their names$([ -z "$SPY_TSAN" ] || echo " (not asked under ThreadSanitizer: $TSAN_DELAYS_SIGNALS)"), no [libc.so.6] left (but for PLT0's ticks)" named
fi

# Under ThreadSanitizer libtsan's checks of libc's 4 MiB copies take most of the run's ticks: libhot's
# loop and churn fall under the 1 % the "highly active procedures" need, and their lines are not listed.
TSAN_INACTIVE="libtsan's checks of the 4 MiB copies take the ticks: libhot's loop and churn are under 1 %, not highly active"
hot() {
	[ -z "$SPY_TSAN" ] || return 0
	[ -n "$hot_mod" ] || { echo "no libhot.so module in the dump"; return 1; }
	entry=$(nm -D --defined-only "$T/libhot.so" | awk '$3 == "hot_entry" { print $1 }')
	want=$(pcs_of "$hot_mod" | awk -v e="$entry" "$HEX"'BEGIN { e = hex(e) } hex($1) < e { printf "(libhot.so+0x%s)\t%.0f\n", $1, $2 }' | sort)
	got=$(proc_lines '[libhot.so]')
	echo "report:"; printf '%s\n' "$got"; echo "dump:"; printf '%s\n' "$want"
	[ -n "$want" ] && [ "$got" = "$want" ]
}
check "libhot.so's unnamed loop is [libhot.so], its PCs as libhot.so+0xOFFSET with their ticks$(tsan_skip "$TSAN_INACTIVE")" hot
main_mod=$(awk '$1 == "module" && / flags=main/' "$P.dump")
inlined() {
	local lo hi got want
	[ -z "$SPY_TSAN" ] || return 0
	read -r lo hi < <(nm -S "$P" | awk '$4 == "churn" { print $1, $2 }')
	[ -n "$lo" ] || { echo "no churn in nm's symbols"; return 1; }
	got=$(proc_lines churn)
	want=$(pcs_of "$main_mod" | awk -v lo="$lo" -v n="$hi" "$HEX"'BEGIN { lo = hex(lo); hi = lo + hex(n) }
		{ o = hex($1); if (o >= lo && o < hi) print }' | where_of "$P" "${P##*/}")
	echo "report:"; printf '%s\n' "$got"; echo "addr2line -f -i:"; printf '%s\n' "$want"
	[ -n "$want" ] && [ "$got" = "$want" ] && printf '%s\n' "$got" | grep -q ' in step, inlined at libs\.c:'
}
check "churn's lines name the inlined step and the line it was inlined at, as addr2line -f -i$(tsan_skip "$TSAN_INACTIVE")" inlined
check "no absolute address anywhere in the report" eval '! grep -nE "0x[0-9a-f]{9,}" "$P.txt"'
tap_done
