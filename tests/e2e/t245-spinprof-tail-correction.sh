#!/bin/bash
# t245: the hooks' cost through tail calls (issue 23), format revision 4. A synthetic time profile
# (written through gmon_encode, 1 cycle = 1 ms) whose raw self cycles hold the header's hook costs by
# construction: main -> loop -> disp (1000 calls), disp tail-calls w from a TAILS site; spinprof takes
# a call's hook_in and hook_out off, and a tail call's hook_tail_in off disp and hook_tail_out off loop,
# leaving exactly 3, 1, 2 and 5 seconds; the same numbers as revision 3 (no TAILS) leave the tail calls'
# cost in (loop 26 s) and disp below 0 (shown as 0, and said). Then samples/tailwork.c from the runtime:
# the TAILS record holds disp's tail call site and no other (wrap's tail call to memset has no hooks),
# the header its calibration, and memset's time is wrap's, which jumped to it, not its caller's.
. "$(dirname "$0")/lib-spinprof.sh"
. "$(dirname "$0")/lib-runtime.sh"

[ -x "$SPINPROF" ] || tap_skip_all "no spinprof"
rt_setup
tap_plan 7

cat >"$T/tailgen.c" <<'EOF2'
#include <stdlib.h>
#include <string.h>
#include "gmon-format.h"
/* tailgen OUT 4: with the TAILS record and the tail costs; tailgen OUT 3: the same cycles without them,
 * as a file before revision 4 says them; tailgen OUT 4 samp: revision 4 with CPU samples at 1000 Hz,
 * 200,000 ticks in the profiler and 11,000 in w */
