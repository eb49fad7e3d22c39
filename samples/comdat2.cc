/* comdat2: the second user of shared_inline() (see comdat.h and exceptions.cc). */
#include "comdat.h"

NOINL int comdat2_user(int n)
{
	int s = 0;
	for (int i = 0; i < n; i++) {
		s += shared_inline(i);
		BARRIER();
	}
	return s;
}
