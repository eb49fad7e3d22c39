/* shlib: a program, a shared library and a dlopen'd module, all instrumented.
 *   main -> shape_area(3, 4) 5 times (libshape.so); shape_area -> shape_helper 4 times per call
 *   main -> plugin_entry 7 times (plugin.so, through dlsym), then dlclose;
 *           plugin_entry -> plugin_inner 3 times per call
 * argv[1] is the path of plugin.so.
 * Expected: main 1, shape_area 5, shape_helper 20, plugin_entry 7, plugin_inner 21;
 * arcs <spontaneous>->main 1, main->shape_area 5, shape_area->shape_helper 20,
 *      main->plugin_entry 7, plugin_entry->plugin_inner 21. */
#include <dlfcn.h>
#include <stdio.h>

#include "sample.h"
#include "shape.h"

int main(int argc, char **argv)
{
	int s = 0;
	for (int i = 0; i < 5; i++) {
		s += shape_area(3, 4);
		BARRIER();
	}
	if (argc < 2)
		return 2;
	void *h = dlopen(argv[1], RTLD_NOW);
	if (!h) {
		fprintf(stderr, "shlib: %s\n", dlerror());
		return 2;
	}
	int (*entry)(int) = (int (*)(int))dlsym(h, "plugin_entry");
	if (!entry)
		return 2;
	for (int i = 0; i < 7; i++) {
		s += entry(i);
		BARRIER();
	}
	dlclose(h);
	/* 5 * 12 + 3 * (1 + ... + 7) */
	return s != 60 + 84;
}
