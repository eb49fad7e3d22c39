#!/bin/bash
# t270: spinprof --format=folded: one line "root;...;leaf WEIGHT" per distinct stack. samples/flame.c
# with SPYRT_WATCH=calls:leaf (a stack per call of leaf) must give exactly the five paths and counts
# its header states; the lines must be those folded independently from the runtime's own records
# (the text dump's stack lines: frames reversed, the target appended, counts summed); --threads puts
# each thread as its stacks' root frame (samples/threads.c: M calls of work per thread, each thread
# once, its tid as the dump names it); CPU samples of flame split as its calls do (within 0.1); a
# profile without stacks is one line and status 2.
. "$(dirname "$0")/lib-folded.sh"

fl_setup
tap_plan 6
P=$T/flame

folded_exact() {
	fl_build flame "$P" || return 1
	RT_ENV=SPYRT_WATCH=calls:leaf rt_run "$P" 10 || return 1
	"$SPINPROF" --format=folded -o "$P.folded" "$P.out" || return 1
	cat "$P.folded"
	# the truth, from the sample's construction (see samples/flame.c)
	printf '%s\n' "main;a;leaf 100" "main;b;leaf 100" "main;b;a;leaf 50" "main;c;b;leaf 40" \
		"main;c;b;a;leaf 20" | LC_ALL=C sort >"$P.truth"
	LC_ALL=C sort "$P.folded" | diff "$P.truth" -
}
if ! sp_check "flame, calls:leaf: the five call paths with their exact counts" folded_exact; then
	for _ in 1 2 3 4 5; do not_ok "no profile of flame"; done
	tap_done
fi

against_dump() {
	fl_dump_folded "$P.out" leaf >"$P.ref"
	LC_ALL=C sort "$P.folded" | diff "$P.ref" -
}
check "the lines are the runtime's records folded independently (the text dump's stacks)" against_dump

threads() {
	local Q=$T/threads tids
	fl_build threads "$Q" || return 1
	RT_ENV=SPYRT_WATCH=calls:work rt_run "$Q" 3 1000 || return 1
	"$SPINPROF" --format=folded "$Q.out" >"$Q.folded" || return 1
	"$SPINPROF" --format=folded --threads "$Q.out" >"$Q.thr" || return 1
	cat "$Q.folded" "$Q.thr"
	tids=$("$SPINPROF" --dump "$Q.out" | awk '$1 == "stack" && /frames=worker@/ { sub(/tid=/, "", $2); print $2 }' | sort -u)
	[ "$(wc -w <<<"$tids")" -eq 3 ] || { echo "the dump has stacks of worker in $(wc -w <<<"$tids") threads"; return 1; }
	grep -qx 'worker;work 3000' "$Q.folded" || return 1
	for t in $tids; do
		grep -Eq "^thread $t( [^;]*)?;worker;work 1000\$" "$Q.thr" || { echo "no line of thread $t"; return 1; }
	done
	[ "$(grep -c ';worker;work ' "$Q.thr")" -eq 3 ]
}
check "threads, calls:work: one stack set (3000 under worker); --threads: each thread's 1000 under its tid" threads

cpu() {
	RT_ENV=SPYRT_WATCH=cpu rt_run "$P" 1000000 || return 1
	"$SPINPROF" --format=folded "$P.out" >"$P.cpu" || return 1
	cat "$P.cpu"
	awk '{ w = $NF; all += w; if ($1 ~ /^main;b;/) b += w; if ($1 ~ /^main;c;/) c += w }
		END { printf "main;b %.3f (150/310 = 0.484), main;c %.3f (60/310 = 0.194) of %s\n", b / all, c / all, all
		      exit !(all >= 50 && b / all > 0.384 && b / all < 0.584 && c / all > 0.094 && c / all < 0.294) }' "$P.cpu"
}
check "flame, CPU samples: main;b's and main;c's stacks weigh as their calls of leaf do (within 0.1)" cpu

nostacks() {
	local Q=$T/count
	rt_sample calls "$Q" -fplugin-arg-spyinstr-mode=count || return 1
	RT_ENV=SPYRT_WATCH=none rt_run "$Q" || return 1
	"$SPINPROF" --format=folded "$Q.out" >"$Q.folded" 2>"$Q.err"
	local rc=$?
	cat "$Q.err"
	[ $rc -eq 2 ] && [ ! -s "$Q.folded" ] && [ "$(wc -l <"$Q.err")" -eq 1 ] &&
		grep -q "^spinprof: $Q.out: no stacks: " "$Q.err"
}
check "a profile without samples or times: one line, status 2" nostacks

bad() {
	head -c 200 "$P.out" >"$T/cut.out"
	"$SPINPROF" --format=folded "$T/cut.out" >/dev/null 2>"$T/cut.err"
	local rc=$?
	cat "$T/cut.err"
	[ $rc -eq 2 ] && [ "$(wc -l <"$T/cut.err")" -eq 1 ] && grep -q "^spinprof: $T/cut.out: " "$T/cut.err"
}
check "a truncated profile: one line, status 2" bad
tap_done
