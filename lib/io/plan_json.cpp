#include "io/plan_json.hpp"

#include <algorithm>

#include "io/json_fields.hpp"

namespace pipeplan {

namespace {

// The error budget's lines in milliseconds (docs/formats.md, "Plan"), summing to step_ms.
Json breakdown_to_json(const StepBreakdown& b) {
  Json j;
  j["device"] = b.device;
  j["measured"] = b.measured;
  j["products_ms"] = b.layers.products;
  j["attention_ms"] = b.layers.attention;
  j["elementwise_ms"] = b.layers.elementwise;
  j["tensor_parallel_ms"] = b.layers.tensor_comm;
  j["context_parallel_ms"] = b.layers.context_comm;
  j["expert_parallel_ms"] = b.layers.expert_comm;
  j["sharding_ms"] = b.layers.sharding_comm;
  j["offload_ms"] = b.layers.offload;
  if (b.layers.host > 0) j["host_ms"] = b.layers.host;  // schema_version 4
  j["embedding_head_ms"] = b.embedding_head_ms;
  j["overlap_ms"] = b.overlap_ms;
  j["optimizer_ms"] = b.optimizer_ms;
  j["data_parallel_ms"] = b.data_parallel_ms;
  j["idle_ms"] = b.idle_ms;
  j["step_ms"] = b.step_ms;
  return j;
}

Json row_to_json(const PlanRow& r, bool precisions) {
  Json j;
  j["schedule"] = r.schedule;
  j["pp"] = r.pp;
  j["dp"] = r.dp;
  j["tp"] = r.tp;
  j["cp"] = r.cp;
  j["ep"] = r.ep;
  j["etp"] = r.etp;
  j["rank_order"] = rank_order_name(r.rank_order);
  j["chunks"] = r.chunks;
  j["microbatches"] = r.microbatches;
  j["micro_batch"] = r.micro_batch;
  j["recompute"] = recompute_name(r.recompute);
  if (r.recompute_layers > 0) j["recompute_layers"] = r.recompute_layers;  // schema_version 3
  if (r.names_recompute_modules()) {                                       // schema_version 5
    Json& modules = j["recompute_modules"] = Json::array();
    for (std::string_view name : recompute_modules_list(r.recompute_modules)) modules.push_back(std::string(name));
  }
  j["sharding"] = sharding_name(r.sharding);
  j["layout"] = r.layout;
  j["megatron_layout"] = r.megatron_layout;
  j["step_ms"] = r.step_ms;
  j["bubble_rate"] = r.bubble_rate;
  j["tokens_per_s_per_gpu"] = r.tokens_per_s_per_gpu;
  j["mfu"] = r.mfu;
  j["memory_limit_bytes"] = r.memory_limit;
  j["peak_memory_bytes"] = r.peak_memory;
  j["partial_search"] = r.partial_search;
  if (r.breakdown) j["breakdown"] = breakdown_to_json(*r.breakdown);
  if (precisions) {  // several tried: each row's own (docs/formats.md)
    j["dtype"] = r.precision.fp8 ? std::string("fp8") : std::string(dtype_name(r.precision.dtype));
    j["fp8_recipe"] = r.precision.fp8 ? Json(std::string(fp8_recipe_name(*r.precision.fp8))) : Json(nullptr);
  }
  return j;
}

}  // namespace

// Version 2 added cp and etp: a file with a row of context parallelism, or of expert tensor
// parallelism other than tp, would be misread by a reader that ignores them (its GPUs are not
// tp·pp·dp), so such files say 2; the others stay 1. Version 3 added recompute_layers: a reader
// ignoring it would take a block's rows for full recompute of every layer. Version 4 added
// the breakdown's host_ms: without it a reader's lines would not add up to the step. Version 5
// added recompute_modules: a reader ignoring it would take the row for the attention core's recompute.
int plan_schema_version(const PlanOutcome& outcome) {
  const auto any = [&](const auto& needs) {
    return std::any_of(outcome.rows.begin(), outcome.rows.end(), needs) ||
           std::any_of(outcome.over_memory.begin(), outcome.over_memory.end(), needs);
  };
  if (any([](const PlanRow& r) { return r.names_recompute_modules(); })) return 5;
  if (any([](const PlanRow& r) { return r.breakdown && r.breakdown->layers.host > 0; })) return 4;
  if (any([](const PlanRow& r) { return r.recompute_layers > 0; })) return 3;
  return any([](const PlanRow& r) { return r.cp > 1 || r.etp != r.tp; }) ? 2 : 1;
}

Json plan_to_json(const PlanOutcome& outcome) {
  Json j = file_header("pipeplan.plan", plan_schema_version(outcome));
  j["considered"] = outcome.considered;
  j["over_memory"] = outcome.over_memory.size();
  j["skipped"] = outcome.skipped;
  j["merged"] = outcome.merged;
  Json& refused = j["refused"] = Json::object();
  for (const auto& [reason, count] : outcome.refused) refused[reason] = count;
  Json& examples = j["refused_first"] = Json::object();
  for (const auto& [reason, configuration] : outcome.refused_example) examples[reason] = configuration;
  Json& rows = j["rows"] = Json::array();
  for (const PlanRow& r : outcome.rows) rows.push_back(row_to_json(r, outcome.precisions));
  return j;
}

}  // namespace pipeplan
