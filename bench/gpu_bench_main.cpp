#include <CLI/CLI.hpp>

#include <cstdio>

#include "bench/gpu_bench.hpp"
#include "common/error.hpp"

int main(int argc, char** argv) {
    vf::GpuBenchOptions o;
    CLI::App app{"vfilter GPU benchmark: vfilter's CUDA variants against NPP and the floor"};
    app.add_option("--size", o.sizes, "plane sizes WxH");
    app.add_option("--iterations", o.iterations, "timed runs per case (median)");
    app.add_option("--json", o.json, "write results as JSON");
    app.add_flag("--quick", o.quick, "a few cases only");
    app.add_option("--only", o.only, "only the cases whose name contains this text (repeatable)");
    CLI11_PARSE(app, argc, argv);
    try {
        return vf::run_gpu_bench(o);
    } catch (const vf::Error& e) {
        std::fprintf(stderr, "vfilter_gpu_bench: error: %s\n", e.what());
        return vf::exit_code_for(e.category());
    }
}
