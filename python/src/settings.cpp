// The keyword tables of pipeplan.plan and pipeplan.profile: one row per flag, the model's rows
// shared by both (the flags of apps/pipeplan/model_options.cpp), then each command's own.
#include "settings.hpp"

#include <pybind11/stl.h>

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "model/closest_names.hpp"
#include "model/error.hpp"

namespace py = pybind11;

namespace pipeplan::python {

namespace {

using Setter = std::function<void(Settings&, const py::handle&)>;
using Table = std::map<std::string, Setter>;

// --model's companions, which `plan` and `profile` both take (io/model_flags.hpp). A setting the
// planner searches records that it was given, as the command line counts its flag.
const Table& model_keywords() {
  static const Table table = {
      {"micro_batch",
       [](Settings& s, const py::handle& v) {
         s.model.training.micro_batch = v.cast<int>();
         s.model.given.micro_batch = true;
       }},
      {"tp",
       [](Settings& s, const py::handle& v) {
         s.model.training.tp = v.cast<int>();
         s.model.given.tp = true;
       }},
      {"ep",
       [](Settings& s, const py::handle& v) {
         s.model.training.ep = v.cast<int>();
         s.model.given.ep = true;
       }},
      {"cp",
       [](Settings& s, const py::handle& v) {
         s.model.training.cp = v.cast<int>();
         s.model.given.cp = true;
       }},
      {"etp", [](Settings& s, const py::handle& v) { s.model.training.etp = v.cast<int>(); }},
      {"moe_capacity_factor",
       [](Settings& s, const py::handle& v) { s.model.training.moe_capacity_factor = v.cast<double>(); }},
      {"recompute",
       [](Settings& s, const py::handle& v) {
         s.model.recompute = v.cast<std::string>();
         s.model.given.recompute = true;
       }},
      {"moe_dispatcher", [](Settings& s, const py::handle& v) { s.model.moe_dispatcher = v.cast<std::string>(); }},
      {"cuda_graphs", [](Settings& s, const py::handle& v) { s.model.cuda_graphs = v.cast<std::string>(); }},
      {"recompute_modules",
       [](Settings& s, const py::handle& v) { s.model.recompute_modules = v.cast<std::string>(); }},
      {"recompute_layers", [](Settings& s, const py::handle& v) { s.model.training.recompute_layers = v.cast<int>(); }},
      {"sharding",
       [](Settings& s, const py::handle& v) {
         s.model.sharding = v.cast<std::string>();
         s.model.given.sharding = true;
       }},
      {"dtype", [](Settings& s, const py::handle& v) { s.model.dtype = v.cast<std::string>(); }},
      {"fp8_recipe", [](Settings& s, const py::handle& v) { s.model.fp8_recipe = v.cast<std::string>(); }},
      {"flash_attention", [](Settings& s, const py::handle& v) { s.model.training.flash_attention = v.cast<bool>(); }},
      {"overlap_grad_reduce",
       [](Settings& s, const py::handle& v) { s.model.training.overlap_grad_reduce = v.cast<bool>(); }},
      {"overlap_param_gather",
       [](Settings& s, const py::handle& v) {
         s.model.training.overlap_param_gather = v.cast<bool>();
         s.model.given.overlap_param_gather = true;
       }},
      {"ddp_bucket_size",
       [](Settings& s, const py::handle& v) { s.model.training.bucket_params = v.cast<std::int64_t>(); }},
      {"param_gather_at_step_start",
       [](Settings& s, const py::handle& v) { s.model.training.param_gather_at_step_start = v.cast<bool>(); }},
      {"loss", [](Settings& s, const py::handle& v) { s.model.loss = v.cast<std::string>(); }},
      {"elementwise", [](Settings& s, const py::handle& v) { s.model.elementwise = v.cast<std::string>(); }},
      {"offload_layers", [](Settings& s, const py::handle& v) { s.model.training.offload_layers = v.cast<int>(); }},
      {"fp8_params", [](Settings& s, const py::handle& v) { s.model.training.fp8_params = v.cast<bool>(); }},
      {"moe_comm_sms", [](Settings& s, const py::handle& v) { s.model.training.moe_comm_sms = v.cast<int>(); }},
      {"grad_reduce_in_bf16",
       [](Settings& s, const py::handle& v) { s.model.training.grad_reduce_bf16 = v.cast<bool>(); }},
      {"moe_a2a_overlap", [](Settings& s, const py::handle& v) { s.model.training.moe_a2a_overlap = v.cast<bool>(); }},
      {"sequence_parallel",
       [](Settings& s, const py::handle& v) { s.model.training.sequence_parallel = v.cast<bool>(); }},
      {"tp_comm_overlap", [](Settings& s, const py::handle& v) { s.model.training.tp_comm_overlap = v.cast<bool>(); }},
      {"gemm_efficiency", [](Settings& s, const py::handle& v) { s.model.efficiency.gemm = v.cast<double>(); }},
      {"memory_efficiency", [](Settings& s, const py::handle& v) { s.model.efficiency.memory = v.cast<double>(); }},
      {"attention_kernel", [](Settings& s, const py::handle& v) { s.model.attention_kernel = v.cast<std::string>(); }},
      {"fsdp_impl", [](Settings& s, const py::handle& v) { s.model.fsdp_impl = v.cast<std::string>(); }},
      {"tp_overlap_method",
       [](Settings& s, const py::handle& v) { s.model.tp_overlap_method = v.cast<std::string>(); }},
      {"attention_efficiency",
       [](Settings& s, const py::handle& v) { s.model.attention_efficiency = v.cast<std::string>(); }},
      {"gpus_per_node", [](Settings& s, const py::handle& v) { s.model.gpus_per_node = v.cast<int>(); }},
      // A name or a rate in Gb/s per GPU: a number is read as --network reads its text.
      {"network", [](Settings& s, const py::handle& v) { s.model.network = py::str(v).cast<std::string>(); }},
      {"rank_order",
       [](Settings& s, const py::handle& v) {
         s.model.rank_order = v.cast<std::string>();
         s.model.given.rank_order = true;
       }},
  };
  return table;
}

// `plan`'s own flags (io/plan_flags.hpp), and --breakdown of its --json.
const Table& plan_keywords() {
  static const Table table = {
      {"memory_limit",
       [](Settings& s, const py::handle& v) {
         s.plan.memory_limit = v.cast<std::string>();
         s.plan.memory_limit_given = true;
       }},
      {"memory_reserve", [](Settings& s, const py::handle& v) { s.plan.memory_reserve = v.cast<std::string>(); }},
      {"schedules", [](Settings& s, const py::handle& v) { s.plan.schedules = v.cast<std::vector<std::string>>(); }},
      {"layout", [](Settings& s, const py::handle& v) { s.plan.layout = v.cast<std::string>(); }},
      {"pp", [](Settings& s, const py::handle& v) { s.plan.pp = v.cast<int>(); }},
      {"chunks", [](Settings& s, const py::handle& v) { s.plan.chunks = v.cast<int>(); }},
      {"max_chunks", [](Settings& s, const py::handle& v) { s.plan.max_chunks = v.cast<int>(); }},
      {"microbatches", [](Settings& s, const py::handle& v) { s.plan.microbatches = v.cast<int>(); }},
      {"threads", [](Settings& s, const py::handle& v) { s.plan.threads = v.cast<int>(); }},
      {"calibration", [](Settings& s, const py::handle& v) { s.plan.calibration = v.cast<std::string>(); }},
      {"optimizer_mode", [](Settings& s, const py::handle& v) { s.plan.optimizer_mode = v.cast<std::string>(); }},
      {"iterations", [](Settings& s, const py::handle& v) { s.plan.iterations = v.cast<int>(); }},
      {"comm", [](Settings& s, const py::handle& v) { s.plan.comm.mode = v.cast<std::string>(); }},
      {"policy", [](Settings& s, const py::handle& v) { s.plan.comm.policy = v.cast<std::string>(); }},
      {"breakdown", [](Settings& s, const py::handle& v) { s.breakdown = v.cast<bool>(); }},
  };
  return table;
}

// `profile`'s own flags (io/profile_flags.hpp), and the model's --seq and --global-batch, which
// plan takes as positional arguments.
const Table& profile_keywords() {
  static const Table table = {
      {"seq", [](Settings& s, const py::handle& v) { s.model.training.seq = v.cast<int>(); }},
      {"global_batch", [](Settings& s, const py::handle& v) { s.model.training.global_batch = v.cast<int>(); }},
      {"chunks", [](Settings& s, const py::handle& v) { s.profile.chunks = v.cast<int>(); }},
      {"placement", [](Settings& s, const py::handle& v) { s.profile.placement = v.cast<std::string>(); }},
      {"layout", [](Settings& s, const py::handle& v) { s.profile.layout = v.cast<std::string>(); }},
      {"dp", [](Settings& s, const py::handle& v) { s.profile.data_parallel = v.cast<int>(); }},
  };
  return table;
}

}  // namespace

void apply_settings(Settings& s, Command command, const py::dict& fixed) {
  const Table& own = command == Command::Plan ? plan_keywords() : profile_keywords();
  const char* name_of_command = command == Command::Plan ? "plan" : "profile";
  for (const auto& [key, value] : fixed) {
    const std::string name = key.cast<std::string>();
    const Setter* setter = nullptr;
    for (const Table* table : {&own, &model_keywords()}) {
      if (const auto found = table->find(name); found != table->end() && setter == nullptr) setter = &found->second;
    }
    if (setter == nullptr) {
      std::vector<std::string_view> names;
      for (const Table* table : {&own, &model_keywords()}) {
        for (const auto& entry : *table) names.emplace_back(entry.first);
      }
      std::string message = std::string(name_of_command) + ": unknown setting '" + name + "'";
      const std::vector<std::string> close = closest_names(name, names, 3);
      if (!close.empty()) message += "; did you mean '" + close.front() + "'?";
      throw FlagError(message);
    }
    try {
      (*setter)(s, value);
    } catch (const py::cast_error&) {
      throw FlagError(std::string(name_of_command) + ": " + name +
                      ": expected a value of the type its flag takes, got " + py::str(value).cast<std::string>());
    }
  }
}

}  // namespace pipeplan::python
