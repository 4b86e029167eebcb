#!/usr/bin/env bash
# FFmpeg's own test suite (FATE) parts that vfilter's FATE tests (tests/e2e/fate_filter_test.cpp)
# run: tests/fate/filter-video.mak (the command lines), tests/fate-run.sh, tests/ref/fate/filter-*
# (the reference outputs), tests/refcmp-metadata.awk, and the vsynth1 input frames made by
# FFmpeg's tests/videogen.c, compiled here with cc. They come from the distribution's ffmpeg
# source package, the version of the installed ffmpeg command (Debian 12: 5.1), as
# scripts/build_static_ffmpeg.sh gets its source: the orig tarball that script already downloaded
# (.static-ffmpeg/src, where no package list can be reached: the GPU machines), else
# `apt-get source --download-only` (deb-src lines: scripts/install_deps.sh --test adds them).
# Made once into DEST (the build folder's fate-src) and reused; prints the tests folder's parent.
#   scripts/fate_sources.sh DEST
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
dest="$(realpath -m "${1:?usage: $0 DEST}")"
mkdir -p "$dest"
# Tests run in parallel: one of them makes the folder, the others wait for it.
exec 9>"$dest/.lock"
flock 9
done_mark="$dest/.complete"
if [ -f "$done_mark" ]; then cat "$done_mark"; exit 0; fi

# The source version of the ffmpeg command that the tests compare with (7:5.1.9-0+deb12u1), or
# none where it is not a package (the static build's ffmpeg).
wanted=$(dpkg-query -W -f='${source:Version}' ffmpeg 2>/dev/null || true)
upstream=${wanted#*:}
upstream=${upstream%-*}
tarball=""
for t in "$dest"/ffmpeg_*.orig.tar.xz "$here"/.static-ffmpeg/src/ffmpeg_*.orig.tar.xz; do
  [ -f "$t" ] || continue
  if [ -z "$upstream" ] || [ "$(basename "$t")" = "ffmpeg_${upstream}.orig.tar.xz" ]; then tarball=$t; break; fi
done
if [ -z "$tarball" ]; then
  (cd "$dest" && apt-get source --download-only -qq "ffmpeg${wanted:+=$wanted}" >/dev/null 2>"$dest/apt-source.log") || {
    echo "cannot get FFmpeg's source package (apt-get source ffmpeg${wanted:+=$wanted}: $(tail -1 "$dest/apt-source.log"));" \
      "scripts/install_deps.sh --test enables the deb-src lines it needs" >&2
    exit 1
  }
  tarballs=("$dest"/ffmpeg_*.orig.tar.xz)
  tarball=${tarballs[0]}
fi
# awk, not head: head leaving early would end tar with SIGPIPE, and pipefail would end the script
top=$(tar -tJf "$tarball" | awk -F/ 'NR == 1 { print $1 }')
tar -xJf "$tarball" -C "$dest" --wildcards "$top/tests/videogen.c" "$top/tests/utils.c" "$top/tests/fate-run.sh" \
  "$top/tests/refcmp-metadata.awk" "$top/tests/fate/filter-video.mak" "$top/tests/ref/fate/filter-*"
root="$dest/$top"
# FATE's make rule for $(VREF): tests/videogen tests/vsynth1/ (50 frames of 352x288 YUV 4:2:0 in .pgm).
cc -O2 -o "$root/tests/videogen" "$root/tests/videogen.c" -lm
mkdir -p "$root/tests/vsynth1"
(cd "$root" && tests/videogen tests/vsynth1/ >/dev/null)
echo "$root" >"$done_mark"
cat "$done_mark"
