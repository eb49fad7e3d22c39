/* gprof's @FILE arguments (libiberty's expandargv). */
#ifndef SPINPROF_ARGFILE_H
#define SPINPROF_ARGFILE_H

/* Replace each argument "@FILE" naming a readable file by the arguments in it (blanks between,
 * quotes and backslashes as a shell's simplest), recursively; *argv then points to memory kept
 * until exit. */
void argfile_expand(int *argc, char ***argv);

#endif
