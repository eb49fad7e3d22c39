/* comdat.h: an inline function kept out of line, used from exceptions.cc and comdat2.cc; each
 * object file gets a COMDAT copy and the linker keeps one, with one spy_funcs record. */
#ifndef COMDAT_H
#define COMDAT_H

#include "sample.h"

NOINL inline int shared_inline(int x)
{
	BARRIER();
	return x * 2;
}

int comdat2_user(int n);

#endif
