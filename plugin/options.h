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

/* node=FILE:LINE[=NAME]: a node hook before the first statement of that line. */
struct spy_node_opt {
	char *file; /* as given: matched against the end of a statement's file name */
	unsigned line;
	char *name; /* as given, or FILE's last component "@" LINE */
	int placed; /* a statement of this unit got it */
};

struct spy_options {
	int mode; /* enum spy_mode */
	int verbose;
	struct spy_patterns exclude_function; /* shell patterns */
	struct spy_patterns include_function; /* shell patterns; empty: all */
	struct spy_patterns exclude_file;     /* substrings of the source path */
	struct spy_node_opt *nodes;
	size_t nnodes;
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

/* Whether the statement file names the file of node=FILE: equal, or ending in "/" FILE. */
int spy_node_file_match(const char *want, const char *file);

/* The name of a mode, or NULL. */
const char *spy_mode_name(int mode);

#ifdef __cplusplus
}
#endif

#endif
