#pragma once
// Where a piece's time goes (docs/costs.md, "Where the step goes"): the lines of the error
// budget that `plan --breakdown` shows, each in milliseconds. Their sum is the time the
// simulator takes for the piece.
namespace pipeplan {

struct TimeParts {
  double products = 0;       ///< matrix products: the linear layers' GEMMs, the experts' and the router's
  double attention = 0;      ///< the attention core (flash attention's score and value products)
  double elementwise = 0;    ///< norms, activations, residuals, RoPE, the loss's softmax, FP8's casts
  double tensor_comm = 0;    ///< tensor (and sequence) parallelism's all-gathers and reduce-scatters
  double context_comm = 0;   ///< context parallelism's ring: what the attention does not hide
  double expert_comm = 0;    ///< a mixture of experts' all-to-alls and expert-tensor gathers
  double sharding_comm = 0;  ///< FSDP's gathers and ZeRO-2's reduce-scatters that the compute does not hide
  double offload = 0;        ///< activation offloading's copies to and from the host that the compute does not hide
  double host = 0;           ///< the host's kernel launches the device waits for (host_launch.hpp)

  [[nodiscard]] double total() const {
    return products + attention + elementwise + tensor_comm + context_comm + expert_comm + sharding_comm + offload +
           host;
  }
  TimeParts& operator+=(const TimeParts& o) {
    products += o.products;
    attention += o.attention;
    elementwise += o.elementwise;
    tensor_comm += o.tensor_comm;
    context_comm += o.context_comm;
    expert_comm += o.expert_comm;
    sharding_comm += o.sharding_comm;
    offload += o.offload;
    host += o.host;
    return *this;
  }
  [[nodiscard]] TimeParts scaled(double k) const {
    return {products * k,    attention * k,     elementwise * k, tensor_comm * k, context_comm * k,
            expert_comm * k, sharding_comm * k, offload * k,     host * k};
  }
};

}  // namespace pipeplan
