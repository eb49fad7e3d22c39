#!/bin/bash
# t282: spinprof --format=pprof of a really sampled run, read by Go's pprof (go tool pprof):
# samples/twocallers.c (heavy and light each do half of the work, in work()) run with SPYRT_WATCH=cpu.
# pprof reads the file (gzipped profile.proto); its sample count is the profile's samples (the dump's
# stacks' counts summed) and its cpu total their nanoseconds; work holds nearly all the flat time, main
# all the cumulative; heavy and light each 30-70 % (half each by construction); -traces shows work
# under heavy and under light, with the thread's tid as a label; the main mapping carries the
# executable's build-id as readelf prints it; -lines puts work's flat time on lines of work's body.
. "$(dirname "$0")/lib-pprof.sh"

[ -x "$SPINPROF" ] || tap_skip_all "no spinprof"
rt_setup
pp_go_setup

S=${SPY_TWOCALLERS_S:-40000}
P=$T/twocallers
SRC=$SAMPLES/twocallers.c

run_it() {
	rt_sample twocallers "$P" || return 1
	RT_ENV="SPYRT_WATCH=cpu" rt_run "$P" "$S" || return 1
	sp_export pprof "$P.pb.gz" "$P.out" || return 1
	[ ! -s "$P.err" ] || { echo "spinprof wrote on stderr:"; cat "$P.err"; return 1; }
}
if ! run_it >"$T/setup.log" 2>&1; then
	echo "1..1"
	not_ok "twocallers builds, runs with SPYRT_WATCH=cpu, spinprof --format=pprof writes it"
	diag <"$T/setup.log"
	tap_done
fi
[ "$(rt_get "$P.out" sampling taken)" -gt 0 ] 2>/dev/null || tap_skip_all "the runtime recorded no cpu samples"

tap_plan 7

reads() {
	gzip -t "$P.pb.gz" || { echo "not gzip"; return 1; }
	pp -top -unit=ns "$P.pb.gz" >"$P.top" || { echo "go tool pprof -top failed"; cat "$T/pprof.err"; return 1; }
	pp -top -sample_index=samples "$P.pb.gz" >"$P.samples" || { cat "$T/pprof.err"; return 1; }
	grep -q '^Type: cpu$' "$P.top" || { echo "not a cpu profile"; head "$P.top"; return 1; }
}
check "go tool pprof reads the gzipped profile.proto (-top, type cpu)" reads

totals() {
	local want_n want_ns got_n got_ns
	want_n=$(rt_dump "$P.out" | awk '$1 == "stack" { for (i = 2; i <= NF; i++) if ($i ~ /^count=/) s += substr($i, 7) } END { printf "%.0f\n", s }')
	want_ns=$(rt_dump "$P.out" | awk '$1 == "stack" { for (i = 2; i <= NF; i++) if ($i ~ /^weight=/) s += substr($i, 8) } END { printf "%.0f\n", s }')
	got_n=$(sed -n 's/^Showing .* of \([0-9]*\) total$/\1/p' "$P.samples" | head -n 1)
	got_ns=$(sed -n 's/^Showing .* of \([0-9]*\)ns total$/\1/p' "$P.top" | head -n 1)
	[ "$got_n" = "$want_n" ] || { echo "pprof: $got_n samples, the profile's stacks: $want_n"; head -n 8 "$P.samples"; return 1; }
	[ "$got_ns" = "$want_ns" ] || { echo "pprof: ${got_ns}ns, the profile's stacks: ${want_ns}ns"; head -n 8 "$P.top"; return 1; }
}
check "the samples and the nanoseconds are the profile's, to the unit" totals

shares() {
	local work main heavy light
	work=$(pp_top "$P.top" work 2)
	main=$(pp_top "$P.top" main 5)
	heavy=$(pp_top "$P.top" heavy 5)
	light=$(pp_top "$P.top" light 5)
	awk -v w="$work" -v m="$main" -v h="$heavy" -v l="$light" 'BEGIN {
		if (w < 85) { print "work flat " w " %"; exit 1 }
		if (m < 95) { print "main cum " m " %"; exit 1 }
		if (h < 30 || h > 70 || l < 30 || l > 70) { print "heavy cum " h " %, light cum " l " %"; exit 1 }
		if (h + l < 95) { print "heavy + light = " h + l " %"; exit 1 }
	}' || { cat "$P.top"; return 1; }
}
check "work has the flat time, main all, heavy and light each half (30-70 %)" shares

