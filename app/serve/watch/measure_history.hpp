// The recent picture measures of one watched stream, for the page's small live graphs (GET
// /streams/NAME/watch, docs/serve.md): a ring of fixed size made when the stream starts, so memory
// never grows with time nor with the stream's measuring rate. A stream measured faster than the
// ring's pace keeps one sample per step; the oldest goes first.
#pragma once

#include <array>
#include <cstddef>
#include <mutex>
#include <optional>
#include <vector>

#include <nlohmann/json.hpp>

#include "pipeline/watch/picture_measures.hpp"

namespace vf {

class MeasureHistory {
public:
    static constexpr double kStepS = 0.25;   // at most four samples a second: enough for a graph's line
    static constexpr double kKeptS = 120;    // the graphs show the last two minutes
    static constexpr size_t kCapacity = static_cast<size_t>(kKeptS / kStepS);

    // The measures of the picture at `time_unix` (wall clock, seconds); kept unless the last
    // sample kept is less than a step older.
    void add(double time_unix, const watch::PictureMeasures& m);
    // {"every_s", "kept_s", "time": [...], "sharpness": [...], "luma_mean": [...],
    //  "difference": [... or null], "edge_agreement": [... or null]}: the samples at or after
    // `since_unix`, oldest first.
    nlohmann::json describe(double since_unix) const;
    size_t size() const;

private:
    struct Sample {
        double time = 0;
        float sharpness = 0, luma_mean = 0;
        std::optional<float> difference, edge_agreement;
    };
    mutable std::mutex mutex_;
    std::array<Sample, kCapacity> ring_{};
    size_t next_ = 0, count_ = 0;
};

}  // namespace vf
