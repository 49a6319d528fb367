#include <doctest/doctest.h>

#include "estimate/analytic_profile.hpp"
#include "estimate/gpu_catalog.hpp"
#include "estimate/layer_kinds.hpp"
#include "estimate/piece_gemms.hpp"
#include "estimate/piece_work.hpp"
#include "estimate/tp_overlap.hpp"
#include "io/model_config_json.hpp"

using namespace pipeplan;

namespace {

ModelConfig model(const char* name) {
  return read_model_config_file(std::string(PIPEPLAN_TEST_DATA) + "/models/" + name);
}

TrainingSettings training(int tp) {
  TrainingSettings t;
  t.seq = 16;
  t.micro_batch = 2;
  t.tp = tp;
  return t;
}

}  // namespace

TEST_CASE("an overlapped collective shows what its products do not cover: t - 1 chunks in a ring, all in bulk") {
  // A card without an SM count (no tile quantisation), so the chunks of a compute-bound product
  // take its time exactly: g. Four collectives of c = g over tp 4: one beside the product in a
  // ring exchange (g/4 shows), one beside it in bulk (nothing shows), two alone (2g): 2.25 g.
  GpuSpec gpu = gpu_named("h100");
  gpu.sms = 0;
  const Efficiency e;
  const std::vector<GemmShape> products = {{8192, 8192, 8192, 1, false, false}};
  const double g = gemm_ms(products[0], gpu, e, DType::BF16);
  const std::vector<OverlapSpan> spans = {{0, 1, true}, {0, 1, false}};
  const TpOverlapMs o = tp_overlap_ms(4, g, spans, products, gpu, e, DType::BF16, 4);
  CHECK(o.exposed == doctest::Approx(2.25 * g));
  CHECK(o.chunked_extra == doctest::Approx(0.0));
  // Without spans every collective shows whole; spans beyond the collectives do not count.
  CHECK(tp_overlap_ms(4, g, {}, products, gpu, e, DType::BF16, 4).exposed == doctest::Approx(4 * g));
  CHECK(tp_overlap_ms(1, g, spans, products, gpu, e, DType::BF16, 4).exposed == doctest::Approx(0.25 * g));
  CHECK(tp_overlap_ms(0, g, spans, products, gpu, e, DType::BF16, 4).exposed == 0.0);
}

TEST_CASE("a bulk overlap's kernels hold Transformer Engine's 16 SMs under the products they hide beside") {
  // On the H100's 132 SMs a collective of half the product's time hides whole in bulk and takes
  // 16/132 of itself from the product; in a ring exchange (one SM, on the copy engines) nothing.
  const GpuSpec& gpu = gpu_named("h100");
  const Efficiency e;
  const std::vector<GemmShape> products = {{8192, 8192, 8192, 1, false, false}};
  const double g = gemm_ms(products[0], gpu, e, DType::BF16);
  const TpOverlapMs bulk = tp_overlap_ms(1, g / 2, {{0, 1, false}}, products, gpu, e, DType::BF16, 4);
  CHECK(bulk.exposed == doctest::Approx(g / 2 * 16 / 132));
  CHECK(kBulkOverlapSms == 16);
  // Half again over the product's time: the excess shows, and the hidden rest (g) holds its SMs.
  const TpOverlapMs longer = tp_overlap_ms(1, 1.5 * g, {{0, 1, false}}, products, gpu, e, DType::BF16, 4);
  CHECK(longer.exposed == doctest::Approx(0.5 * g + g * 16 / 132));
  const TpOverlapMs ring = tp_overlap_ms(1, g / 8, {{0, 1, true}}, products, gpu, e, DType::BF16, 4);
  CHECK(ring.exposed == 0.0);
}

TEST_CASE("a ring exchange's chunks fill fewer tiles: what they add is the chunked products' time over the whole's") {
  // On an H100's 132 SMs: 1024 x 2304 is 8 x 18 = 144 tiles, two waves (1 and 0.09), 55% full;
  // cut into 4 chunks of 256 rows, each 2 x 18 = 36 tiles, one wave of 27% (gemm_efficiency's).
  const GpuSpec& gpu = gpu_named("h100");
  const Efficiency e;
  const std::vector<GemmShape> products = {{1024, 2304, 16384, 1, false, false}};
  const double whole = gemm_ms(products[0], gpu, e, DType::BF16);
  const double chunk = gemm_ms({256, 2304, 16384, 1, false, false}, gpu, e, DType::BF16);
  const TpOverlapMs o = tp_overlap_ms(1, 10 * whole, {{0, 1, true}}, products, gpu, e, DType::BF16, 4);
  CHECK(o.chunked_extra == doctest::Approx(4 * chunk - whole));
  CHECK(o.chunked_extra > 0.5 * whole);
  CHECK(o.exposed == doctest::Approx(10 * whole - 4 * chunk * 3 / 4));
}

