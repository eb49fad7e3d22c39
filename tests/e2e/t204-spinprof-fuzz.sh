#!/bin/bash
# t204: a short libFuzzer run of every harness in tests/fuzz/ (SPY_FUZZ_SECONDS each, default 15: under a
# minute in all) over spinprof's readers, summing, -s and reports, from the seeds and crash inputs kept in
# tests/fuzz/corpus/ (each replayed first); skipped when there is no spinprof yet or no libFuzzer
# toolchain. A long run is `make fuzz` (or FUZZ_SECONDS=3600), with AFL++ `make fuzz-afl`.
. "$(dirname "$0")/lib.sh"
[ -x "${SPINPROF:-$SPY_BUILD/spinprof}" ] || tap_skip_all "no spinprof"
exec bash "$SPY_SRC/tests/fuzz/run.sh" -t "${SPY_FUZZ_SECONDS:-15}"
