#include "io/result_json.hpp"

#include "io/json_fields.hpp"

namespace pipeplan {

Json result_to_json(const Schedule& schedule, const SimResult& r) {
  Json j = file_header("pipeplan.result");
  j["schedule"] = schedule.name;
  j["device_count"] = schedule.devices;
  j["stages"] = schedule.stages;
  j["microbatches"] = schedule.microbatches;
  j["makespan_ms"] = ns_to_ms(r.makespan);
  j["bubble_rate"] = r.bubble_rate();
  j["iterations"] = r.options.iterations;
  j["optimizer_mode"] = optimizer_mode_name(r.options.optimizer_mode);
  j["step_ms"] = ns_to_ms(r.step_time());
  j["span_bubble_rate"] = r.span_bubble_rate();
  j["lower_bound_ms"] = ns_to_ms(r.lower_bound);
  j["deadlocked"] = r.deadlocked();
  Json& devices = j["devices"] = Json::array();
  for (std::size_t d = 0; d < r.devices.size(); ++d) {
    const DeviceTimeline& t = r.devices[d];
    Json memory = Json::array();
    for (const MemoryPoint& p : t.memory) memory.push_back(Json::array({ns_to_ms(p.time), p.bytes}));
    devices.push_back({{"device", d},
                       {"busy_ms", ns_to_ms(t.busy())},
                       {"idle_ms", ns_to_ms(r.makespan - t.busy())},
                       {"first_start_ms", ns_to_ms(t.first_start())},
                       {"last_end_ms", ns_to_ms(t.last_end())},
                       {"span_ms", ns_to_ms(t.iterations.back().span())},
                       {"static_memory_bytes", t.static_memory},
                       {"peak_memory_bytes", t.peak_memory},
                       {"peak_memory_ms", ns_to_ms(t.peak_time)},
                       {"memory", std::move(memory)}});
  }
  Json& ops = j["ops"] = Json::array();
  for (const OpTiming* timing : r.ops_by_start()) {
    const OpTiming& o = *timing;
    ops.push_back({{"device", o.device},
                   {"iteration", o.iteration},
                   {"kind", kind_name(o.op.kind)},
                   {"stage", o.op.stage},
                   {"microbatch", o.op.microbatch},
                   {"start_ms", ns_to_ms(o.start)},
                   {"end_ms", ns_to_ms(o.end)}});
  }
  return j;
}

}  // namespace pipeplan
