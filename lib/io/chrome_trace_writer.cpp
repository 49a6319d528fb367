// The Chrome trace written as it streams (write_chrome_trace): the layout of to_json_text, an
// event with "args" over several lines, a flow event on one line.
#include <string_view>

#include "io/chrome_trace.hpp"
#include "io/critical_marks.hpp"
#include "io/json_scalars.hpp"
#include "io/version.hpp"
#include "model/dependencies.hpp"

namespace pipeplan {

namespace {

double us(SimTime ns) {
  return static_cast<double>(ns) / 1e3;
}

constexpr std::string_view kEventIndent = "      ";

// The critical path's colour in chrome://tracing, from its reserved palette (dark red); Perfetto
// ignores "cname" and shows the path's own track.
constexpr std::string_view kCriticalColour = "terrible";

void member(std::string& out, std::string_view name, bool first = false) {
  if (!first) out += ",\n";
  out += kEventIndent;
  out += '"';
  out += name;
  out += "\": ";
}

void int_member(std::string& out, std::string_view name, long long value, bool first = false) {
  member(out, name, first);
  append_json_int(out, value);
}

// An event whose "args" is an object: one member per line, "args" last on one line.
void open_event(std::string& out, bool& first_event) {
  out += first_event ? "    {\n" : ",\n    {\n";
  first_event = false;
}

// One metadata event ("ph": "M") of process `pid`: its `name` and args {`key`: `value`}, the value
// already JSON.
void metadata_event(std::string& out, bool& first_event, int pid, const char* name, const char* key,
                    const std::string& value) {
  open_event(out, first_event);
  member(out, "ph", true);
  out += "\"M\"";
  member(out, "name");
  out += std::string("\"") + name + "\"";
  int_member(out, "pid", pid);
  int_member(out, "tid", 0);
  member(out, "args");
  out += std::string("{\"") + key + "\": " + value;
  out += "}\n    }";
}

void process_events(std::string& out, bool& first_event, int pid, const std::string& process) {
  std::string name;
  append_json_string(name, process);
  metadata_event(out, first_event, pid, "process_name", "name", name);
  std::string index;
  append_json_int(index, pid);
  metadata_event(out, first_event, pid, "process_sort_index", "sort_index", index);
}

// The members every complete event of an op has, from "ph" to "dur"; then "cname" when it is on
// the critical path.
void op_head(std::string& out, bool& first_event, const OpTiming& t, int pid, bool critical) {
  open_event(out, first_event);
  member(out, "ph", true);
  out += "\"X\"";
  member(out, "name");
  out += '"';
  out += kind_name(t.op.kind);
  out += " s";
  append_json_int(out, t.op.stage);
  out += " m";
  append_json_int(out, t.op.microbatch);
  if (t.op.kind == OpKind::FB) {
    out += " & s";
    append_json_int(out, t.op.overlap_stage);
    out += " m";
    append_json_int(out, t.op.overlap_microbatch);
  }
  out += '"';
  member(out, "cat");
  out += '"';
  out += kind_name(t.op.kind);
  out += '"';
  int_member(out, "pid", pid);
  int_member(out, "tid", 0);
  member(out, "ts");
  append_json_double(out, us(t.start));
  member(out, "dur");
  append_json_double(out, us(t.end - t.start));
  if (critical) {
    member(out, "cname");
    out += '"';
    out += kCriticalColour;
    out += '"';
  }
}

void op_event(std::string& out, bool& first_event, const OpTiming& t, int pid, bool critical) {
  op_head(out, first_event, t, pid, critical);
  member(out, "args");
  out += "{\"stage\": ";
  append_json_int(out, t.op.stage);
  out += ", \"microbatch\": ";
  append_json_int(out, t.op.microbatch);
  out += ", \"iteration\": ";
  append_json_int(out, t.iteration);
  if (critical) out += ", \"critical\": true";
  out += "}\n    }";
}

// A step of the critical path on its own track: the op again, with its device and whether it
// waited for a transfer.
void track_event(std::string& out, bool& first_event, const CriticalStep& step, int pid) {
  op_head(out, first_event, *step.op, pid, true);
  member(out, "args");
  out += "{\"device\": ";
  append_json_int(out, step.op->device);
  out += ", \"stage\": ";
  append_json_int(out, step.op->op.stage);
  out += ", \"microbatch\": ";
  append_json_int(out, step.op->op.microbatch);
  out += ", \"after_transfer\": ";
  out += step.after_transfer ? "true" : "false";
  out += "}\n    }";
}

// A flow event, all scalars: one line. `start` is the producer's ("s", flow_start), else the
// consumer's ("f", flow_finish); a transfer on the critical path is named so.
void flow_event(std::string& out, bool start, bool critical, long long id, int pid, SimTime at) {
  out += start ? ",\n    {\"ph\": \"s\", " : ",\n    {\"ph\": \"f\", \"bp\": \"e\", ";
  out += critical ? "\"name\": \"critical transfer\"" : "\"name\": \"transfer\"";
  out += ", \"cat\": \"transfer\", \"id\": ";
  append_json_int(out, id);
  out += ", \"pid\": ";
  append_json_int(out, pid);
  out += ", \"tid\": 0, \"ts\": ";
  append_json_double(out, us(at));
  out += '}';
}

void memory_event(std::string& out, bool& first_event, const MemoryPoint& p, int pid) {
  open_event(out, first_event);
  member(out, "ph", true);
  out += "\"C\"";
  member(out, "name");
  out += "\"memory\"";
  int_member(out, "pid", pid);
  int_member(out, "tid", 0);
  member(out, "ts");
  append_json_double(out, us(p.time));
  member(out, "args");
  out += "{\"bytes\": ";
  append_json_int(out, p.bytes);
  out += "}\n    }";
}

// Which op produced each output, per iteration, need, stage and micro-batch: a flat table
// where the document writer used a map, so that finding a transfer's producer is one load.
class Producers {
 public:
  Producers(const Schedule& s, const SimResult& r)
      : stages_(static_cast<std::size_t>(s.stages)),
        microbatches_(static_cast<std::size_t>(s.microbatches)),
        table_(static_cast<std::size_t>(r.options.iterations) * kNeeds * stages_ * microbatches_, nullptr) {
    for (const DeviceTimeline& d : r.devices) {
      for (const OpTiming& t : d.ops) {
        if (t.op.kind == OpKind::F || t.op.kind == OpKind::FB)
          at(t.iteration, Need::Forward, t.op.stage, t.op.microbatch) = &t;
        if (t.op.kind == OpKind::FB) {
          at(t.iteration, Need::InputGradient, t.op.overlap_stage, t.op.overlap_microbatch) = &t;
        } else if (gives_input_gradient(t.op.kind)) {
          at(t.iteration, Need::InputGradient, t.op.stage, t.op.microbatch) = &t;
        }
        if (t.op.kind == OpKind::B) at(t.iteration, Need::SplitB, t.op.stage, t.op.microbatch) = &t;
      }
    }
  }

