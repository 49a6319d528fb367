#include "estimate/activation_offload.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include "model/error.hpp"

namespace pipeplan {

OffloadStallMs offload_stall_ms(std::span<const OffloadedLayer> layers, int offloaded, double gb_per_s) {
  const int count = static_cast<int>(layers.size());
  const int n = std::clamp(offloaded, 0, count);
  if (n == 0 || gb_per_s <= 0) return {};
  const int resident = count - n;  // the most layers' activations on the card at once
  const auto copy_ms = [&](int layer) { return layers[std::size_t(layer)].bytes / (gb_per_s * 1e9) * 1e3; };
  // Layers are numbered from 0 here. Forward: layer j may start when, counting its own, no more
  // than `resident` layers' activations are on the card: the kept layers before it and the
  // offloaded ones whose copy has not finished. The copies finish in order, so that is the
  // (started - allowed)-th copy's end.
  std::vector<double> copied(std::size_t(n), 0.0);  // when layer i's copy to the host ends
  double end = 0, busy = 0, compute = 0;
  for (int j = 0; j < count; ++j) {
    const int kept_before = std::max(0, j - n);
    const int allowed = resident - 1 - kept_before;  // copies that may still be running
    const int started = std::min(j, n);
    double start = end;
    if (started - allowed >= 1) start = std::max(start, copied[std::size_t(started - allowed - 1)]);
    end = start + layers[std::size_t(j)].f_ms;
    compute += layers[std::size_t(j)].f_ms;
    if (j < n) {
      // The copy starts as the layer saves its first tensor, after the copy before it, and
      // cannot end before the layer has saved its last.
      busy = std::max(std::max(start, busy) + copy_ms(j), end);
      copied[std::size_t(j)] = busy;
    }
  }
  OffloadStallMs out;
  out.forward = end - compute;
  // Backward, from the last layer down. Layer i's copy back may start once the layers from
  // i + resident up have finished their backward (freeing room for it), after the copy before
  // it, and must end before layer i's backward begins.
  std::vector<double> finished(std::size_t(count), 0.0);  // when layer j's backward ends
  double reloaded = 0;                                    // when the last copy back ended
  end = 0;
  compute = 0;
  for (int j = count - 1; j >= 0; --j) {
    double start = end;
    if (j < n) {
      const int freed = j + resident;  // its backward's end frees the room
      const double room = freed < count ? finished[std::size_t(freed)] : 0.0;
      reloaded = std::max(reloaded, room) + copy_ms(j);
      start = std::max(start, reloaded);
    }
    end = start + layers[std::size_t(j)].backward_ms;
    finished[std::size_t(j)] = end;
    compute += layers[std::size_t(j)].backward_ms;
  }
  out.backward = end - compute;
  return out;
}

void check_activation_offload(const TrainingSettings& tr, int layers, int stages) {
  const std::string flag = "--offload-layers " + std::to_string(tr.offload_layers);
  if (tr.offload_layers < 0) throw Error(flag + ": the layers to offload must be 0 or more");
  if (tr.offload_layers == 0) return;
  if (tr.offload_layers >= layers) {
    throw Error(flag + ": Megatron-LM offloads fewer layers than the model has (" + std::to_string(layers) +
                "), at most " + std::to_string(layers - 1));
  }
  if (stages > 1) {
    throw Error(flag + ": Megatron-LM offloads activations only without pipeline parallelism, on one stage, not " +
                std::to_string(stages));
  }
  if (tr.recompute != Recompute::None) {
    throw Error(flag + ": Megatron-LM refuses activation offloading with recompute (--recompute " +
                std::string(recompute_name(tr.recompute)) + "); offloading takes its place: use --recompute none");
  }
}

}  // namespace pipeplan
