#include "plan/launch.hpp"

#include "estimate/megatron_layout.hpp"
#include "model/error.hpp"
#include "plan/plan_evaluate.hpp"
#include "schedules/generator.hpp"

namespace pipeplan {

LaunchPlan launch_plan(Framework framework, const PlanRequest& request, const PlanRow& row, const LaunchFiles& files) {
  return framework == Framework::Megatron ? megatron_launch(request, row) : torchtitan_launch(request, row, files);
}

void simulate_closest(const PlanRequest& request, const PlanRow& as_run, LaunchPlan& launch) {
  const Generator* g = find_generator(as_run.schedule);
  if (g == nullptr) throw Error("unknown schedule '" + as_run.schedule + "'");
  const PlanJob job{as_run.tp, as_run.pp, as_run.dp, as_run.chunks, as_run.microbatches, as_run.micro_batch,
                    g,         {},        0,         as_run.ep,     as_run.cp,           as_run.precision};
  try {
    launch.closest =
        evaluate_layout(request, job, as_run.training(request.training),
                        parse_layout(as_run.layout, request.model.layers, "the row's layout"), as_run.rank_order)
            .row;
  } catch (const Error& e) {  // the generator refuses the configuration: say why, simulate nothing
    launch.closest_refusal = e.what();
  }
}

void one_f_one_b_comm(std::string_view framework, const PlanRow& as_run, PlanRequest& run_request, LaunchPlan& launch) {
  if (as_run.pp <= 1 || as_run.chunks != 1 || as_run.schedule != "1f1b") return;
  if (run_request.comm == CommMode::Blocking && run_request.policy == LowerPolicy::Batched) return;
  run_request.comm = CommMode::Blocking;
  run_request.policy = LowerPolicy::Batched;
  launch.gaps.push_back(std::string(framework) +
                        " 1F1B posts each gap's send and receive as one batch and waits for it before the next op, "
                        "on the compute stream: it runs the row with --comm blocking --policy batched");
}

bool run_differs(const PlanRequest& request, const PlanRequest& run_request) {
  return run_request.training != request.training || run_request.comm != request.comm ||
         run_request.policy != request.policy || run_request.model.mtp_layers != request.model.mtp_layers;
}

bool is_even_split(const Layout& layout, int layers, bool padded) {
  const std::optional<Layout> even = even_layout(int(layout.size()), layers, padded);
  if (!even) return false;
  for (std::size_t s = 0; s < layout.size(); ++s) {
    const StagePieces& a = layout[s];
    const StagePieces& b = (*even)[s];
    if (a.embedding != b.embedding || a.layers != b.layers || a.head != b.head) return false;
  }
  return true;
}

}  // namespace pipeplan
