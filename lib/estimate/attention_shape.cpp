#include "estimate/attention_shape.hpp"

namespace pipeplan {

namespace {

using Split = Linear::Split;

AttentionShape grouped_query(const ModelConfig& m) {
  const double h = m.hidden, q = double(m.q_hidden()), kv = double(m.kv_hidden());
  AttentionShape a;
  a.linears = {{m.hidden, m.q_hidden() + 2 * m.kv_hidden(), Split::Columns}, {m.q_hidden(), m.hidden, Split::Rows}};
  // The QKV input, the output projection's input, and Q, K and V (Korthikanti et al. 2022, 4.1).
  a.kept_width = h + q + (q + 2 * kv);
  a.rope_width = m.positions == 0 ? (q + kv) * m.rotary_share : 0.0;
  a.score_width = a.value_width = q;
  a.kv_width = 2 * kv;
  a.split_biases = m.attention_biases ? q + 2 * kv : 0.0;
  return a;
}

// DeepSeek-V2 report, section 2.1.2 and 2.1.3: c_Q = W_DQ h (q_lora_rank), then the queries
// W_UQ c_Q, nope and rope parts per head; c_KV and the shared rotary key k_R = W_KR h as one
// product; then each head's no-position key and value from c_KV (W_UK, W_UV); the output
// projection from heads x v_head_dim. The down projections run on each rank's tokens with the
// whole weight (Megatron-LM's MLA keeps them "duplicated"), the rest split by heads.
AttentionShape latent(const ModelConfig& m) {
  const LatentAttention& l = m.latent;
  const std::int64_t heads = m.heads, qk = l.qk_nope + l.qk_rope;
  const std::int64_t queries = heads * qk, values = heads * l.v_dim;
  AttentionShape a;
  if (l.q_rank > 0) {
    a.linears.push_back({m.hidden, l.q_rank, Split::None});
    a.linears.push_back({l.q_rank, queries, Split::Columns});
  } else {
    a.linears.push_back({m.hidden, queries, Split::Columns});
  }
  a.linears.push_back({m.hidden, std::int64_t{l.kv_rank} + l.qk_rope, Split::None});
  a.linears.push_back({l.kv_rank, heads * (l.qk_nope + l.v_dim), Split::Columns});
  a.linears.push_back({values, m.hidden, Split::Rows});
  // Kept: the block's normed input (both down projections read it), each latent before and
  // after its norm, the rotary key, Q and K at full head width, V, and the output projection's input.
  a.kept_width =
      double(m.hidden) + 2.0 * l.q_rank + 2.0 * l.kv_rank + l.qk_rope + 2.0 * double(queries) + 2.0 * double(values);
  a.rope_width = double(heads * l.qk_rope + l.qk_rope);
  a.latent_norm_width = double(l.q_rank + l.kv_rank);
  a.score_width = double(queries);
  a.value_width = double(values);
  a.kv_width = double(queries + values);  // each head's key at full width (the rotary part copied), V
  return a;
}

}  // namespace

AttentionShape attention_shape(const ModelConfig& m) {
  return m.latent.enabled() ? latent(m) : grouped_query(m);
}

std::vector<Linear> mlp_linears(const ModelConfig& m, std::int64_t width) {
  if (width <= 0) return {};
  return {{m.hidden, (m.gated_mlp ? 2 : 1) * width, Split::Columns}, {width, m.hidden, Split::Rows}};
}

double weight_elements(const std::vector<Linear>& linears) {
  double n = 0;
  for (const Linear& l : linears) n += double(l.in) * double(l.out);
  return n;
}

double input_and_output_elements(const std::vector<Linear>& linears) {
  double n = 0;
  for (const Linear& l : linears) n += double(l.in + l.out);
  return n;
}

}  // namespace pipeplan
