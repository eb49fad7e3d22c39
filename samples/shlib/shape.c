/* shape: libshape.so, built -fPIC. shape_area calls shape_helper h times (through the PLT, as
 * an exported function of a shared library). See main.c for the expected counts. */
#include "sample.h"
#include "shape.h"

NOINL int shape_helper(int x)
{
	BARRIER();
	return x;
}

NOINL int shape_area(int w, int h)
{
	int s = 0;
	for (int i = 0; i < h; i++) {
		s += shape_helper(w);
		BARRIER();
	}
	return s;
}
