// pipeplan.plan: the planner, asked as `pipeplan plan --json` asks it. The settings arrive as the
// flags' values (python/pipeplan/__init__.py names them after the flags, dashes as underscores),
// go through lib/io/model_flags.hpp and plan_flags.hpp as the command line's do, and the rows
// come back as the JSON `plan --json` prints.
#include <pybind11/stl.h>

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "bindings.hpp"
#include "io/json_text.hpp"
#include "io/plan_flags.hpp"
#include "io/plan_json.hpp"
#include "model/closest_names.hpp"
#include "model/error.hpp"
#include "plan/planner.hpp"

namespace py = pybind11;

namespace pipeplan::python {

namespace {

struct Settings {
  ModelFlags model;
  PlanFlags plan;
  bool breakdown = false;
};

using Setter = std::function<void(Settings&, const py::handle&)>;

// Every keyword plan takes beside its positional ones, by the flag it stands for.
const std::map<std::string, Setter>& setters() {
  static const std::map<std::string, Setter> table = {
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
      {"gemm_efficiency", [](Settings& s, const py::handle& v) { s.model.efficiency.gemm = v.cast<double>(); }},
      {"memory_efficiency", [](Settings& s, const py::handle& v) { s.model.efficiency.memory = v.cast<double>(); }},
      {"attention_efficiency",
       [](Settings& s, const py::handle& v) { s.model.attention_efficiency = v.cast<std::string>(); }},
      {"gpus_per_node", [](Settings& s, const py::handle& v) { s.model.gpus_per_node = v.cast<int>(); }},
      {"rank_order",
       [](Settings& s, const py::handle& v) {
         s.model.rank_order = v.cast<std::string>();
         s.model.given.rank_order = true;
       }},
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
      {"breakdown", [](Settings& s, const py::handle& v) { s.breakdown = v.cast<bool>(); }},
  };
  return table;
}

std::string plan_rows(const std::string& model_path, const std::string& model_json, const std::string& gpu, int gpus,
                      int seq, int global_batch, int top, const py::dict& fixed) {
  Settings s;
  s.model.model = model_path;
  s.model.model_json = model_json;
  s.model.gpu = gpu;
  s.model.training.seq = seq;
  s.model.training.global_batch = global_batch;
  s.model.training.overlap_grad_reduce = true;  // the command line's defaults (model_options.cpp)
  s.model.training.overlap_param_gather = true;
  s.plan.gpus = gpus;
  s.plan.top = top;
  for (const auto& [key, value] : fixed) {
    const std::string name = key.cast<std::string>();
    const auto found = setters().find(name);
    if (found == setters().end()) {
      std::vector<std::string_view> names;
      for (const auto& [n, setter] : setters()) names.emplace_back(n);
      std::string message = "plan: unknown setting '" + name + "'";
      const std::vector<std::string> close = closest_names(name, names, 3);
      if (!close.empty()) message += "; did you mean '" + close.front() + "'?";
      throw FlagError(message);
    }
    try {
      found->second(s, value);
    } catch (const py::cast_error&) {
      throw FlagError("plan: " + name + ": expected a value of the type its flag takes, got " +
                      py::str(value).cast<std::string>());
    }
  }
  py::gil_scoped_release release;
  check_model_ranges(s.model, true);
  ModelInput in = read_model_input(s.model);
  SearchedSettings searched = searched_settings(s.model);
  const PlanRequest request = plan_request_for(in, searched, s.model, s.plan);
  PlanOutcome outcome = plan(request);
  if (!s.breakdown) {  // as plan --json without --breakdown
    for (PlanRow& row : outcome.rows) row.breakdown.reset();
  }
  return to_json_text(plan_to_json(outcome));
}

}  // namespace

void register_plan(py::module_& m) {
  m.def("_plan", &plan_rows);
}

}  // namespace pipeplan::python
