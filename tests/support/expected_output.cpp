#include "support/expected_output.hpp"

#include "config/filter_registry.hpp"
#include "kernels/reference.hpp"

namespace vf::test {

AvFramePtr reference_filter(const AVFrame* in, const std::string& chain) {
    AvFramePtr cur = make_frame();
    av_frame_ref(cur.get(), in);
    for (const FilterPlan& plan : build_chain(chain)) {
        AvFramePtr out = make_frame();
        out->width = in->width;
        out->height = in->height;
        out->format = in->format;
        av_frame_get_buffer(out.get(), 0);
        const auto src = channel_views(cur.get());
        const auto dst = channel_views(out.get());
        for (size_t c = 0; c < src.size(); ++c) reference_apply(plan.ops[c], src[c], dst[c]);
        cur = std::move(out);
    }
    return cur;
}

long frame_differences(const AVFrame* a, const AVFrame* b, bool skip_last, std::string* first) {
    const auto va = channel_views(a), vb = channel_views(b);
    if (va.size() != vb.size()) return -1;
    long n = 0;
    for (size_t c = 0; c < va.size(); ++c) {
        if (va[c].width != vb[c].width || va[c].height != vb[c].height) return -1;
        const int w = va[c].width - (skip_last ? 1 : 0), h = va[c].height - (skip_last ? 1 : 0);
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x)
                if (va[c].read(x, y) != vb[c].read(x, y)) {
                    if (!n && first)
                        *first = "channel " + std::to_string(c) + " (" + std::to_string(x) + "," + std::to_string(y) +
                                 "): " + std::to_string(va[c].read(x, y)) + " vs " + std::to_string(vb[c].read(x, y));
                    ++n;
                }
    }
    return n;
}

AvFramePtr random_frame(FramePool& pool, std::mt19937& rng, int64_t pts) {
    AvFramePtr f = pool.get();
    f->pts = pts;
    for (const PlaneView& v : channel_views(f.get()))
        for (int y = 0; y < v.height; ++y)
            for (int x = 0; x < v.width; ++x) v.write(x, y, static_cast<int>(rng() & static_cast<uint32_t>(v.peak())));
    return f;
}

}  // namespace vf::test
