#!/bin/bash
# t107: writing the profile: atomically (an old file is replaced whole, no temporary file is left, a
# symlink in the way is replaced and its target untouched), spy_dump() to a path mid-run, zlib for a
# large thread, and an unwritable path: one stderr line with the path and the reason, exit status kept.
. "$(dirname "$0")/lib-runtime.sh"
rt_setup
tap_plan 8

cat >"$T/w.c" <<'EOC'
#include <stdlib.h>
#include "spy.h"
#include "sample.h"
NOINL int f(int x) { BARRIER(); return x + 1; }
int main(int argc, char **argv)
{
	int s = 0;
	for (int i = 0; i < 1000; i++)
		s += f(i);
	if (argc > 1 && argv[1][0] && spy_dump(argv[1]))
		return 9;
	for (int i = 0; i < 500; i++)
		s += f(i);
	return argc > 2 ? atoi(argv[2]) : s == 0;
}
EOC
W=$T/w
check "the program builds" rt_cc "$W" "$CC" "$T/w.c"

replaced() {
	cd "$T" || return 1
	echo "old contents" >gmon.out
	./w || return 1
	[ "$(head -c 4 gmon.out)" = gmon ] && grep -qx 'func f 1500' <(rt_facts gmon.out) &&
		[ -z "$(ls -A | grep 'gmon.out.tmp')" ] || { ls -la; return 1; }
}
check "an old gmon.out is replaced; no temporary file is left" replaced

symlink() {
	cd "$T" || return 1
	echo keep >victim
	ln -sf victim gmon.out
	./w || return 1
	[ ! -L gmon.out ] && [ "$(cat victim)" = keep ] && grep -qx 'func f 1500' <(rt_facts gmon.out)
}
check "a symlink at the path is replaced, its target untouched" symlink

dumped() {
	cd "$T" || return 1
	rm -f mid.out gmon.out
	./w mid.out || return 1
	grep -qx 'func f 1000' <(rt_facts mid.out) && grep -qx 'func f 1500' <(rt_facts gmon.out) &&
		rt_dump mid.out | grep -q '^header .*flags=0x\([0-9a-f]*0\)\?1$' && rt_dump gmon.out | grep -q '^header .*flags=0x\([0-9a-f]*0\)\?3$' ||
		{ rt_facts mid.out; rt_dump mid.out | head -n 1; return 1; }
}
check "spy_dump(path) mid-run writes that path; the final file follows" dumped

unwritable() {
	local err rc
	cd "$T" || return 1
	echo file >notadir
	err=$(SPYRT_OUT=$T/notadir/gmon.out ./w "" 5 2>&1 >/dev/null)
	rc=$?
	echo "$err"
	[ $rc -eq 5 ] && [ "$(grep -c . <<<"$err")" -eq 1 ] &&
		grep -qF "'$T/notadir/gmon.out'" <<<"$err" && grep -q 'Not a directory' <<<"$err"
}
check "an unwritable path: one line with path and reason, exit status 5 kept" unwritable

missing_dir() {
	local err rc
	err=$(SPYRT_OUT=$T/no/such/dir/gmon.out "$W" 2>&1 >/dev/null)
	rc=$?
	echo "$err"
	[ $rc -eq 0 ] && [ "$(grep -c . <<<"$err")" -eq 1 ] && grep -q 'No such file or directory' <<<"$err"
}
check "a missing directory: one line, status 0 kept" missing_dir

dump_fails() {
	local err rc
	err=$("$W" "$T/no/such/mid.out" 2>&1 >/dev/null)
	rc=$?
	echo "$err"
	# spy_dump returns -1 (the program then exits 9) after one line
	[ $rc -eq 9 ] && [ "$(grep -c . <<<"$err")" -eq 1 ] && grep -qF "$T/no/such/mid.out" <<<"$err" || return 1
	err=$("$W" "" "" 2>&1 >/dev/null) || true
	[ -z "$err" ] || { echo "$err"; return 1; }
}
check "spy_dump to an unwritable path returns -1 after one line" dump_fails

cat >"$T/big.c" <<'EOC'
#include "sample.h"
/* 2000 distinct call sites: a thread record far over the compression threshold */
#define C10(x) x x x x x x x x x x
NOINL int f(int x) { BARRIER(); return x + 1; }
int main(void)
{
	int s = 0;
	C10(C10(C10(s += f(0); BARRIER();))) C10(C10(C10(s += f(0); BARRIER();)))
	return s != 2000;
}
EOC
compressed() {
	rt_cc "$T/big" "$CC" "$T/big.c" && rt_run "$T/big" || return 1
	# walk the records: tag (2 bytes), flags (2), crc (4), length (8)
	python3 - "$T/big.out" <<'EOP' || return 1
import struct, sys
d = open(sys.argv[1], 'rb').read()
o, z = 16, 0
while o < len(d):
    tag, flags, crc, n = struct.unpack_from('<HHIQ', d, o)
    if tag == 4 and flags & 1:
        z = 1
    o += 16 + n
sys.exit(0 if z else 1)
EOP
	grep -qx 'func f 2000' <(rt_facts "$T/big.out") &&
		[ "$(rt_dump "$T/big.out" | grep -c '^arc .*callee=f ')" -eq 2000 ]
}
check "a large thread record is zlib-compressed and reads back whole" compressed
tap_done
