#include "io/chrome_trace.hpp"

#include <map>
#include <string>
#include <tuple>

#include "io/critical_marks.hpp"
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

// The critical path's colour in chrome://tracing (its reserved palette's dark red).
constexpr const char* kCriticalColour = "terrible";

void append_process(Json& events, int pid, const std::string& name) {
  events.push_back({{"ph", "M"}, {"name", "process_name"}, {"pid", pid}, {"tid", 0}, {"args", {{"name", name}}}});
  events.push_back(
      {{"ph", "M"}, {"name", "process_sort_index"}, {"pid", pid}, {"tid", 0}, {"args", {{"sort_index", pid}}}});
}

// An op's complete event, without its "args".
Json op_slice(const OpTiming& t, int pid, bool critical) {
  Json e = {{"ph", "X"}, {"name", op_name(t.op)}, {"cat", kind_name(t.op.kind)}, {"pid", pid},
            {"tid", 0},  {"ts", us(t.start)},     {"dur", us(t.end - t.start)}};
  if (critical) e["cname"] = kCriticalColour;
  return e;
}

// Appends one run's events; its devices become processes first_pid, first_pid + 1, ..., its
// critical path the process critical_pid, after the rest.
void append_events(Json& events, const Schedule& schedule, const SimResult& r, int first_pid, int critical_pid,
                   const std::string& label) {
  for (std::size_t d = 0; d < r.devices.size(); ++d) {
    append_process(events, first_pid + static_cast<int>(d), label + "device " + std::to_string(d));
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
  const CriticalMarks critical(schedule, r);
  int flow = 0;
  for (const OpTiming* t : r.ops_by_start()) {
    const bool critical_op = critical.has_op(*t);
    Json& slice = events.emplace_back(op_slice(*t, first_pid + t->device, critical_op));
    slice["args"] = {{"stage", t->op.stage}, {"microbatch", t->op.microbatch}, {"iteration", t->iteration}};
    if (critical_op) slice["args"]["critical"] = true;
    for (const Dependency& dep : dependencies_of(t->op, schedule.stages)) {
      auto it = produced.find({t->iteration, static_cast<int>(dep.need), dep.stage, dep.microbatch});
      if (it == produced.end() || it->second->device == t->device) continue;
      const OpTiming& from = *it->second;
      const char* name = critical.has_transfer(*t, dep) ? "critical transfer" : "transfer";
      events.push_back({{"ph", "s"},
                        {"name", name},
                        {"cat", "transfer"},
                        {"id", first_pid * 1'000'000 + flow},
                        {"pid", first_pid + from.device},
                        {"tid", 0},
                        {"ts", us(flow_start(from))}});
      events.push_back({{"ph", "f"},
                        {"bp", "e"},
                        {"name", name},
                        {"cat", "transfer"},
                        {"id", first_pid * 1'000'000 + flow},
                        {"pid", first_pid + t->device},
                        {"tid", 0},
                        {"ts", us(flow_finish(*t))}});
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
  // The critical path on a track of its own: each of its ops again, in order.
  if (critical.path().empty()) return;
  append_process(events, critical_pid, label + "critical path");
  for (const CriticalStep& step : critical.path()) {
    Json& slice = events.emplace_back(op_slice(*step.op, critical_pid, true));
    slice["args"] = {{"device", step.op->device},
                     {"stage", step.op->op.stage},
                     {"microbatch", step.op->op.microbatch},
                     {"after_transfer", step.after_transfer}};
  }
}

}  // namespace

Json chrome_trace(const Schedule& schedule, const SimResult& r) {
  Json trace;
  trace["displayTimeUnit"] = "ms";
  append_events(trace["traceEvents"] = Json::array(), schedule, r, 0, static_cast<int>(r.devices.size()), "");
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
  // The runs' critical paths after every run's devices, so that first_pid counts devices only.
  int critical_pid = 0;
  for (const TraceRun& run : runs) critical_pid += static_cast<int>(run.result->devices.size());
  int first_pid = 0;
  for (const TraceRun& run : runs) {
    append_events(events, *run.schedule, *run.result, first_pid, critical_pid++, run.label + ": ");
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
