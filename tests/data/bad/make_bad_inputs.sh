#!/usr/bin/env bash
# Generates the bad-input corpus into OUTDIR (default: ./generated next to this script,
# ignored by git). Each file's expected outcome is in expected.tsv beside this script, and
# tests/e2e/bad_input_test.cpp runs vfilter on every one of them.
#   tests/data/bad/make_bad_inputs.sh [OUTDIR]   (needs the ffmpeg command and python3)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="${1:-$here/generated}"
ff=${FFMPEG:-ffmpeg}
mkdir -p "$out"
cd "$out"
q=(-hide_banner -loglevel error -y)
src="testsrc2=size=320x240:rate=25:duration=2"

: >empty.mp4
python3 -c "import os,random; random.seed(7); open('random.mp4','wb').write(bytes(random.getrandbits(8) for _ in range(65536)))"
"$ff" "${q[@]}" -f lavfi -i "$src" -frames:v 1 png_named.mp4.png && mv png_named.mp4.png png_named.mp4
"$ff" "${q[@]}" -f lavfi -i "$src" -c:v libx264 -preset ultrafast -pix_fmt yuv420p good.mp4
"$ff" "${q[@]}" -f lavfi -i "$src" -c:v libx264 -preset ultrafast -pix_fmt yuv420p -movflags +faststart good_faststart.mp4
# moov removed: the atom cut out, so the sample tables are gone but the media data stays.
python3 - <<'PY'
import struct
d = bytearray(open('good.mp4', 'rb').read())
i = 0
while i + 8 <= len(d):  # walk the top-level atoms; rename the moov atom's type
    size, kind = struct.unpack('>I4s', d[i:i + 8])
    if kind == b'moov':
        del d[i:i + size]
        break
    i += size if size >= 8 else len(d)
else:
    raise SystemExit('no top-level moov in good.mp4')
open('no_moov.mp4', 'wb').write(d)
PY
for pct in 10 50 90; do
  python3 -c "d=open('good_faststart.mp4','rb').read(); open('truncated_$pct.mp4','wb').write(d[:len(d)*$pct//100])"
  python3 -c "d=open('good.mp4','rb').read(); open('truncated_moov_at_end_$pct.mp4','wb').write(d[:len(d)*$pct//100])"
done
"$ff" "${q[@]}" -f lavfi -i "sine=frequency=440:duration=2" -c:a aac audio_only.m4a
# A stream whose resolution changes midway: two MPEG-TS parts of different sizes, concatenated.
"$ff" "${q[@]}" -f lavfi -i "testsrc2=size=320x240:rate=25:duration=1" -c:v libx264 -preset ultrafast -pix_fmt yuv420p -f mpegts a.ts
"$ff" "${q[@]}" -f lavfi -i "testsrc2=size=160x120:rate=25:duration=1" -c:v libx264 -preset ultrafast -pix_fmt yuv420p -f mpegts b.ts
cat a.ts b.ts >resolution_change.ts && rm a.ts b.ts
python3 -c "open('one.gray','wb').write(bytes(range(0, 250, 25)))"  # ten 1x1 grey frames
"$ff" "${q[@]}" -f rawvideo -pix_fmt gray -video_size 1x1 -framerate 25 -i one.gray -c:v ffv1 one_by_one.mkv && rm one.gray
"$ff" "${q[@]}" -f lavfi -i "color=c=gray:size=16384x16:rate=25:duration=0.12" -c:v ffv1 wide_16384.mkv
"$ff" "${q[@]}" -f lavfi -i "$src" -c:v ffv1 -f matroska mkv_named.mp4
# Kernel files.
printf '1 2 1\n2 nan 2\n1 2 1\n' >kernel_nan.txt
printf '1 2 1\n2 inf 2\n1 2 1\n' >kernel_inf.txt
printf 'one two three\n' >kernel_text.txt
python3 -c "open('kernel_1001.txt','w').write('\n'.join(' '.join('1' for _ in range(1001)) for _ in range(1001)) + '\n')"
rm -f good.mp4 good_faststart.mp4
ls "$out"
