#!/usr/bin/env bash
# The soak of vfilter serve as an unattended recorder (bench/soak.py says what it does and checks).
# Examples:
#   bench/soak.sh --minutes 2 --cameras 5 --check            # what CI runs (ctest: Soak.CamerasComingAndGoing)
#   bench/soak.sh --minutes 60 --cameras 8 --json soak.json   # the hour on the developer machine
#   bench/soak.sh --minutes 8 --cameras 8 --device cuda       # GPU streams: GPU memory sampled too
exec python3 "$(dirname "$0")/soak.py" "$@"
