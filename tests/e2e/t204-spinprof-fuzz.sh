#!/bin/bash
# t204: a short libFuzzer run of every harness in tests/fuzz/ (SPY_FUZZ_SECONDS each, default 10) over the
# readers of spy profiles; skipped when there is no spinprof yet or no libFuzzer toolchain. A long run is
# `tests/fuzz/run.sh -t 3600`.
. "$(dirname "$0")/lib.sh"
[ -x "${SPINPROF:-$SPY_BUILD/spinprof}" ] || tap_skip_all "no spinprof"
exec bash "$SPY_SRC/tests/fuzz/run.sh" -t "${SPY_FUZZ_SECONDS:-10}"
