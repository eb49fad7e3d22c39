#!/bin/bash
# t230: spinprof on inputs that are legal but unusual, or hostile to its reading:
#   - a profile that lists no function (a program linked with libspyrt, built without the plugin) and
#     the sum of a profile without a THREAD record with one that has them, both orders: read without
#     complaint (under SAN= the sanitizers once stopped both: qsort and memcpy given NULL);
#   - a FIFO, as the profile, as the program or the gmon.out of GNU mode, or as a module's path in a
#     profile, never hangs spinprof (it did: open() waited for a writer): the first three are refused
#     ("not a regular file", status 2), the module's binary is not read (a warning, the report made
#     from the names in the profile); a character device is refused too;
#   - a file is not read whole before its header is checked: a 2 GiB sparse file with a bad magic is
#     refused by its first bytes (it cost 2 GiB of memory), also under a memory limit below its size
#     (it said "spinprof: out of memory", naming no file); an allocation that fails while a record is
#     decoded names the file (a THREAD record of 10 million arcs, zeros in a sparse file, under a limit).
# Synthetic profiles come from a generator compiled here (through gmon_encode, as t206's).
. "$(dirname "$0")/lib-spinprof.sh"

sp_setup

cat >"$T/robgen.c" <<'EOF'
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "gmon-format.h"

#define EXE 0x401000ull

