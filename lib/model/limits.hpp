#pragma once
// Upper bounds on what pipeplan is asked to build or read, so that a typo or a hostile file gets
// a clear error instead of exhausting memory. A 200-million-op schedule takes about 2.4 GB as ops.

namespace pipeplan {

inline constexpr int kMaxDevices = 16384;
inline constexpr int kMaxStages = kMaxDevices * 64;
inline constexpr int kMaxMicrobatches = 1 << 20;
inline constexpr long long kMaxOps = 200'000'000;

}  // namespace pipeplan
