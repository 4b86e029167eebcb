// Where serve's GPU streams decode (docs/serve.md, "Where streams decode"): a camera (a live or
// paced input) is placed by load, a file that runs as fast as it decodes on NVDEC (the serve:
// block's decoder-placement may put every stream on NVDEC, or every one by load). Placed by
// load, a stream that may decode on NVDEC (hwdec auto) goes, when it starts, to NVDEC while that is less than half full,
// then to whichever of its GPU's NVDEC and the host's CPU decoders would then be the less
// loaded, each load counted in camera streams
// (1080p30 H.264) against a capacity measured for such streams. NVDEC binds long before the host's
// cores do (docs/benchmarks.md, "Decoders on NVDEC and the CPU"), so a machine decodes more
// cameras with both. Streams whose decoder is forced (hwdec cuda or none, CPU filtering) are
// counted where they decode. A stream placed while both are full is reported over capacity.
// When streams leave, the rest may be left lopsided (NVDEC nearly idle while the CPU decodes
// cameras, or the reverse): next_move() names a stream to move to the other side at its next
// key frame (docs/serve.md, "Moving a stream between decoders").
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "common/metric_set.hpp"

namespace vf {

struct DecoderCapacity {
    // true: every stream NVDEC and the CPU decoders by load (serve: decoder-placement load);
    // false: by cameras_by_load below. By load a machine decodes more cameras than on NVDEC alone,
    // but a batch of files ends later: the files the CPU decodes finish last (docs/benchmarks.md,
    // "Decoders on NVDEC and the CPU").
    bool by_load = false;
    // 1080p30 camera streams one GPU's NVDEC decodes in real time with the GPU filters running;
    // 0: learned for each GPU from NVML while its streams decode (nvdec_sampled), and
    // kNvdecStreamsStartingEstimate until then.
    double nvdec_streams = 0;
    // The same for the host's CPU decoders; 0: from the cores (kCpuStreamsPerCore for each core
    // beyond the two kept for demuxing, the filters' threads and the API), less a core for each
    // stream that encodes on the CPU and kNvdecFeederCores for each stream decoding on NVDEC.
    double cpu_streams = 0;
    // Streams decode H.264 through vfilter's NVDEC decoder, sharing a GPU's decoders among streams
    // of one size (decode/nvdec_decoder_pool.hpp).
    bool nvdec_share = false;
    // Streams placed by load move between NVDEC and the CPU when others leave (next_move);
    // false: each stays where it was placed.
    bool moves = true;
    // Without by_load: cameras (live or paced inputs, place()'s `camera`) by load, other streams
    // on NVDEC (serve's default, decoder-placement auto); false: every stream on NVDEC.
    bool cameras_by_load = false;
};

// A GPU's NVDEC capacity before NVML has measured it (nvdec_sampled): a starting estimate only,
// high enough that the first cameras go to NVDEC, which binds before the cores do, and replaced
// by the measured figure within seconds of steady decoding (docs/benchmarks.md, "200 cameras in
// real time", says where it came from).
constexpr double kNvdecStreamsStartingEstimate = 175;
// Learning a GPU's NVDEC capacity from NVML (nvdec_sampled). Samples where NVDEC was less busy
// than kNvdecLearnBusy are left out (NVML gives whole percents: at 8% a sample is within 6%), and
// so are those whose frames decoded or busy differ from the sample before's by more than
// kNvdecSteady of either (streams starting or ending: NVML's period is not serve's). Each sample
// taken moves the capacity kNvdecLearnWeight of the way to its own figure (samples a second
// apart: a few seconds to settle); a change of more than kNvdecLoggedChange is logged.
constexpr double kNvdecLearnBusy = 0.08;
constexpr double kNvdecSteady = 0.2;
constexpr double kNvdecLearnWeight = 0.2;
constexpr double kNvdecLoggedChange = 0.1;
constexpr double kCpuStreamsPerCore = 2.5;
// NVML's busy does not reach 1 when NVDEC is full. A GPU's NVDEC at least kNvdecFullBusy busy whose
// frames came short of its streams' own rate by more than kNvdecShortfall (cameras falling
// behind) is full: its capacity is then the rate it kept, and the busy it showed is what "full"
// reads as on it from then on.
constexpr double kNvdecFullBusy = 0.8;
constexpr double kNvdecShortfall = 0.05;
// Once the machine's idle cores are measured (cpu_sampled), the CPU decoders' capacity is the
// load they carried at the sample plus kCpuStreamsPerCore for each idle core beyond kCpuSpareCores
// (kept for what the counts miss): measured, so it follows the clips' bitrate and other
// processes' work.
// Samples are smoothed, each moving the figure kCpuIdleWeight of the way.
constexpr double kCpuSpareCores = 1.0;
constexpr double kCpuIdleWeight = 0.5;
// Starting estimates of the cores a camera stream decoding on NVDEC takes (the CPU decoders get
// the cores those leave), not measured on the machine serve runs on: FFmpeg's NVDEC path waits for
// each frame in a polling loop of the driver's; vfilter's NVDEC decoder sleeps between checks
// instead, about half the CPU a frame (docs/benchmarks.md, "Decoders on NVDEC and the CPU").
constexpr double kNvdecFeederCores = 0.036;
constexpr double kNvdecFeederCoresVfilter = 0.021;
constexpr double kNvdecAlone = 0.5;  // NVDEC takes every stream while it is less loaded than this
// A placed stream moves to the other side only when that side would still be this much less
// full (as a fraction of its capacity) than the one it leaves, or to NVDEC while NVDEC stays
// within kNvdecAlone: a move costs the stream a new decoder (measured in docs/benchmarks.md,
// "Moving a stream between decoders"), so small differences are left alone, and a stream
// moved never has reason to move straight back.
constexpr double kMoveMargin = 0.25;

// A stream's decoding load in 1080p30 camera streams: its pixels a second against a camera's
// (4K30 counts 4, 720p30 0.44), at least kLeastLoad, since every stream also costs a decoder
// session and its threads whatever its size. The codec is not weighed (H.264 and HEVC alike: not
// measured apart). An unknown frame rate counts as 30.
constexpr double kLeastLoad = 0.1;
double camera_streams(int width, int height, double fps);

struct DecoderPlacement {
    bool nvdec = true;
    int gpu = 0;               // where it filters (and decodes, on NVDEC)
    bool chosen = true;        // false: forced by its entry (hwdec cuda/none, CPU filtering)
    bool over_capacity = false;
    bool moving = false;  // asked to move (nvdec is where it goes), not there yet
    int moves = 0;        // moves made since it started
    double load = 1;  // in 1080p30 camera streams: 1 until its input opens, then camera_streams
    std::string why;
    nlohmann::json describe() const;
};

class DecoderBalance {
public:
    DecoderBalance(DecoderCapacity capacity, int cores, std::vector<int> gpus);

