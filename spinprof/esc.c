/* common/esc.c, the escaping of strings for each output's syntax, compiled into spinprof (the Makefile
 * builds spinprof from the C files of spinprof/; this file's own name keeps the include apart). */
#include "../common/esc.c"
