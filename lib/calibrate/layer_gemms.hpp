#pragma once
// The matrix products of one transformer layer and of the head, with the shapes
// `pipeplan-gpu calibrate` times them at (docs/gpu.md). For a linear layer Y = X W^T with X of
// T x in and W of out x in: the forward is T x out x in, the input gradient dX = dY W is
// T x in x out, the weight gradient dW = dY^T X is out x in x T. The attention core runs per
// head (batched). Everything is per tensor-parallel rank.
//
// Each product is written row-major, C = op(A) op(B), with the transposes Megatron-LM (through
// PyTorch's linear layers) uses: the forward Y = X W^T, the input gradient dX = dY W, the weight
// gradient dW = dY^T X. cuBLAS is column-major, so it computes C^T = op(B)^T op(A)^T: these are
// its "TN", "NN" and "NT" calls (cublas_call), which run at different speeds for one shape.
#include <string>
#include <vector>

#include "estimate/model_config.hpp"
#include "estimate/training.hpp"

namespace pipeplan {

enum class Phase : unsigned char { F, B, W };

struct Gemm {
  std::string name;  ///< "qkv", "attention_scores", ...
  Phase phase = Phase::F;
  long long m = 0, n = 0, k = 0;  ///< C (m x n) = A (m x k) B (k x n)
  long long batch = 1;            ///< independent products of this shape (attention heads)
  bool a_transposed = false;      ///< A is stored k x m (row-major) and used transposed
  bool b_transposed = false;      ///< B is stored n x k (row-major) and used transposed

  [[nodiscard]] double flops() const {
    return 2.0 * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k) * static_cast<double>(batch);
  }
};

/// The column-major cuBLAS call of a row-major product: operands swapped, m and n swapped, and
/// the leading dimensions of the stored matrices.
struct CublasCall {
  bool transa = false, transb = false;  ///< CUBLAS_OP_T when true
  long long m = 0, n = 0, k = 0;
  long long lda = 0, ldb = 0, ldc = 0;
};
[[nodiscard]] CublasCall cublas_call(const Gemm& gemm);

/// One layer's products: per phase the linear layers (QKV, output, gate and up or the first
/// MLP matrix, down), and the attention core (QK^T and the product with V forward; the four
/// products of its backward in B, and with flash attention a fifth, QK^T again, which the
/// fused backward recomputes), as docs/costs.md counts them.
/// Throws Error when tensor parallelism does not divide the heads or the FFN width.
[[nodiscard]] std::vector<Gemm> layer_gemms(const ModelConfig& model, const TrainingSettings& training);

/// The head's products: logits forward, their input gradient, the head's weight gradient.
[[nodiscard]] std::vector<Gemm> head_gemms(const ModelConfig& model, const TrainingSettings& training);

}  // namespace pipeplan
