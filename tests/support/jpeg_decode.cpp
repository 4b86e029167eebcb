#include "support/jpeg_decode.hpp"

extern "C" {
#include <libavcodec/avcodec.h>
}

namespace vf::test {

AvFramePtr decode_jpeg(const std::string& jpeg) {
    const AVCodec* codec = avcodec_find_decoder(AV_CODEC_ID_MJPEG);
    if (!codec) return nullptr;
    AvCodecContextPtr dec(avcodec_alloc_context3(codec));
    if (!dec || avcodec_open2(dec.get(), codec, nullptr) < 0) return nullptr;
    AvPacketPtr packet = make_packet();
    if (av_new_packet(packet.get(), static_cast<int>(jpeg.size())) < 0) return nullptr;
    std::copy(jpeg.begin(), jpeg.end(), packet->data);
    AvFramePtr frame = make_frame();
    if (avcodec_send_packet(dec.get(), packet.get()) < 0 || avcodec_send_packet(dec.get(), nullptr) < 0 ||
        avcodec_receive_frame(dec.get(), frame.get()) < 0)
        return nullptr;
    return frame;
}

}  // namespace vf::test
