/* gprof's -R map: which object file each function comes from, read as gprof reads it. */
#ifndef SPINPROF_LINKMAP_H
#define SPINPROF_LINKMAP_H

#include <stddef.h>

/* One line "FILE:... NAME" of the map (the name after the line's last blank). first: the first of a
 * run of lines of one file, the one whose function stands for the file. */
struct linkmap_ent {
	char *file, *func;
	int first;
};

/* The entries sorted by function name (stably, as gprof's), for linkmap_find. */
struct linkmap {
	struct linkmap_ent *items;
	size_t nr, alloc;
};

/* Read path. Returns 0, or -1 with the reason in err. */
int linkmap_read(struct linkmap *m, const char *path, char *err, size_t errsz);
/* The entry of function name, found as gprof's bsearch finds it, or NULL. */
const struct linkmap_ent *linkmap_find(const struct linkmap *m, const char *name);
/* Free what m owns. */
void linkmap_release(struct linkmap *m);

#endif
