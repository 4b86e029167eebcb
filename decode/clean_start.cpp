#include "decode/clean_start.hpp"

#include <cstdint>

namespace vf {
namespace {

// H.264 IDR slice (5); HEVC IDR_W_RADL (19) and IDR_N_LP (20).
bool is_idr_nal(AVCodecID codec, uint8_t header) {
    if (codec == AV_CODEC_ID_H264) return (header & 0x1f) == 5;
    const int type = (header >> 1) & 0x3f;
    return type == 19 || type == 20;
}

// Length-prefixed NAL units (MP4's avcC/hvcC): the prefix size from the extradata; 0 for Annex B
// (start codes: MPEG-TS, RTSP, raw .h264).
int nal_length_size(const AVCodecParameters* par) {
    const uint8_t* x = par->extradata;
    if (!x || par->extradata_size < 1 || x[0] != 1) return 0;
    if (par->codec_id == AV_CODEC_ID_H264 && par->extradata_size >= 5) return (x[4] & 3) + 1;
    if (par->codec_id == AV_CODEC_ID_HEVC && par->extradata_size >= 22) return (x[21] & 3) + 1;
    return 0;
}

bool has_idr(const AVPacket* p, const AVCodecParameters* par) {
    const uint8_t* d = p->data;
    const int n = p->size;
    const int prefix = nal_length_size(par);
    if (prefix > 0) {
        for (int i = 0; i + prefix < n;) {
            uint32_t len = 0;
            for (int k = 0; k < prefix; ++k) len = (len << 8) | d[i + k];
            i += prefix;
            if (len == 0 || len > static_cast<uint32_t>(n - i)) return false;  // not length-prefixed after all
            if (is_idr_nal(par->codec_id, d[i])) return true;
            i += static_cast<int>(len);
        }
        return false;
    }
    for (int i = 0; i + 3 < n; ++i)
        if (d[i] == 0 && d[i + 1] == 0 && d[i + 2] == 1) {
            if (is_idr_nal(par->codec_id, d[i + 3])) return true;
            i += 2;
        }
    return false;
}

}  // namespace

bool starts_clean_decode(const AVPacket* packet, const AVCodecParameters* par) {
    if (!(packet->flags & AV_PKT_FLAG_KEY) || !packet->data) return false;
    if (par->codec_id == AV_CODEC_ID_H264 || par->codec_id == AV_CODEC_ID_HEVC) return has_idr(packet, par);
    return par->video_delay == 0;
}

}  // namespace vf
