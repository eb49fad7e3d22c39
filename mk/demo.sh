#!/bin/sh
# The demo `make demo` runs: the toolchain end to end on the samples. Placeholder until the parts exist.
echo "demo: not yet"
exit 0
