#!/bin/bash
# t006: the add-one counter is exact under threads: samples/threads.c with several thread counts,
# in mode time (counter and hooks) and mode count (counter only). Per-thread slabs must survive
# their threads.
. "$(dirname "$0")/lib.sh"
need_plugin
setup_workdir

# threads_run PROG MODE N M: run with N threads of M calls and check the exact counts.
threads_run() {
	local prog=$1 mode=$2 n=$3 m=$4 tr=$1-$3x$4.trace exp=$1-$3x$4.expect
	threads_expect "$n" "$m" >"$exp"
func main 1
func worker $n
func work $((n * m))
arc <spontaneous> main 1
arc <spontaneous> worker $n
arc worker work $((n * m))
EOT
	run_traced "$prog" "$tr" "$n" "$m" || return 1
	trace_compare "$exp" "$tr" O2 "$mode" || return 1
	grep -qx "threads $((n + 1))" "$tr" || { echo "want threads $((n + 1))"; grep '^threads' "$tr"; return 1; }
}

runs="1:400000 2:200000 3:100000 8:50000 16:10000"
tap_plan $((2 + 2 * $(wc -w <<<"$runs")))
for mode in time count; do
	prog=$T/threads-$mode
	if ! check "threads builds, mode $mode" build_sample threads O2 "$prog" -fplugin-arg-spyinstr-mode=$mode; then
		for r in $runs; do not_ok "threads mode $mode $r (not built)"; done
		continue
	fi
	for r in $runs; do
		check "mode $mode: ${r%%:*} threads x ${r#*:} calls, exact" threads_run "$prog" $mode "${r%%:*}" "${r#*:}"
	done
done
tap_done
