#pragma once
// The handcrafted single-chunk schedules: stage d on device d, M micro-batches. Each throws
// Error when the request breaks its constraint.
#include "model/schedule.hpp"
#include "schedules/generator.hpp"

namespace pipeplan {

/// GPipe (Huang et al., NeurIPS 2019): every forward, then every fused backward, both in
/// micro-batch order. Device d holds all M activations at its peak.
[[nodiscard]] Schedule generate_gpipe(const GenerateRequest& request);

/// 1F1B (Narayanan et al., SC 2021; Megatron-LM's non-interleaved schedule): on device d,
/// w = min(P-1-d, M) warm-up forwards, M-w pairs [F, BW], then w BW. Peak P-d activations.
[[nodiscard]] Schedule generate_1f1b(const GenerateRequest& request);

/// ZB-H1 (Qi et al., "Zero Bubble Pipeline Parallelism", ICLR 2024, section 3): P-1-d warm-up
/// forwards; then for each micro-batch i: F (while any is left), B(i), and W(i-d) once i >= d;
/// then the d held-back W. Same peak memory as 1F1B up to a_W per held W.
[[nodiscard]] Schedule generate_zbh1(const GenerateRequest& request);

/// ZB-H2 (same paper): 2(P-1-d) warm-up forwards; then F, B(i), and W(i-2d) once i >= 2d; then
/// the 2d held-back W. Needs M >= 2P-1 so that the warm-up fills the pipeline.
[[nodiscard]] Schedule generate_zbh2(const GenerateRequest& request);

/// ZB-H1 as PaddlePaddle PR 62865 ships it (shared/reference/seed-paddle-zbh1.md): P-d
/// forwards; d x [B, F]; M-P x [BW, F]; P-d-1 x BW; the last micro-batch's B then W (BW on
/// device 0); then the d W held back from the first d backwards. Needs M >= P.
[[nodiscard]] Schedule generate_zbh1_paddle(const GenerateRequest& request);

}  // namespace pipeplan
