/* inline: what inlining and cloning leave behind.
 *   triple() is static always_inline: it has no body of its own at any level and must not appear.
 *   scale() is external and noinline (but clonable): main calls it 10 times with k = 7 and 5 times
 *   with a k GCC cannot see; at -O3 IPA-CP makes scale.constprop.0 for the k = 7 calls.
 *   scale_local() is static, always called with k = 9 (6 times): from -O2 on IPA-CP
 *   specialises it into scale_local.constprop.0, the only body left.
 * Counts are checked under the base name (clone suffixes stripped), so at every level:
 * main 1, scale 15, scale_local 6; arcs <spontaneous>->main 1, main->scale 15, main->scale_local 6. */
#include "sample.h"

static volatile int vk = 7;
static volatile int sink;

static inline __attribute__((always_inline)) int triple(int x)
{
	return 3 * x;
}

__attribute__((noinline)) int scale(int x, int k)
{
	int s = 0;
	for (int j = 0; j < k; j++)
		s += triple(x) ^ j;
	sink = s;
	return s;
}

static __attribute__((noinline)) int scale_local(int x, int k)
{
	int s = 0;
	for (int j = 0; j < k; j++)
		s += (x + j) * k;
	sink = s;
	return s;
}

int main(void)
{
	int s = 0;
	for (int i = 0; i < 10; i++) {
		s += scale(i, 7);
		BARRIER();
	}
	for (int i = 0; i < 5; i++) {
		s += scale(i, vk);
		BARRIER();
	}
	for (int i = 0; i < 6; i++) {
		s += scale_local(i, 9);
		BARRIER();
	}
	return s == 0;
}
