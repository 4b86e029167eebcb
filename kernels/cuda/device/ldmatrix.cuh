// ldmatrix for the tensor-core kernels (tensor_half.cu, imma.cu): four 8 x 16-byte matrices
// from shared memory, lane l giving the address of one row of matrix l / 8 (16-byte aligned);
// lane l receives the 4 bytes at column 4 (l % 4) of row l / 4 of each.
#pragma once

#include <cstdint>

namespace vf::cuda {

__device__ __forceinline__ void ldmatrix_x4(uint32_t (&r)[4], const void* row) {
    const uint32_t a = static_cast<uint32_t>(__cvta_generic_to_shared(row));
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(a));
}

}  // namespace vf::cuda
