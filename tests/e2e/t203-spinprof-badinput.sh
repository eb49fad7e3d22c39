#!/bin/bash
# t203: bad input to spinprof is one line on stderr, "spinprof: FILE: what is wrong", exit status 2, and
# never a crash: every truncation of a valid spy profile, bad magic, lengths that lie (a record's, a string's,
# an array count's, the END record's, with valid checksums, so the reader's own checks must catch them),
# unknown versions, flipped bits, bytes after END, a missing file, a directory, an empty file, a glibc
# gmon.out given without its program, and a GNU profile whose program is missing or not ELF.
. "$(dirname "$0")/lib-spinprof.sh"
. "$(dirname "$0")/lib-runtime.sh"

[ -x "$SPINPROF" ] || tap_skip_all "no spinprof"
rt_setup

# gmon-patch IN OUT WHERE OFF WIDTH VALUE: write IN to OUT with a little-endian value put at OFF of the
# file header (WHERE "file") or of the payload of the first record with tag WHERE, and the checksum of
# what was patched made right again
cat >"$T/gmon-patch.c" <<'EOF'
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include "gmon-format.h"

static void put(uint8_t *p, uint64_t v, int n) { for (int i = 0; i < n; i++) p[i] = (uint8_t)(v >> (8 * i)); }
static uint64_t get(const uint8_t *p, int n) { uint64_t v = 0; for (int i = n - 1; i >= 0; i--) v = v << 8 | p[i]; return v; }

int main(int argc, char **argv)
{
	static uint8_t b[1 << 24];
	FILE *f;
	size_t n, off = GMON_FILE_HEADER_SIZE;
	unsigned long at;
	int w;

	if (argc != 7 || !(f = fopen(argv[1], "rb")))
		return 1;
	n = fread(b, 1, sizeof(b), f);
	fclose(f);
	at = strtoul(argv[4], NULL, 0);
	w = atoi(argv[5]);
	if (argv[3][0] == 'f') {
		put(b + at, strtoull(argv[6], NULL, 0), w);
		put(b + 12, gmon_crc32(0, b, 12), 4);
	} else {
		unsigned tag = (unsigned)strtoul(argv[3], NULL, 0);
		for (;;) {
			uint64_t len;
			if (off + GMON_RECORD_HEADER_SIZE > n)
				return 3;
			len = get(b + off + 8, 8);
			if (get(b + off, 2) == tag) {
				uint8_t *h = b + off;
				if (get(h + 2, 2) != 0 || at + w > len)
					return 4; /* compressed, or past the payload */
				put(h + GMON_RECORD_HEADER_SIZE + at, strtoull(argv[6], NULL, 0), w);
				put(h + 4, 0, 4);
				put(h + 4, gmon_crc32(gmon_crc32(0, h, GMON_RECORD_HEADER_SIZE), h + GMON_RECORD_HEADER_SIZE, len), 4);
				break;
			}
			off += GMON_RECORD_HEADER_SIZE + len;
		}
	}
	if (!(f = fopen(argv[2], "wb")) || fwrite(b, 1, n, f) != n || fclose(f))
		return 2;
	return 0;
}
EOF
# shellcheck disable=SC2086
$CC -O2 $SPY_SAN_FLAGS -I"$SPY_SRC/common" "$T/gmon-patch.c" "$GMON_IO" -o "$T/gmon-patch" -lz || exit 1

# bad_one NAME CMD...: CMD must exit 2 with exactly one stderr line beginning "spinprof: NAME: "
bad_one() {
	local name=$1 rc err
	shift
	err=$("$@" 2>&1 >/dev/null)
	rc=$?
	if [ $rc -ne 2 ] || [ "$(printf '%s\n' "$err" | wc -l)" -ne 1 ] || [ -z "$err" ] ||
		[[ $err != "spinprof: $name: "?* ]]; then
		echo "$*: status $rc (want 2), stderr ($(printf '%s\n' "$err" | grep -c .) lines, want one beginning 'spinprof: $name: '):"
		printf '%s\n' "$err" | head -n 5
		return 1
	fi
}

tap_plan 17

G=$T/good.out
make_good() {
	rt_sample calls "$T/calls" && rt_run "$T/calls" && cp "$T/calls.out" "$G" && "$SPINPROF" "$G" >/dev/null
}
if ! sp_check "a valid profile (samples/calls) to damage, read without complaint" make_good; then
	for _ in $(seq 16); do not_ok "no valid profile"; done
	tap_done
