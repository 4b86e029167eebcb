#!/usr/bin/env bash
# Debian's GStreamer runtime and headers, unpacked into .gst-runtime/ (ignored by git), for the
# GPU machines, which have no GStreamer: carry `.gst-runtime` and source `.gst-runtime/env.sh`
# there before building (CMake then finds GStreamer through its pkg-config files and builds the
# element, its tests and vfilter_gst_bench). Run on the Debian build machine after
# scripts/install_deps.sh --test (which installs the packages this copies from).
#   scripts/build_gst_runtime.sh [DIR]     (default .gst-runtime)
# It takes the libraries the chosen programs and plugins load (their ldd closure, glibc left
# out), GStreamer's and GLib's headers, CUDA's GL header dependency (GL/, KHR/), and writes
# pkg-config files of its own without Requires (the distribution's pull in GL, X11 and more).
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
dir=${1:-$here/.gst-runtime}
arch=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || echo x86_64-linux-gnu)
sys=/usr/lib/$arch
rm -rf "$dir"
mkdir -p "$dir/lib/gstreamer-1.0" "$dir/bin" "$dir/include" "$dir/lib/pkgconfig"
plugins=(coreelements videotestsrc app videoconvertscale nvcodec videoparsersbad)
programs=(/usr/bin/gst-launch-1.0 /usr/bin/gst-inspect-1.0)
libs=(libgstreamer-1.0.so.0 libgstbase-1.0.so.0 libgstvideo-1.0.so.0 libgstapp-1.0.so.0 libgstcuda-1.0.so.0)
objects=("${programs[@]}")
for p in "${plugins[@]}"; do objects+=("$sys/gstreamer-1.0/libgst$p.so"); cp "$sys/gstreamer-1.0/libgst$p.so" "$dir/lib/gstreamer-1.0/"; done
for l in "${libs[@]}"; do objects+=("$sys/$l"); done
cp "${programs[@]}" "$dir/bin/"
for o in "${objects[@]}"; do ldd "$o" | awk '/=>/ {print $3}'; done | sort -u |
  grep -v -E '/(libc|libm|libpthread|libdl|librt|ld-linux[^/]*)\.so' | while read -r lib; do
  cp -L "$lib" "$dir/lib/$(basename "$lib")"
done
for l in "${libs[@]}"; do ln -sf "$l" "$dir/lib/${l%.0}"; done  # libgstreamer-1.0.so for the linker
for l in libglib-2.0.so.0 libgobject-2.0.so.0 libgmodule-2.0.so.0; do ln -sf "$l" "$dir/lib/${l%.0}"; done
cp -r /usr/include/gstreamer-1.0 /usr/include/glib-2.0 /usr/include/GL /usr/include/KHR "$dir/include/"
cp "$sys/glib-2.0/include/glibconfig.h" "$dir/include/glib-2.0/"
pc() {  # name, libs
  cat >"$dir/lib/pkgconfig/$1.pc" <<PC
prefix=\${pcfiledir}/../..
libdir=\${prefix}/lib
includedir=\${prefix}/include
pluginsdir=\${libdir}/gstreamer-1.0
Name: $1
Description: $1 (carried, scripts/build_gst_runtime.sh)
Version: $(pkg-config --modversion gstreamer-1.0)
Libs: -L\${libdir} $2 -lgobject-2.0 -lglib-2.0 -lgmodule-2.0
Cflags: -I\${includedir}/gstreamer-1.0 -I\${includedir}/glib-2.0 -I\${includedir}
PC
}
pc gstreamer-1.0 "-lgstreamer-1.0"
pc gstreamer-base-1.0 "-lgstbase-1.0 -lgstreamer-1.0"
pc gstreamer-video-1.0 "-lgstvideo-1.0 -lgstbase-1.0 -lgstreamer-1.0"
pc gstreamer-app-1.0 "-lgstapp-1.0 -lgstbase-1.0 -lgstreamer-1.0"
pc gstreamer-cuda-1.0 "-lgstcuda-1.0 -lgstvideo-1.0 -lgstbase-1.0 -lgstreamer-1.0"
cat >"$dir/env.sh" <<'ENV'
# Source from the repository root: the carried GStreamer for builds and runs.
gst_root="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
export PKG_CONFIG_PATH="$gst_root/lib/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
export LD_LIBRARY_PATH="$gst_root/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export GST_PLUGIN_SYSTEM_PATH="$gst_root/lib/gstreamer-1.0"
export GST_REGISTRY_FORK=no GST_REGISTRY=/tmp/vf-gst-registry.bin
export PATH="$gst_root/bin:$PATH"
ENV
du -sh "$dir"
