# lib-diff.sh: diff_rows, for t278 and t279, which source it.
. "$(dirname "${BASH_SOURCE[0]}")/lib-spinprof.sh"
. "$(dirname "${BASH_SOURCE[0]}")/lib-runtime.sh"

# diff_rows FILE: the table's rows as "MARK NAME CALLS_OLD CALLS_NEW CALLS_DIFF RATIO", MARK = for a
# name in both runs, + only in the new one, - only in the old one
diff_rows() {
	awk '/^ +self old +self new/ { on = 1; next }
		on && NF >= 13 { m = substr($0, 1, 1); if (m == " ") m = "="; print m, $NF, $(NF - 4), $(NF - 3), $(NF - 2), $(NF - 1) }' "$1"
}

# the test program: GONE names the function that the two builds name differently
diff_prog() {
	cat <<'C'
#include <stdlib.h>
static volatile int sink;
__attribute__((noinline)) void leaf(void) { sink++; }
__attribute__((noinline)) void mid(int k) { for (int i = 0; i < k; i++) leaf(); }
__attribute__((noinline)) void GONE(void) { sink += 2; }
int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 1;
	for (int i = 0; i < n; i++)
		mid(3);
	for (int i = 0; i < 5; i++)
		GONE();
	return 0;
}
C
}

# the rows of N = 10 against N = 25, gone renamed
DIFF_WANT='= leaf 30 75 +45 2.500
= mid 10 25 +15 2.500
- gone 5 - -5 0.000
+ renamed - 5 +5 new
= main 1 1 +0 1.000'
