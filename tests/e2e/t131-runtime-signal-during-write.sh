#!/bin/bash
# t131: a SIGTERM that comes while the exit-time profile is being written waits for the write: the
# profile (several MB, into a FIFO whose reader holds it back) arrives whole and reads, and then the
# process dies by SIGTERM, as it would have.
. "$(dirname "$0")/lib-runtime.sh"
rt_setup
tap_plan 2

# samples/stacks.c 16: 2^16 leaf calls under 2^16 distinct stacks of 17 frames: a profile far above a
# pipe's 64 KiB
check "the program builds" rt_cc "$T/big" "$CC" "$SAMPLES/stacks.c"

during() {
	local pid rc n
	cd "$T" && rm -f fifo got && mkfifo fifo || return 1
	exec 3<>fifo # a reader that reads nothing yet: the write blocks once the pipe is full
	SPYRT_WATCH=calls:leaf SPYRT_OUT=$T/fifo ./big 16 2>err &
	pid=$!
	# the run is short; wait until its write is stuck in the full pipe
	for ((n = 0; n < 100; n++)); do
		grep -q 'pipe_write\|pipe_wait' "/proc/$pid/wchan" 2>/dev/null && break
		sleep 0.1
	done
	echo "wchan: $(cat "/proc/$pid/wchan" 2>/dev/null)"
	kill -TERM "$pid"
	sleep 0.3
	timeout 5 cat <&3 >got
	exec 3<&-
	wait "$pid"
	rc=$?
	echo "status $rc, $(stat -c %s got) bytes"; cat err
	[ $rc -eq 143 ] && [ "$(stat -c %s got)" -gt 65536 ] && "$SPY_BUILD/spinprof" -b got >report 2>&1 &&
		grep -qx 'func leaf 65536' <(rt_facts got) || { head -n 3 report; return 1; }
}
check "SIGTERM during the exit-time write: the whole profile arrives, then the process dies by SIGTERM" during

tap_done
