#!/bin/bash
# bench/spinprof-bench.sh: spinprof's time and memory on big profiles, side by side with GNU gprof.
# A spy profile of NF functions and NA arcs (bench/spinprof-gen.c, through gmon_encode), and a glibc
# gmon.out with NA arcs and a histogram for an executable of NF tiny functions (generated assembly, so
# it builds in seconds); then `/usr/bin/time -f '%e %M'` of spinprof on each and of gprof on the GNU one
# (all with -b, output to /dev/null): the median and the fastest of RUNS runs (the machine may be shared:
# the median is what counts, the fastest what the program costs undisturbed), the largest RSS, and the
# ratios; a run that fails (exit status not 0) counts as one over the time limit. Goals: spinprof's median on the spy profile <= 0.4 s and <= 200 MB (issue 11), on the GNU one
# <= 1 s and <= 300 MB. Exit status 1 when a goal is missed. The machine's load is printed beside them.
#
# usage: bench/spinprof-bench.sh [RUNS]   (default 5)
# env:   SPY_BUILD (default build/), NF (100000), NA (1000000), CC (gcc), GPROF_TIMEOUT (120 s: gprof
#        takes minutes on these; a run over the limit prints ">120"), BENCH_KEEP=1 keeps the files
set -eu

# shellcheck source=bench/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
spinprof=$build/spinprof
# absolute: the runs below start in the work directory (SPY_BUILD may be relative)
[ -x "$spinprof" ] && spinprof=$(cd "$(dirname "$spinprof")" && pwd)/spinprof
NF=${NF:-100000}
NA=${NA:-1000000}
runs=${1:-5}

[ -x "$spinprof" ] || { echo "bench: no $spinprof (run make first)" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "bench: /usr/bin/time is missing (apt-get install time)" >&2; exit 2; }
bench_workdir spinprof-bench

$CC -O2 -I"$src/common" "$here/spinprof-gen.c" "$src"/common/*.c -o "$w/gen" -lz
# the decoder as spinprof has it (common/ with GMON_ISAL: Intel ISA-L, the inflating thread)
$CC -O2 -DGMON_ISAL -I"$src/common" "$here/read-time.c" "$src"/common/*.c -o "$w/read-time" -lz -lisal
"$w/gen" spy "$w/spy.out" "$NF" "$NA" 1

# NF functions of 16 bytes each, and main
awk -v nf="$NF" 'BEGIN {
	print "\t.text"
	for (i = 0; i < nf; i++) {
		printf "\t.globl f%d\n\t.type f%d, @function\n\t.p2align 4\nf%d:\n\tnop\n\tnop\n\tnop\n\tret\n\t.size f%d, .-f%d\n", i, i, i, i, i
	}
	print "\t.globl main\n\t.type main, @function\nmain:\n\txorl %eax, %eax\n\tret\n\t.size main, .-main"
	print "\t.section .note.GNU-stack,\"\",@progbits"
}' >"$w/prog.s"
$CC -no-pie "$w/prog.s" -o "$w/prog"
nm --defined-only -S "$w/prog" | awk '$3 ~ /^[Tt]$/ && $4 ~ /^f[0-9]+$/ { print $1, $2 }' | sort >"$w/syms"
"$w/gen" gnu "$w/gmon.out" "$NA" <"$w/syms"
echo "spy profile: $NF functions, $NA arcs, $(($(stat -c %s "$w/spy.out") / 1024)) KiB;" \
	"GNU gmon.out: $(wc -l <"$w/syms") symbols, $NA arcs, $(($(stat -c %s "$w/gmon.out") / 1024)) KiB"

# best LABEL CMD...: "median fastest maxrss_kib" of $runs runs
best() {
	local label=$1 i out all=
	shift
	for ((i = 0; i < runs; i++)); do
		# time's own line last: the exit status first, so that a run that failed is not timed
		out=$(cd "$w" && timeout "$limit" /usr/bin/time -f '%x %e %M' "$@" 2>&1 >/dev/null | tail -n 1)
		if ! [[ $out =~ ^0\ [0-9.]+\ [0-9]+$ ]]; then
			echo "$label failed or ran over ${limit} s: $out" >&2
			echo ">$limit >$limit nan"
			return
		fi
		all+="${out#0 }"$'\n'
	done
	printf '%s' "$all" | sort -n | awk '{ t[NR] = $1; if ($2 > m) m = $2 }
		END { printf "%s %s %d\n", t[int((NR + 1) / 2)], t[1], m }'
}
limit=60
read -r sp_s sp_f sp_m < <(best "spinprof spy" "$spinprof" -b spy.out)
read -r sg_s sg_f sg_m < <(best "spinprof gnu" "$spinprof" -b ./prog gmon.out)
# gprof needs minutes here (about 36 s even with 10 000 arcs): one run, up to GPROF_TIMEOUT seconds
limit=${GPROF_TIMEOUT:-120} runs=1
read -r gp_s gp_f gp_m < <(best "gprof gnu" gprof -b ./prog gmon.out)

# the decoder alone (gmon_read_file), of the same spy profile
read -r rd_f rd_s < <("$w/read-time" "$w/spy.out" "$runs")

mb() { awk -v m="$1" 'BEGIN { if (m == "nan") print "?"; else printf "%.1f", m / 1024 }'; }
printf '\n%-34s %10s %10s %10s\n' "" "median s" "fastest s" "max RSS MB"
printf '%-34s %10s %10s %10s\n' "spinprof spy.out" "$sp_s" "$sp_f" "$(mb "$sp_m")"
printf '%-34s %10s %10s %10s\n' "  of which reading it (decoder)" "$rd_s" "$rd_f" ""
printf '%-34s %10s %10s %10s\n' "spinprof ./prog gmon.out" "$sg_s" "$sg_f" "$(mb "$sg_m")"
printf '%-34s %10s %10s %10s\n' "gprof ./prog gmon.out (one run)" "$gp_s" "$gp_f" "$(mb "$gp_m")"
awk -v a="$sg_s" -v b="$gp_s" -v c="$sg_m" -v d="$gp_m" 'BEGIN {
	if (substr(b, 1, 1) == ">") {
		lim = substr(b, 2) + 0
		r = (a + 0) / lim
		printf("spinprof / gprof on the same gmon.out: time < %.4fx (gprof ran over %d s)\n", r, lim)
	} else {
		rt = (b + 0 > 0) ? (a + 0) / (b + 0) : 0
		rm = (d + 0 > 0) ? (c + 0) / (d + 0) : 0
		printf("spinprof / gprof on the same gmon.out: time %.2fx, memory %.2fx\n", rt, rm)
	}
}'
echo "load: $(cut -d' ' -f1-3 /proc/loadavg) (1, 5, 15 min)"
awk -v s1="$sp_s" -v m1="$sp_m" -v s2="$sg_s" -v m2="$sg_m" 'BEGIN {
	ok1 = s1 !~ /^>/ && s1 + 0 <= 0.4 && m1 + 0 <= 200 * 1024
	ok2 = s2 !~ /^>/ && s2 + 0 <= 1 && m2 + 0 <= 300 * 1024
	printf "goal spinprof median on spy.out <= 0.4 s and <= 200 MB: %s\n", ok1 ? "met" : "MISSED"
	printf "goal spinprof median on the GNU gmon.out <= 1 s and <= 300 MB: %s\n", ok2 ? "met" : "MISSED"
	exit !(ok1 && ok2) }'
