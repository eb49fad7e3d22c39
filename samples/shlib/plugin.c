/* plugin: plugin.so, loaded by main.c with dlopen, plugin_entry found with dlsym, then
 * dlclose'd: its records' names must survive the dlclose. */
#include "sample.h"

static volatile int sink;

NOINL static int plugin_inner(int x)
{
	sink += x;
	return x + 1;
}

NOINL int plugin_entry(int n)
{
	int s = 0;
	for (int i = 0; i < 3; i++) {
		s += plugin_inner(n);
		BARRIER();
	}
	return s;
}