    // A GPU stream that may decode on NVDEC: the decoder, and the GPU: on NVDEC, of those given,
    // the one whose NVDEC is the least loaded (on a tie, `cpu_decoded_gpu`); on the CPU,
    // `cpu_decoded_gpu` (the caller's choice, the GPU with the fewest streams).
    // `feeder_cores`: the CPU the stream takes if it decodes on NVDEC, which the CPU decoders lose.
    // `camera`: a live or paced input (placed by load under cameras_by_load), not a file read as
    // fast as it decodes.
    DecoderPlacement place(const std::string& stream, int cpu_decoded_gpu, double load = 1,
                           double feeder_cores = kNvdecFeederCores, bool camera = true);
    // A stream whose decoder is set: counted where it decodes (nvdec: on `gpu`).
    DecoderPlacement count(const std::string& stream, bool nvdec, int gpu, const std::string& why, double load = 1,
                           double feeder_cores = kNvdecFeederCores);
    // A stream that encodes on the CPU takes a core from the CPU decoders while it runs.
    void encoder_started(const std::string& stream);
    // Once its input opens: the stream's load (camera_streams of its size and rate) and where it
    // really decodes (a stream placed on NVDEC that NVDEC cannot decode, or with no GPU to decode
    // on, decodes on the CPU and is counted there, saying so); reported over capacity if its side
    // is now beyond it; `waiting_for_nvdec`: it decodes on the CPU until a shared NVDEC decoder
    // has room, then moves by itself (moved()). Unknown streams (already released) are ignored.
    // `frame_cameras`: what one frame a second of its size is worth in camera streams
    // (in_1080p30_cameras(width, height, 1)), to weigh the frames it decodes (nvdec_sampled).
    void input_opened(const std::string& stream, double load, bool nvdec, bool waiting_for_nvdec = false,
                      double frame_cameras = 0);
    // nvdec-share: whether a stream placed on NVDEC may decode on the CPU until its shared
    // decoder has room: while the CPU decoders have room for it (their load and the streams so
    // allowed whose inputs are not open yet). Its input's opening settles where it counts.
    bool may_wait_on_cpu(const std::string& stream);
    void release(const std::string& stream);

    // With placement by load: a chosen stream whose input has opened that should now decode on
    // the other side (kMoveMargin), the one whose move evens the loads most; nullopt when none.
    struct Move {
        std::string stream;
        bool to_nvdec = false;
        std::string why;
    };
    std::optional<Move> next_move() const;
    // The stream was asked to move (counted on its new side from now on, marked moving) or could
    // not be asked (its input is not running or cannot move: left out of next_move from now on).
    void moving(const Move& move);
    void cannot_move(const std::string& stream);
    // Its input reports where it decodes after the move (NVDEC may refuse a stream: then it is
    // counted on the CPU again and not moved again), or after a move of its own (a stream that
    // waited for a shared NVDEC decoder: counted on NVDEC now). Unknown streams are ignored.
    void moved(const std::string& stream, bool nvdec);
    // Whether streams of this kind placed from now on may be moved (by load, moves on): their
    // inputs must allow it.
    bool moves_streams(bool camera = true) const { return places_by_load(camera) && capacity_.moves; }
    bool places_by_load(bool camera) const { return capacity_.by_load || (capacity_.cameras_by_load && camera); }