fi
size=$(stat -c %s "$G")
echo "# the valid profile has $size bytes"

# every length from 0 to size-1 (every 7th beyond 6000 bytes, and the last 64 all)
truncations() {
	local n step=1 bad=0 c="$T/cut.out"
	[ "$size" -gt 6000 ] && step=7
	for ((n = 0; n < size; n++)); do
		((n % step == 0 || n >= size - 64)) || continue
		head -c "$n" "$G" >"$c"
		if ! bad_one "$c" "$SPINPROF" "$c" >"$T/cut.why"; then
			bad=$((bad + 1))
			[ $bad -le 3 ] && { echo "cut at $n bytes:"; cat "$T/cut.why"; }
		fi
	done
	[ $bad -eq 0 ] || { echo "$bad truncations not refused cleanly"; return 1; }
}
check "every truncation: one line 'spinprof: FILE: ...', status 2" truncations

# damage NAME CMD...: make $T/NAME.out with CMD (reading $G), then spinprof must refuse it
damage() {
	local f=$T/$1.out
	shift
	"$@" >"$f" || { echo "could not make $f"; return 1; }
	bad_one "$f" "$SPINPROF" "$f"
}
gpatch() { "$T/gmon-patch" "$G" /dev/stdout "$@"; }
# poke OFF BYTES: $G with the bytes (printf escapes) put at OFF
poke() {
	cp "$G" "$T/poke.tmp" && printf "$2" | dd of="$T/poke.tmp" bs=1 seek="$1" conv=notrunc status=none && cat "$T/poke.tmp"
}
flipbits() {
	local n
	for n in 0 5 13 17 23 40 $((size / 3)) $((size / 2)) $((size - 30)) $((size - 1)); do
		damage flip$n poke "$n" "$(printf '\\%03o' $((($(od -An -tu1 -j "$n" -N1 "$G") ^ 0x44) & 255)))" || return 1
	done
}
more_bytes() { cat "$G"; printf 'junk after the end'; }

check "bad magic" damage magic poke 0 'xmon'
check "unknown version (SPY\\2), header checksum right" damage version2 gpatch file 4 4 0x02595053
check "a newer format revision, header checksum right" damage minor gpatch file 8 4 1000
check "a damaged file header checksum" damage hcrc poke 12 '\001\002\003\004'
check "the first record's length lies (2^63 - 1)" damage reclen poke 24 '\377\377\377\377\377\377\377\177'
check "a string length that lies (HEADER's tool name 0xffffffff, checksum right)" damage strlen gpatch 1 0 4 0xffffffff
check "an array count that lies (FUNCS' count 0x7fffffff, checksum right)" damage funcsnr gpatch 3 8 4 0x7fffffff
check "END's file length lies (checksum right)" damage endlen gpatch 0x7fff 4 8 $((size + 100))
check "END's record count lies (checksum right)" damage endnrec gpatch 0x7fff 0 4 1
check "flipped bits anywhere (10 places): refused" flipbits
check "bytes after the END record" damage trailing more_bytes

check "a missing file" bad_one "$T/no-such.out" "$SPINPROF" "$T/no-such.out"
mkdir -p "$T/adir"
check "a directory" bad_one "$T/adir" "$SPINPROF" "$T/adir"
: >"$T/empty.out"
check "an empty file" bad_one "$T/empty.out" "$SPINPROF" "$T/empty.out"

# a glibc gmon.out (of samples/calls built with -pg)
gnu_prof() {
	mkdir -p "$T/pg" && $CC -O2 -pg -I"$SAMPLES" "$SAMPLES/calls.c" -o "$T/pg/prog" &&
		(cd "$T/pg" && ./prog) && [ -s "$T/pg/gmon.out" ] || { echo "no -pg profile"; return 1; }
}
gnu_cases() {
	gnu_prof || return 1
	echo "a glibc gmon.out without its program:"
	bad_one "$T/pg/gmon.out" "$SPINPROF" "$T/pg/gmon.out" || return 1
	echo "a missing program:"
	bad_one "$T/pg/gone" "$SPINPROF" "$T/pg/gone" "$T/pg/gmon.out" || return 1
	echo "a program that is not ELF (given as an operand after a spy profile: the profile is read as one):"
	bad_one "$T/pg/gmon.out" "$SPINPROF" "$G" "$T/pg/gmon.out"
}
check "GNU gmon.out: without PROG, with PROG missing, mixed with a spy profile" gnu_cases
tap_done
