#include "estimate/op_checkpoint.hpp"

#include "model/error.hpp"

namespace pipeplan {

std::optional<std::string> op_checkpoint_refusal(const ModelConfig& m, const TrainingSettings& tr) {
  if (m.is_moe() || m.latent.enabled()) {
    return "--recompute ops: torchtitan's checkpointing by op is written for its Llama block, and " + m.name + "'s " +
           (m.latent.enabled() ? "latent attention is" : "expert layers are") +
           " not one (give none, selective or full)";
  }
  if (!tr.flash_attention) {
    return "--recompute ops: torchtitan's checkpointing by op saves flash attention's outputs; give "
           "--flash-attention or another --recompute";
  }
  return std::nullopt;
}

OpCheckpoint op_checkpoint(const ModelConfig& m, const TrainingSettings& tr, std::int64_t mlp_width) {
  if (std::optional<std::string> refusal = op_checkpoint_refusal(m, tr)) throw Error(*refusal);
  using Split = Linear::Split;
  const std::int64_t h = m.hidden, q = m.q_hidden(), kv = m.kv_hidden(), f = mlp_width;
  std::vector<Linear> order = {
      {h, q, Split::Columns}, {h, kv, Split::Columns}, {h, kv, Split::Columns}, {q, h, Split::Rows}};
  if (f > 0) {
    order.push_back({h, f, Split::Columns});
    if (m.gated_mlp) order.push_back({h, f, Split::Columns});
    order.push_back({f, h, Split::Rows});
  }
  OpCheckpoint out;
  for (std::size_t i = 0; i < order.size(); ++i) {
    if (i % 2 == 0) {
      out.saved_width += double(order[i].out);
    } else {
      out.recomputed.push_back(order[i]);
    }
  }
  return out;
}

}  // namespace pipeplan
