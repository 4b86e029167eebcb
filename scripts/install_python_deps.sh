#!/usr/bin/env bash
# What the Python module (python/, docs/python.md) needs to build and be tested, from the
# distribution's packages: pybind11, NumPy, pytest, Python's headers, and venv, pip and setuptools
# (for pip install ./python and its test). Called by test.sh and
# run.sh; a no-op when all are present.
set -euo pipefail
missing=()
for p in python3-dev python3-pybind11 python3-numpy python3-pytest python3-venv python3-pip python3-setuptools; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
[ ${#missing[@]} = 0 ] && exit 0
sudo=""
[ "$(id -u)" = 0 ] || sudo=sudo
echo "== installing ${missing[*]}"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
