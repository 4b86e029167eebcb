# Sourced (". scripts/use_static_ffmpeg.sh DIR") by the scripts that build against the static
# FFmpeg of scripts/build_static_ffmpeg.sh in DIR (always name it: a sourced script without
# arguments sees its caller's, so "$1" would be the caller's first argument): points its
# pkg-config files at where DIR lies now, whatever path it was built at, and puts its lib/pkgconfig
# on PKG_CONFIG_PATH and its ffmpeg command on PATH. The .pc files hold absolute libdir= and
# includedir= as well as prefix=: every one becomes relative to ${prefix}, then prefix= is set.
vf_static_ffmpeg=$(realpath -m "$1")
if [ ! -d "$vf_static_ffmpeg/lib/pkgconfig" ]; then
  echo "no static FFmpeg at $vf_static_ffmpeg (carry .static-ffmpeg/lib, include and bin; scripts/build_static_ffmpeg.sh builds them)" >&2
  return 1
fi
for vf_pc in "$vf_static_ffmpeg"/lib/pkgconfig/*.pc; do
  vf_old=$(sed -n 's/^prefix=//p' "$vf_pc")
  [ -n "$vf_old" ] && [ "$vf_old" != '${prefix}' ] && sed -i "s|$vf_old|\${prefix}|g" "$vf_pc"
  sed -i "s|^prefix=.*|prefix=$vf_static_ffmpeg|" "$vf_pc"
done
export PKG_CONFIG_PATH="$vf_static_ffmpeg/lib/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}" PATH="$vf_static_ffmpeg/bin:$PATH"
unset vf_pc vf_old
