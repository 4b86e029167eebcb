// How busy each GPU's NVDEC is, from NVML (the driver's libnvidia-ml.so.1, loaded at run time so
// that vfilter still starts where there is no NVIDIA driver). serve learns each GPU's NVDEC
// capacity from it (app/serve/decoder_balance.hpp): one GPU model's is not another's, and a camera's
// bitrate changes NVDEC's rate several times over. The utilisation is the driver's, so it counts other processes'
// decoding too: what is left for new streams is what is really free.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>

namespace vf {

class NvdecBusyMeter {
public:
    // gpus: each GPU's number (CUDA's) and its PCI bus id (CUDA's cudaDeviceGetPCIBusId: NVML
    // numbers GPUs its own way, and CUDA_VISIBLE_DEVICES renumbers CUDA's). library: NVML's file.
    explicit NvdecBusyMeter(const std::map<int, std::string>& gpus, const std::string& library = "libnvidia-ml.so.1");
    ~NvdecBusyMeter();
    NvdecBusyMeter(const NvdecBusyMeter&) = delete;
    NvdecBusyMeter& operator=(const NvdecBusyMeter&) = delete;

    // False when NVML cannot be loaded or started, or knows none of the GPUs; unavailable() says why.
    bool available() const { return !devices_.empty(); }
    const std::string& unavailable() const { return why_; }
    // The share of the last sampling period (NVML's, about a second) in which the GPU's NVDEC
    // decoded, 0 to 1; nullopt for an unknown GPU or when NVML does not answer (MIG, say).
    std::optional<double> busy(int gpu) const;

private:
    struct Api;
    struct Closer {
        void operator()(void* library) const;
    };
    std::unique_ptr<void, Closer> library_;
    std::unique_ptr<Api> api_;
    bool started_ = false;  // nvmlInit succeeded: nvmlShutdown is owed
    std::map<int, void*> devices_;  // GPU number -> nvmlDevice_t
    std::string why_;
};

}  // namespace vf
