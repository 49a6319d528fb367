#include "calibrate_links.hpp"

#include "gpu_error.hpp"
#include "model/error.hpp"
#include "nccl_links.hpp"

namespace pipeplan::gpu {

TransferMeasurement measure_transfer(bool wanted, int devices, const TimingPlan& plan, Bytes bytes) {
  TransferMeasurement out;
  if (!wanted) {
    out.not_measured = "transfers were not asked for (--no-transfers)";
    return out;
  }
  if (devices < 2) {
    out.not_measured = "one GPU: no pair of devices to measure";
    return out;
  }
  std::vector<LinkMeasurement> links;
  try {
    links = measure_links(devices, plan);
  } catch (const GpuError& e) {
    out.not_measured = std::string("NCCL failed: ") + e.what();
    return out;
  } catch (const Error& e) {
    out.not_measured = std::string("the transfers could not be measured: ") + e.what();
    return out;
  }
  double sum = 0;
  int one_way = 0;
  for (const LinkMeasurement& l : links) {
    Json table = Json::array();
    for (const TransferSample& sample : l.table) table.push_back({sample.bytes, sample.ms});
    const double at = interpolate_ms(l.table, static_cast<double>(bytes));
    out.links.push_back({{"from", l.from},
                         {"to", l.to},
                         {"both_directions", l.both_directions},
                         {"ms_at_activation", at},
                         {"latency_ms", l.fit.latency_ms},
                         {"bandwidth_gb_per_s", l.fit.bandwidth_gb_per_s},
                         {"r_squared", l.fit.r_squared},
                         {"worst_relative_error", l.fit.worst_relative_error},
                         {"table", table}});
    if (!l.both_directions) {
      sum += at;
      ++one_way;
    }
  }
  out.ms = sum / one_way;
  return out;
}

}  // namespace pipeplan::gpu
