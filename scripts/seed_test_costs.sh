#!/usr/bin/env bash
# Gives a build folder without a test record of its own (a fresh clone: CI) the measured costs of
# the longest tests, so that ctest starts them first instead of in the order they are declared:
# declared late (the live and GStreamer tests), they ran alone at the end of the stage while the
# other slots stood idle. ctest orders by cost, longest first, and from then on keeps its own
# record in the same file (a test's COST property, where set, wins over both).
#   scripts/seed_test_costs.sh BUILD_DIR COSTS_FILE
# COSTS_FILE (tests/ctest_costs/*.txt): ctest's own format, `name runs seconds` a line, then `---`;
# the tests of 8 s or more from a full run of that build on the 2-core test machine.
set -euo pipefail
record="$1/Testing/Temporary/CTestCostData.txt"
[ -f "$record" ] && exit 0
mkdir -p "$(dirname "$record")"
cp "$2" "$record"
