// AVX2 build of the CPU band kernels (compiled with -mavx2 on x86-64 only; see CMakeLists.txt).
#define VF_CPU_NS cpu_avx2
#include "kernels/cpu_bands_impl.hpp"
