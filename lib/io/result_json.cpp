#include "io/result_json.hpp"

#include <cmath>
#include <utility>

#include "io/json_fields.hpp"
#include "model/finite.hpp"
#include "model/limits.hpp"
#include "sim/run_limits.hpp"

namespace pipeplan {

Json result_to_json(const Schedule& schedule, const SimResult& r) {
  Json j = file_header("pipeplan.result");
  j["schedule"] = schedule.name;
  j["device_count"] = schedule.devices;
  j["stages"] = schedule.stages;
  j["microbatches"] = schedule.microbatches;
  j["placement"] = schedule.placement;
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
    Json iterations = Json::array();
    for (const IterationTimes& it : t.iterations) {
      iterations.push_back({{"busy_ms", ns_to_ms(it.busy)},
                            {"first_start_ms", ns_to_ms(it.first_start)},
                            {"last_end_ms", ns_to_ms(it.last_end)},
                            {"optimizer_start_ms", ns_to_ms(it.optimizer_start)},
                            {"optimizer_end_ms", ns_to_ms(it.optimizer_end)}});
    }
    devices.push_back({{"device", d},
                       {"busy_ms", ns_to_ms(t.busy())},
                       {"idle_ms", ns_to_ms(r.makespan - t.busy())},
                       {"first_start_ms", ns_to_ms(t.first_start())},
                       {"last_end_ms", ns_to_ms(t.last_end())},
                       {"span_ms", ns_to_ms(t.iterations.back().span())},
                       {"static_memory_bytes", t.static_memory},
                       {"peak_memory_bytes", t.peak_memory},
                       {"peak_memory_ms", ns_to_ms(t.peak_time)},
                       {"iterations", std::move(iterations)},
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
    if (o.op.kind == OpKind::FB) {
      ops.back()["overlap_stage"] = o.op.overlap_stage;
      ops.back()["overlap_microbatch"] = o.op.overlap_microbatch;
    }
  }
  return j;
}

namespace {

// A time of a run, not a cost: a sum of costs, so up to the longest run the simulators time
// (kMaxRunNs), past the 1e10 ms one cost may take. What simulate writes, export reads back.
SimTime read_run_time(const Json& value, const JsonPath& at) {
  if (!value.is_number() || !finite_within(value.get<double>(), 0.0, HUGE_VAL)) {
    fail_field(at, "a non-negative number of milliseconds", value);
  }
  const double ms = value.get<double>();
  if (ms * 1e6 > static_cast<double>(kMaxRunNs)) {
    fail_field(at, "a number of milliseconds up to 4.612e12 (2^62 ns, the longest run timed)", value);
  }
  return static_cast<SimTime>(std::llround(ms * 1e6));
}

SimTime read_time(const Json& obj, std::string_view key, const JsonPath& at) {
  return read_run_time(member(obj, key, at), at.key(key));
}

}  // namespace

LoadedResult result_from_json(const Json& document, const std::string& source) {
  JsonPath root(source);
  check_header(document, "pipeplan.result", root);
  LoadedResult loaded;
  Schedule& s = loaded.schedule;
  SimResult& r = loaded.result;
  s.name = read_string(member(document, "schedule", root), root.key("schedule"));
  s.devices = read_int(member(document, "device_count", root), root.key("device_count"), 1, kMaxDevices);
  s.stages = read_int(member(document, "stages", root), root.key("stages"), 1, kMaxStages);
  s.microbatches = read_int(member(document, "microbatches", root), root.key("microbatches"), 1, kMaxMicrobatches);
  JsonPath placement_at = root.key("placement");
  const Json& placement = read_array(member(document, "placement", root), placement_at);
  if (std::cmp_not_equal(placement.size(), s.stages)) fail_field(placement_at, "one device per stage", placement);
  for (std::size_t i = 0; i < placement.size(); ++i) {
    s.placement.push_back(read_int(placement[i], placement_at.index(i), 0, s.devices - 1));
  }
  s.order.resize(static_cast<std::size_t>(s.devices));
  r.options.iterations = read_int(member(document, "iterations", root), root.key("iterations"), 1, 10000);
  const std::string& mode = read_string(member(document, "optimizer_mode", root), root.key("optimizer_mode"));
  if (mode != "sync" && mode != "post-validation") {
    fail_field(root.key("optimizer_mode"), "\"sync\" or \"post-validation\"", Json(mode));
  }
  r.options.optimizer_mode = mode == "sync" ? OptimizerMode::Sync : OptimizerMode::PostValidation;
  r.makespan = read_time(document, "makespan_ms", root);
  r.lower_bound = read_time(document, "lower_bound_ms", root);

  JsonPath devices_at = root.key("devices");
  const Json& devices = read_array(member(document, "devices", root), devices_at);
  if (std::cmp_not_equal(devices.size(), s.devices)) fail_field(devices_at, "one entry per device", devices);
  for (std::size_t d = 0; d < devices.size(); ++d) {
    const JsonPath at = devices_at.index(d);
    DeviceTimeline t;
    t.static_memory = read_bytes(member(devices[d], "static_memory_bytes", at), at.key("static_memory_bytes"));
    t.peak_memory = read_bytes(member(devices[d], "peak_memory_bytes", at), at.key("peak_memory_bytes"));
    t.peak_time = read_time(devices[d], "peak_memory_ms", at);
    const JsonPath iterations_at = at.key("iterations");
    const Json& iterations = read_array(member(devices[d], "iterations", at), iterations_at);
    if (std::cmp_not_equal(iterations.size(), r.options.iterations)) {
      fail_field(iterations_at, "one entry per iteration", iterations);
    }
    for (std::size_t k = 0; k < iterations.size(); ++k) {
      const JsonPath it = iterations_at.index(k);
      t.iterations.push_back({read_time(iterations[k], "busy_ms", it), read_time(iterations[k], "first_start_ms", it),
                              read_time(iterations[k], "last_end_ms", it),
                              read_time(iterations[k], "optimizer_start_ms", it),
                              read_time(iterations[k], "optimizer_end_ms", it)});
    }
    const JsonPath memory_at = at.key("memory");
    const Json& memory = read_array(member(devices[d], "memory", at), memory_at);
    for (std::size_t i = 0; i < memory.size(); ++i) {
      const JsonPath point = memory_at.index(i);
      if (!memory[i].is_array() || memory[i].size() != 2) fail_field(point, "[ms, bytes]", memory[i]);
      t.memory.push_back({read_run_time(memory[i][0], point.index(0)), read_bytes(memory[i][1], point.index(1))});
    }
    r.devices.push_back(std::move(t));
  }

  JsonPath ops_at = root.key("ops");
  const Json& ops = read_array(member(document, "ops", root), ops_at);
  for (std::size_t i = 0; i < ops.size(); ++i) {
    const JsonPath at = ops_at.index(i);
    const Json& o = ops[i];
    OpTiming t;
    t.device = read_int(member(o, "device", at), at.key("device"), 0, s.devices - 1);
    t.iteration = read_int(member(o, "iteration", at), at.key("iteration"), 0, r.options.iterations - 1);
    const std::string& kind = read_string(member(o, "kind", at), at.key("kind"));
    auto parsed = parse_kind(kind);
    if (!parsed) fail_field(at.key("kind"), "one of \"F\", \"B\", \"W\", \"BW\", \"FB\"", Json(kind));
    t.op = {*parsed, read_int(member(o, "stage", at), at.key("stage"), 0, s.stages - 1),
            read_int(member(o, "microbatch", at), at.key("microbatch"), 0, s.microbatches - 1)};
    if (*parsed == OpKind::FB) {
      t.op.overlap_stage = read_int(member(o, "overlap_stage", at), at.key("overlap_stage"), 0, s.stages - 1);
      t.op.overlap_microbatch =
          read_int(member(o, "overlap_microbatch", at), at.key("overlap_microbatch"), 0, s.microbatches - 1);
    }
    t.start = read_time(o, "start_ms", at);
    t.end = read_time(o, "end_ms", at);
    r.devices[static_cast<std::size_t>(t.device)].ops.push_back(t);  // ops come in start order
    if (t.iteration == 0) s.order[static_cast<std::size_t>(t.device)].push_back(t.op);
  }
  return loaded;
}

}  // namespace pipeplan
