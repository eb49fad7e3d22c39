/* Mesa's nodes and legs as the report prints them (print-nodes.c). */
#ifndef SPINPROF_PRINT_NODES_H
#define SPINPROF_PRINT_NODES_H

#include <stdio.h>

#include "prof.h"

/* The Nodes and Legs sections and their histograms (nothing without nodes). */
void print_nodes(FILE *f, const struct prof *p, int brief);

#endif
