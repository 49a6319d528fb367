// pipeplan.plan and pipeplan.profile: the planner, asked as `pipeplan plan --json` asks it, and
// the analytic profile, as `pipeplan profile` writes it. The settings arrive as the flags' values
// (settings.cpp names them after the flags, dashes as underscores), go through
// lib/io/model_flags.hpp, plan_flags.hpp and profile_flags.hpp as the command line's do, and come
// back as the JSON the command prints.
#include <pybind11/stl.h>

#include <string>

#include "bindings.hpp"
#include "io/json_text.hpp"
#include "io/plan_json.hpp"
#include "io/profile_flags.hpp"
#include "plan/planner.hpp"
#include "settings.hpp"

namespace py = pybind11;

namespace pipeplan::python {

namespace {

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
  apply_settings(s, Command::Plan, fixed);
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

// pipeplan.profile: `pipeplan profile`'s document, as its text (the package reads it as a dict).
std::string profile_text(const std::string& model_path, const std::string& model_json, const std::string& gpu,
                         int stages, const py::dict& fixed) {
  Settings s;
  s.model.model = model_path;
  s.model.model_json = model_json;
  s.model.gpu = gpu;
  s.model.training.overlap_grad_reduce = true;  // the command line's defaults (model_options.cpp)
  s.model.training.overlap_param_gather = true;
  s.profile.stages = stages;
  apply_settings(s, Command::Profile, fixed);
  py::gil_scoped_release release;
  check_model_ranges(s.model, false);
  const ModelInput in = read_model_input(s.model);
  return to_json_text(analytic_profile_document(in, s.model, s.profile));
}

}  // namespace

void register_plan(py::module_& m) {
  m.def("_plan", &plan_rows);
  m.def("_profile", &profile_text);
}

}  // namespace pipeplan::python
