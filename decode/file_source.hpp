// Demuxes and decodes any input FFmpeg opens (file, URL, capture device, '-' for stdin) with
// frame threading. Video frames come out in a native pixel format at the first frame's size
// (converted once with libswscale when needed); audio and subtitle packets come out untouched
// for passthrough. Live inputs that fail or end are reopened with exponential backoff, keeping
// one continuous timeline (the outage shows as a gap of its real length).
#pragma once

#include <string>
#include <vector>

#include "decode/decode_health.hpp"
#include "decode/decoder_buffers.hpp"
#include "decode/hw_decode.hpp"
#include "decode/nvdec_decoder.hpp"
#include "decode/nvdec_device.hpp"
#include "decode/nvdec_gate.hpp"
#include "media/io_watchdog.hpp"
#include "decode/input_timeline.hpp"
#include "decode/live_input.hpp"
#include "decode/passthrough_streams.hpp"
#include "decode/source.hpp"

namespace vf {

struct FileSourceOptions {
    std::string url;
    bool passthrough_audio = true;  // audio and subtitle streams
    int decoder_threads = 0;        // 0 = FFmpeg's choice (all cores)
    int gpu_index = 0;              // the CUDA device NVDEC decodes on
    int software_decoder_threads = 0;  // with decoder_threads 0: this many (serve's share); NVDEC takes it up to 3, at least 1
    BufferAllocator frame_alloc = nullptr;  // decoded frames' memory (nullptr: FFmpeg's own)
    HwDecode hwdec = HwDecode::None;        // Auto: NVDEC when it can decode the stream
    int hw_frames_held = 16;        // decoded frames the pipeline may hold at once (NVDEC surfaces)
    std::string allowed_protocols;  // empty: the default of media/protocols.hpp
    std::string video_decoder;      // a decoder by name instead of the stream's own (ffmpeg's -c:v before -i)
    double timeout_s = -1;  // give up on an input silent this long; <0: 10 s for network inputs, none for local ones
    LiveInputOptions live;  // transport, capture device settings, low latency
    bool realtime = false;  // pace frames by their timestamps (like ffmpeg -re); makes the input live
    double seek_s = 0;      // > 0: seek there (from the input's start) before reading, as ffmpeg's -ss before -i
    int reconnect_max = -1;         // live inputs: attempts per outage (-1: forever, 0: never)
    double reconnect_delay_s = 1;   // first wait; doubles per attempt up to 30 s
    // The NVDEC state of GPU gpu_index (its gate and shared decoders, decode/nvdec_device.hpp),
    // from the GPU runtime that owns it, shared with the runtime's other streams on that GPU.
    // Empty: the source makes one of its own (no gate, decoders shared with nobody).
    std::shared_ptr<NvdecDevice> nvdec_device;
    NvdecDecoderKind nvdec_decoder = NvdecDecoderKind::Ffmpeg;  // what drives NVDEC for H.264
    // With vfilter's decoder: decode into a slice of a decoder shared with the GPU's other streams
    // of this size (decode/nvdec_decoder_pool.hpp, serve --nvdec-share). With nvdec_wait_on_cpu,
    // decoder_movable and hwdec Auto too, an H.264 input (not a live one) whose shared decoder is still to be made
    // decodes on the CPU meanwhile and moves to NVDEC at the first clean start after one has room
    // (its pool's turn).
    bool nvdec_share = false;
    bool nvdec_wait_on_cpu = false;  // allows the above (serve gives it to as many streams as its CPU decoders carry)
    // serve --decoder-placement load, for a stream whose frames go to the GPU filters:
    // request_decoder_move may move it between NVDEC and the CPU (hwdec says where it starts and
    // forces nothing), and frames of either decoder's layout come out as they are.
    bool decoder_movable = false;
};

class FileSource : public Source {
public:
    explicit FileSource(const FileSourceOptions& options);
    ~FileSource() override;

