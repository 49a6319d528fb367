#pragma once
// The handcrafted schedules. Each throws Error when the request breaks its constraint; each
// file's header states its rule and source.
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

/// ZB-H1 as PaddlePaddle PR 62865 ships it (docs/schedules.md; the seed run, docs/validation.md): P-d
/// forwards; d x [B, F]; M-P x [BW, F]; P-d-1 x BW; the last micro-batch's B then W (BW on
/// device 0); then the d W held back from the first d backwards. Needs M >= P.
[[nodiscard]] Schedule generate_zbh1_paddle(const GenerateRequest& request);

/// Interleaved 1F1B: V chunks per device on the loop placement, micro-batches in groups of N.
/// Without request.group, PyTorch's rounds: N = M / max(1, floor(M/P)), which must divide M.
/// With it, Megatron-LM's rule: P <= N <= M and M mod N either 0 or >= P.
[[nodiscard]] Schedule generate_interleaved(const GenerateRequest& request);

/// PyTorch's interleaved zero bubble (ScheduleInterleavedZeroBubble, "ZB1P"): V chunks per
/// device on the loop placement, split backward; floor(M/P) rounds of micro-batches, warm-up
/// (V-1)·n + P-1-d forwards with n per round, then F, B and, d backwards behind, W. V = 1 is
/// ZB-H1. Needs M < P or M a multiple of floor(M/P), as PyTorch does.
[[nodiscard]] Schedule generate_interleaved_zero_bubble(const GenerateRequest& request);

/// PyTorch's looped BFS: every forward chunk by chunk, then every fused backward in reverse.
[[nodiscard]] Schedule generate_looped_bfs(const GenerateRequest& request);

/// PaddlePaddle's eager 1F1B: 2(P-d)-1 warm-up forwards, then [BW, F] pairs. Needs M >= 2P-1.
[[nodiscard]] Schedule generate_eager_1f1b(const GenerateRequest& request);

/// ZB-V: two chunks per device on the V-shaped placement, split backward, no bubble when
/// F = B = W, peak P full-stage activations on every device.
[[nodiscard]] Schedule generate_zbv(const GenerateRequest& request);

/// V-Half (Qi et al., NeurIPS 2024): the V-shaped placement with about half of ZB-V's
/// activation memory, floor((P+2)/2) full-stage activations per device.
[[nodiscard]] Schedule generate_v_half(const GenerateRequest& request);

/// V-Min (the same paper): about a third of ZB-V's memory, floor((P+4)/3) per device.
[[nodiscard]] Schedule generate_v_min(const GenerateRequest& request);

/// DualPipeV (DeepSeek): the V-shaped placement with each chunk's forward overlapped with the
/// other chunk's backward as FB ops. Needs M >= 2P.
[[nodiscard]] Schedule generate_dualpipev(const GenerateRequest& request);

/// The automatic zero-bubble schedule under the memory limit of request.memory_limit (one
/// value or one per device), for the costs of request.costs (zero_bubble_auto.cpp).
[[nodiscard]] Schedule generate_zb(const GenerateRequest& request);

/// zb with the limit of P micro-batches' activations per device (as 1F1B's device 0).
[[nodiscard]] Schedule generate_zb_1p(const GenerateRequest& request);

/// zb with the limit of 2P micro-batches' activations per device.
[[nodiscard]] Schedule generate_zb_2p(const GenerateRequest& request);

/// zb on the V-shaped placement, two chunks per device; the limit defaults to ZB-V's, P
/// full-stage activations per device.
[[nodiscard]] Schedule generate_zbv_auto(const GenerateRequest& request);

}  // namespace pipeplan