enum { MAIN, LOOP, DISP, W, NF };
static const char *names[NF] = { "main", "loop", "disp", "w" };
#define EXE 0x401000ull
#define LIBC 0x7f0000000000ull
static uint64_t fa(int f) { return EXE + 0x100 * (uint64_t)f; }
int main(int argc, char **argv)
{
	struct gmon_profile p;
	struct gmon_thread *t;
	uint8_t *buf;
	size_t len;
	FILE *f;
	const uint64_t n = 1000, tail_site = fa(DISP) + 0x40;
	int rev4 = argc > 2 && atoi(argv[2]) == 4;

	gmon_profile_init(&p);
	p.hdr.tool = strdup("spy test");
	p.hdr.mode = 2; /* time */
	p.hdr.start_ns = 1000000000;
	p.hdr.end_ns = 2000000000;
	p.hdr.tsc_hz = 1000;
	p.hdr.hook_out_mcyc = 30000;
	p.hdr.hook_in_mcyc = 40000;
	p.hdr.hook_tail_in_mcyc = rev4 ? -10000 : 0;
	p.hdr.hook_tail_out_mcyc = rev4 ? 25000 : 0;
	p.hdr.error = strdup("");
	p.nmodules = 2;
	p.modules = calloc(2, sizeof(*p.modules));
	p.modules[0] = (struct gmon_module){ .id = 0, .flags = GMON_MOD_MAIN | GMON_MOD_INSTRUMENTED,
					     .base = 0, .text_lo = EXE, .text_hi = EXE + 0x1000,
					     .path = strdup("/nonexistent/tailgen-exe") };
	p.modules[1] = (struct gmon_module){ .id = 1, .base = LIBC, .text_lo = LIBC,
					     .text_hi = LIBC + 0x1000, .path = strdup("/nonexistent/libc.so.6") };
	p.nfuncsets = 1;
	p.funcsets = calloc(1, sizeof(*p.funcsets));
	p.funcsets[0].module = 0;
	p.funcsets[0].plugin_mode = 2;
	p.funcsets[0].nr = NF;
	p.funcsets[0].funcs = calloc(NF, sizeof(struct gmon_func));
	for (int i = 0; i < NF; i++)
		p.funcsets[0].funcs[i] = (struct gmon_func){ .addr = fa(i), .count = i == MAIN ? 1 : i == LOOP ? 1 : n,
							     .line = 5 + 10 * i, .flags = 1,
							     .name = strdup(names[i]), .file = strdup("tailgen.c") };
	p.nthreads = 1;
	p.threads = t = calloc(1, sizeof(*p.threads));
	t->tid = 100;
	t->flags = GMON_THREAD_MAIN;
	t->name = strdup("tailgen");
	/* raw self: each function's own cycles plus the hooks' that land in it */
	uint64_t w_self = 5000 + n * 40, disp_self = 2000 + n * (40 + 30) - n * 10;
	uint64_t loop_self = 1000 + 40 + n * 30 + n * 25, main_self = 3000 + 40 + 30;
	uint64_t w_incl = w_self, disp_incl = disp_self + w_incl, loop_incl = loop_self + disp_incl;
	t->narcs = 4;
	t->arcs = calloc(4, sizeof(*t->arcs));
	t->arcs[0] = (struct gmon_arc){ LIBC + 0x100, 0, fa(MAIN), 1, main_self + loop_incl, main_self };
	t->arcs[1] = (struct gmon_arc){ fa(MAIN) + 0x20, fa(MAIN), fa(LOOP), 1, loop_incl, loop_self };
	t->arcs[2] = (struct gmon_arc){ fa(LOOP) + 0x20, fa(LOOP), fa(DISP), n, disp_incl, disp_self };
	t->arcs[3] = (struct gmon_arc){ tail_site, fa(DISP), fa(W), n, w_incl, w_self };
	if (argc > 3) {
		struct gmon_samples *ss;

		p.sampling = calloc(1, sizeof(*p.sampling));
		p.sampling->watch = GMON_WATCH_CPU;
		p.sampling->hz = 1000;
		p.sampling->divisor = 1;
		p.sampling->target = strdup("");
		p.sampling->start = strdup("");
		p.sampling->stop = strdup("");
		p.sampling->expected = p.sampling->taken = 211000;
		p.sampling->in_runtime = 200000;
		p.nsamples = 1;
		p.samples = ss = calloc(1, sizeof(*p.samples));
		ss->tid = 100;
		ss->nstacks = 2;
		ss->stacks = calloc(2, sizeof(*ss->stacks));
		ss->nframes = 2;
		ss->frames = calloc(2, sizeof(*ss->frames));
		ss->frames[0] = (struct gmon_frame){ fa(W), tail_site };
		ss->frames[1] = (struct gmon_frame){ fa(W), tail_site };
		ss->stacks[0] = (struct gmon_stack){ 200000, 200000ull * 1000000, LIBC + 0x800, GMON_STACK_RUNTIME,
						     1, &ss->frames[0] };
		ss->stacks[1] = (struct gmon_stack){ 11000, 11000ull * 1000000, fa(W) + 0x10, 0, 1, &ss->frames[1] };
	}
	if (rev4) {
		p.ntail_sites = 1;
		p.tail_sites = malloc(sizeof(uint64_t));
		p.tail_sites[0] = tail_site;
	}
	if (gmon_encode(&p, 1, &buf, &len) || !(f = fopen(argv[1], "wb")))
		return 1;
	fwrite(buf, 1, len, f);
	return fclose(f) != 0;
}
EOF2
# shellcheck disable=SC2086
# the generator makes one profile by hand and exits: what it leaves allocated is no finding of LeakSanitizer's
tailgen() { ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 "$T/tailgen" "$@"; }
check "the generator builds" $CC -O1 -g $SPY_SAN_FLAGS -I"$SPY_SRC/common" "$T/tailgen.c" "$GMON_IO" -o "$T/tailgen" -lz -lm

flat_self() { # FILE: "NAME SELF" of the flat profile
	"$SPINPROF" -b -p "$1" | awk '$NF ~ /^(main|loop|disp|w)$/ { print $NF, $3 }' | sort
}
exact() {
	tailgen "$T/tail4.out" 4 || return 1
	flat_self "$T/tail4.out" >"$T/self4"
	printf '%s\n' 'disp 2.00' 'loop 1.00' 'main 3.00' 'w 5.00' | diff - "$T/self4" &&
		"$SPINPROF" "$T/tail4.out" | grep -q '^tail calls: 1000, each -10.0 cycles to the tail caller and +25.0 to its caller' &&
		! "$SPINPROF" "$T/tail4.out" | grep -q '^hook correction'
}
check "revision 4: a call's and a tail call's hook costs off the functions that hold them, exactly" exact

