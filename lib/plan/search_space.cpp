#include "plan/search_space.hpp"

#include <algorithm>
#include <string>

#include <fmt/format.h>

#include "estimate/megatron_layout.hpp"
#include "model/error.hpp"

namespace pipeplan {

namespace {

// The GPUs of one NVLink domain: --gpus-per-node, or the card's (72 on an NVL72 rack).
int node_gpus(const PlanRequest& r) {
  return r.gpus_per_node > 0 ? r.gpus_per_node : r.gpu->nvlink_domain;
}

// The largest tensor parallelism searched, however large the NVLink domain: beyond 8 its
// collectives outgrow its GEMMs (docs/costs.md, "The planner"); --tp fixes a larger one.
constexpr int kMaxSearchedTensorParallel = 8;

// The chunk counts worth trying for a generator: its only one, or 2 up to max_chunks (1 too for
// an automatic schedule, whose single chunk is not another generator's schedule).
// With a fixed count, that one for the generators that take it and none for the others.
std::vector<int> chunk_choices(const Generator& g, int max_chunks, int fixed) {
  if (fixed > 0) return g.min_chunks <= fixed && fixed <= g.max_chunks ? std::vector<int>{fixed} : std::vector<int>{};
  if (g.min_chunks == g.max_chunks) return {g.min_chunks};
  std::vector<int> out;
  const int first = g.uses_costs ? g.min_chunks : std::max(2, g.min_chunks);
  for (int v = first; v <= std::min(g.max_chunks, max_chunks); ++v) out.push_back(v);
  return out;
}

// The micro-batch sizes that split the replica's share of the global batch.
std::vector<int> micro_batch_choices(const PlanRequest& r, long per_replica) {
  if (!r.search.micro_batch) return {r.training.micro_batch};
  std::vector<int> out;
  for (int b = 1; b <= r.max_micro_batch; b *= 2) {
    if (per_replica % b == 0) out.push_back(b);
  }
  return out;
}

// Lightest first. With flash attention selective recompute keeps what none keeps (the s x s
// scores are never stored), so it would repeat none's rows. Without data parallelism there is
// nothing to shard; with it the distributed optimizer keeps less and steps faster than a whole
// copy (6 bytes a parameter cross the ring instead of 8, and Adam runs on 1/d), so sharding
// starts there, and the gradients follow when memory is short.
std::vector<MemoryVariant> variants(const PlanRequest& r, int dp) {
  std::vector<Recompute> recompute{r.training.recompute};
  if (r.search.recompute) {
    recompute = {Recompute::None, Recompute::Full};
    if (!r.training.flash_attention) recompute.insert(recompute.begin() + 1, Recompute::Selective);
  }
  std::vector<Sharding> sharding{dp > 1 ? r.training.sharding : Sharding::None};
  if (r.search.sharding && dp > 1) sharding = {Sharding::Optimizer, Sharding::Gradients};
  std::vector<MemoryVariant> out;
  for (Recompute rc : recompute) {
    for (Sharding sh : sharding) out.push_back({rc, sh});
  }
  // Every variant after all it dominates: by the sum of the settings' ranks.
  std::stable_sort(out.begin(), out.end(), [](const MemoryVariant& a, const MemoryVariant& b) {
    return int(a.recompute) + int(a.sharding) < int(b.recompute) + int(b.sharding);
  });
  return out;
}

// The expert-parallel degrees: 1 for a dense model; every ep dividing the data-parallel replicas
// and the experts (the experts are spread over ep of the replicas), or the fixed one if it does.
std::vector<int> ep_choices(const PlanRequest& r, int dp) {
  if (!r.model.is_moe()) return {1};
  std::vector<int> out;
  for (int e = 1; e <= dp; ++e) {
    if (dp % e == 0 && r.model.moe.experts % e == 0 && (r.search.ep || e == r.training.ep)) out.push_back(e);
  }
  return out;
}

}  // namespace

std::vector<int> tp_choices(const PlanRequest& r) {
  if (!r.search.tp) return {r.training.tp};
  std::vector<int> out;
  const ModelConfig& m = r.model;
  for (int t = 1; t <= std::min({r.gpus, node_gpus(r), kMaxSearchedTensorParallel}); ++t) {
    // A mixture of experts' MLPs are its experts (moe_work.cpp); intermediate_size may be unused.
    const bool mlp_split = m.is_moe() ? m.moe.ffn % t == 0 && m.moe.shared_ffn % t == 0 : m.ffn % t == 0;
    if (r.gpus % t == 0 && m.heads % t == 0 && m.kv_heads % t == 0 && mlp_split) out.push_back(t);
  }
  return out;
}

TrainingSettings job_training(const PlanRequest& r, const PlanJob& job, const MemoryVariant& v) {
  TrainingSettings t = r.training;
  t.tp = job.tp;
  t.ep = job.ep;
  t.micro_batch = job.micro_batch;
  t.recompute = v.recompute;
  t.sharding = v.sharding;
  return t;
}

std::string job_title(const PlanJob& j, const MemoryVariant& v) {
  return fmt::format(
      "{}, pp {} x {} chunks, dp {}, tp {}{}, micro-batch {}, recompute {}, sharding {}, {} micro-batches",
      j.generator->name, j.pp, j.chunks, j.dp, j.tp, j.ep > 1 ? fmt::format(", ep {}", j.ep) : "", j.micro_batch,
      recompute_name(v.recompute), sharding_name(v.sharding), j.microbatches);
}

std::vector<PlanJob> plan_jobs(const PlanRequest& r, std::map<std::string, int>& refused) {
  if (r.gpu == nullptr) throw Error("the planner needs a GPU");
  if (r.gpus < 1 || r.gpus % r.training.tp != 0) {
    throw Error("--gpus " + std::to_string(r.gpus) + ": must be a multiple of --tp " + std::to_string(r.training.tp));
  }
  if (r.training.global_batch < 1) throw Error("--global-batch: the planner needs the sequences per step");
  if (r.memory_reserve < 0 || r.memory_reserve >= (r.memory_limit > 0 ? r.memory_limit : r.gpu->memory_bytes)) {
    throw Error("--memory-reserve: must leave part of the per-GPU memory limit for the model");
  }
  std::vector<const Generator*> chosen;
  for (const std::string& name : r.schedules) {
    const Generator* g = find_generator(name);
    if (g == nullptr) throw Error("--schedules: unknown schedule '" + name + "' ('pipeplan list' shows them all)");
    chosen.push_back(g);
  }
  const std::vector<int> tps = tp_choices(r);
  if (tps.empty()) {
    throw Error("--gpus " + std::to_string(r.gpus) + ": no tensor-parallel degree up to " +
                std::to_string(std::min(node_gpus(r), kMaxSearchedTensorParallel)) +
                " (the NVLink domain's GPUs, at most " + std::to_string(kMaxSearchedTensorParallel) +
                ") divides it and the model's heads (" + std::to_string(r.model.heads) + "), key-value heads (" +
                std::to_string(r.model.kv_heads) + ") and FFN width");
  }
  if (r.pp > 0 && std::none_of(tps.begin(), tps.end(), [&](int tp) { return (r.gpus / tp) % r.pp == 0; })) {
    throw Error("--pp " + std::to_string(r.pp) + ": no tensor-parallel degree tried leaves a multiple of " +
                std::to_string(r.pp) + " of the " + std::to_string(r.gpus) + " GPUs");
  }
  if (r.chunks > 0 && std::none_of(chosen.begin(), chosen.end(), [&](const Generator* g) {
        return g->min_chunks <= r.chunks && r.chunks <= g->max_chunks;
      })) {
    throw Error("--chunks " + std::to_string(r.chunks) +
                ": none of the schedules tried takes that many chunks per device");
  }
  // A given layout fixes the stage count; 0 when none is given.
  const std::size_t fixed_stages =
      r.layout && !is_layout_keyword(*r.layout) ? parse_layout(*r.layout, r.model.layers, "--layout").size() : 0;
  std::vector<PlanJob> jobs;
  bool any_batch_fits = false;
  for (int tp : tps) {
    const int ranks = r.gpus / tp;
    for (int pp = 1; pp <= ranks; ++pp) {
      if (ranks % pp != 0 || (r.pp > 0 && pp != r.pp)) continue;
      const int dp = ranks / pp;
      const std::vector<MemoryVariant> vs = variants(r, dp);
      if (r.training.global_batch % dp != 0) {
        ++refused["the global batch does not split over the data-parallel replicas"];
        continue;
      }
      const std::vector<int> bs = micro_batch_choices(r, r.training.global_batch / dp);
      if (bs.empty() || r.training.global_batch % (long(bs.front()) * dp) != 0) {
        ++refused["the global batch does not split into micro-batches over the data-parallel replicas"];
        continue;
      }
      any_batch_fits = true;
      for (int b : bs) {
        const long microbatches = r.training.global_batch / (long(b) * dp);
        if (r.microbatches > 0 && microbatches != r.microbatches) continue;
        if (microbatches > kMaxMicrobatches) {
          ++refused["more micro-batches than the limit of " + std::to_string(kMaxMicrobatches)];
          continue;
        }
        const std::vector<int> eps = ep_choices(r, dp);
        if (eps.empty())
          ++refused["expert parallelism does not divide both the data-parallel replicas and the experts"];
        for (int ep : eps) {
          TrainingSettings lightest = r.training;
          lightest.tp = tp;
          lightest.ep = ep;
          lightest.micro_batch = b;
          lightest.recompute = vs.front().recompute;
          const GroupLinks links =
              group_links(*r.gpu, {tp, pp, dp, ep, node_gpus(r), r.rank_order.value_or(RankOrder::TpDpPp)});
          const PieceTotals t =
              piece_totals(r.model, lightest, *r.gpu, r.efficiency, r.measured ? &*r.measured : nullptr, &links);
          const double per_microbatch = t.all();
          for (const Generator* g : chosen) {
            for (int v : chunk_choices(*g, r.max_chunks, r.chunks)) {
              const int stages = pp * v;
              if (fixed_stages > 0 ? std::size_t(stages) != fixed_stages : stages > r.model.layers + 2) continue;
              // 1F1B's step with the fill and drain shortened V times: only an order to try them in.
              const double estimate = (double(microbatches) + double(pp - 1) / v) * per_microbatch / pp;
              jobs.push_back({tp, pp, dp, v, int(microbatches), b, g, vs, estimate, ep});
            }
          }
        }
      }
    }
  }
  if (!any_batch_fits) {
    throw Error("--global-batch " + std::to_string(r.training.global_batch) + ": no data-parallel degree of " +
                std::to_string(r.gpus / tps.front()) + " pipeline ranks splits it into micro-batches of " +
                std::to_string(r.training.micro_batch));
  }
  if (jobs.empty() && r.microbatches > 0) {
    throw Error("--microbatches " + std::to_string(r.microbatches) + ": no data-parallel degree and micro-batch size " +
                "split the global batch of " + std::to_string(r.training.global_batch) + " into that many");
  }
  std::stable_sort(jobs.begin(), jobs.end(),
                   [](const PlanJob& a, const PlanJob& b) { return a.estimate_ms < b.estimate_ms; });
  return jobs;
}

}  // namespace pipeplan
