#!/bin/bash
# t003: -fopenmp: the outlined body main._omp_fn.0 is instrumented like any function and runs
# once per thread of the team (OMP_NUM_THREADS=3); the loop's calls are counted exactly.
. "$(dirname "$0")/lib.sh"
tsan_skip_all "$TSAN_NO_OPENMP"
need_plugin
setup_workdir

tap_plan 5
for lv in $OPT_LEVELS; do
	check "openmp -$lv" check_sample openmp "$lv" time
done
tap_done
