#pragma once
// The work of a mixture of experts' layer (docs/costs.md, "Mixture of experts"): a router picks
// k experts for each token, the tokens travel to the ranks holding them (an all-to-all of expert
// parallelism, "dispatch") and back ("combine"), and a shared expert, when there is one, runs on
// every token. Routing is taken as balanced: every expert gets T·k/E of a micro-batch's tokens.
#include <cstdint>
#include <optional>

#include "costs/cost_model.hpp"
#include "estimate/gpu_catalog.hpp"
#include "estimate/piece_work.hpp"

namespace pipeplan {

/// What GPT-OSS's experts add, per routed token, to the element-wise kernels: the clamp of the
/// first product's output before the activation (ExpertShape::activation_clamp) and the second
/// product's bias weighted by the routing probability (ExpertShape::biases), both op by op as
/// Megatron-Core runs them (docs/costs.md, "Mixture of experts"). Bytes moved forward and
/// backward, and kept for the backward; `clamp_*` are the clamp's alone (moe_act's recompute
/// drops its kept input and runs it again).
struct GptOssExpertOps {
  double forward = 0, backward = 0, kept = 0;
  double clamp_forward = 0, clamp_kept = 0;
};
[[nodiscard]] GptOssExpertOps gpt_oss_expert_ops(const ModelConfig& model, double element_bytes);

/// The MLP block of one MoE layer for one micro-batch on one rank: the router, the routed
/// experts this rank holds (experts / ep of them, each etp-way tensor-parallel) and the tokens
/// they get (the rank's s·b/(tp·cp), gathered over etp), the shared expert, the permutation's
/// traffic, the all-to-alls and the etp gathers. Throws Error when ep does not divide the
/// experts or etp their widths (tp the shared expert's).
[[nodiscard]] PieceWork moe_mlp_work(const ModelConfig& model, const TrainingSettings& training);

/// One MoE layer: block_work's attention and norms (its MLP width 0), then moe_mlp_work.
[[nodiscard]] PieceWork moe_layer_work(const ModelConfig& model, const TrainingSettings& training,
                                       const LayerKind& kind);

/// The weights of one routed expert: gate, up and down (SwiGLU), or two matrices, with
/// GPT-OSS's biases.
[[nodiscard]] std::int64_t expert_weights(const ModelConfig& model);

/// The time of a piece's all-to-alls in F and in B over `link`: the node's when every
/// expert-parallel group lies within a node, the network's otherwise (analytic_profile's
/// group_links, from the rank order); each with the expert-tensor-parallel gather (or
/// reduce-scatter) beside it over `gather_link` (nullptr: `link`).
struct AllToAllMs {
  double f_ms = 0, b_ms = 0;
};
/// Across `domains` NVLink domains (1: within one), DeepSeek's node-limited routing sends each
/// token once to each remote domain holding its experts, at most the limit of them, the copies
/// fanned out inside the domain under that transfer (DeepSeek-V3 report, section 3.2.2):
/// min(limit, domains)·(domains - 1)/domains token copies over `link` instead of k·(ep - 1)/ep.
/// Under the flex dispatcher (DeepEP's and HybridEP's kernels, TrainingSettings::moe_dispatcher)
/// a token is sent once to each group of ranks holding any of its experts, not once per expert:
/// of `groups` groups of experts/groups experts each, the token's own excepted, a token of k
/// distinct uniformly routed experts reaches (groups - 1)·(1 - C(E - E/groups, k) / C(E, k)).
[[nodiscard]] double remote_groups_reached(int experts, int per_token, int groups);

[[nodiscard]] AllToAllMs all_to_all_ms(const PieceWork& work, const LinkSpec& link,
                                       const LinkSpec* gather_link = nullptr, int domains = 1);

/// Megatron's parallel folding: throws Error naming --etp and --ep unless etp·ep divides the
/// tp·cp·`data_parallel` ranks of a pipeline stage (ep may then exceed dp), and --ep or --etp
/// for a dense model.
void check_expert_folding(const ModelConfig& model, const TrainingSettings& training, int data_parallel);

/// DualPipe's overlapped pair (DeepSeek-V3 report, section 3.2.1), and Megatron-Core's: the
/// forward of `forward` beside the fused backward of `backward` on the same device, each one's
/// all-to-alls running under the other's compute. The all-to-alls' kernels hold `comm_share` of
/// the SMs while they run (TrainingSettings::moe_comm_sms over GpuSpec::sms), so the compute
/// beside them runs at the rest: of compute c and all-to-alls a, the pair takes
/// max(a, c + min(a, c / (1 - share)) x share). nullopt when neither has an all-to-all (the
/// simulator then adds the two, as without overlap).
[[nodiscard]] std::optional<double> overlapped_f_and_b_ms(const StageCost& forward, const AllToAllMs& forward_a2a,
                                                          const StageCost& backward, const AllToAllMs& backward_a2a,
                                                          double comm_share = 0);

/// The parameters one token's forward passes through: every dense weight and k of the routed
/// experts of each layer (Mixtral 8x7B: 12.9e9 of its 46.7e9). model_parameters for a dense model.
[[nodiscard]] std::int64_t active_parameters(const ModelConfig& model);

}  // namespace pipeplan
