#include "plan/search_space.hpp"

#include <algorithm>
#include <optional>
#include <string>
#include <tuple>

#include <fmt/format.h>

#include "estimate/activation_offload.hpp"
#include "estimate/megatron_layout.hpp"
#include "estimate/moe_work.hpp"
#include "model/error.hpp"

namespace pipeplan {

namespace {

// Why the search passes a pipeline or a chunked stage by under --offload-layers.
constexpr const char* kOffloadOneStage =
    "activation offloading (--offload-layers) runs on one stage: no pipeline parallelism, one chunk";

constexpr const char* kOneDeviceOneChunk =
    "pp 1: one device runs its layers in order, which Megatron-LM and torchtitan run as 1F1B with one chunk; "
    "chunks and V-shaped schedules need pipeline stages on several devices";

// The schedule that stands for every one on a single device (pp 1): 1F1B when tried, otherwise
// the first tried whose own schedule has one chunk (not interleaving's, which is 1F1B's there,
// chunk_choices); none when no schedule tried has.
const Generator* one_device_schedule(const std::vector<const Generator*>& chosen, int fixed_chunks) {
  if (fixed_chunks > 1) return nullptr;
  const Generator* first = nullptr;
  for (const Generator* g : chosen) {
    if (g->min_chunks > 1 || (!g->uses_costs && g->max_chunks > 1)) continue;
    if (g->name == "1f1b") return g;
    if (first == nullptr) first = g;
  }
  return first;
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

int ceil_div(int a, int b) {
  return (a + b - 1) / b;
}

// Full recompute's blocks the search tries in a chunk of `layers` layers: a quarter, a half and
// three quarters of them (rounded up, each short of the whole), so that a configuration a few
// layers' activations over the memory keeps most of them (Megatron-LM's --recompute-method block
// --recompute-num-layers N) instead of recomputing every layer. Memory falls about linearly in N,
// so quarters leave at most a quarter of a chunk's activations unused, at three variants more.
std::vector<int> full_recompute_blocks(int layers) {
  std::vector<int> out;
  for (int quarters = 1; quarters <= 3; ++quarters) {
    const int n = ceil_div(quarters * layers, 4);
    if (n < layers && (out.empty() || n > out.back())) out.push_back(n);
  }
  return out;
}

// The variants with full recompute's blocks (full_recompute_blocks) for chunks of `layers`
// layers after each full recompute on every layer, where the search chooses the recompute and
// the request fixes no block (a calibration measures no layer that keeps its activations).
std::vector<MemoryVariant> with_recompute_blocks(const PlanRequest& r, const std::vector<MemoryVariant>& vs,
                                                 int layers) {
  if (!r.search.recompute || r.training.recompute_layers > 0 || r.measured) return vs;
  // Each block right after its full recompute on every layer, the smallest first: where that does
  // not fit no block of it does, and the first block that fits is the fastest (evaluate_job).
  std::vector<MemoryVariant> out;
  for (const MemoryVariant& v : vs) {
    out.push_back(v);
    if (v.recompute == Recompute::Full && v.recompute_layers == 0) {
      for (int block : full_recompute_blocks(layers)) out.push_back({v.recompute, v.sharding, v.modules, block});
    }
  }
  return out;
}

// Lightest first. With flash attention selective recompute keeps what none keeps (the s x s
// scores are never stored), so it would repeat none's rows. Without data parallelism (dp·cp
// ranks holding the same weights) there is nothing to shard; with it the distributed optimizer
// keeps less and steps faster than a whole copy (6 bytes a parameter cross the ring instead of
// 8, and Adam runs on 1/d), so sharding starts there, the gradients follow when memory is short,
// and without pipeline parallelism FSDP's parameters last. Beside pipeline parallelism FSDP
// keeps the stage's weights gathered and its gradients whole all step (fsdp.hpp): more memory
// than the distributed optimizer for the same collectives, so it is not tried there.
std::vector<MemoryVariant> variants(const PlanRequest& r, int dp, int pp) {
  std::vector<std::pair<Recompute, RecomputeModules>> recompute{{r.training.recompute, r.training.recompute_modules}};
  if (r.search.recompute && r.training.offload_layers > 0) {
    recompute = {{Recompute::None, kDefaultRecomputeModules}};  // offloading takes recompute's place
  } else if (r.search.recompute) {
    recompute = {{Recompute::None, kDefaultRecomputeModules}, {Recompute::Full, kDefaultRecomputeModules}};
    // Between them: the attention core without flash attention, with it the modules that drop
    // their output alone (recompute_modules.hpp), where the model has them.
    const RecomputeModules light = light_recompute_modules(r.model);
    if (!r.training.flash_attention) {
      recompute.insert(recompute.begin() + 1, {Recompute::Selective, kDefaultRecomputeModules});
    } else if (light != 0) {
      recompute.insert(recompute.begin() + 1, {Recompute::Selective, light});
    }
    // Megatron-Core refuses full recompute beside the expert all-to-alls' overlap (model_flags).
    if (r.training.moe_a2a_overlap) recompute.pop_back();  // full, the last
  }
  std::vector<Sharding> sharding{dp > 1 ? r.training.sharding : Sharding::None};
  if (r.search.sharding && dp > 1) sharding = {Sharding::Optimizer, Sharding::Gradients};
  // FP8 weights alone run with the distributed optimizer or ZeRO-2 here, not FSDP (check_fp8_params).
  if (r.search.sharding && dp > 1 && pp == 1 && !r.training.fp8_params) sharding.push_back(Sharding::Params);
  std::vector<MemoryVariant> out;
  for (const auto& [rc, modules] : recompute) {
    for (Sharding sh : sharding) out.push_back({rc, sh, modules});
  }
  // Every variant after all it dominates: by the sum of the settings' ranks.
  std::stable_sort(out.begin(), out.end(), [](const MemoryVariant& a, const MemoryVariant& b) {
    return int(a.recompute) + int(a.sharding) < int(b.recompute) + int(b.sharding);
  });
  return out;
}

// The expert-parallel degrees: 1 for a dense model; every ep dividing the experts whose groups,
// etp·ep ranks each, fold over the stage's tp·cp·dp ranks (Megatron's parallel folding: ep may
// exceed dp), or the fixed one if it does.
std::vector<int> ep_choices(const PlanRequest& r, int tp, int cp, int dp) {
  if (!r.model.is_moe()) return {1};
  const long stage = long(tp) * cp * dp;
  const long etp = r.training.etp > 0 ? r.training.etp : tp;
  std::vector<int> out;
  // Under tp-pp-dp the experts stay inside data parallelism (rank_placement.hpp): ep dividing dp.
  const bool inside_dp = r.rank_order == RankOrder::TpPpDp;
  for (int e = 1; e <= r.model.moe.experts && etp * e <= stage; ++e) {
    if (inside_dp && e > 1 && (dp % e != 0 || etp != tp || cp > 1)) continue;
    if (stage % (etp * e) == 0 && r.model.moe.experts % e == 0 && (r.search.ep || e == r.training.ep)) {
      out.push_back(e);
    }
  }
  return out;
}

}  // namespace

std::vector<int> cp_choices(const PlanRequest& r, int tp) {
  const int ranks = r.gpus / tp;
  if (!r.search.cp) return ranks % r.training.cp == 0 ? std::vector<int>{r.training.cp} : std::vector<int>{};
  std::vector<int> out{1};
  if (!r.training.flash_attention) return out;
  for (int c = 2; c <= ranks; c *= 2) {
    if (ranks % c == 0 && r.training.seq % (2 * c) == 0) out.push_back(c);
  }
  return out;
}

std::vector<int> tp_choices(const PlanRequest& r) {
  if (!r.search.tp) return {r.training.tp};
  std::vector<int> out;
  const ModelConfig& m = r.model;
  for (int t = 1; t <= std::min({r.gpus, r.node_gpus(), kMaxSearchedTensorParallel}); ++t) {
    // A mixture of experts' MLPs are its experts (moe_work.cpp); intermediate_size may be unused.
    const bool mlp_split = m.is_moe() ? m.moe.ffn % t == 0 && m.moe.shared_ffn % t == 0 : m.ffn % t == 0;
    if (r.gpus % t == 0 && m.heads % t == 0 && m.kv_heads % t == 0 && mlp_split && m.qk_norm_fits_tensor_parallel(t)) {
      out.push_back(t);
    }
  }
  return out;
}

std::vector<Precision> precisions_of(const PlanRequest& r) {
  if (!r.precisions.empty()) return r.precisions;
  return {{r.training.dtype, r.training.fp8}};
}

TrainingSettings job_training(const PlanRequest& r, const PlanJob& job, const MemoryVariant& v) {
  TrainingSettings t = r.training;
  t.dtype = job.precision.dtype;
  t.fp8 = job.precision.fp8;
  t.tp = job.tp;
  t.cp = job.cp;
  t.ep = job.ep;
  t.micro_batch = job.micro_batch;
  t.recompute = v.recompute;
  t.recompute_modules = v.modules;
  // The block is full's: the variant's, else the request's.
  t.recompute_layers = v.recompute != Recompute::Full ? 0
                       : v.recompute_layers > 0       ? v.recompute_layers
                                                      : r.training.recompute_layers;
  t.sharding = v.sharding;
  return t;
}

std::string job_title(const PlanJob& j, const MemoryVariant& v) {
  return fmt::format(
      "{}, pp {} x {} chunks, dp {}, tp {}{}{}, micro-batch {}, recompute {}, sharding {}, {} micro-batches{}",
      j.generator->name, j.pp, j.chunks, j.dp, j.tp, j.cp > 1 ? fmt::format(", cp {}", j.cp) : "",
      j.ep > 1 ? fmt::format(", ep {}", j.ep) : "", j.micro_batch,
      recompute_text(v.recompute, v.modules) +
          (v.recompute_layers > 0 ? fmt::format(" (block {})", v.recompute_layers) : std::string()),
      sharding_name(v.sharding), j.microbatches,
      j.precision.fp8 ? fmt::format(", fp8 ({})", fp8_recipe_name(*j.precision.fp8)) : "");
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
                std::to_string(std::min(r.node_gpus(), kMaxSearchedTensorParallel)) +
                " (the NVLink domain's GPUs, at most " + std::to_string(kMaxSearchedTensorParallel) +
                ") divides it and the model's heads (" + std::to_string(r.model.heads) + "), key-value heads (" +
                std::to_string(r.model.kv_heads) + ") and FFN width");
  }
  // Every (tp, cp) pair tried: the GPUs left for pipeline and data parallelism are gpus / (tp·cp).
  std::vector<std::pair<int, int>> grids;
  for (int tp : tps) {
    for (int cp : cp_choices(r, tp)) grids.emplace_back(tp, cp);
  }
  if (grids.empty()) {
    throw Error("--cp " + std::to_string(r.training.cp) + ": no tensor-parallel degree tried leaves a multiple of " +
                std::to_string(r.training.cp) + " of the " + std::to_string(r.gpus) + " GPUs");
  }
  if (r.pp > 0 && std::none_of(grids.begin(), grids.end(),
                               [&](const auto& g) { return (r.gpus / (g.first * g.second)) % r.pp == 0; })) {
    throw Error("--pp " + std::to_string(r.pp) +
                ": no tensor- and context-parallel degrees tried leave a multiple of " + std::to_string(r.pp) +
                " of the " + std::to_string(r.gpus) + " GPUs");
  }
  if (r.chunks > 0 && std::none_of(chosen.begin(), chosen.end(), [&](const Generator* g) {
        return g->min_chunks <= r.chunks && r.chunks <= g->max_chunks;
      })) {
    throw Error("--chunks " + std::to_string(r.chunks) +
                ": none of the schedules tried takes that many chunks per device");
  }
  // Activation offloading runs on one stage, without recompute: a fixed --pp or --recompute
  // that rules it out is refused in its words, and the search keeps to pp 1 and recompute none.
  const bool offload = r.training.offload_layers > 0;
  if (offload) {
    TrainingSettings t = r.training;
    if (r.search.recompute) t.recompute = Recompute::None;
    check_activation_offload(t, r.model.layers, std::max(r.pp, 1));
  }
  // A given layout fixes the stage count; 0 when none is given.
  const std::size_t fixed_stages = r.layout && !is_layout_keyword(*r.layout)
                                       ? parse_layout(*r.layout, r.model.layers, "--layout", r.model.mtp_layers).size()
                                       : 0;
  // On one device every schedule runs the same order: only the plainest is tried there.
  const Generator* single = one_device_schedule(chosen, r.chunks);
  std::vector<PlanJob> jobs;
  bool any_batch_fits = false;
  std::optional<std::tuple<int, int, int>> unfolded;  // the first tp, cp, dp whose stage no ep folds over
  for (const auto& [tp, cp] : grids) {
    const int ranks = r.gpus / (tp * cp);
    for (int pp = 1; pp <= ranks; ++pp) {
      if (ranks % pp != 0 || (r.pp > 0 && pp != r.pp)) continue;
      if (offload && pp > 1) {
        ++refused[kOffloadOneStage];
        continue;
      }
      const int dp = ranks / pp;
      const std::vector<MemoryVariant> vs = variants(r, dp * cp, pp);
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
        // cp 2c at micro-batch 2b does what cp c does at b with twice the data parallelism: the
        // same tokens, core, products and activations on each rank, the same dp·cp group, the same
        // micro-batches, and a ring of more steps. With both searched, cp > 1 is tried at b = 1.
        if (cp > 1 && b > 1 && r.search.cp && r.search.micro_batch) continue;
        const long microbatches = r.training.global_batch / (long(b) * dp);
        if (r.microbatches > 0 && microbatches != r.microbatches) continue;
        if (microbatches > kMaxMicrobatches) {
          ++refused["more micro-batches than the limit of " + std::to_string(kMaxMicrobatches)];
          continue;
        }
        if (r.microbatches == 0 && microbatches > kMaxSearchedMicrobatches) {
          ++refused["more micro-batches per step than the " + std::to_string(kMaxSearchedMicrobatches) +
                    " searched (--microbatches M plans a larger count)"];
          continue;
        }
        const std::vector<int> eps = ep_choices(r, tp, cp, dp);
        if (eps.empty()) {
          ++refused["expert parallelism does not divide the experts with etp x ep dividing tp x cp x dp"];
          if (!unfolded) unfolded = {tp, cp, dp};
        }
        for (int ep : eps) {
          for (const Precision& precision : precisions_of(r)) {
            TrainingSettings lightest = r.training;
            lightest.dtype = precision.dtype;
            lightest.fp8 = precision.fp8;
            lightest.tp = tp;
            lightest.cp = cp;
            lightest.ep = ep;
            lightest.micro_batch = b;
            lightest.recompute = vs.front().recompute;
            lightest.recompute_modules = vs.front().modules;
            const GroupLinks links = group_links(
                *r.gpu, {tp, pp, dp, ep, r.node_gpus(), r.rank_order.value_or(RankOrder::TpDpPp), cp, r.training.etp});
            const PieceTotals t =
                piece_totals(r.model, lightest, *r.gpu, r.efficiency, r.measured ? &*r.measured : nullptr, &links);
            const double per_microbatch = t.all();
            if (pp == 1 && single == nullptr) ++refused[kOneDeviceOneChunk];
            for (const Generator* g : chosen) {
              if (pp == 1 && g != single) continue;
              for (int v : chunk_choices(*g, r.max_chunks, pp == 1 ? 1 : r.chunks)) {
                const int stages = pp * v;
                if (fixed_stages > 0 ? std::size_t(stages) != fixed_stages : stages > r.model.layers + 2) continue;
                if (offload && stages > 1) {
                  ++refused[kOffloadOneStage];
                  continue;
                }
                // 1F1B's step with the fill and drain shortened V times: only an order to try them in.
                const double estimate = (double(microbatches) + double(pp - 1) / v) * per_microbatch / pp;
                jobs.push_back({tp, pp, dp, v, int(microbatches), b, g,
                                with_recompute_blocks(r, vs, ceil_div(r.model.layers, stages)), estimate, ep, cp,
                                precision});
              }
            }
          }
        }
      }
    }
  }
  if (!any_batch_fits) {
    throw Error("--global-batch " + std::to_string(r.training.global_batch) + ": no data-parallel degree of " +
                std::to_string(r.gpus / (grids.front().first * grids.front().second)) +
                " pipeline ranks splits it into micro-batches of " + std::to_string(r.training.micro_batch));
  }
  if (jobs.empty() && unfolded && !r.search.ep) {  // a fixed --ep (or --etp) that folds nowhere: its words
    TrainingSettings t = r.training;
    t.tp = std::get<0>(*unfolded);
    t.cp = std::get<1>(*unfolded);
    check_expert_folding(r.model, t, std::get<2>(*unfolded));
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
