#include "io/schedule_json.hpp"

#include <optional>
#include <utility>

#include "io/json_fields.hpp"
#include "io/schedule_text.hpp"
#include "model/error.hpp"
#include "model/limits.hpp"

namespace pipeplan {

namespace {

// One entry of a device's list: a compute op, or (in a lowered schedule) a send or receive.
LoweredAction action_from_json(const Json& j, const JsonPath& at, const Schedule& s) {
  JsonPath kind_at = at.key("kind");
  const std::string& kind_name = read_string(member(j, "kind", at), kind_at);
  auto kind = parse_kind(kind_name);
  auto comm = parse_comm_kind(kind_name);
  if (!kind && !comm) {
    fail_field(kind_at, "one of \"F\", \"B\", \"W\", \"BW\", \"FB\", \"SEND_F\", \"RECV_F\", \"SEND_B\", \"RECV_B\"",
               Json(kind_name));
  }
  int stage = read_int(member(j, "stage", at), at.key("stage"), 0, s.stages - 1);
  int microbatch = read_int(member(j, "microbatch", at), at.key("microbatch"), 0, s.microbatches - 1);
  if (comm) {
    bool batched = false;
    if (const Json* b = optional_member(j, "batched", at)) {
      if (!b->is_boolean()) fail_field(at.key("batched"), "true or false", *b);
      batched = b->get<bool>();
    }
    return LoweredAction::communicate({*comm, stage, microbatch}, batched);
  }
  if (*kind != OpKind::FB) return LoweredAction::compute(Op{*kind, stage, microbatch});
  return LoweredAction::compute(
      overlapped(stage, microbatch, read_int(member(j, "overlap_stage", at), at.key("overlap_stage"), 0, s.stages - 1),
                 read_int(member(j, "overlap_microbatch", at), at.key("overlap_microbatch"), 0, s.microbatches - 1)));
}

// Reads the document; the compute ops go to the schedule, every entry to `actions` when given.
Schedule read_schedule(const Json& document, const std::string& source,
                       std::vector<std::vector<LoweredAction>>* actions) {
  JsonPath root(source);
  check_header(document, "pipeplan.schedule", root);
  Schedule s;
  if (const Json* name = optional_member(document, "name", root)) s.name = read_string(*name, root.key("name"));
  s.devices = read_int(member(document, "devices", root), root.key("devices"), 1, kMaxDevices);
  s.stages = read_int(member(document, "stages", root), root.key("stages"), 1, kMaxStages);
  s.microbatches = read_int(member(document, "microbatches", root), root.key("microbatches"), 1, kMaxMicrobatches);
  if (static_cast<long long>(s.stages) * s.microbatches * 3 > kMaxOps) {
    throw Error(root.where() + ": " + std::to_string(s.stages) + " stages x " + std::to_string(s.microbatches) +
                " micro-batches is more than the limit of " + std::to_string(kMaxOps) + " ops");
  }

  JsonPath placement_at = root.key("placement");
  const Json& placement = read_array(member(document, "placement", root), placement_at);
  if (std::cmp_not_equal(placement.size(), s.stages)) {
    fail_field(placement_at, "one device per stage (" + std::to_string(s.stages) + " entries)",
               Json(std::to_string(placement.size()) + " entries"));
  }
  for (std::size_t i = 0; i < placement.size(); ++i) {
    s.placement.push_back(read_int(placement[i], placement_at.index(i), 0, s.devices - 1));
  }

  JsonPath order_at = root.key("order");
  const Json& order = read_array(member(document, "order", root), order_at);
  if (std::cmp_not_equal(order.size(), s.devices)) {
    fail_field(order_at, "one list of ops per device (" + std::to_string(s.devices) + " lists)",
               Json(std::to_string(order.size()) + " lists"));
  }
  s.order.resize(order.size());
  if (actions != nullptr) actions->resize(order.size());
  for (std::size_t d = 0; d < order.size(); ++d) {
    JsonPath device_at = order_at.index(d);
    const Json& ops = read_array(order[d], device_at);
    s.order[d].reserve(ops.size());
    for (std::size_t i = 0; i < ops.size(); ++i) {
      LoweredAction a = action_from_json(ops[i], device_at.index(i), s);
      if (!a.is_comm) s.order[d].push_back(a.op);
      if (actions != nullptr) (*actions)[d].push_back(a);
    }
  }
  return s;
}

Json op_json(const Op& op) {
  Json j = {{"kind", kind_name(op.kind)}, {"stage", op.stage}, {"microbatch", op.microbatch}};
  if (op.kind == OpKind::FB) {
    j["overlap_stage"] = op.overlap_stage;
    j["overlap_microbatch"] = op.overlap_microbatch;
  }
  return j;
}

Json header_json(const Schedule& s) {
  Json j = file_header("pipeplan.schedule");
  j["name"] = s.name;
  j["devices"] = s.devices;
  j["stages"] = s.stages;
  j["microbatches"] = s.microbatches;
  j["placement"] = s.placement;
  return j;
}

}  // namespace

Schedule schedule_from_json(const Json& document, const std::string& source) {
  return read_schedule(document, source, nullptr);
}

LoweredSchedule lowered_from_json(const Json& document, const std::string& source) {
  LoweredSchedule out;
  out.schedule = read_schedule(document, source, &out.actions);
  JsonPath root(source);
  if (const Json* policy = optional_member(document, "lowering", root))
    out.policy = read_string(*policy, root.key("lowering"));
  return out;
}

Json lowered_to_json(const LoweredSchedule& lowered) {
  Json j = header_json(lowered.schedule);
  j["lowering"] = lowered.policy;
  Json& order = j["order"] = Json::array();
  for (const auto& actions : lowered.actions) {
    Json list = Json::array();
    for (const LoweredAction& a : actions) {
      if (!a.is_comm) {
        list.push_back(op_json(a.op));
        continue;
      }
      list.push_back(
          {{"kind", comm_kind_name(a.comm.kind)}, {"stage", a.comm.stage}, {"microbatch", a.comm.microbatch}});
      if (a.batched) list.back()["batched"] = true;
    }
    order.push_back(std::move(list));
  }
  return j;
}

Schedule read_schedule_file(const std::string& path) {
  const std::string text = read_text_file(path);
  if (std::optional<LoweredSchedule> fast = scan_schedule_text(text, false)) return std::move(fast->schedule);
  return schedule_from_json(parse_json(text, path), path);
}

Json schedule_to_json(const Schedule& s) {
  Json j = header_json(s);
  Json& order = j["order"] = Json::array();
  for (const auto& ops : s.order) {
    Json list = Json::array();
    for (const Op& op : ops) list.push_back(op_json(op));
    order.push_back(std::move(list));
  }
  return j;
}

LoweredSchedule read_lowered_file(const std::string& path) {
  const std::string text = read_text_file(path);
  // Files as pipeplan writes them take the one-pass scanner; anything else, the document
  // reader, which names the problem.
  if (std::optional<LoweredSchedule> fast = scan_schedule_text(text)) return std::move(*fast);
  return lowered_from_json(parse_json(text, path), path);
}

}  // namespace pipeplan
