// pipeplan gpus: the built-in GPU table the planner and `profile` estimate with.
#include <fmt/format.h>

#include <iostream>

#include "command.hpp"
#include "estimate/gpu_catalog.hpp"
#include "model/size_string.hpp"

namespace pipeplan::cli {

Runner add_gpus(CLI::App& /*sub*/) {
  return [] {
    std::cout << fmt::format("{:<10} {:>8} {:>8} {:>10} {:>9}  {:>5}  {}\n", "name", "bf16 TF", "fp32 TF", "memory",
                             "mem GB/s", "/node", "links (GB/s per direction, latency)");
    for (const GpuSpec& g : gpu_catalog()) {
      std::cout << fmt::format(
          "{:<10} {:>8.1f} {:>8.1f} {:>10} {:>9.0f}  {:>5}  {} {:.1f}, {:.3f} ms; {} {:.1f}, {:.3f} ms\n", g.name,
          g.tflops_bf16, g.tflops_fp32, format_size(g.memory_bytes), g.memory_gb_per_s, g.gpus_per_node,
          g.intra_node.name, g.intra_node.bandwidth_gb_per_s, g.intra_node.latency_ms, g.inter_node.name,
          g.inter_node.bandwidth_gb_per_s, g.inter_node.latency_ms);
    }
    std::cout << "Dense peaks from NVIDIA's data sheets (fp16 equals bf16); sources in docs/costs.md.\n";
    return kExitOk;
  };
}

}  // namespace pipeplan::cli
