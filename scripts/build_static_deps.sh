#!/usr/bin/env bash
# The libraries `vfilter serve` needs, from the distribution's source packages, into PREFIX
# beside the static FFmpeg (scripts/build_static_ffmpeg.sh calls it; run it alone to add them
# to an existing PREFIX): yaml-cpp as a static library with its pkg-config file, and cpp-httplib's
# upstream single header (Debian's package splits it into a shared library linked to OpenSSL,
# which the GPU machines and the container's runtime image do not have). Needs deb-src access.
#   scripts/build_static_deps.sh PREFIX
set -euo pipefail
prefix="$(realpath -m "${1:?usage: $0 PREFIX}")"
work="$prefix/src"
mkdir -p "$work" "$prefix/include" "$prefix/lib"
export DEBIAN_FRONTEND=noninteractive
command -v cmake >/dev/null || apt-get install -y -qq --no-install-recommends cmake >/dev/null
cd "$work"
ls yaml-cpp_*.dsc >/dev/null 2>&1 || apt-get source -qq --download-only yaml-cpp cpp-httplib >/dev/null
for dsc in yaml-cpp_*.dsc cpp-httplib_*.dsc; do
  dir=$(basename "$dsc" .dsc | sed 's/_/-/; s/-[^-]*$//')
  [ -d "$dir" ] || dpkg-source -x --skip-patches "$dsc" "$dir" >/dev/null
done
echo "== cpp-httplib (header only)"
cp "$(ls -d cpp-httplib-*/ | head -1)/httplib.h" "$prefix/include/httplib.h"
echo "== yaml-cpp (static)"
yaml_dir=$(ls -d yaml-cpp-*/ | head -1)
cmake -S "$yaml_dir" -B yaml-build -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX="$prefix" -DCMAKE_INSTALL_LIBDIR=lib \
  -DYAML_BUILD_SHARED_LIBS=OFF -DYAML_CPP_BUILD_TESTS=OFF -DYAML_CPP_BUILD_TOOLS=OFF -DYAML_CPP_BUILD_CONTRIB=OFF \
  -DCMAKE_POSITION_INDEPENDENT_CODE=ON >/dev/null
cmake --build yaml-build -j"$(nproc)" >/dev/null
cmake --install yaml-build >/dev/null
# yaml-cpp 0.7 puts its .pc under share/: beside FFmpeg's, so PKG_CONFIG_PATH=PREFIX/lib/pkgconfig finds it.
mkdir -p "$prefix/lib/pkgconfig"
[ -f "$prefix/share/pkgconfig/yaml-cpp.pc" ] && mv "$prefix/share/pkgconfig/yaml-cpp.pc" "$prefix/lib/pkgconfig/"
ls "$prefix/lib/pkgconfig/yaml-cpp.pc" "$prefix/lib/libyaml-cpp.a" "$prefix/include/httplib.h" >/dev/null
