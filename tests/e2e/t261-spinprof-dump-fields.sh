#!/bin/bash
# t261: spinprof --dump prints every field of every record. A profile made by gmon_encode() with each
# field set to a value of its own (all header flags named, a TSC source, unknown module and thread flag
# bits, revision 2's off-CPU fields of a thread and its arcs, the <spontaneous> and <various> callers, a
# site in no module, the first and last histogram buckets, an unregistered count, every sampling field,
# stack flags and a stack without frames, strings with blanks, a tab, a newline, a backslash, DEL and
# empty ones) dumps to exactly the text known by construction, equal to the test tool's.
. "$(dirname "$0")/lib-spinprof.sh"
. "$(dirname "$0")/lib-runtime.sh"

[ -x "$SPINPROF" ] || tap_skip_all "no spinprof"
rt_setup

tap_plan 3

cat >"$T/gen.c" <<'C'
/* gen OUT: a profile with every record and field set to a value of its own */
#include <stdlib.h>
#include <string.h>
#include "gmon-format.h"

int main(int argc, char **argv)
{
	static char *args[] = { "./prog", "two words", "", "back\\slash", "new\nline" };
	static uint8_t bid[3] = { 0xab, 0x01, 0xff };
	static struct gmon_module mods[2];
	static struct gmon_func fa[3];
	static struct gmon_funcs fs[1];
	static struct gmon_arc arcs[3];
	static struct gmon_arcoff offs[3];
	static struct gmon_fstat fst[1];
	static uint64_t hist[GMON_HIST_BUCKETS];
	static struct gmon_count cnt[2];
	static struct gmon_thread th[2];
	static struct gmon_sampling smp;
	static struct gmon_frame fr[3];
	static struct gmon_stack st[2];
	static struct gmon_samples ss[1];
	static struct gmon_counter ctr[2];
	struct gmon_profile p;
	static uint64_t tails[2] = { 0x2160, 0x6000 };
	uint8_t *buf;
	size_t len;
	char err[256];

	if (argc != 2)
		return 1;
	memset(&p, 0, sizeof(p));
	p.hdr = (struct gmon_header){ .tool = "spy 9.9", .abi = 5, .pid = 101, .ppid = 102, .mode = 2,
		.flags = GMON_HDR_FORKED | GMON_HDR_OFFCPU_NONE | GMON_HDR_SIGNAL | GMON_HDR_INCOMPLETE |
			 (5u << GMON_HDR_TSC_SOURCE_SHIFT),
		.start_ns = 1001, .end_ns = 1002, .tsc_hz = 1003, .hook_out_mcyc = 12345,
		.hook_in_mcyc = 7, .tsc_read_mcyc = 1000, .hook_tail_in_mcyc = -1234, .hook_tail_out_mcyc = 5,
		.dropped_arcs = 11, .dropped_funcs = 12,
		.dropped_frames = 13, .abandoned = 14, .unmatched = 15, .slots_lost = 16,
		.unregistered = 17, .error = "bad\tthing: here", .argc = 5, .argv = args };
	mods[0] = (struct gmon_module){ 3, GMON_MOD_MAIN | GMON_MOD_INSTRUMENTED, 0x1000, 0x2000, 0x3000,
					"/a dir/prog", 3, bid };
	mods[1] = (struct gmon_module){ 4, GMON_MOD_CLOSED | GMON_MOD_VDSO | 0x100, 0, 0x9000, 0x9100,
					"", 0, NULL };
	p.nmodules = 2;
	p.modules = mods;
	fa[0] = (struct gmon_func){ 0x2100, 21, 31, 1, "main", "prog.c" };
	fa[1] = (struct gmon_func){ 0x2200, 22, 32, 6, "odd name\x7f", "my file.c" };
	fa[2] = (struct gmon_func){ 0x2300, 23, 33, 0, "leaf", "" };
	fs[0] = (struct gmon_funcs){ 3, 1, 3, fa };
	p.nfuncsets = 1;
	p.funcsets = fs;
	arcs[0] = (struct gmon_arc){ 0x2150, GMON_CALLER_NONE, 0x2100, 1, 500, 100 };
	arcs[1] = (struct gmon_arc){ 0x2160, 0x2100, 0x2200, 41, 300, 200 };
	arcs[2] = (struct gmon_arc){ 0x5000, GMON_CALLER_MANY, 0x2300, 42, 60, 50 };
	offs[0] = (struct gmon_arcoff){ 71, 72, 73 };
	offs[1] = (struct gmon_arcoff){ 81, 82, 83 };
	offs[2] = (struct gmon_arcoff){ 91, 92, 0 };
	fst[0] = (struct gmon_fstat){ .addr = 0x2200, .calls = 41, .incl = 300, .self = 200, .min = 2, .max = 99 };
	fst[0].nhist = 40;
	fst[0].hist = hist;
	hist[0] = 5;
	hist[39] = 36;
	cnt[0] = (struct gmon_count){ 0, 4 };
	cnt[1] = (struct gmon_count){ 0x2200, 41 };
	th[0] = (struct gmon_thread){ .tid = 101, .flags = GMON_THREAD_MAIN | GMON_THREAD_OFFCPU,
		.start_ns = 2001, .end_ns = 2002, .name = "t one", .dropped_arcs = 1, .dropped_funcs = 2,
		.dropped_frames = 3, .abandoned = 4, .unmatched = 5, .off_blocked = 6, .off_preempted = 7,
		.off_switches = 8, .off_lost = 9, .narcs = 3, .nfstats = 1, .ncounts = 2, .arcs = arcs,
		.arcoffs = offs, .fstats = fst, .counts = cnt };
	th[1] = (struct gmon_thread){ .tid = 102, .flags = GMON_THREAD_EXITED | 0x80, .name = "" };
	p.nthreads = 2;
	p.threads = th;
	smp = (struct gmon_sampling){ GMON_WATCH_CALLS, GMON_SAMP_THREADS_CUT, 997, 3, "odd name\x7f", "main",
				      "", 301, 302, 303, 304, 305, 306, 307, 308, 309, 310 };
	p.sampling = &smp;
	fr[0] = (struct gmon_frame){ 0x2200, 0x2160 };
	fr[1] = (struct gmon_frame){ 0x2100, 0x2150 };
	fr[2] = (struct gmon_frame){ 0x7777, 0x8888 };
	st[0] = (struct gmon_stack){ 2, 6, 0x2210, GMON_STACK_WAITING | GMON_STACK_RUNTIME | GMON_STACK_CUT, 3, fr };
	st[1] = (struct gmon_stack){ 1, 3, 0, 0, 0, NULL };
	ss[0] = (struct gmon_samples){ 101, 2, 3, st, fr };
	p.nsamples = 1;
	p.samples = ss;
	ctr[0] = (struct gmon_counter){ "threads", 2 };
	ctr[1] = (struct gmon_counter){ "odd key", 77 };
	p.ncounters = 2;
	p.counters = ctr;
	p.ntail_sites = 2;
	p.tail_sites = tails;
	if (gmon_encode(&p, 0, &buf, &len))
		return 1;
	if (gmon_write_file(argv[1], buf, len, GMON_WRITE_NAMED, err, sizeof(err)))
		return 1;
	free(buf);
	return 0;
}
C
gen() {
	# shellcheck disable=SC2086
	$CC -O2 -g $SPY_SAN_FLAGS -I"$SPY_SRC/common" "$T/gen.c" "$GMON_IO" -lz -o "$T/gen" &&
		"$T/gen" "$T/syn.out"
}
check "the synthetic profile is written" gen
cd "$T" || exit 1