untold() {
	tailgen "$T/tail3.out" 3 || return 1
	flat_self "$T/tail3.out" >"$T/self3"
	printf '%s\n' 'disp 0.00' 'loop 26.00' 'main 3.00' 'w 5.00' | diff - "$T/self3" &&
		"$SPINPROF" "$T/tail3.out" |
		grep -q "^hook correction: 1 functions' self time would go below 0 by 8.000000 seconds in all"
}
check "without the tail calls' sites: their cost left in the caller's caller, and what went below 0 said" untold

# CPU samples that put more time in the profiler than the calibration took off: the rest is said
# (issue 23, item 2): 200 s of ticks against 155.110 s taken off (3000 + 1000 + 2000 + 5000 cycles
# left of 166,110), 44.890 s more, 22.4 cycles for each of the 2,002 calls
said() {
	tailgen "$T/tails.out" 4 samp || return 1
	flat_self "$T/tails.out" >"$T/selfs"
	printf '%s\n' 'disp 2.00' 'loop 1.00' 'main 3.00' 'w 5.00' | diff - "$T/selfs" || return 1
	"$SPINPROF" "$T/tails.out" | grep '^hook correction' | grep -Fx 'hook correction: the samples put 200.000000 s of CPU in the profiler (hooks, writer, sampler), 44.890000 s more than the calibration took off the functions: up to 22.4 cycles a call of the hooks'"'"' cost is still in the functions'"'"' self time, most where calls are many'
}
check "what the calibration left in the functions, by the samples, said" said

TW=$T/tailwork
if check "tailwork builds" rt_sample tailwork "$TW"; then
	tails() {
		RT_ENV="SPYRT_MODE=time" rt_run "$TW" 20000 50 500 || return 1
		rt_dump "$TW.out" >"$TW.dump" || return 1
		# disp's one tail call site, the return address of its call of __spy_tail
		local site want
		site=$(awk '$1 == "tail" { sub(/^site=0x/, "", $2); print $2 }' "$TW.dump")
		want=$(awk '$1 == "arc" { c = ""; e = ""; s = ""; for (i = 2; i <= NF; i++) { if (index($i, "caller=") == 1) c = substr($i, 8); if (index($i, "callee=") == 1) e = substr($i, 8); if (index($i, "site=0x") == 1) s = substr($i, 8) } if (c == "disp") print s }' "$TW.dump" | sort -u)
		[ -n "$site" ] && [ "$(wc -l <<<"$site")" -eq 1 ] && [ "$site" = "$want" ] ||
			{ echo "TAILS: [$site], disp's arcs' sites: [$want]"; return 1; }
		grep -Eq '^tailcost in=-?[0-9]+\.[0-9]{3} out=-?[0-9]+\.[0-9]{3}$' "$TW.dump" &&
			! grep -q '^tailcost in=0.000 out=0.000$' "$TW.dump"
	}
	check "the runtime: the TAILS record holds disp's tail call site alone, the header its calibration" tails
	wrapped() {
		# memset's own time is a row of code without hooks (librows.c) under wrap in the call graph:
		# wrap's total (its %time there) holds it, wrapper_caller's self does not
		"$SPINPROF" -b -p "$TW.out" >"$TW.flat" && "$SPINPROF" -b -q "$TW.out" >"$TW.graph" || return 1
		local c w parent
		c=$(awk '$NF == "wrapper_caller" { print $1; exit }' "$TW.flat")
		w=$(awk '/^\[[0-9]+\]/ && $(NF - 1) == "wrap" { print $2; exit }' "$TW.graph")
		# the parent line of memset's entry: the line just above its primary line
		parent=$(awk '/^\[[0-9]+\]/ && /memset/ && /\[libc/ { print prev; exit } NF > 1 { prev = $(NF - 1) }' "$TW.graph")
		awk -v w="$w" -v c="$c" -v p="$parent" 'BEGIN { if (!(w > 10 * c && w > 0 && p == "wrap")) {
			print "wrap " w "% in all, wrapper_caller " c "% self, memset under " p; exit 1 } }' ||
			{ cat "$TW.flat" "$TW.graph"; return 1; }
	}
	check "memset's time, reached by a tail call, is wrap's, not its caller's" wrapped
else
	not_ok "the runtime's TAILS record # not built"
	not_ok "memset's time is wrap's # not built"
fi
tap_done
