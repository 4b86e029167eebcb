#include "pipeline/gpu_pipeline_bench.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <random>

#include "config/filter_registry.hpp"
#include "kernels/cuda/device_buffer.hpp"
#include "kernels/cuda/device_context.hpp"
#include "kernels/cuda/prepared_chain.hpp"
#include "kernels/cuda/workspace.hpp"
#include "media/frame_pool.hpp"
#include "pipeline/gpu_frame_filter.hpp"
#include "media/host_memory.hpp"

namespace vf {

namespace {

std::string dense_27x27() {
    std::string m = "convolution=m=";
    for (int i = 0; i < 27 * 27; ++i) m += std::to_string((i * 7) % 11 - 5) + (i + 1 < 27 * 27 ? " " : "");
    return m + ":bias=128";
}

// Runs `frames` frames through `gpu` keeping it full, and returns the wall time in seconds.
double run_frames(GpuFrameFilter& gpu, const std::vector<AvFramePtr>& inputs, FramePool& out_pool, int frames) {
    const auto t = std::chrono::steady_clock::now();
    for (int i = 0; i < frames; ++i) {
        if (gpu.in_flight() == gpu.capacity()) gpu.take(true);
        AvFramePtr in = make_frame();
        VF_AV_CHECK(av_frame_ref(in.get(), inputs[static_cast<size_t>(i) % inputs.size()].get()), ErrorCategory::Internal,
                    "frame reference");
        gpu.submit(std::move(in), out_pool);
    }
    while (gpu.take(true)) {
    }
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

// The GPU this thread uses (bench --gpu made it current).
int current_gpu() {
    int device = 0;
    VF_CUDA_CHECK(cudaGetDevice(&device));
    return device;
}

// A yuv420p frame on the GPU, rows 256-byte aligned as the GPU stage allocates them.
struct DeviceImage {
    std::vector<cuda::DeviceBuffer> planes;
    uint8_t* data[4] = {};
    int linesize[4] = {};
};

// A w x h image, of random samples where `rng` is given.
DeviceImage make_device_image(int w, int h, std::mt19937* rng) {
    DeviceImage im;
    for (int p = 0; p < 3; ++p) {
        const int pw = p ? (w + 1) / 2 : w, ph = p ? (h + 1) / 2 : h, pitch = (pw + 255) / 256 * 256;
        im.planes.emplace_back(static_cast<size_t>(pitch) * ph);
        im.data[p] = static_cast<uint8_t*>(im.planes.back().data());
        im.linesize[p] = pitch;
        if (rng) {
            std::vector<uint8_t> host(static_cast<size_t>(pitch) * ph);
            for (auto& b : host) b = static_cast<uint8_t>((*rng)() & 255u);
            VF_CUDA_CHECK(cudaMemcpy(im.data[p], host.data(), host.size(), cudaMemcpyHostToDevice));
        }
    }
    return im;
}

// `most` frames in (random samples) and two sets out, which the filters of a chain write in turn.
struct BatchImages {
    int w = 0, h = 0;
    std::vector<DeviceImage> in, out[2];
};

BatchImages make_batch_images(int w, int h, int most) {
    BatchImages images;
    images.w = w;
    images.h = h;
    std::mt19937 rng(9);
    for (int i = 0; i < most; ++i) {
        images.in.push_back(make_device_image(w, h, &rng));
        images.out[0].push_back(make_device_image(w, h, nullptr));
        images.out[1].push_back(make_device_image(w, h, nullptr));
    }
    return images;
}

// Channel `channel` of the first `count` of `images`.
std::vector<PlaneView> views_of_channel(const std::vector<DeviceImage>& images, int count, size_t channel, int w, int h) {
    std::vector<PlaneView> v;
    for (int i = 0; i < count; ++i)
        v.push_back(channel_views(AV_PIX_FMT_YUV420P, w, h, images[static_cast<size_t>(i)].data, images[static_cast<size_t>(i)].linesize)[channel]);
    return v;
}

struct BatchTiming {
    double kernels_ms = 0;  // a frame
    std::string rows;       // the dispatch rows that ran (luma, chroma)
};

// The chain on frames 0..batch-1, prepared once for these planes: each filter's operation on a
// channel is one launch_batch over the frames (one launch per 16 where the row batches). The
// views are made once, so the timed loop only launches.
BatchTiming time_batch(const std::vector<FilterPlan>& chain, const std::shared_ptr<cuda::DeviceContext>& ctx, cuda::Stream& stream,
                       cuda::Workspace& workspace, const BatchImages& images, int batch, int frames) {
    const int w = images.w, h = images.h;
    auto views = [&](const std::vector<DeviceImage>& of, int count, size_t channel) { return views_of_channel(of, count, channel, w, h); };
    std::string ran;
    std::vector<std::vector<PlaneView>> src_of(3 * chain.size()), dst_of(3 * chain.size());
    std::vector<cuda::StepShapes> shapes(chain.size());
    for (size_t c = 0; c < 3; ++c)
        for (size_t f = 0; f < chain.size(); ++f) {
            src_of[c * chain.size() + f] = f == 0 ? views(images.in, batch, c) : views(images.out[(f - 1) % 2], batch, c);
            dst_of[c * chain.size() + f] = views(images.out[f % 2], batch, c);
            shapes[f].src.push_back(cuda::PlaneShape::of(src_of[c * chain.size() + f][0]));
            shapes[f].dst.push_back(cuda::PlaneShape::of(dst_of[c * chain.size() + f][0]));
        }
    const auto prepared = cuda::PreparedChain::acquire(ctx, chain, KernelChoice{}, shapes);
    auto pass = [&] {
        ran.clear();
        for (size_t c = 0; c < 3; ++c)
            for (size_t f = 0; f < chain.size(); ++f) {
                const size_t k = c * chain.size() + f;
                const cuda::PreparedOp& op = prepared->op(f, c);
                op.launch_batch(src_of[k].data(), dst_of[k].data(), batch, stream.get(), workspace);
                if (c < 2) ran += std::string(ran.empty() ? "" : ", ") + op.row();
            }
    };
    for (int i = 0; i < 3; ++i) pass();  // warm-up: first launches
    const int passes = std::max(1, frames / batch);
    cuda::Event start, stop;
    start.record(stream.get());
    for (int i = 0; i < passes; ++i) pass();
    stop.record(stream.get());
    stream.sync();
    return {stop.since(start) / (static_cast<double>(passes) * batch), ran};
}

}  // namespace

nlohmann::json to_json(const GpuPipelineBenchRow& r) {
    return {{"size", r.size},           {"filter", r.filter},         {"upload_ms", r.upload_ms},
            {"kernels_ms", r.kernels_ms}, {"download_ms", r.download_ms}, {"serial_fps", r.serial_fps},
            {"bound_fps", r.bound_fps}, {"overlapped_fps", r.overlapped_fps}, {"ratio_to_bound", r.ratio}};
}

std::vector<GpuPipelineBenchRow> run_gpu_pipeline_bench(const GpuPipelineBenchOptions& o, GpuRuntime& runtime) {
    std::vector<std::string> filters = o.filters;
    if (filters.empty()) filters = {"identity", "sobel", "gaussian=sigma=3.2", dense_27x27()};
    std::vector<GpuPipelineBenchRow> rows;
    std::printf("%-10s %-22s %9s %9s %9s %10s %10s %12s %7s\n", "frame", "filter", "upload", "kernels", "download",
                "serial", "bound", "overlapped", "ratio");
    std::printf("%-10s %-22s %9s %9s %9s %10s %10s %12s %7s\n", "", "", "ms", "ms", "ms", "fps", "fps",
                ("fps, " + std::to_string(o.streams) + " str").c_str(), "");
    for (const std::string& size : o.sizes) {
        int w = 0, h = 0;
        if (std::sscanf(size.c_str(), "%dx%d", &w, &h) != 2 || w <= 0 || h <= 0 || w > 16384 || h > 16384)
            fail(ErrorCategory::Usage, "bench --size '" + size + "': expected WxH, e.g. 1920x1080");
        // Eight distinct yuv420p frames in page-locked memory, as the decoder would leave them.
        const std::shared_ptr<GpuDevice> gpu = runtime.device(current_gpu());
        FramePool in_pool(w, h, AV_PIX_FMT_YUV420P, gpu->page_locked()->allocator()),
            out_pool(w, h, AV_PIX_FMT_YUV420P, gpu->page_locked()->allocator());
        std::vector<AvFramePtr> inputs;
        std::mt19937 rng(5);
        for (int i = 0; i < 8; ++i) {
            AvFramePtr f = in_pool.get();
            for (const PlaneView& v : channel_views(f.get()))
                for (int y = 0; y < v.height; ++y)
                    for (int x = 0; x < v.width; ++x) v.write(x, y, static_cast<int>(rng() & 255u));
            inputs.push_back(std::move(f));
        }
        for (const std::string& spec : filters) {
            std::vector<FilterPlan> chain;
            for (FilterPlan& p : build_chain(spec))
                if (!p.is_identity()) chain.push_back(std::move(p));
            GpuPipelineBenchRow r;
            r.size = size;
            r.filter = spec.size() > 22 && spec.rfind("convolution=m=", 0) == 0 ? "dense 27x27" : spec;
            {  // each step alone: one stream, one frame at a time
                GpuFrameFilter serial(chain, KernelChoice{}, 1, gpu);
                run_frames(serial, inputs, out_pool, 20);  // warm-up: plans, auto's timing, pools
                GpuFrameFilter timed(chain, KernelChoice{}, 1, gpu);
                run_frames(timed, inputs, out_pool, std::max(20, o.frames / 3));
                r.upload_ms = timed.times().upload.mean();
                r.kernels_ms = timed.times().kernels.mean();
                r.download_ms = timed.times().download.mean();
            }
            GpuFrameFilter overlapped(chain, KernelChoice{}, o.streams, gpu);
            run_frames(overlapped, inputs, out_pool, 3 * o.streams);  // warm-up
            const double wall = run_frames(overlapped, inputs, out_pool, o.frames);
            r.serial_fps = 1000.0 / (r.upload_ms + r.kernels_ms + r.download_ms);
            r.bound_fps = 1000.0 / std::max({r.upload_ms, r.kernels_ms, r.download_ms});
            r.overlapped_fps = o.frames / wall;
            r.ratio = r.overlapped_fps / r.bound_fps;
            std::printf("%-10s %-22.22s %9.3f %9.3f %9.3f %10.1f %10.1f %12.1f %7.2f\n", size.c_str(), r.filter.c_str(),
                        r.upload_ms, r.kernels_ms, r.download_ms, r.serial_fps, r.bound_fps, r.overlapped_fps, r.ratio);
            rows.push_back(r);
        }
    }
    return rows;
}

nlohmann::json to_json(const GpuBatchBenchRow& r) {
    return {{"size", r.size}, {"filter", r.filter}, {"frames_a_launch", r.batch}, {"kernels_ms_per_frame", r.kernels_ms},
            {"ratio_to_one_a_launch", r.ratio_to_one}, {"rows", r.rows}};
}

std::vector<GpuBatchBenchRow> run_gpu_batch_bench(const GpuPipelineBenchOptions& o, GpuRuntime& runtime) {
    std::vector<std::string> filters = o.filters;
    if (filters.empty())
        filters = {"sobel", "convolution=m=1 4 6 4 1 4 16 24 16 4 6 24 36 24 6 4 16 24 16 4 1 4 6 4 1:rdiv=0.00390625"};
    const int most = *std::max_element(o.batches.begin(), o.batches.end());
    std::vector<GpuBatchBenchRow> rows;
    std::printf("%-10s %-22s %8s %14s %9s  %s\n", "frame", "filter", "a launch", "kernels ms/fr", "x one", "rows (luma, chroma)");
    for (const std::string& size : o.sizes) {
        int w = 0, h = 0;
        if (std::sscanf(size.c_str(), "%dx%d", &w, &h) != 2 || w <= 0 || h <= 0 || w > 16384 || h > 16384)
            fail(ErrorCategory::Usage, "bench --size '" + size + "': expected WxH, e.g. 1920x1080");
        BatchImages images = make_batch_images(w, h, most);
        for (const std::string& spec : filters) {
            const std::vector<FilterPlan> chain = build_chain(spec);
            const std::shared_ptr<cuda::DeviceContext> ctx = runtime.device(current_gpu())->context();
            cuda::Stream stream;
            cuda::Workspace workspace(stream.get());
            double one = 0;
            for (const int batch : o.batches) {
                const BatchTiming timing = time_batch(chain, ctx, stream, workspace, images, batch, o.frames);
                GpuBatchBenchRow r;
                r.size = size;
                r.filter = spec.size() > 22 && spec.rfind("convolution=m=", 0) == 0 ? "5x5 (convolution)" : spec;
                r.batch = batch;
                r.kernels_ms = timing.kernels_ms;
                if (batch == o.batches.front()) one = r.kernels_ms;
                r.ratio_to_one = r.kernels_ms / one;
                r.rows = timing.rows;
                std::printf("%-10s %-22.22s %8d %14.4f %9.2f  %s\n", size.c_str(), r.filter.c_str(), batch, r.kernels_ms,
                            r.ratio_to_one, timing.rows.c_str());
                rows.push_back(r);
            }
        }
    }
    return rows;
}

}  // namespace vf
