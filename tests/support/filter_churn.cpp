#include "support/filter_churn.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <random>
#include <thread>
#include <unistd.h>

#include "support/clip_writer.hpp"

namespace vf::test {

std::vector<std::string> churn_filters(int n, unsigned seed) {
    std::mt19937 rng(seed);
    std::uniform_int_distribution<int> tap(-9, 9);
    auto dense = [&](int k) {
        std::string m;
        for (int i = 0; i < k * k; ++i) m += (i ? " " : "") + std::to_string(tap(rng));
        return "convolution=m=" + m + ":rdiv=1/" + std::to_string(k * k * 3) + ":bias=128";
    };
    std::vector<std::string> filters;
    for (int i = 0; i < n; ++i) {
        char sigma[32], strength[32];
        std::snprintf(sigma, sizeof sigma, "%.3f", 0.8 + 0.041 * i);
        std::snprintf(strength, sizeof strength, "%.4f", 0.05 + 0.9 * i / n);
        switch (i % 4) {
        case 0: filters.push_back(dense(15)); break;
        case 1: filters.push_back(std::string("gaussian=sigma=") + sigma); break;
        case 2: filters.push_back("box=radius=" + std::to_string(1 + i / 4 % 40) + ",sharpen=strength=" + strength); break;
        default: filters.push_back(dense(7) + ",sobel"); break;
        }
    }
    return filters;
}

RunOptions churn_options(const std::string& clip, DeviceChoice device) {
    RunOptions o;
    o.input.url = clip;
    o.output.path = "null";
    o.filter.device = device;
    o.input.realtime = true;
    o.pipeline.queue_frames = 1;
    o.filter.gpu_streams = 1;
    o.input.hwdec = HwDecode::None;
    return o;
}

std::string write_churn_clip(const std::string& dir, int changes) {
    ClipSpec clip;
    clip.path = dir + "/churn.mkv";
    clip.width = 160;
    clip.height = 90;
    clip.frame_rate = {200, 1};
    clip.frames = 6 * changes + 100;
    clip.audio = false;
    write_clip(clip);
    return clip.path;
}

int run_filter_churn(Job& job, const std::vector<std::string>& filters, const std::function<void(int)>& after_each) {
    std::string failure;
    std::thread runner([&job, &failure] {
        try {
            job.run();
        } catch (const std::exception& e) {
            failure = e.what();
        }
    });
    int seen = 0;
    for (const std::string& f : filters) {
        const int64_t before = job.status().frames_out;
        try {
            job.set_filter(f);
        } catch (const std::exception& e) {
            ADD_FAILURE() << "filter '" << f << "' was refused: " << e.what();
            break;
        }
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
        while (job.status().frames_out < before + 4 && std::chrono::steady_clock::now() < deadline)
            std::this_thread::sleep_for(std::chrono::milliseconds(2));
        if (job.status().frames_out < before + 4) break;  // the input ended or the job stalled
        if (after_each) after_each(seen);
        ++seen;
    }
    job.interrupt();
    runner.join();
    EXPECT_EQ(failure, "") << "the churned job failed";
    return seen;
}

long resident_bytes() {
    std::ifstream statm("/proc/self/statm");
    long pages = 0, resident = 0;
    statm >> pages >> resident;
    return resident * sysconf(_SC_PAGESIZE);
}

}  // namespace vf::test
