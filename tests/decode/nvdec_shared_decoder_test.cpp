// vfilter's NVDEC decoder with decoders shared between streams (decode/nvdec_shared_decoder.hpp),
// on the GPU: every frame a stream gets is its own picture, equal to the same clip decoded on a
// decoder of its own, however the streams' maps and copies interleave. The decode surfaces are
// sliced between the streams; the output surfaces a frame is mapped into are not, and each stream
// maps and copies on a CUDA stream of its own. Here one gate holds every stream's CUDA stream back
// while the streams decode and map a few frames each (and busy threads load every core), so that
// copies out of the output surfaces wait while other streams map into them; a stream that unmaps
// before its copy has run then gets another stream's picture, which the test names.
// Skips without a GPU or without vfilter's NVDEC decoder (a build without ffnvcodec's headers).
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <iostream>
#include <thread>

#include <cuda_runtime_api.h>

#include "decode/hw_decode.hpp"
#include "decode/nvdec_decoder.hpp"
#include "decode/nvdec_decoder_pool.hpp"
#include "kernels/cuda_backend.hpp"
#include "support/clip_writer.hpp"
#include "support/expected_output.hpp"
#include "support/run_command.hpp"

extern "C" {
#include <libavformat/avformat.h>
#include <libavutil/hwcontext.h>
}

namespace vf {
namespace {

using namespace test;

// One clip read and decoded by vfilter's NVDEC decoder, frame by frame.
class ClipDecode {
public:
    // nullptr pool: a decoder of its own. *why says why not when decoder() is null.
    ClipDecode(const std::string& path, std::shared_ptr<NvdecDecoderPool> pool, std::string* why) {
        AVFormatContext* f = nullptr;
        if (avformat_open_input(&f, path.c_str(), nullptr, nullptr) < 0 || avformat_find_stream_info(f, nullptr) < 0) {
            *why = "cannot read " + path;
            if (f) avformat_close_input(&f);
            return;
        }
        input_.reset(f);
        video_ = av_find_best_stream(f, AVMEDIA_TYPE_VIDEO, -1, -1, nullptr, 0);
        device_ = make_nvdec_device(0, why);
        if (video_ < 0 || !device_) return;
        decoder_ = NvdecDecoder::open(f->streams[video_], device_, NvdecDecoder::kAheadLive, std::move(pool), nullptr, why);
    }
    ~ClipDecode() {
        decoder_.reset();
        av_buffer_unref(&device_);
    }
    ClipDecode(const ClipDecode&) = delete;
    ClipDecode& operator=(const ClipDecode&) = delete;

    NvdecDecoder* decoder() const { return decoder_.get(); }
    void* cuda_stream() const { return device_ ? cuda_handles_of(device_).stream : nullptr; }
    const std::string& error() const { return error_; }

