#include "io/schedule_json.hpp"

#include <utility>

#include "io/json_fields.hpp"
#include "model/error.hpp"
#include "model/limits.hpp"

namespace pipeplan {

namespace {

Op op_from_json(const Json& j, const JsonPath& at, const Schedule& s) {
  JsonPath kind_at = at.key("kind");
  const std::string& kind_name = read_string(member(j, "kind", at), kind_at);
  auto kind = parse_kind(kind_name);
  if (!kind) fail_field(kind_at, "one of \"F\", \"B\", \"W\", \"BW\", \"FB\"", Json(kind_name));
  int stage = read_int(member(j, "stage", at), at.key("stage"), 0, s.stages - 1);
  int microbatch = read_int(member(j, "microbatch", at), at.key("microbatch"), 0, s.microbatches - 1);
  if (*kind != OpKind::FB) return Op{*kind, stage, microbatch};
  return overlapped(stage, microbatch,
                    read_int(member(j, "overlap_stage", at), at.key("overlap_stage"), 0, s.stages - 1),
                    read_int(member(j, "overlap_microbatch", at), at.key("overlap_microbatch"), 0, s.microbatches - 1));
}

}  // namespace

Schedule schedule_from_json(const Json& document, const std::string& source) {
  JsonPath root(source);
  check_header(document, "pipeplan.schedule", root);
  Schedule s;
  if (const Json* name = optional_member(document, "name", root)) s.name = read_string(*name, root.key("name"));
  s.devices = read_int(member(document, "devices", root), root.key("devices"), 1, kMaxDevices);
  s.stages = read_int(member(document, "stages", root), root.key("stages"), 1, kMaxStages);
  s.microbatches =
      read_int(member(document, "microbatches", root), root.key("microbatches"), 1, kMaxMicrobatches);
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
  for (std::size_t d = 0; d < order.size(); ++d) {
    JsonPath device_at = order_at.index(d);
    const Json& ops = read_array(order[d], device_at);
    s.order[d].reserve(ops.size());
    for (std::size_t i = 0; i < ops.size(); ++i) s.order[d].push_back(op_from_json(ops[i], device_at.index(i), s));
  }
  return s;
}

Schedule read_schedule_file(const std::string& path) {
  return schedule_from_json(parse_json(read_text_file(path), path), path);
}

Json schedule_to_json(const Schedule& s) {
  Json j = file_header("pipeplan.schedule");
  j["name"] = s.name;
  j["devices"] = s.devices;
  j["stages"] = s.stages;
  j["microbatches"] = s.microbatches;
  j["placement"] = s.placement;
  Json& order = j["order"] = Json::array();
  for (const auto& ops : s.order) {
    Json list = Json::array();
    for (const Op& op : ops) {
      list.push_back({{"kind", kind_name(op.kind)}, {"stage", op.stage}, {"microbatch", op.microbatch}});
      if (op.kind == OpKind::FB) {
        list.back()["overlap_stage"] = op.overlap_stage;
        list.back()["overlap_microbatch"] = op.overlap_microbatch;
      }
    }
    order.push_back(std::move(list));
  }
  return j;
}

}  // namespace pipeplan
