#!/usr/bin/env bash
# Adds the distribution's source lines (deb-src) beside its binary ones where none are there, so
# that `apt-get source` can fetch source packages: FFmpeg's for scripts/build_static_ffmpeg.sh
# and for the FATE tests (scripts/fate_sources.sh). deb822 files (Debian 12, Ubuntu 24.04) or
# sources.list. Exits 0 with nothing done when source lines exist; 10 when it added some (then
# run apt-get update). Needs root to add them.
set -euo pipefail
grep -rqs "deb-src" /etc/apt/sources.list /etc/apt/sources.list.d/ && exit 0
for f in /etc/apt/sources.list.d/*.sources; do
  [ -f "$f" ] && sed -e 's/^Types: deb$/Types: deb-src/' "$f" >"/etc/apt/sources.list.d/vfilter-src-$(basename "$f")"
done
[ -f /etc/apt/sources.list ] && grep "^deb " /etc/apt/sources.list | sed 's/^deb /deb-src /' >/etc/apt/sources.list.d/vfilter-src.list
exit 10