    // Up to `n` more frames (in device memory) appended to `out`; fewer at the end or on an error.
    void take(int n, std::vector<AvFramePtr>& out) {
        while (n > 0 && error_.empty()) {
            AvFramePtr frame = make_frame();
            const int got = decoder_->receive(frame.get());
            if (got == 0) {
                out.push_back(std::move(frame));
                --n;
            } else if (got == AVERROR_EOF) {
                return;
            } else if (got != AVERROR(EAGAIN)) {
                error_ = "receive: " + decoder_->last_error();
            } else if (av_read_frame(input_.get(), packet_.get()) < 0) {
                if (decoder_->send(nullptr) < 0) error_ = "send (end): " + decoder_->last_error();
            } else {
                if (packet_->stream_index == video_ && decoder_->send(packet_.get()) < 0) error_ = "send: " + decoder_->last_error();
                av_packet_unref(packet_.get());
            }
        }
    }

private:
    AvInputPtr input_;
    int video_ = -1;
    AVBufferRef* device_ = nullptr;
    std::unique_ptr<NvdecDecoder> decoder_;
    AvPacketPtr packet_ = make_packet();
    std::string error_;
};

// A device frame copied to the host (nv12).
AvFramePtr downloaded(const AVFrame* device) {
    AvFramePtr host = make_frame();
    if (av_hwframe_transfer_data(host.get(), device, 0) < 0) return nullptr;
    return host;
}

// Threads that keep every core busy while they live, as a loaded test machine does: the
// decoders' threads are descheduled at any point for milliseconds.
class BusyCores {
public:
    BusyCores() {
        for (unsigned i = 0; i < std::max(1u, std::thread::hardware_concurrency()); ++i)
            threads_.emplace_back([this] {
                volatile uint64_t x = 0;
                while (!stop_.load(std::memory_order_relaxed)) x = x + 1;
            });
    }
    ~BusyCores() {
        stop_ = true;
        for (auto& t : threads_) t.join();
    }

private:
    std::atomic<bool> stop_{false};
    std::vector<std::thread> threads_;
};

// Holds CUDA streams back: what is queued on them after hold() runs once `ms` have passed.
class Gate {
public:
    Gate() {
        cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking);
        cudaEventCreateWithFlags(&open_, cudaEventDisableTiming);
    }
    ~Gate() {
        cudaStreamSynchronize(stream_);
        cudaEventDestroy(open_);
        cudaStreamDestroy(stream_);
    }
    Gate(const Gate&) = delete;
    Gate& operator=(const Gate&) = delete;

