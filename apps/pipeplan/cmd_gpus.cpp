// pipeplan gpus: the built-in GPU table the planner and `profile` estimate with.
#include <fmt/format.h>

#include <iostream>

#include "command.hpp"
#include "estimate/gpu_catalog.hpp"
#include "model/size_string.hpp"

namespace pipeplan::cli {

namespace {

// A peak in TFLOP/s, or "-" for a card without the type.
std::string peak(double tflops) {
  return tflops > 0 ? fmt::format("{:.1f}", tflops) : std::string("-");
}

}  // namespace

Runner add_gpus(CLI::App& /*sub*/) {
  return [] {
    std::cout << fmt::format("{:<10} {:>8} {:>8} {:>8} {:>8} {:>10} {:>9}  {:<9} {:>6} {:>6}  {}\n", "name", "bf16 TF",
                             "fp8 TF", "fp4 TF", "fp32 TF", "memory", "mem GB/s", "arch", "domain", "board",
                             "links (GB/s per direction, latency); host link");
    for (const GpuSpec& g : gpu_catalog()) {
      std::cout << fmt::format(
          "{:<10} {:>8.1f} {:>8} {:>8} {:>8.1f} {:>10} {:>9.0f}  {:<9} {:>6} {:>6}  {} {:.1f}, {:.3f} ms; {} {:.1f}, "
          "{:.3f} ms; {} {:.1f}\n",
          g.name, g.tflops_bf16, peak(g.tflops_fp8), peak(g.tflops_fp4), g.tflops_fp32, format_size(g.memory_bytes),
          g.memory_gb_per_s, architecture_name(g.architecture), g.nvlink_domain,
          g.gpus_per_board > 0 ? g.gpus_per_board : g.nvlink_domain, g.intra_node.name, g.intra_node.bandwidth_gb_per_s,
          g.intra_node.latency_ms, g.inter_node.name, g.inter_node.bandwidth_gb_per_s, g.inter_node.latency_ms,
          g.host_link.name, g.host_link.bandwidth_gb_per_s);
    }
    std::cout
        << "Dense peaks from NVIDIA's data sheets (fp16 equals bf16; '-': the card has no such tensor cores); "
           "domain: GPUs one NVLink domain joins (--gpus-per-node overrides it), board: GPUs of one server or "
           "tray; host link: to the host's memory, what --offload-layers copies over; sources in docs/costs.md.\n";
    return kExitOk;
  };
}

}  // namespace pipeplan::cli