static void put(uint8_t *p, uint64_t v, int n)
{
	for (int i = 0; i < n; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/* A profile whose one THREAD record holds narcs arcs, all zeros, written sparse: the file header
 * and HEADER record of an empty profile, the THREAD record, an END record. */
static int bigarcs(const char *out, uint64_t narcs)
{
	static uint8_t zero[1 << 20];
	struct gmon_profile p;
	uint8_t *buf, h[16], t[4 + 4 + 8 + 8 + 4 + 40 + 8], e[16 + 12];
	size_t len, hlen;
	uint64_t plen = sizeof(t) + 48 * narcs + 16, off;
	uint32_t crc;
	int fd;

	gmon_profile_init(&p);
	if (gmon_encode(&p, 0, &buf, &len) < 0)
		return 1;
	/* the file header and the HEADER record, whose length is small: cut there */
	hlen = 16 + 16 + (size_t)(buf[16 + 8] | buf[16 + 9] << 8);
	memset(t, 0, sizeof(t));
	put(t + 4 + 4 + 8 + 8 + 4 + 40, narcs, 8);
	put(h, GMON_TAG_THREAD, 2);
	put(h + 2, 0, 2);
	put(h + 4, 0, 4);
	put(h + 8, plen, 8);
	crc = gmon_crc32(gmon_crc32(0, h, 16), t, sizeof(t));
	for (uint64_t n = 48 * narcs + 16; n; n -= n < sizeof(zero) ? n : sizeof(zero))
		crc = gmon_crc32(crc, zero, n < sizeof(zero) ? n : sizeof(zero));
	put(h + 4, crc, 4);
	off = hlen + 16 + plen;
	put(e, GMON_TAG_END, 2);
	put(e + 2, 0, 6);
	put(e + 8, 12, 8);
	put(e + 16, 2, 4);
	put(e + 20, off + sizeof(e), 8);
	put(e + 4, gmon_crc32(gmon_crc32(0, e, 16), e + 16, 12), 4);
	fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || pwrite(fd, buf, hlen, 0) != (ssize_t)hlen || pwrite(fd, h, 16, hlen) != 16 ||
	    pwrite(fd, t, sizeof(t), hlen + 16) != sizeof(t) || pwrite(fd, e, sizeof(e), off) != sizeof(e) ||
	    close(fd))
		return 1;
	free(buf);
	return 0;
}

/* robgen KIND OUT [ARG]: KIND nofuncs (a thread, no FUNCS record), nothreads (main and work, no THREAD
 * record; work counted 4 times), calls (main and work, main calls work 3 times), module (calls whose
 * executable's path is ARG), bigarcs (ARG arcs, see above) */
int main(int argc, char **argv)
{
	struct gmon_profile p;
	char err[256] = "out of memory";
	uint8_t *buf;
	size_t len;

	if (argc < 3)
		return 1;
	const char *k = argv[1];
	if (strcmp(k, "bigarcs") == 0)
		return argc == 4 ? bigarcs(argv[2], strtoull(argv[3], NULL, 0)) : 1;
	int funcs = strcmp(k, "nofuncs") != 0, threads = strcmp(k, "nothreads") != 0;
	gmon_profile_init(&p);
	p.hdr.tool = strdup("robgen");
	p.hdr.abi = 4;
	p.hdr.pid = 100;
	p.hdr.mode = 1; /* arcs */
	p.hdr.start_ns = 1000000000ull;
	p.hdr.end_ns = 2000000000ull;
	p.hdr.tsc_hz = 1000000000ull;
	p.hdr.error = strdup("");
	p.nmodules = 1;
	p.modules = calloc(1, sizeof(*p.modules));
	p.modules[0] = (struct gmon_module){ 1, 0, 0, EXE, EXE + 0x1000, strdup("/nonexistent/robgen-prog"), 0, NULL };
	if (strcmp(k, "module") == 0 && argc == 4) {
		free(p.modules[0].path);
		p.modules[0].path = strdup(argv[3]);
		p.modules[0].flags = GMON_MOD_MAIN | GMON_MOD_INSTRUMENTED;
	}
	if (funcs) {
		p.nfuncsets = 1;
		p.funcsets = calloc(1, sizeof(*p.funcsets));
		p.funcsets[0] = (struct gmon_funcs){ 1, 1, 2, calloc(2, sizeof(struct gmon_func)) };
		p.funcsets[0].funcs[0] = (struct gmon_func){ EXE, 1, 3, 0, strdup("main"), strdup("r.c") };
		p.funcsets[0].funcs[1] = (struct gmon_func){ EXE + 0x100, threads ? 3 : 4, 9, 0, strdup("work"), strdup("r.c") };
	}
	if (threads) {
		p.nthreads = 1;
		p.threads = calloc(1, sizeof(*p.threads));
		p.threads[0] = (struct gmon_thread){ .tid = 100, .flags = GMON_THREAD_MAIN, .name = strdup("prog") };
	}
	if (funcs && threads) {
		p.threads[0].narcs = 2;
		p.threads[0].arcs = calloc(2, sizeof(struct gmon_arc));
		p.threads[0].arcs[0] = (struct gmon_arc){ 0x7f0000001000ull, GMON_CALLER_NONE, EXE, 1, 0, 0 };
		p.threads[0].arcs[1] = (struct gmon_arc){ EXE + 0x10, EXE, EXE + 0x100, 3, 0, 0 };
	}
	if (gmon_encode(&p, 0, &buf, &len) < 0 || gmon_write_file(argv[2], buf, len, GMON_WRITE_NAMED, err, sizeof(err)) < 0) {
		fprintf(stderr, "robgen: %s\n", err);
		return 1;
	}
	free(buf);
	gmon_profile_release(&p);
	return 0;
}
EOF
# shellcheck disable=SC2086
$CC -O2 $SPY_SAN_FLAGS -I"$SPY_SRC/common" "$T/robgen.c" "$GMON_IO" -o "$T/robgen" -lz ||
	{ echo "Bail out! robgen does not build"; exit 1; }
for k in nofuncs nothreads calls; do
	"$T/robgen" $k "$T/$k.out" || { echo "Bail out! robgen $k failed"; exit 1; }
done

# clean NAME ARGS...: spinprof ARGS exits 0 with nothing on stderr but its warnings; output in $T/NAME.txt
clean() {
	local name=$1 rc
	shift
	"$SPINPROF" "$@" >"$T/$name.txt" 2>"$T/$name.err"
	rc=$?
	if [ $rc -ne 0 ] || grep -qv '^spinprof: warning: ' "$T/$name.err"; then
		echo "spinprof $*: status $rc, stderr:"
		head -n 10 "$T/$name.err"
		return 1
	fi
}

# calls_of FILE NAME: the calls column of NAME's line in the flat profile
calls_of() { awk -v n="$2" '/^Flat profile/ { on = 1 } on && $NF == n { print $4; exit }' "$1"; }

# one_line NAME WHAT CMD...: CMD exits 2 within 20 s with one stderr line, "spinprof: NAME: WHAT"
one_line() {
	local name=$1 what=$2 rc err
	shift 2
	err=$(timeout 20 "$@" 2>&1 >/dev/null)
	rc=$?
	if [ $rc -ne 2 ] || [ "$err" != "spinprof: $name: $what" ]; then
		echo "$*: status $rc (124: still running after 20 s), want 2 and 'spinprof: $name: $what'; stderr:"
		printf '%s\n' "$err" | head -n 5
		return 1
	fi
}

tap_plan 11

check "a profile that lists no function is read without complaint" clean nofuncs "$T/nofuncs.out"
sum_nothreads() {
	clean sum1 "$T/calls.out" "$T/nothreads.out" || return 1
	clean sum2 "$T/nothreads.out" "$T/calls.out" || return 1
	# the counts add up (3 + 4), the arcs are calls.out's
	local a b
	a=$(calls_of "$T/sum1.txt" work) b=$(calls_of "$T/sum2.txt" work)
	[ "$a" = 3 ] && [ "$b" = 3 ] || { echo "work's calls: $a and $b, want 3 and 3"; return 1; }
	grep -q 'work' "$T/sum1.txt" || return 1
}
check "a profile without a THREAD record summed with one that has it, both orders" sum_nothreads
check "the empty profile summed with itself" clean nofuncs2 "$T/nofuncs.out" "$T/nofuncs.out"

# ---- FIFOs and devices ----
mkfifo "$T/fifo" || { echo "Bail out! mkfifo failed"; exit 1; }
# shellcheck disable=SC2086
$CC -O2 -pg -I"$SAMPLES" "$SAMPLES/calls.c" -o "$T/pgprog" $SPY_SAN_FLAGS >"$T/pgprog.log" 2>&1 ||
	{ echo "Bail out! samples/calls.c does not build with -pg"; exit 1; }
check "a FIFO as the profile: refused, not waited on" one_line "$T/fifo" "not a regular file" "$SPINPROF" "$T/fifo"
check "a FIFO as GNU mode's gmon.out: refused" one_line "$T/fifo" "not a regular file" "$SPINPROF" "$T/pgprog" "$T/fifo"
check "a FIFO where GNU mode's program would be: refused" one_line "$T/fifo" "not a regular file" "$SPINPROF" "$T/fifo" "$T/calls.out"
check "a character device as the profile: refused" one_line /dev/zero "not a regular file" "$SPINPROF" /dev/zero
fifo_module() {
	"$T/robgen" module "$T/fifomod.out" "$T/fifo" || return 1
	timeout 20 "$SPINPROF" "$T/fifomod.out" >"$T/fifomod.txt" 2>"$T/fifomod.err"
	local rc=$?
	[ $rc -eq 0 ] || { echo "status $rc (124: still running after 20 s)"; cat "$T/fifomod.err"; return 1; }
	[ "$(cat "$T/fifomod.err")" = "spinprof: warning: $T/fifo: not a regular file; using the names recorded in the profile" ] ||
		{ echo "stderr:"; cat "$T/fifomod.err"; return 1; }
	[ "$(calls_of "$T/fifomod.txt" work)" = 3 ] || { echo "no report of work's 3 calls:"; head -n 30 "$T/fifomod.txt"; }
}
check "a FIFO as a module's path in the profile: not read, a warning, the report from the profile's names" fifo_module

# ---- big files ----
# max_rss KIB CMD...: CMD's largest resident size stays under KIB kilobytes (its status is kept in $T/rc)
max_rss() {
	local lim=$1 m
	shift
	m=$(/usr/bin/time -f '%M' "$@" 2>&1 >/dev/null | tail -n 1)
	[[ $m =~ ^[0-9]+$ ]] || { echo "no measure: $m"; return 1; }
	[ "$m" -lt "$lim" ] || { echo "$* used $m KiB (want < $lim)"; return 1; }
}
# memory_limit MIB: run the rest with allocations above MIB failing (ulimit -v; under ASan or TSan, which
# map terabytes at start, their own allocator's limit)
memory_limit() {
	if [ -n "$SPY_TSAN" ]; then
		export TSAN_OPTIONS=${TSAN_OPTIONS:+$TSAN_OPTIONS:}allocator_may_return_null=1:max_allocation_size_mb=$1
	elif [ -n "${SPY_SAN:-}" ]; then
		export ASAN_OPTIONS=allocator_may_return_null=1:max_allocation_size_mb=$1
	else
		ulimit -v $(($1 * 1024))
	fi
}
truncate -s 2G "$T/sparse.out" && printf 'xmon' | dd of="$T/sparse.out" conv=notrunc status=none ||
	{ echo "Bail out! no sparse file"; exit 1; }
sparse_magic() {
	one_line "$T/sparse.out" "not a gmon file (bad magic)" "$SPINPROF" "$T/sparse.out" || return 1
	max_rss 200000 "$SPINPROF" "$T/sparse.out"
}
check "a 2 GiB file with a bad magic: refused by its header, in little memory" sparse_magic
check "the same under a memory limit of 512 MiB: refused by its header, naming the file" \
	eval '(memory_limit 512 && one_line "$T/sparse.out" "not a gmon file (bad magic)" "$SPINPROF" "$T/sparse.out")'
big_oom() {
	"$T/robgen" bigarcs "$T/bigarcs.out" 10000000 || return 1
	# (ASan says it once on its own when its limit refuses an allocation)
	(memory_limit 256 && "$SPINPROF" "$T/bigarcs.out" 2>&1 >/dev/null |
		grep -v '^==[0-9]*==WARNING: AddressSanitizer failed to allocate' >"$T/bigarcs.err"; exit "${PIPESTATUS[0]}")
	local rc=$?
	[ $rc -eq 2 ] && [ "$(wc -l <"$T/bigarcs.err")" -eq 1 ] &&
		grep -q "^spinprof: $T/bigarcs.out: out of memory (480000000 bytes for arcs, record 1 (THREAD) at offset " "$T/bigarcs.err" ||
		{ echo "status $rc, stderr:"; cat "$T/bigarcs.err"; return 1; }
}
check "10 million arcs under a memory limit of 256 MiB: out of memory, naming the file and the record" big_oom
tap_done
