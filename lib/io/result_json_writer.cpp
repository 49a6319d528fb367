// The result file written as it streams (write_result_json): the layout of to_json_text, two
// spaces per level, each op, iteration and memory point on one line.
#include <string_view>

#include "io/json_fields.hpp"
#include "io/json_scalars.hpp"
#include "io/result_json.hpp"

namespace pipeplan {

namespace {

// `"key": ` at the given indentation, after the separator of the previous member.
void key(std::string& out, std::string_view indent, std::string_view name, bool first = false) {
  if (!first) out += ",\n";
  out += indent;
  out += '"';
  out += name;
  out += "\": ";
}

void ms_member(std::string& out, std::string_view name, SimTime t, bool first = false) {
  if (!first) out += ", ";
  out += '"';
  out += name;
  out += "\": ";
  append_json_double(out, ns_to_ms(t));
}

void write_devices(TextSink& sink, const SimResult& r) {
  std::string& out = sink.buffer();
  if (r.devices.empty()) {
    out += "[]";
    return;
  }
  out += "[\n";
  for (std::size_t d = 0; d < r.devices.size(); ++d) {
    const DeviceTimeline& t = r.devices[d];
    out += d == 0 ? "    {\n" : ",\n    {\n";
    const std::string_view in = "      ";
    key(out, in, "device", true);
    append_json_int(out, static_cast<long long>(d));
    key(out, in, "busy_ms");
    append_json_double(out, ns_to_ms(t.busy()));
    key(out, in, "idle_ms");
    append_json_double(out, ns_to_ms(r.makespan - t.busy()));
    key(out, in, "first_start_ms");
    append_json_double(out, ns_to_ms(t.first_start()));
    key(out, in, "last_end_ms");
    append_json_double(out, ns_to_ms(t.last_end()));
    key(out, in, "span_ms");
    append_json_double(out, ns_to_ms(t.iterations.back().span()));
    key(out, in, "static_memory_bytes");
    append_json_int(out, t.static_memory);
    key(out, in, "peak_memory_bytes");
    append_json_int(out, t.peak_memory);
    key(out, in, "peak_memory_ms");
    append_json_double(out, ns_to_ms(t.peak_time));
    key(out, in, "iterations");
    out += "[\n";  // never empty: a run has one iteration at least
    for (std::size_t k = 0; k < t.iterations.size(); ++k) {
      const IterationTimes& it = t.iterations[k];
      out += k == 0 ? "        {" : ",\n        {";
      ms_member(out, "busy_ms", it.busy, true);
      ms_member(out, "first_start_ms", it.first_start);
      ms_member(out, "last_end_ms", it.last_end);
      ms_member(out, "optimizer_start_ms", it.optimizer_start);
      ms_member(out, "optimizer_end_ms", it.optimizer_end);
      out += '}';
      sink.flush_if_full();
    }
    out += "\n      ]";
    key(out, in, "memory");
    if (t.memory.empty()) {
      out += "[]";
    } else {
      out += "[\n";
      for (std::size_t i = 0; i < t.memory.size(); ++i) {
        out += i == 0 ? "        [" : ",\n        [";
        append_json_double(out, ns_to_ms(t.memory[i].time));
        out += ", ";
        append_json_int(out, t.memory[i].bytes);
        out += ']';
        sink.flush_if_full();
      }
      out += "\n      ]";
    }
    out += "\n    }";
  }
  out += "\n  ]";
}

void write_op(std::string& out, const OpTiming& o) {
  out += "{\"device\": ";
  append_json_int(out, o.device);
  out += ", \"iteration\": ";
  append_json_int(out, o.iteration);
  out += ", \"kind\": \"";
  out += kind_name(o.op.kind);
  out += "\", \"stage\": ";
  append_json_int(out, o.op.stage);
  out += ", \"microbatch\": ";
  append_json_int(out, o.op.microbatch);
  ms_member(out, "start_ms", o.start);
  ms_member(out, "end_ms", o.end);
  if (o.op.kind == OpKind::FB) {
    out += ", \"overlap_stage\": ";
    append_json_int(out, o.op.overlap_stage);
    out += ", \"overlap_microbatch\": ";
    append_json_int(out, o.op.overlap_microbatch);
  }
  out += '}';
}

}  // namespace

void write_result_json(TextSink& sink, const Schedule& schedule, const SimResult& r,
                       const ResultCommunication* communication) {
  std::string& out = sink.buffer();
  const std::string_view in = "  ";
  out += "{\n";
  // The header from the one place that knows the schema version.
  const Json header = file_header("pipeplan.result");
  for (auto it = header.begin(); it != header.end(); ++it) {
    key(out, in, it.key(), it == header.begin());
    out += it->dump();
  }
  key(out, in, "schedule");
  append_json_string(out, schedule.name);
  key(out, in, "device_count");
  append_json_int(out, schedule.devices);
  key(out, in, "stages");
  append_json_int(out, schedule.stages);
  key(out, in, "microbatches");
  append_json_int(out, schedule.microbatches);
  key(out, in, "placement");
  out += '[';
  for (std::size_t i = 0; i < schedule.placement.size(); ++i) {
    if (i > 0) out += ", ";
    append_json_int(out, schedule.placement[i]);
  }
  out += ']';
  key(out, in, "makespan_ms");
  append_json_double(out, ns_to_ms(r.makespan));
  key(out, in, "bubble_rate");
  append_json_double(out, r.bubble_rate());
  key(out, in, "iterations");
  append_json_int(out, r.options.iterations);
  key(out, in, "optimizer_mode");
  append_json_string(out, optimizer_mode_name(r.options.optimizer_mode));
  key(out, in, "step_ms");
  append_json_double(out, ns_to_ms(r.step_time()));
  key(out, in, "span_bubble_rate");
  append_json_double(out, r.span_bubble_rate());
  key(out, in, "lower_bound_ms");
  append_json_double(out, ns_to_ms(r.lower_bound));
  key(out, in, "deadlocked");
  out += r.deadlocked() ? "true" : "false";
  key(out, in, "devices");
  write_devices(sink, r);
  key(out, in, "ops");
  const std::vector<const OpTiming*> ops = r.ops_by_start();
  if (ops.empty()) {
    out += "[]";
  } else {
    out += "[\n";
    for (std::size_t i = 0; i < ops.size(); ++i) {
      if (i > 0) out += ",\n";
      out += "    ";
      write_op(out, *ops[i]);
      sink.flush_if_full();
    }
    out += "\n  ]";
  }
  if (communication != nullptr) {
    key(out, in, "communication");
    out += "{\"mode\": ";
    append_json_string(out, communication->mode);
    out += ", \"lowering\": ";
    append_json_string(out, communication->lowering);
    out += '}';
  }
  out += "\n}\n";
  sink.flush_if_full();
}

void write_result_json(TextSink& out, const Schedule& schedule, const LoweredRun& run) {
  if (run.mode == CommMode::Overlap) {
    write_result_json(out, schedule, run.run.result);
    return;
  }
  const ResultCommunication communication{std::string(comm_mode_name(run.mode)), run.lowering.policy};
  write_result_json(out, schedule, run.run.result, &communication);
}

}  // namespace pipeplan
