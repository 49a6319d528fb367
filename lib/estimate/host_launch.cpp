#include "estimate/host_launch.hpp"

#include <algorithm>

namespace pipeplan {

namespace {

// The measurements (docs/costs.md, "Host time", with their sources): one te.Linear forward takes
// 99.66 us of a Grace CPU's time (BF16, 2048 wide, 8192 tokens, on a GB200); one PyTorch
// operator call takes an H100 host 181.7 ns where it takes the GB200 197.4, the ratio every x86
// host's time is taken at; a grouped MLP block of 64 experts takes a Grace CPU 1.2 ms forward
// and 2.1 ms backward, the ratio a module's backward is taken at.
constexpr double kGraceModuleUs = 99.66;
constexpr double kX86Share = 181.7 / 197.4;
constexpr double kGraceGroupedForwardUs = 1200;
constexpr double kGraceGroupedBackwardUs = 2100;
constexpr double kBackwardPerForward = kGraceGroupedBackwardUs / kGraceGroupedForwardUs;

double cpu_share(HostCpu cpu) {
  return cpu == HostCpu::Grace ? 1.0 : kX86Share;
}

}  // namespace

HostCalls& HostCalls::operator+=(const HostCalls& o) {
  modules += o.modules;
  attention_modules += o.attention_modules;
  router_modules += o.router_modules;
  grouped_mlps += o.grouped_mlps;
  recompute_forward = recompute_forward || o.recompute_forward;
  waits_for_device = waits_for_device || o.waits_for_device;
  return *this;
}

HostMs host_ms(const HostCalls& calls, const GpuSpec& gpu, CudaGraphs graphs) {
  if (graphs == CudaGraphs::Full || graphs == CudaGraphs::Layers) return {};
  double modules = calls.modules;
  if (graphs == CudaGraphs::Attn) modules -= calls.attention_modules;
  if (graphs == CudaGraphs::Attn || graphs == CudaGraphs::MoeRouter) modules -= calls.router_modules;
  const double share = cpu_share(gpu.host_cpu) / 1000.0;  // microseconds of a Grace CPU to ms of this host
  HostMs t;
  t.f_ms = share * (modules * kGraceModuleUs + calls.grouped_mlps * kGraceGroupedForwardUs);
  t.b_ms = share * (modules * kGraceModuleUs * kBackwardPerForward + calls.grouped_mlps * kGraceGroupedBackwardUs);
  if (calls.recompute_forward) t.b_ms += t.f_ms;
  return t;
}

double exposed_host_ms(double host, double device_ms, bool waits) {
  return waits ? host : std::max(0.0, host - device_ms);
}

}  // namespace pipeplan
