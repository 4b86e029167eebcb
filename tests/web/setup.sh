#!/usr/bin/env bash
# Installs playwright-core (pinned by package-lock.json) into tests/web/node_modules. It drives
# the system's Chromium (/usr/bin/chromium); it downloads no browser of its own. Idempotent: a
# second run with the same lock file does nothing.
set -euo pipefail
cd "$(dirname "$0")"
command -v npm >/dev/null || { echo "tests/web/setup.sh: npm missing (scripts/install_web_test_deps.sh installs it)" >&2; exit 1; }
stamp=node_modules/.vfilter-lock
if [ -f "$stamp" ] && cmp -s package-lock.json "$stamp" && [ -d node_modules/playwright-core ]; then exit 0; fi
npm ci --no-audit --no-fund --loglevel=error >npm.log 2>&1 || { tail -20 npm.log >&2; exit 1; }
rm -f npm.log
cp package-lock.json "$stamp"
