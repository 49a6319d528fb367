#include "estimate/recompute_block.hpp"

#include <string>

#include "model/error.hpp"

namespace pipeplan {

TrainingSettings past_block_settings(const TrainingSettings& tr) {
  TrainingSettings kept = tr;
  kept.recompute = Recompute::None;
  kept.recompute_layers = 0;
  return kept;
}

void check_recompute_block(const TrainingSettings& tr) {
  const std::string flag = "--recompute-layers " + std::to_string(tr.recompute_layers);
  if (tr.recompute_layers < 0) throw Error(flag + ": the layers to recompute must be 0 (all) or more");
  if (tr.recompute_layers > 0 && tr.recompute != Recompute::Full) {
    throw Error(flag +
                ": chooses the layers full recompute recomputes (Megatron-LM's block method), and the "
                "recompute is " +
                std::string(recompute_name(tr.recompute)) + "; give --recompute full");
  }
}

}  // namespace pipeplan
