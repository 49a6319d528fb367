#include "io/profile_json.hpp"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "io/json_fields.hpp"
#include "model/error.hpp"

namespace pipeplan {

namespace {

// Version 2 added "boundaries": a version-1 reader would ignore them and time every boundary with
// "transfer". Version 3 added the stages' "f_workspace_bytes" and "b_workspace_bytes", which an
// older reader would leave out of the peak. Version 4 added the stages' "layer_activation_bytes"
// (FB pairs run layer by layer), which an older reader would take as pairs holding both stages'
// activations. A profile is written at the least version that holds what it has.
constexpr int kProfileSchemaVersion = 4;
constexpr int kBoundariesSchemaVersion = 2;
constexpr int kWorkspaceSchemaVersion = 3;
constexpr int kLayerPairsSchemaVersion = 4;

// A field that an older reader would misread needs the version that added it.
void require_version(const JsonPath& at, int needed, int version, const std::string& what, const std::string& why) {
  if (version >= needed) return;
  throw Error(at.where() + ": a profile " + what + " has schema_version " + std::to_string(needed) +
              " (a reader of version " + std::to_string(version) + " " + why + "), got " + std::to_string(version));
}

// A part of what F allocates (a_W, one layer's share) cannot exceed it.
void require_part_of_activation(const JsonPath& at, Bytes part, Bytes activation, const std::string& why) {
  if (part <= activation) return;
  throw Error(at.where() + ": " + std::to_string(part) + " exceeds activation_bytes (" + std::to_string(activation) +
              "): " + why);
}

StageCost stage_from_json(const Json& j, const JsonPath& at, int version) {
  StageCost s;
  s.f_ms = read_ms(member(j, "f_ms", at), at.key("f_ms"));
  s.b_ms = read_ms(member(j, "b_ms", at), at.key("b_ms"));
  s.w_ms = read_ms(member(j, "w_ms", at), at.key("w_ms"));
  if (s.b_ms + s.w_ms > kMaxMs) {  // a fused BW takes both
    throw Error(at.where() + ": b_ms + w_ms comes to " + std::to_string(s.b_ms + s.w_ms) +
                " ms, above the 1e10 ms a time may take");
  }
  if (const Json* a = optional_member(j, "activation_bytes", at)) {
    s.activation_bytes = read_bytes(*a, at.key("activation_bytes"));
  }
  if (const Json* a = optional_member(j, "w_activation_bytes", at)) {
    s.w_activation_bytes = read_bytes(*a, at.key("w_activation_bytes"));
  }
  if (const Json* fb = optional_member(j, "f_and_b_ms", at)) s.f_and_b_ms = read_ms(*fb, at.key("f_and_b_ms"));
  for (auto [key, field] : {std::pair{"f_workspace_bytes", &StageCost::f_workspace_bytes},
                            std::pair{"b_workspace_bytes", &StageCost::b_workspace_bytes}}) {
    const Json* v = optional_member(j, key, at);
    if (v == nullptr) continue;
    require_version(at.key(key), kWorkspaceSchemaVersion, version, "with workspaces",
                    "would leave them out of the peak");
    s.*field = read_bytes(*v, at.key(key));
  }
  if (const Json* v = optional_member(j, "layer_activation_bytes", at)) {
    require_version(at.key("layer_activation_bytes"), kLayerPairsSchemaVersion, version,
                    "whose pairs run layer by layer", "would hold both stages' activations in each pair");
    s.layer_activation_bytes = read_bytes(*v, at.key("layer_activation_bytes"));
    require_part_of_activation(at.key("layer_activation_bytes"), s.layer_activation_bytes, s.activation_bytes,
                               "one layer keeps part of what the stage's F allocated");
  }
  require_part_of_activation(at.key("w_activation_bytes"), s.w_activation_bytes, s.activation_bytes,
                             "W keeps only part of what F allocated");
  return s;
}

DeviceCost device_from_json(const Json& j, const JsonPath& at) {
  DeviceCost d;
  if (const Json* v = optional_member(j, "static_memory_bytes", at)) {
    d.static_memory_bytes = read_bytes(*v, at.key("static_memory_bytes"));
  }
  if (const Json* v = optional_member(j, "optimizer_ms", at)) d.optimizer_ms = read_ms(*v, at.key("optimizer_ms"));
  return d;
}

TransferCost transfer_from_json(const Json& j, const JsonPath& at) {
  TransferCost t;
  const Json* fixed = optional_member(j, "ms", at);
  const Json* bandwidth = optional_member(j, "bandwidth_gb_per_s", at);
  if (fixed != nullptr && bandwidth != nullptr) {
    throw Error(at.where() + ": give either \"ms\" or \"latency_ms\", \"bandwidth_gb_per_s\" and \"bytes\", not both");
  }
  if (fixed != nullptr) {
    t.fixed_ms = read_ms(*fixed, at.key("ms"));
    return t;
  }
  if (bandwidth == nullptr) {
    throw Error(at.where() + ": expected \"ms\", or \"latency_ms\", \"bandwidth_gb_per_s\" and \"bytes\"");
  }
  t.bandwidth_gb_per_s = read_positive(*bandwidth, at.key("bandwidth_gb_per_s"));
  t.latency_ms = read_ms(member(j, "latency_ms", at), at.key("latency_ms"));
  t.bytes = read_bytes(member(j, "bytes", at), at.key("bytes"));
  if (!(t.ms() <= kMaxMs)) {  // each part in range, the sum too large: the simulator could not time it
    throw Error(at.where() + ": latency_ms + bytes / bandwidth_gb_per_s comes to " + std::to_string(t.ms()) +
                " ms, above the 1e10 ms a time may take");
  }
  return t;
}

Json transfer_to_json(const TransferCost& t) {
  if (t.fixed_ms) return {{"ms", *t.fixed_ms}};
  return {{"latency_ms", t.latency_ms}, {"bandwidth_gb_per_s", t.bandwidth_gb_per_s}, {"bytes", t.bytes}};
}

std::vector<TransferCost> boundaries_from_json(const Json& j, const JsonPath& at, std::size_t stages, int version) {
  const Json& list = read_array(j, at);
  require_version(at, kBoundariesSchemaVersion, version, "with per-boundary transfers", "would ignore them");
  if (list.size() + 1 != stages) {
    throw Error(at.where() + ": expected " + std::to_string(stages - 1) + " entries, one per boundary between the " +
                std::to_string(stages) + " stages, got " + std::to_string(list.size()));
  }
  std::vector<TransferCost> out;
  for (std::size_t i = 0; i < list.size(); ++i) out.push_back(transfer_from_json(list[i], at.index(i)));
  return out;
}

}  // namespace

CostModel profile_from_json(const Json& document, const std::string& source) {
  JsonPath root(source);
  const int version = check_header(document, "pipeplan.profile", root, kProfileSchemaVersion);
  CostModel costs;
  JsonPath stages_at = root.key("stages");
  const Json& stages = read_array(member(document, "stages", root), stages_at);
  if (stages.empty()) fail_field(stages_at, "at least one stage", stages);
  for (std::size_t i = 0; i < stages.size(); ++i)
    costs.stages.push_back(stage_from_json(stages[i], stages_at.index(i), version));
  if (const Json* devices = optional_member(document, "devices", root)) {
    JsonPath devices_at = root.key("devices");
    const Json& list = read_array(*devices, devices_at);
    for (std::size_t i = 0; i < list.size(); ++i) {
      costs.devices.push_back(device_from_json(list[i], devices_at.index(i)));
    }
  }
  if (const Json* transfer = optional_member(document, "transfer", root)) {
    costs.transfer = transfer_from_json(*transfer, root.key("transfer"));
  } else {
    costs.transfer.fixed_ms = 0.0;
  }
  if (const Json* boundaries = optional_member(document, "boundaries", root)) {
    costs.boundaries = boundaries_from_json(*boundaries, root.key("boundaries"), costs.stages.size(), version);
  }
  return costs;
}

CostModel read_profile_file(const std::string& path) {
  return profile_from_json(parse_json(read_text_file(path), path), path);
}

Json profile_to_json(const CostModel& costs) {
  const bool workspaces = std::any_of(costs.stages.begin(), costs.stages.end(), [](const StageCost& s) {
    return s.f_workspace_bytes > 0 || s.b_workspace_bytes > 0;
  });
  const bool layer_pairs = std::any_of(costs.stages.begin(), costs.stages.end(),
                                       [](const StageCost& s) { return s.layer_activation_bytes > 0; });
  const int version = layer_pairs                ? kLayerPairsSchemaVersion
                      : workspaces               ? kWorkspaceSchemaVersion
                      : costs.boundaries.empty() ? 1
                                                 : kBoundariesSchemaVersion;
  Json j = file_header("pipeplan.profile", version);
  Json& stages = j["stages"] = Json::array();
  for (const StageCost& s : costs.stages) {
    stages.push_back({{"f_ms", s.f_ms},
                      {"b_ms", s.b_ms},
                      {"w_ms", s.w_ms},
                      {"activation_bytes", s.activation_bytes},
                      {"w_activation_bytes", s.w_activation_bytes}});
    if (s.f_and_b_ms) stages.back()["f_and_b_ms"] = *s.f_and_b_ms;
    if (workspaces) {
      stages.back()["f_workspace_bytes"] = s.f_workspace_bytes;
      stages.back()["b_workspace_bytes"] = s.b_workspace_bytes;
    }
    if (layer_pairs) stages.back()["layer_activation_bytes"] = s.layer_activation_bytes;
  }
  Json& devices = j["devices"] = Json::array();
  for (const DeviceCost& d : costs.devices) {
    devices.push_back({{"static_memory_bytes", d.static_memory_bytes}, {"optimizer_ms", d.optimizer_ms}});
  }
  j["transfer"] = transfer_to_json(costs.transfer);
  if (!costs.boundaries.empty()) {
    Json& boundaries = j["boundaries"] = Json::array();
    for (const TransferCost& t : costs.boundaries) boundaries.push_back(transfer_to_json(t));
  }
  // What this writes, its reader takes (issue 31, item 7): an estimate past a reader's limit (a
  // stage of 1.2e10 ms) is refused here, naming the field, instead of written for every reader
  // to refuse later.
  try {
    (void)profile_from_json(j, "the profile");
  } catch (const Error& e) {
    throw Error(std::string("cannot write a profile its readers would refuse: ") + e.what());
  }
  return j;
}

}  // namespace pipeplan
