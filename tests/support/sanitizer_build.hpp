// Whether this test binary runs under AddressSanitizer or ThreadSanitizer: several times slower,
// so timing targets (the release build's, measured in docs/benchmarks.md) and runs slow on
// purpose do not apply there; what they check for memory and races still does.
#pragma once

namespace vf::test {

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr bool kSanitizerBuild = true;
#else
constexpr bool kSanitizerBuild = false;
#endif

}  // namespace vf::test
