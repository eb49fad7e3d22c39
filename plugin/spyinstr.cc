/* spyinstr.so: the GCC plugin's entry point, kept apart from the passes so
 * that it loads into any GCC. It references only the stable plugin API, checks
 * that this is the GCC build the passes were compiled for, and only then loads
 * them (spyinstr-passes.so, beside this file): loaded into another GCC, the
 * passes would fail on an undefined internal symbol instead of a clear word. */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "gcc-plugin.h"
#include "plugin-version.h"

int plugin_is_GPL_compatible;

/* Defined in spyinstr-passes.so: parse the options and register the passes. */
typedef int spy_passes_init_fn(struct plugin_name_args *info, struct plugin_gcc_version *version);

static int spy_fail(const char *msg)
{
	/* GCC's own error() may be what is missing: print plainly. */
	fprintf(stderr, "cc1: error: spyinstr: %s\n", msg);
	return 1;
}

int plugin_init(struct plugin_name_args *info, struct plugin_gcc_version *version)
{
	char path[4096], msg[8192];
	const char *self = info->full_name, *slash;
	Dl_info where;
	spy_passes_init_fn *init;
	void *passes;

	if (!plugin_default_version_check(version, &gcc_version)) {
		snprintf(msg, sizeof(msg),
			 "built for GCC %s (%s), loaded into GCC %s (%s)%s: rebuild it with this compiler",
			 gcc_version.basever, gcc_version.datestamp, version->basever, version->datestamp,
			 strcmp(gcc_version.basever, version->basever) ? "" : ", a different build");
		return spy_fail(msg);
	}
	/* GCC may have found us by a bare name: ask the loader where. */
	if (dladdr((void *)plugin_init, &where) && where.dli_fname)
		self = where.dli_fname;
	slash = strrchr(self, '/');
	snprintf(path, sizeof(path), "%.*sspyinstr-passes.so", slash ? (int)(slash - self + 1) : 0, self);
	passes = dlopen(path, RTLD_NOW | RTLD_GLOBAL);
	if (!passes) {
		snprintf(msg, sizeof(msg), "cannot load the passes: %s", dlerror());
		return spy_fail(msg);
	}
	init = (spy_passes_init_fn *)dlsym(passes, "spy_passes_init");
	if (!init) {
		snprintf(msg, sizeof(msg), "'%s' has no spy_passes_init", path);
		return spy_fail(msg);
	}
	return init(info, version);
}
