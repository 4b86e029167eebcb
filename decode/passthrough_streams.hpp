// The audio and subtitle streams an input passes through untouched. Their parameters are kept as
// the first connection described them (owned copies, valid across reconnects); each new
// connection's streams are matched to them by type and codec. Streams that pass nowhere are
// discarded, except audio, which is still read because it marks where the input ends.
#pragma once

#include <vector>

#include "media/frame.hpp"

namespace vf {

class PassthroughStreams {
public:
    PassthroughStreams() = default;
    PassthroughStreams(const PassthroughStreams&) = delete;
    PassthroughStreams& operator=(const PassthroughStreams&) = delete;
    ~PassthroughStreams();

    // The first connection: every audio and subtitle stream passes when `keep` is set.
    void choose(AVFormatContext* ctx, int video_index, bool keep);
    // A later connection: its streams matched to the first connection's.
    void match(AVFormatContext* ctx, int video_index);

    const std::vector<PassthroughStream>& streams() const { return streams_; }
    bool carries(int stream_index) const {
        return stream_index >= 0 && stream_index < static_cast<int>(source_of_.size()) && source_of_[stream_index] >= 0;
    }
    // Takes the packet (read from stream st of the current connection) as the passthrough stream
    // it feeds, in that stream's time base. Only for a stream that carries().
    PassthroughPacket take(AVPacket* packet, const AVStream* st) const;
    AVRational time_base(int source_stream) const;  // of the passthrough stream

private:
    std::vector<PassthroughStream> streams_;
    std::vector<AVCodecParameters*> params_;  // owned
    std::vector<AVDictionary*> metadata_;     // owned
    std::vector<int> source_of_;  // current stream index -> the first connection's index, or -1
};

}  // namespace vf
