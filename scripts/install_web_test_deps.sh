#!/usr/bin/env bash
# What the browser test of serve's page needs (tests/web): Debian's Chromium, and playwright-core
# from the npm registry (pinned by tests/web/package-lock.json) to drive it. test.sh runs it.
# Kept apart from scripts/install_deps.sh, which the container image's build copies: a change
# here does not rebuild the image.
set -euo pipefail
cd "$(dirname "$0")/.."
sudo=""
if [ "$(id -u)" -ne 0 ]; then command -v sudo >/dev/null && sudo=sudo; fi
export DEBIAN_FRONTEND=noninteractive
missing=()
[ -x /usr/bin/chromium ] || missing+=(chromium)
command -v npm >/dev/null || missing+=(nodejs npm)
if [ ${#missing[@]} -gt 0 ]; then
  echo "== installing ${missing[*]}"
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" fonts-dejavu-core >/dev/null
fi
tests/web/setup.sh
