#!/usr/bin/env bash
# The library `vfilter serve` needs beside the static FFmpeg, from the distribution's source
# package, into PREFIX (scripts/build_static_ffmpeg.sh calls it; run it alone to add it to an
# existing PREFIX): yaml-cpp as a static library with its pkg-config file (the container's
# runtime image does not have Debian's shared one), and OpenSSL's headers and static archives
# (copied from libssl-dev). The HTTP server and client need only Boost's
# headers (libboost-dev), nothing at run time. Needs deb-src access.
#   scripts/build_static_deps.sh PREFIX
set -euo pipefail
prefix="$(realpath -m "${1:?usage: $0 PREFIX}")"
work="$prefix/src"
mkdir -p "$work" "$prefix/include" "$prefix/lib"
export DEBIAN_FRONTEND=noninteractive
command -v cmake >/dev/null || apt-get install -y -qq --no-install-recommends cmake >/dev/null
cd "$work"
ls yaml-cpp_*.dsc >/dev/null 2>&1 || apt-get source -qq --download-only yaml-cpp >/dev/null
for dsc in yaml-cpp_*.dsc; do
  dir=$(basename "$dsc" .dsc | sed 's/_/-/; s/-[^-]*$//')
  [ -d "$dir" ] || dpkg-source -x --skip-patches "$dsc" "$dir" >/dev/null
done
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
ls "$prefix/lib/pkgconfig/yaml-cpp.pc" "$prefix/lib/libyaml-cpp.a" >/dev/null
# OpenSSL (libcrypto signs the calls between serve processes, libssl will speak HTTPS): Debian's
# libssl-dev headers and static archives, for machines that have OpenSSL's shared libraries but
# not its headers (the GPU machines; scripts/gpu_pipeline_check.sh links them when it must).
echo "== OpenSSL (Debian's libssl-dev: headers and static archives)"
arch_dir=$(gcc -print-multiarch)
mkdir -p "$prefix/openssl/include" "$prefix/openssl/lib"
cp -r /usr/include/openssl "$prefix/openssl/include/"
cp /usr/include/"$arch_dir"/openssl/*.h "$prefix/openssl/include/openssl/"
cp /usr/lib/"$arch_dir"/libssl.a /usr/lib/"$arch_dir"/libcrypto.a "$prefix/openssl/lib/"
