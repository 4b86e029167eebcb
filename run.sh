#!/usr/bin/env bash
# Installs what is missing, builds vfilter in Release and runs it with the given arguments.
# Without --input it filters the built-in test pattern (1280x720@30, 10 s):
#   ./run.sh --filter sobel --out out.mp4
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
"$here/scripts/install_deps.sh"
"$here/scripts/build.sh" -DVF_BUILD_TESTS=OFF >/dev/null
exec "$here/build/vfilter" "$@"
