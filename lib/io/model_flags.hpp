#pragma once
// A model, how it is trained and on which GPU, as a user writes it: the command line's --model,
// --gpu, --dtype, --recompute, ... of `plan` and `profile`, and the Python package's pipeplan.plan
// keywords. The names are resolved and the values checked here alone, so both refuse the same
// values with the same messages.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "estimate/gpu_catalog.hpp"
#include "estimate/gpu_on_network.hpp"
#include "estimate/model_config.hpp"
#include "estimate/rank_placement.hpp"
#include "estimate/training.hpp"
#include "plan/plan_request.hpp"

namespace pipeplan {

/// The bounds of the numeric settings, each named by its flag: the command line's range checks
/// and check_model_ranges read the same rows.
struct SettingRange {
  const char* flag;
  double least;
  double most;
};
inline constexpr SettingRange kSeqRange{"--seq", 1, 1 << 22};
inline constexpr SettingRange kMicroBatchRange{"--micro-batch", 1, 1 << 16};
inline constexpr SettingRange kGlobalBatchRange{"--global-batch", 1, 1 << 24};
inline constexpr SettingRange kTpRange{"--tp", 1, 1024};
inline constexpr SettingRange kEpRange{"--ep", 1, 1 << 16};
inline constexpr SettingRange kEtpRange{"--etp", 1, 1024};
inline constexpr SettingRange kCapacityRange{"--moe-capacity-factor", 0.01, 64.0};
inline constexpr SettingRange kCpRange{"--cp", 1, 1 << 16};
inline constexpr SettingRange kOffloadLayersRange{"--offload-layers", 0, 1 << 16};
inline constexpr SettingRange kRecomputeLayersRange{"--recompute-layers", 0, 1 << 16};
/// Megatron-LM's --ddp-bucket-size, in parameters.
inline constexpr SettingRange kBucketParamsRange{"--ddp-bucket-size", 1, 1e12};
inline constexpr SettingRange kGpusPerNodeRange{"--gpus-per-node", 1, 1024};
inline constexpr SettingRange kEfficiencyRange{"", 0.01, 1.0};
/// --network's rate, in Gb/s each way per GPU.
inline constexpr SettingRange kNetworkRange{"--network", 1, 100000};

/// Which settings the caller gave (a default given explicitly counts): the planner searches the rest.
struct ModelGiven {
  bool tp = false;
  bool micro_batch = false;
  bool recompute = false;
  bool sharding = false;
  bool ep = false;
  bool cp = false;
  bool overlap_param_gather = false;
  bool rank_order = false;
};

struct ModelFlags {
  std::string model;       ///< a Hugging Face config.json's path
  std::string model_json;  ///< or its document's text (model then names it in messages)
  std::string gpu;
  std::string dtype = "bf16";
  std::string fp8_recipe;  ///< "" for the card's default under --dtype fp8
  std::string recompute = "none";
  /// --recompute-modules' list; not given: selective recomputes core_attn (an empty list is refused).
  std::optional<std::string> recompute_modules;
  std::string sharding = "none";
  TrainingSettings training;  ///< seq, micro-batch, global batch, tp, ep, cp, etp, ... as given
  Efficiency efficiency;
  std::string attention_efficiency;  ///< --attention-efficiency F,B; "" for Efficiency's defaults
  /// --attention-kernel; not given: cuDNN's (refused beside --attention-efficiency, which replaces it).
  std::optional<std::string> attention_kernel;
  /// --tp-overlap-method; not given: userbuffers (refused without --tp-comm-overlap).
  std::optional<std::string> tp_overlap_method;
  /// --fsdp-impl; not given: fsdp2 (refused beside a --sharding other than params).
  std::optional<std::string> fsdp_impl;
  int gpus_per_node = 0;  ///< 0: the card's NVLink domain
  /// --network: hdr, ndr, xdr or a rate in Gb/s per GPU; "" for the card's network in the table.
  std::string network;
  std::string rank_order = std::string(rank_order_name(RankOrder::TpDpPp));
  std::string loss = std::string(loss_name(Loss::VocabParallel));
  std::string elementwise = std::string(elementwise_name(Elementwise::Fused));
  std::string moe_dispatcher = std::string(moe_dispatcher_name(MoeDispatcher::AllToAll));
  std::string cuda_graphs = std::string(cuda_graphs_name(CudaGraphs::None));
  ModelGiven given;
};

struct ModelInput {
  ModelConfig model;
  TrainingSettings training;
  const GpuSpec* gpu = nullptr;
  /// The card on --network's network, which `gpu` then points into; null for the table's card.
  std::shared_ptr<const GpuOnNetwork> network_card;
  Efficiency efficiency;
  RankOrder rank_order = RankOrder::TpDpPp;
  bool rank_order_given = false;  ///< --rank-order was given
  /// `--dtype bf16,fp8`: the precisions plan tries, the first also in `training`; empty for one.
  std::vector<Precision> precisions;
};

/// What --dtype takes, for messages and help: "bf16, fp16, fp32 or fp8".
[[nodiscard]] std::string dtype_choices();

/// FlagError naming the flag when a numeric setting is outside its SettingRange (etp, the capacity
/// factor and gpus_per_node only when set: 0 means unset); `global_batch_required` for the planner.
void check_model_ranges(const ModelFlags& flags, bool global_batch_required);

/// Reads the config and resolves the names; FlagError for a bad value, Error for a bad file.
[[nodiscard]] ModelInput read_model_input(const ModelFlags& flags);

/// The settings that were not given, which the planner searches.
[[nodiscard]] SearchedSettings searched_settings(const ModelFlags& flags);

/// One line for reports: "llama (6.74 B parameters) on h100, bf16, seq 4096, micro-batch 1, ...";
/// with `searched`, the settings it marks read "searched".
[[nodiscard]] std::string describe_input(const ModelInput& input, const SearchedSettings* searched = nullptr);

}  // namespace pipeplan