TEST_CASE("a dense layer pairs its four collectives with attention's and the MLP's linears, F and B alike") {
  const PhaseGemms g = layer_linear_gemms(model("tiny-llama.json"), training(2), {});
  // tiny-llama's products in order: QKV, output projection, gate and up, down.
  REQUIRE(g.f.size() == 4);
  REQUIRE(g.f_overlap.size() == 4);
  CHECK((g.f_overlap[0].first == 0 && g.f_overlap[0].count == 1));  // the gather before QKV
  CHECK((g.f_overlap[1].first == 1 && g.f_overlap[1].count == 1));  // the scatter after the projection
  CHECK((g.f_overlap[2].first == 2 && g.f_overlap[2].count == 1));  // the gather before gate and up
  CHECK((g.f_overlap[3].first == 3 && g.f_overlap[3].count == 1));  // the scatter after down
  REQUIRE(g.b_overlap.size() == 4);
  CHECK(g.b_overlap[3].first == 3);
  // B: the column-parallel linears' input-gradient scatter in bulk, the row-parallel linear's
  // output-gradient gather by ring exchange.
  CHECK((!g.b_overlap[0].chunked && g.b_overlap[1].chunked));
  CHECK((g.f_overlap[0].chunked && g.f_overlap[1].chunked));
  // Full recompute: B holds F's products again after its own, with F's collectives beside them.
  TrainingSettings full = training(2);
  full.recompute = Recompute::Full;
  const PhaseGemms r = layer_linear_gemms(model("tiny-llama.json"), full, {});
  REQUIRE(r.b_overlap.size() == 8);
  CHECK(r.b_overlap[4].first == 4);
  CHECK(r.b[r.b_overlap[7].first].n == r.f[3].n);
  CHECK(layer_work(model("tiny-llama.json"), full).b_collectives == 8);
  // tp 1 has no collectives to pair.
  CHECK(layer_linear_gemms(model("tiny-llama.json"), training(1), {}).f_overlap.empty());
}

TEST_CASE("a mixture of experts' layer pairs only attention's collectives: the dispatcher does the MLP's") {
  const ModelConfig moe = model("tiny-qwen-moe.json");
  const PhaseGemms g = layer_linear_gemms(moe, training(2), layer_kind(moe, moe.layers - 1));
  CHECK(g.f_overlap.size() == 2);
  CHECK(g.b_overlap.size() == 2);
}

TEST_CASE("--tp-comm-overlap: a layer's tensor-parallel line is what the products leave exposed") {
  const ModelConfig m = model("tiny-llama.json");
  TrainingSettings off = training(2);
  TrainingSettings on = off;
  on.tp_comm_overlap = true;
  const GpuSpec& gpu = gpu_named("h100");
  const Efficiency e;
  const PieceWork w = layer_work(m, off);
  const PhaseGemms g = layer_linear_gemms(m, off, {});
  const PieceParts alone = piece_parts(w, g, gpu, e, off);
  const PieceParts beside = piece_parts(w, g, gpu, e, on);
  const double c = alone.f.tensor_comm / w.f_collectives;
  const TpOverlapMs f = tp_overlap_ms(w.f_collectives, c, g.f_overlap, g.f, gpu, e, off.dtype, 2);
  CHECK(beside.f.tensor_comm == doctest::Approx(f.exposed));
  CHECK(beside.f.products == doctest::Approx(alone.f.products + f.chunked_extra));
  CHECK(beside.f.tensor_comm < alone.f.tensor_comm);
  CHECK(beside.w.tensor_comm == 0.0);
}