  [[nodiscard]] const OpTiming* of(int iteration, const Dependency& dep) const {
    return table_[index(iteration, dep.need, dep.stage, dep.microbatch)];
  }

 private:
  static constexpr std::size_t kNeeds = 3;  // Need's values

  std::size_t index(int iteration, Need need, int stage, int microbatch) const {
    return ((static_cast<std::size_t>(iteration) * kNeeds + static_cast<std::size_t>(need)) * stages_ +
            static_cast<std::size_t>(stage)) *
               microbatches_ +
           static_cast<std::size_t>(microbatch);
  }
  const OpTiming*& at(int iteration, Need need, int stage, int microbatch) {
    return table_[index(iteration, need, stage, microbatch)];
  }

  std::size_t stages_, microbatches_;
  LargeVector<const OpTiming*> table_;
};

// One run's events; its devices are processes first_pid, first_pid + 1, ..., its critical path
// the process critical_pid, written last.
void write_events(TextSink& sink, bool& first_event, const Schedule& schedule, const SimResult& r, int first_pid,
                  int critical_pid, const std::string& label) {
  std::string& out = sink.buffer();
  for (std::size_t d = 0; d < r.devices.size(); ++d) {
    process_events(out, first_event, first_pid + static_cast<int>(d), label + "device " + std::to_string(d));
  }
  const Producers producers(schedule, r);
  const CriticalMarks critical(schedule, r);
  long long flow = 0;
  for (const OpTiming* t : r.ops_by_start()) {
    op_event(out, first_event, *t, first_pid + t->device, critical.has_op(*t));
    for (const Dependency& dep : dependencies_of(t->op, schedule.stages)) {
      const OpTiming* from = producers.of(t->iteration, dep);
      if (from == nullptr || from->device == t->device) continue;
      const long long id = static_cast<long long>(first_pid) * 1'000'000 + flow;
      const bool on_path = critical.has_transfer(*t, dep);
      flow_event(out, true, on_path, id, first_pid + from->device, flow_start(*from));
      flow_event(out, false, on_path, id, first_pid + t->device, flow_finish(*t));
      ++flow;
    }
    sink.flush_if_full();
  }
  for (std::size_t d = 0; d < r.devices.size(); ++d) {
    for (const MemoryPoint& p : r.devices[d].memory) {
      memory_event(out, first_event, p, first_pid + static_cast<int>(d));
      sink.flush_if_full();
    }
  }
  if (critical.path().empty()) return;
  process_events(out, first_event, critical_pid, label + "critical path");
  for (const CriticalStep& step : critical.path()) {
    track_event(out, first_event, step, critical_pid);
    sink.flush_if_full();
  }
}

void close_events(std::string& out, bool first_event) {
  out += first_event ? "[]" : "\n  ]";
}

}  // namespace

void write_chrome_trace(TextSink& sink, const Schedule& schedule, const SimResult& r) {
  sink << "{\n  \"displayTimeUnit\": \"ms\",\n  \"traceEvents\": ";
  bool first_event = true;
  std::string& out = sink.buffer();
  // An empty list is written "[]": the bracket and line break come with the first event.
  const std::size_t open = out.size();
  out += "[\n";
  write_events(sink, first_event, schedule, r, 0, static_cast<int>(r.devices.size()), "");
  if (first_event) out.resize(open);
  close_events(out, first_event);
  out += ",\n  \"metadata\": {\"tool\": ";
  append_json_string(out, tool_version());
  out += ", \"schedule\": ";
  append_json_string(out, schedule.name);
  out += ", \"devices\": ";
  append_json_int(out, schedule.devices);
  out += ", \"stages\": ";
  append_json_int(out, schedule.stages);
  out += ", \"microbatches\": ";
  append_json_int(out, schedule.microbatches);
  out += ", \"iterations\": ";
  append_json_int(out, r.options.iterations);
  out += ", \"optimizer_mode\": ";
  append_json_string(out, optimizer_mode_name(r.options.optimizer_mode));
  out += ", \"makespan_ms\": ";
  append_json_double(out, ns_to_ms(r.makespan));
  out += ", \"step_ms\": ";
  append_json_double(out, ns_to_ms(r.step_time()));
  out += "}\n}\n";
  sink.flush_if_full();
}

void write_chrome_trace_comparison(TextSink& sink, const std::vector<TraceRun>& runs) {
  sink << "{\n  \"displayTimeUnit\": \"ms\",\n  \"traceEvents\": ";
  bool first_event = true;
  std::string& out = sink.buffer();
  const std::size_t open = out.size();
  out += "[\n";
  // The runs' critical paths after every run's devices, so that first_pid counts devices only.
  int critical_pid = 0;
  for (const TraceRun& run : runs) critical_pid += static_cast<int>(run.result->devices.size());
  int first_pid = 0;
  for (const TraceRun& run : runs) {
    write_events(sink, first_event, *run.schedule, *run.result, first_pid, critical_pid++, run.label + ": ");
    first_pid += static_cast<int>(run.result->devices.size());
  }
  if (first_event) out.resize(open);
  close_events(out, first_event);
  out += ",\n  \"metadata\": {\n    \"tool\": ";
  append_json_string(out, tool_version());
  out += ",\n    \"schedules\": ";
  if (runs.empty()) {
    out += "[]";
  } else {
    out += "[\n";
    first_pid = 0;
    for (std::size_t i = 0; i < runs.size(); ++i) {
      out += i == 0 ? "      {\"schedule\": " : ",\n      {\"schedule\": ";
      append_json_string(out, runs[i].label);
      out += ", \"first_pid\": ";
      append_json_int(out, first_pid);
      out += ", \"makespan_ms\": ";
      append_json_double(out, ns_to_ms(runs[i].result->makespan));
      out += ", \"step_ms\": ";
      append_json_double(out, ns_to_ms(runs[i].result->step_time()));
      out += '}';
      first_pid += static_cast<int>(runs[i].result->devices.size());
    }
    out += "\n    ]";
  }
  out += "\n  }\n}\n";
  sink.flush_if_full();
}

}  // namespace pipeplan
