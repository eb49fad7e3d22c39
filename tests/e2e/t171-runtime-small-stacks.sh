#!/bin/bash
# t171: the profile is written from any stack the program may call exit() on (issue 24, item 6): the
# writer runs on a stack of the runtime's. samples/smallstack.c calls exit() from a thread whose stack
# is 16, 32 or 72 KiB, and from a SIGUSR1 handler on an alternate signal stack of 64 or 16 KiB, each
# stack with 1 MiB of PROT_NONE below it (before, the writer needed about 70 KiB: 16 and 72 KiB died
# with SIGSEGV, 32 KiB jumped the guard page): each keeps its status (3, 5), and its profile is whole
# (work 1000, ender 1, the self-check holds, written at exit, not marked as a signal's). And the
# writer's deepest frame, found on its stack after a spy_dump(), lies far inside that stack's 256 KiB.
. "$(dirname "$0")/lib-runtime.sh"
rt_setup
tap_plan 7

cd "$T" || exit 1
cat >"$T/peak.c" <<'EOC'
/* after a spy_dump(): the writer's stack (256 KiB read-write right above a PROT_NONE page, zero when
 * mapped) and how far below its top the deepest byte written lies */
#include <stdio.h>
#include <string.h>
#include "sample.h"
#include "spy.h"
NOINL int leaf(int x) { BARRIER(); return x + 1; }
NOINL int mid(int x) { return leaf(x) + leaf(x + 1); }
__attribute__((no_instrument_function)) int main(void)
{
	unsigned long plo = 0, phi = 0, lo, hi, size = 256ul << 10;
	char line[512], perm[8], prev[8] = "";
	int s = 0, found = 0;
	FILE *f;
	for (int i = 0; i < 10000; i++)
		s += mid(i);
	if (spy_dump("peak.out"))
		return 2;
	f = fopen("/proc/self/maps", "r");
	while (f && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx-%lx %7s", &lo, &hi, perm) != 3)
			continue;
		if (hi - lo == size && !strcmp(perm, "rw-p") && phi == lo && !strcmp(prev, "---p")) {
			const unsigned char *p = (const unsigned char *)lo;
			unsigned long i = 0;
			while (i < size && !p[i])
				i++;
			printf("deepest %lu\n", size - i);
			found++;
		}
		plo = lo, phi = hi;
		strcpy(prev, perm);
	}
	return found == 1 && s ? 0 : 1;
}
EOC
check "the samples build" eval 'rt_cc "$T/ss" "$CC" "$SAMPLES/smallstack.c" -pthread && rt_cc "$T/peak" "$CC" "$T/peak.c"'

# whole HOW KIB STATUS: exit() there keeps STATUS and writes the whole profile
whole() {
	local how=$1 kib=$2 want=$3 rc f
	[ -z "$SPY_TSAN" ] || return 0
	rm -f gmon.out
	"$T/ss" "$how" "$kib" >ss.stdout 2>ss.stderr
	rc=$?
	[ $rc -eq "$want" ] || { echo "status $rc, want $want"; cat ss.stderr; return 1; }
	[ -s gmon.out ] || { echo "no profile"; cat ss.stderr; return 1; }
	rt_facts gmon.out >facts
	[ "$(grep -c -x 'func work 1000\|func ender 1' facts)" -eq 2 ] || { cat facts; return 1; }
	"$SPY_BUILD/spinprof" -b gmon.out >report 2>&1 || { head -n 3 report; return 1; }
	grep -q '^self-check: [0-9]* functions, add-one counts equal' report || { grep -E '^(self|mism)' report; return 1; }
	# written at exit (final, bit 1), not by a signal's handler (signal, bit 4)
	f=$(rt_dump gmon.out | sed -n 's/^header .*flags=\(0x[0-9a-f]*\)$/\1/p')
	[ -n "$f" ] && (((f & 0x12) == 0x02)) || { rt_dump gmon.out | head -n 1; return 1; }
}
# ThreadSanitizer needs about 900 KiB of a thread's stack for itself, and calls exit() from a handler
# signal-unsafe (the write allocates)
small=$(tsan_skip "it needs 900 KiB of a thread's stack, and exit() in a handler is signal-unsafe to it")
check "exit() from a thread with a 16 KiB stack: status 3, the whole profile$small" whole thread 16 3
check "exit() from a thread with a 32 KiB stack (a frame once jumped its guard)$small" whole thread 32 3
check "exit() from a thread with a 72 KiB stack$small" whole thread 72 3
check "exit() from a handler on a 64 KiB alternate signal stack: status 5, the whole profile$small" whole altstack 64 5
check "exit() from a handler on a 16 KiB alternate signal stack$small" whole altstack 16 5

peak() {
	local d
	rm -f peak.out
	d=$("$T/peak") || { echo "the writer's stack not found after spy_dump: $d"; return 1; }
	d=${d#deepest }
	echo "the writer's deepest frame: $d bytes below the top of its 256 KiB"
	[ -s peak.out ] && [ "$d" -gt 0 ] && [ "$d" -lt $((128 << 10)) ]
}
check "spy_dump runs on the writer's stack, and needs less than half of it" peak
# its number, for the log
"$T/peak" | sed 's/^/# writer stack: /'

tap_done
