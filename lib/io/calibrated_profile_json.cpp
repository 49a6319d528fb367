#include "io/calibrated_profile_json.hpp"

#include "io/json_fields.hpp"
#include "io/model_config_json.hpp"
#include "model/error.hpp"

namespace pipeplan {

CalibratedProfile calibrated_profile_from_json(const Json& profile, const std::string& source) {
  JsonPath root(source);
  const Json* c = optional_member(profile, "calibration", root);
  if (c == nullptr) throw Error(source + ": not a profile from 'pipeplan-gpu calibrate' (no \"calibration\")");
  JsonPath at = root.key("calibration");
  CalibratedProfile out;
  TrainingSettings& t = out.training;
  t.seq = read_int(member(*c, "seq", at), at.key("seq"), 1, 1 << 22);
  t.micro_batch = read_int(member(*c, "micro_batch", at), at.key("micro_batch"), 1, 1 << 16);
  t.tp = read_int(member(*c, "tp", at), at.key("tp"), 1, 1024);
  const std::string& dtype = read_string(member(*c, "dtype", at), at.key("dtype"));
  if (!dtype_named(dtype)) fail_field(at.key("dtype"), "bf16, fp16 or fp32", Json(dtype));
  t.dtype = *dtype_named(dtype);
  const Json& flash = member(*c, "flash_attention", at);
  if (!flash.is_boolean()) fail_field(at.key("flash_attention"), "true or false", flash);
  t.flash_attention = flash.get<bool>();
  out.model = model_config_from_json(member(*c, "model", at), at.key("model").where());
  out.layout = parse_layout(read_string(member(*c, "layout", at), at.key("layout")), out.model.layers,
                            at.key("layout").where(), out.model.mtp_layers);
  JsonPath list_at = root.key("measurements");
  const Json& list = read_array(member(profile, "measurements", root), list_at);
  for (std::size_t i = 0; i < list.size(); ++i) {
    JsonPath item = list_at.index(i);
    const std::string& piece = read_string(member(list[i], "piece", item), item.key("piece"));
    const std::string& phase = read_string(member(list[i], "phase", item), item.key("phase"));
    const double ms = read_ms(member(list[i], "median_ms", item), item.key("median_ms"));
    StageCost* into = piece == "layer"       ? &out.pieces.layer
                      : piece == "head"      ? &out.pieces.head
                      : piece == "embedding" ? &out.pieces.embedding
                                             : nullptr;
    if (into == nullptr) fail_field(item.key("piece"), "\"layer\", \"head\" or \"embedding\"", Json(piece));
    if (phase == "F") {
      into->f_ms += ms;
    } else if (phase == "B") {
      into->b_ms += ms;
    } else if (phase == "W") {
      into->w_ms += ms;
    } else {
      fail_field(item.key("phase"), "\"F\", \"B\" or \"W\"", Json(phase));
    }
  }
  return out;
}

}  // namespace pipeplan
