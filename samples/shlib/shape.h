/* shape.h: the API of libshape.so (samples/shlib). */
#ifndef SHAPE_H
#define SHAPE_H

int shape_area(int w, int h);
int shape_helper(int x);

#endif
