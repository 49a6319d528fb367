#include "io/chrome_trace.hpp"

#include <map>
#include <string>
#include <tuple>

#include "io/version.hpp"
#include "model/dependencies.hpp"

namespace pipeplan {

namespace {

double us(SimTime ns) {
  return static_cast<double>(ns) / 1e3;
}

std::string op_name(const Op& op) {
  std::string name =
      std::string(kind_name(op.kind)) + " s" + std::to_string(op.stage) + " m" + std::to_string(op.microbatch);
  if (op.kind == OpKind::FB)
    name += " & s" + std::to_string(op.overlap_stage) + " m" + std::to_string(op.overlap_microbatch);
  return name;
}

// What produced an output: F for a forward, B or BW for an input gradient, B alone for W.
using Output = std::tuple<int, int, int, int>;  // iteration, need, stage, micro-batch

Output output_of(const OpTiming& t, Need need) {
  return {t.iteration, static_cast<int>(need), t.op.stage, t.op.microbatch};
}

// Appends one run's events; its devices become processes first_pid, first_pid + 1, ...
void append_events(Json& events, const Schedule& schedule, const SimResult& r, int first_pid,
                   const std::string& label) {
  for (std::size_t d = 0; d < r.devices.size(); ++d) {
    const int pid = first_pid + static_cast<int>(d);
    events.push_back({{"ph", "M"},
                      {"name", "process_name"},
                      {"pid", pid},
                      {"tid", 0},
                      {"args", {{"name", label + "device " + std::to_string(d)}}}});
    events.push_back(
        {{"ph", "M"}, {"name", "process_sort_index"}, {"pid", pid}, {"tid", 0}, {"args", {{"sort_index", pid}}}});
  }
  // Where each output was produced, so each input from another device gets its arrow.
  std::map<Output, const OpTiming*> produced;
  for (const DeviceTimeline& d : r.devices) {
    for (const OpTiming& t : d.ops) {
      if (t.op.kind == OpKind::F) produced[output_of(t, Need::Forward)] = &t;
      if (gives_input_gradient(t.op.kind)) produced[output_of(t, Need::InputGradient)] = &t;
      if (t.op.kind == OpKind::B) produced[output_of(t, Need::SplitB)] = &t;
      if (t.op.kind == OpKind::FB) {
        produced[{t.iteration, static_cast<int>(Need::Forward), t.op.stage, t.op.microbatch}] = &t;
        produced[{t.iteration, static_cast<int>(Need::InputGradient), t.op.overlap_stage, t.op.overlap_microbatch}] =
            &t;
      }
    }
  }
  int flow = 0;
  for (const OpTiming* t : r.ops_by_start()) {
    events.push_back(
        {{"ph", "X"},
         {"name", op_name(t->op)},
         {"cat", kind_name(t->op.kind)},
         {"pid", first_pid + t->device},
         {"tid", 0},
         {"ts", us(t->start)},
         {"dur", us(t->end - t->start)},
         {"args", {{"stage", t->op.stage}, {"microbatch", t->op.microbatch}, {"iteration", t->iteration}}}});
    for (const Dependency& dep : dependencies_of(t->op, schedule.stages)) {
      auto it = produced.find({t->iteration, static_cast<int>(dep.need), dep.stage, dep.microbatch});
      if (it == produced.end() || it->second->device == t->device) continue;
      const OpTiming& from = *it->second;
      events.push_back({{"ph", "s"},
                        {"name", "transfer"},
                        {"cat", "transfer"},
                        {"id", first_pid * 1'000'000 + flow},
                        {"pid", first_pid + from.device},
                        {"tid", 0},
                        {"ts", us(from.end)}});
      events.push_back({{"ph", "f"},
                        {"bp", "e"},
                        {"name", "transfer"},
                        {"cat", "transfer"},
                        {"id", first_pid * 1'000'000 + flow},
                        {"pid", first_pid + t->device},
                        {"tid", 0},
                        {"ts", us(t->start)}});
      ++flow;
    }
  }
  for (std::size_t d = 0; d < r.devices.size(); ++d) {
    for (const MemoryPoint& p : r.devices[d].memory) {
      events.push_back({{"ph", "C"},
                        {"name", "memory"},
                        {"pid", first_pid + static_cast<int>(d)},
                        {"tid", 0},
                        {"ts", us(p.time)},
                        {"args", {{"bytes", p.bytes}}}});
    }
  }
}

}  // namespace

Json chrome_trace(const Schedule& schedule, const SimResult& r) {
  Json trace;
  trace["displayTimeUnit"] = "ms";
  append_events(trace["traceEvents"] = Json::array(), schedule, r, 0, "");
  trace["metadata"] = {{"tool", tool_version()},
                       {"schedule", schedule.name},
                       {"devices", schedule.devices},
                       {"stages", schedule.stages},
                       {"microbatches", schedule.microbatches},
                       {"iterations", r.options.iterations},
                       {"optimizer_mode", optimizer_mode_name(r.options.optimizer_mode)},
                       {"makespan_ms", ns_to_ms(r.makespan)},
                       {"step_ms", ns_to_ms(r.step_time())}};
  return trace;
}

Json chrome_trace_comparison(const std::vector<TraceRun>& runs) {
  Json trace;
  trace["displayTimeUnit"] = "ms";
  Json& events = trace["traceEvents"] = Json::array();
  Json schedules = Json::array();
  int first_pid = 0;
  for (const TraceRun& run : runs) {
    append_events(events, *run.schedule, *run.result, first_pid, run.label + ": ");
    schedules.push_back({{"schedule", run.label},
                         {"first_pid", first_pid},
                         {"makespan_ms", ns_to_ms(run.result->makespan)},
                         {"step_ms", ns_to_ms(run.result->step_time())}});
    first_pid += static_cast<int>(run.result->devices.size());
  }
  trace["metadata"] = {{"tool", tool_version()}, {"schedules", std::move(schedules)}};
  return trace;
}

}  // namespace pipeplan