traces() {
	pp -traces "$P.pb.gz" >"$P.traces" || return 1
	awk -v tid="$(rt_get "$P.out" thread tid)" '
		/^-----/ { if (n) check(); n = 0; t = ""; on = 1; next }
		!on { next }
		$1 == "tid:" { t = $2; next }
		$1 == "thread:" { next }
		{ fr[++n] = $NF }
		function check() {
			if (t != tid) { print "a trace without the tid label " tid; bad = 1 }
			if (fr[1] == "work" && fr[2] == "heavy" && fr[3] == "main") h++
			if (fr[1] == "work" && fr[2] == "light" && fr[3] == "main") l++
		}
		END { if (n) check(); if (!h || !l || bad) { print "work/heavy/main " h ", work/light/main " l; exit 1 } }' "$P.traces" ||
		{ head -n 40 "$P.traces"; return 1; }
}
check "-traces: work under heavy and under light, each trace labelled with the thread's tid" traces

buildid() {
	local want got
	want=$(readelf -n "$P" | sed -n 's/^ *Build ID: *//p' | head -n 1)
	[ -n "$want" ] || { echo "readelf finds no build-id in $P"; return 1; }
	got=$(sed -n 's/^Build ID: //p' "$P.top")
	[ "$got" = "$want" ] || { echo "pprof's build ID '$got', readelf's '$want'"; return 1; }
	pp -raw "$P.pb.gz" | awk -v b="$want" -v p="$P" '/^Mappings/ { on = 1; next } on && $1 == "1:" && $3 == p && $4 == b { ok = 1 }
		END { exit !ok }' || { echo "mapping 1 is not $P with build-id $want"; pp -raw "$P.pb.gz" | sed -n '/^Mappings/,$p'; return 1; }
}
check "the first mapping is the executable with its build-id (readelf -n)" buildid

lines() {
	local lo hi
	lo=$(grep -n '^NOINL void work(long n)' "$SRC" | cut -d: -f1)
	hi=$(awk -v lo="$lo" 'NR > lo && /^}/ { print NR; exit }' "$SRC")
	# every line kept (pprof drops nodes under 0.5 % of the total by default: a line of work with 5 ms)
	pp -top -lines -unit=ns -nodefraction=0 -nodecount=100000 "$P.pb.gz" >"$P.lines" || return 1
	awk -v lo="$lo" -v hi="$hi" -v want="$(pp_top "$P.top" work 1)" '
		$6 == "work" { split($7, a, ":"); if (a[2] < lo || a[2] > hi || a[1] !~ /twocallers\.c$/) { print "outside work: " $0; bad = 1 }
			v = $1; sub(/ns$/, "", v); s += v; n++ }
		END { want += 0; if (!n || bad || s != want + 0) { print n " lines of work, " s "ns, work flat " want; exit 1 } }' "$P.lines" ||
		{ head -n 30 "$P.lines"; return 1; }
}
check "-lines: work's flat time lies on lines of work's body and adds up to it" lines

# the function table: each known function once, with its file and its start line
funcs() {
	pp -raw "$P.pb.gz" >"$P.raw" || return 1
	local f l
	for f in main heavy light work; do
		l=$(grep -nE "^(NOINL )?[a-z ]*[ *]$f\(" "$SRC" | head -n 1 | cut -d: -f1)
		grep -Eq " $f [^ ]*twocallers\.c:[0-9]+ s=$l\$" "$P.raw" ||
			{ echo "no location of $f with start line $l"; sed -n '/^Locations/,/^Mappings/p' "$P.raw"; return 1; }
	done
}
check "locations name main, heavy, light and work with their file and start line" funcs

tap_done