    bool hold(const std::vector<void*>& streams, int ms) {
        ms_ = ms;
        bool ok = cudaLaunchHostFunc(stream_, &Gate::sleep, &ms_) == cudaSuccess && cudaEventRecord(open_, stream_) == cudaSuccess;
        for (void* s : streams) ok = ok && cudaStreamWaitEvent(static_cast<cudaStream_t>(s), open_, 0) == cudaSuccess;
        return ok;
    }

private:
    static void CUDART_CB sleep(void* ms) { std::this_thread::sleep_for(std::chrono::milliseconds(*static_cast<int*>(ms))); }
    cudaStream_t stream_ = nullptr;
    cudaEvent_t open_ = nullptr;
    int ms_ = 0;
};

// Which decoded picture `frame` is, if any: "stream S frame F", or "" when it equals none.
std::string which_picture(const AVFrame* frame, const std::vector<std::vector<AvFramePtr>>& reference) {
    for (size_t s = 0; s < reference.size(); ++s)
        for (size_t f = 0; f < reference[s].size(); ++f)
            if (frame_differences(frame, reference[s][f].get()) == 0) return "stream " + std::to_string(s) + " frame " + std::to_string(f);
    return "";
}

TEST(NvdecSharedDecoder, StreamsMappingAtOnceGetOnlyTheirOwnPictures) {
    std::string why;
    if (!cuda_device_available(&why)) GTEST_SKIP() << "GPU test skipped: " << why;
    constexpr int kStreams = 8, kFrames = 48, kPerRound = 3, kGateMs = 20;
    const std::string dir = temp_dir();
    std::vector<std::string> clips;
    for (int s = 0; s < kStreams; ++s) {  // one size (one kind of decoder), a picture of its own each
        ClipSpec clip;
        clip.path = dir + "/s" + std::to_string(s) + ".mkv";
        clip.width = 640;
        clip.height = 352;
        clip.frames = kFrames;
        clip.video_codec = "libx264";
        clip.audio = false;
        clip.seed = 900 + static_cast<unsigned>(s);
        write_clip(clip);
        clips.push_back(clip.path);
    }
    // Each clip alone, on a decoder of its own: what every stream must get.
    std::vector<std::vector<AvFramePtr>> reference(kStreams);
    for (int s = 0; s < kStreams; ++s) {
        ClipDecode alone(clips[static_cast<size_t>(s)], nullptr, &why);
        if (!alone.decoder()) GTEST_SKIP() << "vfilter's NVDEC decoder: " << why;
        std::vector<AvFramePtr> frames;
        alone.take(kFrames + 1, frames);
        ASSERT_EQ(alone.error(), "");
        for (const auto& f : frames) {
            reference[static_cast<size_t>(s)].push_back(downloaded(f.get()));
            ASSERT_NE(reference[static_cast<size_t>(s)].back(), nullptr) << "downloading a frame";
        }
        ASSERT_GE(reference[static_cast<size_t>(s)].size(), static_cast<size_t>(kFrames - 1));
    }

    const std::shared_ptr<NvdecDecoderPool> pool = std::make_shared<NvdecDecoderPool>(0);
    std::vector<std::unique_ptr<ClipDecode>> shared;
    std::vector<void*> cuda_streams;
    for (int s = 0; s < kStreams; ++s) {
        shared.push_back(std::make_unique<ClipDecode>(clips[static_cast<size_t>(s)], pool, &why));
        ASSERT_NE(shared.back()->decoder(), nullptr) << why;
        cuda_streams.push_back(shared.back()->cuda_stream());
    }
    std::vector<std::vector<AvFramePtr>> got(kStreams);
    int most_decoders = 0, most_streams = 0;
    double receiving_ms = 0;
    int gated_rounds = 0;
    {
        const BusyCores busy;
        Gate gate;
        for (int round = 0; round * kPerRound < kFrames + kPerRound; ++round) {
            // Every other round behind the gate; the others as the loaded machine lets them run.
            const bool gated = round % 2 == 0;
            if (gated) {
                ASSERT_TRUE(gate.hold(cuda_streams, kGateMs));
            }
            std::vector<std::vector<AvFramePtr>> frames(kStreams);
            const auto start = std::chrono::steady_clock::now();
            std::vector<std::thread> threads;
            for (int s = 0; s < kStreams; ++s)
                threads.emplace_back([&, s] { shared[static_cast<size_t>(s)]->take(kPerRound, frames[static_cast<size_t>(s)]); });
            for (auto& t : threads) t.join();
            if (gated) {
                receiving_ms += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
                ++gated_rounds;
            }
            const NvdecDecoderPool::Counts n = pool->counts();
            if (n.streams > most_streams) most_streams = n.streams, most_decoders = n.decoders;
            for (int s = 0; s < kStreams; ++s) {
                ASSERT_EQ(shared[static_cast<size_t>(s)]->error(), "") << "stream " << s;
                for (const auto& f : frames[static_cast<size_t>(s)]) got[static_cast<size_t>(s)].push_back(downloaded(f.get()));
            }
        }
    }
    // Maps queued behind the gate (the driver's map does not wait for its stream) take less than
    // the gate per round before the fix; a stream that waits for its copy before unmapping, more.
    std::cout << "receiving " << kPerRound << " frames a stream behind a " << kGateMs << " ms gate took "
              << (gated_rounds ? receiving_ms / gated_rounds : 0) << " ms a round; " << most_streams << " streams on "
              << most_decoders << " decoders\n";
    EXPECT_GE(most_streams, kStreams) << "not every stream decoded on a shared decoder";
    EXPECT_LT(most_decoders, most_streams) << "every stream had a decoder of its own: nothing was shared";

    int wrong = 0;
    for (size_t s = 0; s < got.size(); ++s) {
        ASSERT_EQ(got[s].size(), reference[s].size()) << "stream " << s;
        for (size_t f = 0; f < got[s].size(); ++f) {
            ASSERT_NE(got[s][f], nullptr);
            std::string where;
            const long differ = frame_differences(got[s][f].get(), reference[s][f].get(), false, &where);
            if (differ == 0) continue;
            // The first few named: another stream's picture, another of its own, or none (a mix).
            const std::string is = ++wrong <= 8 ? which_picture(got[s][f].get(), reference) : "?";
            ADD_FAILURE() << "stream " << s << " frame " << f << ": " << differ << " samples differ (" << where << "); it is "
                          << (is.empty() ? "no decoded picture" : is);
        }
    }
    EXPECT_EQ(wrong, 0);
}

}  // namespace
}  // namespace vf
