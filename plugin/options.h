/* Parsing and checking of -fplugin-arg-spyinstr-KEY=VALUE, kept in plain C
 * so the unit tests can exercise it without GCC. */
#ifndef SPYINSTR_OPTIONS_H
#define SPYINSTR_OPTIONS_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

struct spy_patterns {
	char **items;
	size_t nr, alloc;
};

struct spy_options {
	int mode; /* enum spy_mode */
	int verbose;
	struct spy_patterns exclude_function; /* shell patterns */
	struct spy_patterns include_function; /* shell patterns; empty: all */
	struct spy_patterns exclude_file;     /* substrings of the source path */
};

void spy_options_init(struct spy_options *o);
void spy_options_release(struct spy_options *o);

/* Apply one KEY[=VALUE]; value is NULL when no '=' was given. Returns 0, or
 * -1 with a message in err (for the compiler to print as an error). */
int spy_options_set(struct spy_options *o, const char *key, const char *value, char *err, size_t errlen);

/* Whether the function called name (source name, or NULL) with assembler name
 * asmname, defined in file, is to be instrumented under o. Clone suffixes
 * (".constprop.0") are ignored when matching. */
int spy_options_want(const struct spy_options *o, const char *name, const char *asmname, const char *file);

/* The name of a mode, or NULL. */
const char *spy_mode_name(int mode);

#ifdef __cplusplus
}
#endif

#endif