TEST_CASE("--tp-overlap-method async-tp: B's scatter after several modules' summed input gradients runs alone") {
  // PyTorch's micro-pipeline pass fuses a scatter only with the one product that makes its input
  // (micro_pipeline_tp.py's _find_producer_matmul); B's scatter of a block's input gradient sums
  // every column-parallel module's: attention's q, k and v, a gated MLP's w1 and w3.
  TrainingSettings async = training(2);
  async.tp_comm_overlap = true;
  async.tp_overlap_method = TpOverlapMethod::AsyncTp;
  const ModelConfig llama = model("tiny-llama.json");
  const PhaseGemms g = layer_linear_gemms(llama, async, {});
  CHECK(g.f_overlap.size() == 4);  // F's four fused as userbuffers' ring exchanges
  // B keeps the gathers of the output gradient before the output projection and down (both ring).
  REQUIRE(g.b_overlap.size() == 2);
  CHECK((g.b_overlap[0].first == 1 && g.b_overlap[0].chunked));
  CHECK((g.b_overlap[1].first == 3 && g.b_overlap[1].chunked));
  // A non-gated MLP's one up projection makes its input gradient alone: that scatter fuses.
  const PhaseGemms gpt = layer_linear_gemms(model("tiny-gpt.json"), async, {});
  REQUIRE(gpt.b_overlap.size() == 3);
  CHECK((gpt.b_overlap[1].first == 2 && !gpt.b_overlap[1].chunked));
  // Full recompute adds F's four again, fused.
  TrainingSettings full = async;
  full.recompute = Recompute::Full;
  CHECK(layer_linear_gemms(llama, full, {}).b_overlap.size() == 6);

  // On the layer: B's line is userbuffers' less what its two bulk overlaps showed (K), plus the
  // two scatters whole (2c), c being one collective alone.
  TrainingSettings off = training(2);
  TrainingSettings ub = async;
  ub.tp_overlap_method = TpOverlapMethod::Userbuffers;
  const GpuSpec& gpu = gpu_named("h100");
  const Efficiency e;
  const PieceWork w = layer_work(llama, off);
  const PhaseGemms ub_gemms = layer_linear_gemms(llama, ub, {});
  const double c = piece_parts(w, ub_gemms, gpu, e, off).b.tensor_comm / w.b_collectives;
  const std::vector<OverlapSpan> bulk = {ub_gemms.b_overlap[0], ub_gemms.b_overlap[2]};
  REQUIRE((!bulk[0].chunked && !bulk[1].chunked));
  const double shown_in_bulk = tp_overlap_ms(2, c, bulk, ub_gemms.b, gpu, e, off.dtype, 2).exposed;
  const double userbuffers = piece_parts(w, ub_gemms, gpu, e, ub).b.tensor_comm;
  const double torch_async = piece_parts(w, g, gpu, e, async).b.tensor_comm;
  // Besides, each fused op's own copies (async_tp_copy_bytes): B's two fused gathers copy the
  // rank's shard of the tensor (T = w.tp_bytes x t / (t - 1)) into the gathered one, 2T/t each.
  const double t = 2, tensor = w.tp_bytes * t / (t - 1), gb_per_ms = gpu.memory_gb_per_s * e.memory * 1e6;
  CHECK(torch_async == doctest::Approx(userbuffers - shown_in_bulk + 2 * c + 2 * (2 * tensor / t) / gb_per_ms));
  CHECK(torch_async > userbuffers);
  // F: userbuffers' ring exchanges, plus two gathers' shard copies (2T/t each) and two scatters'
  // sums of the t partials they pulled (T read, T/t written each).
  CHECK(piece_parts(w, g, gpu, e, async).f.tensor_comm ==
        doctest::Approx(piece_parts(w, ub_gemms, gpu, e, ub).f.tensor_comm +
                        (2 * (2 * tensor / t) + 2 * (tensor + tensor / t)) / gb_per_ms));
}

TEST_CASE("async_tp_copy_bytes: a fused gather copies its shard in, a fused scatter sums its t partials") {
  // _pipelined_all_gather_and_consume copies the rank's shard into the gathered tensor (read and
  // write, 2T/t); _fused_matmul_reduce_scatter_impl sums the t stacked partials (T read, T/t
  // written). T = 1000 bytes over 4 ranks.
  const std::vector<OverlapSpan> spans = {{0, 1, true, false}, {1, 1, true, true}, {2, 1, false, true}};
  CHECK(async_tp_copy_bytes(spans, 3, 1000, 4) == doctest::Approx(2 * 1000 / 4.0 + 2 * (1000 + 1000 / 4.0)));
  CHECK(async_tp_copy_bytes(spans, 1, 1000, 4) == doctest::Approx(500));  // the collectives beyond are not spans'
  CHECK(async_tp_copy_bytes(spans, 3, 1000, 1) == 0.0);                   // one rank: no collective at all
  CHECK(async_tp_copy_bytes({}, 4, 1000, 4) == 0.0);
}
