#!/usr/bin/env bash
# pip install ./python into a fresh virtual environment (the distribution's NumPy and pybind11
# seen through --system-site-packages; offline: --no-build-isolation --no-index), reusing the
# build directory ctest runs in (VFILTER_BUILD_DIR), then imports the installed package from
# elsewhere and filters with it. Usage: pip_install_test.sh SOURCE_DIR BUILD_DIR
set -euo pipefail
src=$1 build=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp" "$src/python/build" "$src"/python/*.egg-info' EXIT
/usr/bin/python3 -m venv --system-site-packages "$tmp/venv"
VFILTER_BUILD_DIR=$build "$tmp/venv/bin/pip" install --no-build-isolation --no-index --no-deps -q "$src/python"
cd "$tmp"
PYTHONPATH= "$tmp/venv/bin/python" - "$tmp/venv" <<'PY'
import os, sys
import numpy as np
import vfilter
venv = sys.argv[1]
assert vfilter.__file__.startswith(venv), f"imported {vfilter.__file__}, not the installed package"
assert os.path.exists(os.path.join(os.path.dirname(vfilter.__file__), "__init__.pyi"))
assert os.path.exists(os.path.join(os.path.dirname(vfilter.__file__), "py.typed"))
image = np.zeros((9, 11), np.uint8)
image[:, 5:] = 200
edges = vfilter.apply(image, "sobel")
assert edges[:, 4:6].min() > 0 and edges[:, 0:3].max() == 0, edges
print("installed", vfilter.__file__, "filters:", len(vfilter.filters()))
PY
"$tmp/venv/bin/pip" uninstall -y -q vfilter
