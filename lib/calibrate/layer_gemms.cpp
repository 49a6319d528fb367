#include "calibrate/layer_gemms.hpp"

#include "model/error.hpp"

namespace pipeplan {

namespace {

// The three products of a linear layer from `in` to `out` features over T tokens.
void linear(std::vector<Gemm>& out, const std::string& name, long long tokens, long long in, long long features) {
  out.push_back({name, Phase::F, tokens, features, in, 1, false, true});   // Y = X W^T
  out.push_back({name, Phase::B, tokens, in, features, 1, false, false});  // dX = dY W
  out.push_back({name, Phase::W, features, in, tokens, 1, true, false});   // dW = dY^T X
}

}  // namespace

CublasCall cublas_call(const Gemm& g) {
  // C^T (n x m) = op(B)^T (n x k) op(A)^T (k x m). A row-major r x c matrix is a column-major
  // c x r one: B stored n x k (transposed) is column-major k x n, used transposed; B stored
  // k x n is column-major n x k, used as is. Likewise A.
  CublasCall c;
  c.transa = g.b_transposed;
  c.transb = g.a_transposed;
  c.m = g.n;
  c.n = g.m;
  c.k = g.k;
  c.lda = g.b_transposed ? g.k : g.n;
  c.ldb = g.a_transposed ? g.m : g.k;
  c.ldc = g.n;
  return c;
}

std::vector<Gemm> layer_gemms(const ModelConfig& m, const TrainingSettings& tr) {
  if (m.is_moe()) {  // its routed experts' grouped GEMMs are not these products
    throw Error(m.name + ": a mixture of experts, whose layers calibration does not measure (it times dense layers)");
  }
  if (m.latent.enabled() || m.q_hidden() != m.hidden || m.local.window > 0 || m.attention_biases) {
    throw Error(m.name +
                ": latent, local or biased attention, or queries wider than the hidden size, which calibration does "
                "not measure (it times Llama-style and GPT-2 layers)");
  }
  const long long t = tr.tp;
  if (m.heads % t != 0 || m.kv_heads % t != 0 || m.ffn % t != 0) {
    throw Error("--tp " + std::to_string(t) +
                ": tensor parallelism must divide the heads, the key-value heads and the FFN width");
  }
  const long long tokens = static_cast<long long>(tr.seq) * tr.micro_batch;
  const long long h = m.hidden, f = m.ffn, hk = m.kv_hidden(), d = m.head_dim(), s = tr.seq;
  const long long heads = static_cast<long long>(tr.micro_batch) * m.heads / t;  // attention products per rank
  std::vector<Gemm> out;
  linear(out, "qkv", tokens, h, (h + 2 * hk) / t);
  linear(out, "attention_output", tokens, h / t, h);
  if (m.gated_mlp) {
    linear(out, "gate_up", tokens, h, 2 * f / t);
  } else {
    linear(out, "mlp_in", tokens, h, f / t);
  }
  linear(out, "mlp_out", tokens, f / t, h);
  // The core: scores S = Q K^T (s x s x d) and O = P V (s x d x s) per head; backward dV = P^T dO,
  // dP = dO V^T, dQ = dS K, dK = dS^T Q, and flash attention's recompute of S first.
  out.push_back({"attention_scores", Phase::F, s, s, d, heads, false, true});
  out.push_back({"attention_values", Phase::F, s, d, s, heads, false, false});
  if (tr.flash_attention) out.push_back({"attention_recompute_scores", Phase::B, s, s, d, heads, false, true});
  out.push_back({"attention_grad_values", Phase::B, s, d, s, heads, true, false});
  out.push_back({"attention_grad_probs", Phase::B, s, s, d, heads, false, true});
  out.push_back({"attention_grad_queries", Phase::B, s, d, s, heads, false, false});
  out.push_back({"attention_grad_keys", Phase::B, s, d, s, heads, true, false});
  return out;
}

std::vector<Gemm> head_gemms(const ModelConfig& m, const TrainingSettings& tr) {
  std::vector<Gemm> out;
  linear(out, "head", static_cast<long long>(tr.seq) * tr.micro_batch, m.hidden, m.vocab / tr.tp);
  return out;
}

}  // namespace pipeplan