    // NVDEC's utilisation, sampled about once a second (decode/nvdec_busy_meter.hpp): `busy`, for
    // each GPU measured, the share of NVML's period its NVDEC decoded; `frames`, each stream's
    // frames decoded so far (its job's count, which starts again with a new job); `now_s`, the
    // sample's time in seconds. Unless the serve: block's nvdec-capacity set it, a GPU's NVDEC capacity is learned:
    // the camera streams' worth of frames decoded on it since the last sample (each frame weighed
    // by its size) over how busy it was, when it was at least kNvdecLearnBusy busy, with the same
    // streams decoding on it as at the last sample, none of them moving or waiting for a shared
    // decoder, and both figures within kNvdecSteady of the period before's. Measured, not
    // assumed: it follows the GPU (one model's NVDEC is not another's), the streams' bitrate, and other
    // processes' decoding on the same NVDEC. Returns the lines to log (a GPU's capacity first
    // measured, or changed by more than kNvdecLoggedChange since last logged).
    std::vector<std::string> nvdec_sampled(const std::map<int, double>& busy, const std::map<std::string, int64_t>& frames,
                                           double now_s);
    // The machine's idle cores over the last second (common/idle_cores.hpp): from now on the CPU
    // decoders' capacity, unless the serve: block's cpu-decode-capacity sets it, is the load they
    // carry plus the streams the idle cores would take (kCpuSpareCores, kCpuStreamsPerCore).
    void cpu_sampled(double idle_cores);
    // A GPU's NVDEC capacity in camera streams, and where it comes from: "set" (nvdec-capacity),
    // "measured" (NVML) or "default" (kNvdecStreamsStartingEstimate, until measured).
    double nvdec_capacity(int gpu) const;
    std::string nvdec_capacity_from(int gpu) const;

    std::optional<DecoderPlacement> placement(const std::string& stream) const;
    // Camera streams that still fit: {"nvdec": {"GPU": left}, "cpu": left, "total": left}.
    nlohmann::json capacity_left() const;
    void collect_metrics(MetricSet& set) const;

private:
    double cpu_capacity_locked() const;
    void uncount_locked(const std::string& stream);  // out of its side's load
    bool count_locked(const std::string& stream);    // into its side's load; true when that side is now beyond capacity
    double nvdec_load_locked(int gpu) const;         // 0 for a GPU nothing was placed on
    double nvdec_capacity_locked(int gpu) const;
    std::string nvdec_capacity_from_locked(int gpu) const;
    // Whether a sample of `gpu` may teach its capacity: every stream decoding there is open (its
    // frames' weight known) and neither moving nor waiting for a shared decoder.
    bool nvdec_settled_locked(int gpu) const;

    DecoderCapacity capacity_;
    int cores_;
    std::vector<int> gpus_;
    mutable std::mutex mutex_;
    std::map<int, double> nvdec_load_;  // per GPU
    // What NVML says of each GPU's NVDEC, and the capacity learned from it.
    struct NvdecMeasure {
        double busy = -1;         // the last sample; < 0: none
        double capacity = 0;      // learned; 0: not yet
        double logged = 0;        // the capacity the log last gave
        std::string how;          // the last sample taken, in words
        uint64_t changes = 0;     // bumped whenever the streams decoding there change
        uint64_t changes_seen = 0;  // `changes` at the last sample
        double sampled_s = -1;    // the last sample's time; < 0: none
        double rate = -1;         // camera streams' worth of frames decoded over the last period; < 0: unknown
        double full_busy = 1;     // the busy NVML showed when this NVDEC was last found full
    };
    std::map<int, NvdecMeasure> nvdec_measures_;
    std::map<std::string, int64_t> frames_seen_;  // each stream's frame count at the last sample
    double cpu_load_ = 0;
    double cpu_idle_cores_ = -1;  // smoothed cpu_sampled; < 0: not measured
    double cpu_measured_ = -1;    // the CPU decoders' capacity from the last cpu_sampled; < 0: none
    double feeder_cores_ = 0;  // the NVDEC streams' CPU
    struct Placed {
        DecoderPlacement placement;
        double load = 1;
        double feeder_cores = 0;  // counted in feeder_cores_ (NVDEC streams)
        double nvdec_feeder_cores = 0;  // what it takes when it decodes on NVDEC
        bool movable = false;  // chosen by load, its input open, not refused by NVDEC
        std::string move_reason;  // the loads when its last move was asked for
        bool waiting_for_nvdec = false;  // on the CPU until a shared NVDEC decoder has room
        double cpu_wait_reserved = 0;    // may_wait_on_cpu's room, until its input opens
        double frame_cameras = 0;        // what a frame a second is worth (input_opened); 0: not open yet
        bool by_load = false;            // placed by load (places_by_load)
    };
    double cpu_wait_reserved_ = 0;  // the sum of the above
    void forget_cpu_wait_locked(const std::string& stream);  // gives back its may_wait_on_cpu room
    std::map<std::string, Placed> streams_;
    std::map<std::string, bool> encoders_;
};

}  // namespace vf
