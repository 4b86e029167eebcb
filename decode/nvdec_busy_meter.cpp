#include "decode/nvdec_busy_meter.hpp"

#include <dlfcn.h>

#include <algorithm>

namespace vf {

// The few NVML calls used, as the driver's library exports them (NVML is a C API whose versioned
// names keep their signatures): declared here so that vfilter builds without NVML's header.
struct NvdecBusyMeter::Api {
    using Result = int;  // nvmlReturn_t; 0 is NVML_SUCCESS
    Result (*init)() = nullptr;
    Result (*shutdown)() = nullptr;
    const char* (*error_string)(Result) = nullptr;
    Result (*handle_by_pci_bus_id)(const char*, void**) = nullptr;
    Result (*decoder_utilization)(void*, unsigned*, unsigned*) = nullptr;

    std::string error(Result r) const { return error_string ? error_string(r) : "error " + std::to_string(r); }
};

namespace {

template <typename F>
bool find(void* library, const char* name, F& f) {
    f = reinterpret_cast<F>(dlsym(library, name));
    return f != nullptr;
}

}  // namespace

NvdecBusyMeter::NvdecBusyMeter(const std::map<int, std::string>& gpus, const std::string& library) {
    library_.reset(dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL));
    if (!library_) {
        const char* e = dlerror();
        why_ = "NVML (" + library + ") cannot be loaded: " + (e ? e : "not found");
        return;
    }
    api_ = std::make_unique<Api>();
    if (!find(library_.get(), "nvmlInit_v2", api_->init) || !find(library_.get(), "nvmlShutdown", api_->shutdown) ||
        !find(library_.get(), "nvmlDeviceGetHandleByPciBusId_v2", api_->handle_by_pci_bus_id) ||
        !find(library_.get(), "nvmlDeviceGetDecoderUtilization", api_->decoder_utilization)) {
        why_ = "NVML (" + library + ") lacks the calls needed (an old driver?)";
        return;
    }
    find(library_.get(), "nvmlErrorString", api_->error_string);
    if (const Api::Result r = api_->init(); r != 0) {
        why_ = "NVML does not start: " + api_->error(r);
        return;
    }
    started_ = true;
    for (const auto& [gpu, bus_id] : gpus) {
        void* device = nullptr;
        const Api::Result r = api_->handle_by_pci_bus_id(bus_id.c_str(), &device);
        if (r == 0)
            devices_[gpu] = device;
        else
            why_ += (why_.empty() ? "" : "; ") + std::string("NVML does not know GPU ") + std::to_string(gpu) + " (PCI " + bus_id +
                    "): " + api_->error(r);
    }
    if (devices_.empty() && why_.empty()) why_ = "no GPU to measure";
}

void NvdecBusyMeter::Closer::operator()(void* library) const { dlclose(library); }

NvdecBusyMeter::~NvdecBusyMeter() {
    if (started_) api_->shutdown();  // before the library goes (members go after this body)
}

std::optional<double> NvdecBusyMeter::busy(int gpu) const {
    const auto it = devices_.find(gpu);
    if (it == devices_.end()) return std::nullopt;
    unsigned percent = 0, period_us = 0;
    if (api_->decoder_utilization(it->second, &percent, &period_us) != 0) return std::nullopt;
    return std::min(100u, percent) / 100.0;
}

}  // namespace vf