    const VideoInfo& video() const override { return info_; }
    std::vector<PassthroughStream> passthrough() const override { return passthrough_.streams(); }
    const AVDictionary* metadata() const override { return metadata_; }
    std::string describe() const override { return description_; }
    std::optional<PipelineItem> read() override;
    DecodeHealth health() const override { return damage_.health(); }
    int64_t host_copies() const override { return host_copies_; }
    std::string hw_decode() const override { return nvdec_ ? "cuda" : "none"; }
    std::string nvdec_decoder() const override { return !nvdec_ ? "" : vfilter_nvdec_ ? "vfilter" : "ffmpeg"; }
    bool live() const override { return live_; }
    bool request_decoder_move(bool nvdec) override;
    bool waits_for_nvdec() const override { return waiting_for_nvdec_; }

private:
    void open();  // demuxer and decoder for options_.url; throws Error(Input) and friends
    // Why a decoder is opened: the first connection (hwdec decides), a reconnect (the same kind
    // as before, or fail), a move (the kind asked for; NVDEC refusing leaves the CPU decoding).
    enum class DecoderOpen { First, Reconnect, Move };
    void open_decoder(const AVCodec* codec, const AVStream* st, DecoderOpen why, bool nvdec_wanted);
    // A requested move at a clean start: holds `packet_` and drains the old decoder; finish_move()
    // opens the new one once the old has given out its last frame, and sends it the held packet.
    bool move_starts_here() const;
    void start_move();
    void finish_move();
    bool reconnect();  // false when stopped or out of attempts
    void input_ended(int err);  // a read failed or the input ended: reconnect after draining, or finish
    void drain_decoder();       // the input ended or stop() was asked: give out what the decoder holds
    std::optional<PipelineItem> deliver(AvFramePtr decoded);
    // The packet just read: video to the decoder (or the start of a decoder move), a passthrough
    // stream's packet out as an item, anything else dropped; timestamps rebased after a reconnect.
    std::optional<PipelineItem> route_packet();
    // --nvdec-decoder vfilter: own_nvdec_ for `st`; false with the reason when it cannot.
    bool open_own_nvdec(const AVStream* st, std::string* why);
    // Whether `st` may decode on the CPU while its shared NVDEC decoder is made (nvdec_share).
    bool waits_on_cpu_for_nvdec(const AVStream* st) const;
    int nvdec_ahead() const { return live_ ? NvdecDecoder::kAheadLive : NvdecDecoder::kAheadFiles; }
    // The decoder's send and receive, FFmpeg's codes: own_nvdec_ when there is one, else decoder_.
    int send_to_decoder(const AVPacket* packet);
    // A video packet to the decoder (through the gate), then unreferenced; a rejection is counted.
    void send_video_packet(AVPacket* packet);
    int receive_from_decoder(AVFrame* frame);

    FileSourceOptions options_;
    IoWatchdog watchdog_;  // before format_: FFmpeg calls it until the input is closed
    AvInputPtr format_;
    std::unique_ptr<DecoderBuffers> buffers_;  // before decoder_: it must outlive the decoder
    AvCodecContextPtr decoder_;  // unopened while own_nvdec_ decodes: it names the codec
    std::unique_ptr<NvdecDecoder> own_nvdec_;
    // Its turn at the GPU's shared decoders while it decodes on the CPU waiting for room.
    std::unique_ptr<NvdecDecoderPool::Turn> nvdec_turn_;
    std::atomic<bool> waiting_for_nvdec_{false};  // nvdec_turn_ is not ready (read by status readers)
    // Where it decodes; atomic since status readers ask while a move changes it.
    std::atomic<bool> nvdec_{false};
    std::atomic<bool> vfilter_nvdec_{false};  // own_nvdec_ decodes
    std::atomic<int> move_to_{-1};  // a requested move: 1 NVDEC, 0 the CPU, -1 none
    bool moving_ = false;           // the old decoder drains before move_target_'s opens
    bool move_target_ = false;
    AvPacketPtr move_start_;        // the clean start the new decoder begins with
    std::optional<Clock::time_point> move_started_;  // until the new decoder's first frame: its wait is logged
    double move_drain_ms_ = 0, move_open_ms_ = 0;      // of that wait: the old decoder's last frames, opening the new one
    std::shared_ptr<NvdecGate> nvdec_gate_;  // with nvdec_slots: the GPU's gate
    bool nvdec_decoding_ = false;            // the NVDEC decoder has given a frame (it exists)
    // Held around each call into FFmpeg's decoder: the creation turn until the NVDEC decoder's first
    // frame, a decode slot after; nothing without a gate or on the CPU.
    NvdecGate::Pass gate_pass() const { return NvdecGate::Pass(nvdec_ ? nvdec_gate_.get() : nullptr, !nvdec_decoding_); }
    bool live_ = false;           // live, or paced as live (--realtime)
    bool reconnectable_ = false;  // a camera or stream that may come back after it fails
    std::string description_;
    int64_t host_copies_ = 0;
    int video_index_ = -1;
    AVRational stream_tb_{1, 1};  // the current connection's video time base
    VideoInfo info_;              // as the first connection described it; later ones are converted to it
    AVDictionary* metadata_ = nullptr;  // the first connection's, for the output
    PassthroughStreams passthrough_;
    InputTimeline timeline_{info_};
    DecodeDamage damage_{status_};
    AvPacketPtr packet_;
    AvFramePtr receiving_;  // the decoder writes here; a new one is made only after handing it on
    FrameConverter converter_;
    RealtimePacer pacer_;
    bool draining_ = false;
    bool reconnect_after_drain_ = false;
    bool went_silent_ = false;  // the --timeout deadline ended a read of this connection
    bool rebase_pending_ = false;  // the first packet after a reconnect sets the timeline offset
    Clock::time_point down_since_{};
    bool warned_resize_ = false;
    int64_t next_index_ = 0;
};

}  // namespace vf
