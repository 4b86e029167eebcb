#!/usr/bin/env bash
# serve_with_settings.sh VFILTER CONFIG [ARGS...]: `VFILTER serve --config CONFIG ARGS`, where an
# argument named after a key of the config file's serve: block (--stats-json FILE, --nvdec-share
# on, --decoder-placement load, --nvdec-capacity 90, ...; docs/serve.md) goes into that block, in a
# copy of CONFIG next to it: how the benchmark scripts pass SERVE_ARGS and GPU_ARGS. serve runs in
# this process (exec), so `$!` of a background call is serve's own pid.
set -u
bin=$1 config=$2
shift 2
keys=" media-root recordings-root kernel-dir output-hosts api-hosts tls-ca viewer-token-file max-streams max-previews
  max-preview-encoders host-threads gpu-frames min-free watch-config api-state stats-json decoder-placement nvdec-capacity
  cpu-decode-capacity nvdec-slots nvdec-share "
block="" args=()
while [ $# -gt 0 ]; do
  key=${1#--}
  if [ "$key" != "$1" ] && [[ "$keys" == *" $key "* ]] && [ $# -ge 2 ]; then
    block+="  $key: '$2'"$'\n'
    shift 2
  elif [ "$1" = --batch-wait ] || [ "$1" = --decoder-moves ]; then
    echo "serve_with_settings.sh: $1 $2 left out: serve decides it (docs/serve.md)" >&2
    shift 2
  else
    args+=("$1")
    shift
  fi
done
[ -z "$block" ] && exec "$bin" serve --config "$config" "${args[@]}"
copy="${config%.yaml}.settings.$$.yaml"
{ cat "$config"; printf '\nserve:\n%s' "$block"; } >"$copy"
exec "$bin" serve --config "$copy" "${args[@]}"