exact() {
	local rev size
	rev=$(od -An -tu4 -j8 -N4 syn.out | tr -d ' ')
	size=$(stat -c %s syn.out)
	"$SPINPROF" --dump syn.out >got.txt || return 1
	cat >want.txt <<W
header tool=spy 9.9 abi=5 pid=101 ppid=102 mode=time flags=0x53c
hflags set=forked,offcpu_none,signal,incomplete, tsc_source=perf
times start_ns=1001 end_ns=1002 tsc_hz=1003
overhead hook_out=12.345 hook_in=0.007 tsc_read=1.000
tailcost in=-1.234 out=0.005
lost dropped_arcs=11 dropped_funcs=12 dropped_frames=13 abandoned=14 unmatched=15 slots_lost=16 unregistered=17
error bad\\x09thing: here
argv ./prog two\\x20words  back\\x5cslash new\\x0aline
module id=3 flags=main,instr, base=0x1000 text=0x2000-0x3000 build_id=ab01ff path=/a dir/prog
module id=4 flags=closed,vdso,0x100, base=0x0 text=0x9000-0x9100 build_id=- path=-
func main count=21 module=3 mode=arcs addr=0x2100 flags=0x1 at=prog.c:31
func odd\\x20name\\x7f count=22 module=3 mode=arcs addr=0x2200 flags=0x6 at=my file.c:32
func leaf count=23 module=3 mode=arcs addr=0x2300 flags=0x0 at=-:33
thread tid=101 flags=main,offcpu, name=t\\x20one arcs=3 funcs=1 counts=2 dropped_arcs=1 dropped_funcs=2 dropped_frames=3 abandoned=4 unmatched=5 start_ns=2001 end_ns=2002 off_blocked=6 off_preempted=7 off_switches=8 off_lost=9
arc tid=101 caller=<spontaneous> callee=main count=1 incl=500 self=100 site=0x2150 site_module=3 off_incl=71 off_self=72 off_self_pre=73
arc tid=101 caller=main callee=odd\\x20name\\x7f count=41 incl=300 self=200 site=0x2160 site_module=3 off_incl=81 off_self=82 off_self_pre=83
arc tid=101 caller=<various> callee=leaf count=42 incl=60 self=50 site=0x5000 site_module=-1 off_incl=91 off_self=92 off_self_pre=0
time tid=101 func=odd\\x20name\\x7f calls=41 incl=300 self=200 min=2 max=99 hist=0:5,39:36 outer=0 outer_sum=0 outer_sq_hi=0 outer_sq_lo=0 outer_min=0 outer_hist=
count tid=101 func=<unregistered> count=4
count tid=101 func=odd\\x20name\\x7f count=41
thread tid=102 flags=exited,0x80, name=- arcs=0 funcs=0 counts=0 dropped_arcs=0 dropped_funcs=0 dropped_frames=0 abandoned=0 unmatched=0 start_ns=0 end_ns=0 off_blocked=0 off_preempted=0 off_switches=0 off_lost=0
sampling watch=calls flags=0x4 hz=997 divisor=3 target=odd\\x20name\\x7f start=main stop=- expected=301 taken=302 missed=303 in_runtime=304 dropped=305 cpu_ns=306 faults=307 allocs=308 alloc_bytes=309 handler_cycles=310
stack tid=101 count=2 weight=6 flags=waiting,runtime,cut, pc=0x2210 frames=odd\\x20name\\x7f@0x2160,main@0x2150,0x7777@0x8888
stack tid=101 count=1 weight=3 flags= pc=0x0 frames=-
tail site=0x2160 site_module=3
tail site=0x6000 site_module=-1
counter threads=2
counter odd\\x20key=77
end revision=$rev records=10 length=$size file=syn.out
W
	diff want.txt got.txt
}
check "every field of every record, as constructed" exact

tool() {
	"$T/gmon-dump" syn.out | cmp - got.txt
}
check "the test tool prints the same" tool

tap_done
