#include <doctest/doctest.h>

#include "calibrate/card_match.hpp"
#include "estimate/analytic_profile.hpp"
#include "estimate/gpu_catalog.hpp"
#include "estimate/rank_placement.hpp"

using namespace pipeplan;

// Each card's dense peaks against its data sheet (docs/costs.md, "GPUs"). NVIDIA's Blackwell
// sheets give a board's or a rack's totals, the tensor-core ones with 2:4 sparsity (twice the
// dense rate) except where a sheet gives both; per GPU is the total over the board's 8 GPUs or
// the rack's 72.

TEST_CASE("HGX B200: the data sheet's 8-GPU totals, halved where they are sparse") {
  const GpuSpec& g = gpu_named("b200");
  // HGX B200: FP16/BF16 36 PFLOPS and FP8/FP6 72 PFLOPS with sparsity, FP4 72 PFLOPS dense,
  // FP32 600 TFLOPS, 64 TB/s of HBM3e, 1.8 TB/s of NVLink per GPU both ways.
  CHECK(g.tflops_bf16 == doctest::Approx(36000.0 / 8 / 2));
  CHECK(g.tflops_fp8 == doctest::Approx(72000.0 / 8 / 2));
  CHECK(g.tflops_fp4 == doctest::Approx(72000.0 / 8));
  CHECK(g.tflops_fp32 == doctest::Approx(600.0 / 8));
  CHECK(g.memory_gb_per_s == doctest::Approx(64000.0 / 8));
  CHECK(g.intra_node.bandwidth_gb_per_s == doctest::Approx(1800.0 / 2));
  CHECK(g.inter_node.bandwidth_gb_per_s == doctest::Approx(400.0 / 8));  // ConnectX-7, 400 Gb/s
  CHECK(g.memory_bytes == Bytes{183359} << 20);                          // nvidia-smi: 183359 MiB
  CHECK((g.nvlink_domain == 8 && g.gpus_per_board == 8 && g.architecture == Architecture::Blackwell));
}

TEST_CASE("GB200 NVL72: the rack's totals over its 72 GPUs, one NVLink domain") {
  const GpuSpec& g = gpu_named("gb200");
  // GB200 NVL72: FP4 1,440 PFLOPS, FP8/FP6 720 PFLOPS, FP16/BF16 360 PFLOPS (with sparsity),
  // FP32 5,760 TFLOPS, 576 TB/s of HBM3e, 130 TB/s of NVLink over 72 GPUs (1.8 TB/s each).
  CHECK(g.tflops_fp4 == doctest::Approx(1440000.0 / 72 / 2));
  CHECK(g.tflops_fp8 == doctest::Approx(720000.0 / 72 / 2));
  CHECK(g.tflops_bf16 == doctest::Approx(360000.0 / 72 / 2));
  CHECK(g.tflops_fp32 == doctest::Approx(5760.0 / 72));
  CHECK(g.memory_gb_per_s == doctest::Approx(576000.0 / 72));
  CHECK(g.intra_node.bandwidth_gb_per_s == doctest::Approx(1800.0 / 2));
  CHECK(g.memory_bytes == Bytes{189471} << 20);  // nvidia-smi: 189471 MiB
  CHECK((g.nvlink_domain == 72 && g.gpus_per_board == 4));
}

TEST_CASE("HGX B300 and GB300 NVL72: Blackwell Ultra's FP4, Blackwell's FP8 and BF16") {
  const GpuSpec& b = gpu_named("b300");
  // HGX B300: FP4 144 | 108 PFLOPS (sparse | dense), FP8 72 and BF16 36 PFLOPS with sparsity.
  CHECK(b.tflops_fp4 == doctest::Approx(108000.0 / 8));
  CHECK(b.tflops_fp8 == doctest::Approx(72000.0 / 8 / 2));
  CHECK(b.tflops_bf16 == doctest::Approx(36000.0 / 8 / 2));
  CHECK(b.inter_node.bandwidth_gb_per_s == doctest::Approx(800.0 / 8));  // ConnectX-8, 800 Gb/s
  CHECK(b.memory_bytes == Bytes{275040} << 20);                          // nvidia-smi: 275040 MiB
  const GpuSpec& g = gpu_named("gb300");
  // GB300 NVL72: FP4 1,440 | 1,080 PFLOPS, FP8 720 and BF16 360 PFLOPS with sparsity; the
  // Blackwell Ultra blog's 15 PFLOPS dense NVFP4 per GPU.
  CHECK(g.tflops_fp4 == doctest::Approx(1080000.0 / 72));
  CHECK(g.tflops_fp4 == doctest::Approx(15000.0));
  CHECK(g.tflops_fp8 == doctest::Approx(720000.0 / 72 / 2));
  CHECK(g.tflops_bf16 == doctest::Approx(360000.0 / 72 / 2));
  CHECK(g.inter_node.bandwidth_gb_per_s == doctest::Approx(800.0 / 8));
  CHECK(g.memory_bytes == Bytes{284208} << 20);  // nvidia-smi: 284208 MiB
  CHECK((g.nvlink_domain == 72 && g.gpus_per_board == 4));
}

TEST_CASE("H800: the H100's compute and memory, NVLink at 400 GB/s both ways") {
  const GpuSpec& h800 = gpu_named("h800");
  const GpuSpec& h100 = gpu_named("h100");
  // H800 SXM5 data sheet: FP8 3,958 and BF16 1,979 TFLOPS with sparsity, as H100 SXM5's; NVLink
  // 400 GB/s. The H100 whitepaper's dense figures: 1978.9 FP8, 989.4 BF16.
  CHECK(h800.tflops_fp8 == doctest::Approx(1978.9));
  CHECK(h800.tflops_fp8 * 2 == doctest::Approx(3958.0).epsilon(0.001));
  CHECK(h800.tflops_bf16 == h100.tflops_bf16);
  CHECK(h800.memory_bytes == h100.memory_bytes);  // nvidia-smi: 81559 MiB on both
  CHECK(h800.intra_node.bandwidth_gb_per_s == doctest::Approx(400.0 / 2));
  CHECK(h100.intra_node.bandwidth_gb_per_s == doctest::Approx(900.0 / 2));
  CHECK(h800.architecture == Architecture::Hopper);
}

TEST_CASE("Grand Teton's H100: the SXM5's chip and links, 95 GiB of HBM2e at 2.4 TB/s, a 500 W peak") {
  const GpuSpec& teton = gpu_named("h100-96gb");
  const GpuSpec& h100 = gpu_named("h100");
  // torchtitan's benchmark page: "96GB HBM2e with 2.4 TB/sec peak memory bandwidth"; its 2024
  // page's 95 GB; the peak "between SXM and NVL": its 500 W a third of the way from the H100
  // NVL's 400 W to the SXM's 700 W, so a third of the way between their data sheets' dense
  // peaks (NVL 1671 and 3341 TFLOP/s with sparsity: 835.5 bf16, 1670.5 FP8): 835.5 + 153.9 / 3
  // = 886.8 and 1670.5 + 308.4 / 3 = 1773.3, at the SXM's sustained share.
  CHECK(teton.memory_gb_per_s == doctest::Approx(2400.0));
  CHECK(teton.memory_bytes == 95LL * 1024 * 1024 * 1024);
  CHECK(teton.tflops_bf16 == doctest::Approx(886.8));
  CHECK(teton.tflops_fp16 == teton.tflops_bf16);
  CHECK(teton.tflops_fp8 == doctest::Approx(1773.3));
  CHECK(teton.sustained_gemm == h100.sustained_gemm);
  CHECK(teton.intra_node.bandwidth_gb_per_s == h100.intra_node.bandwidth_gb_per_s);
  // calibrate tells the two apart by memory: an 80 GB H100 is the h100, a 95 GiB one this.
  CHECK(match_card("NVIDIA H100 80GB HBM3", 81559ULL * 1024 * 1024, "").spec == &h100);
  CHECK(match_card("NVIDIA H100", 97280ULL * 1024 * 1024, "").spec == &teton);
}

TEST_CASE("FP8 peaks: twice bf16 where a card has FP8, none on Ampere") {
  CHECK(gpu_named("h100").tflops_fp8 == doctest::Approx(2 * 989.4).epsilon(0.001));
  CHECK(gpu_named("h200").tflops_fp8 == doctest::Approx(1978.9));
  // Ada whitepaper: RTX 4090's FP8 with fp32 accumulation, 330.3 dense (660.6 with fp16's).
  CHECK(gpu_named("rtx4090").tflops_fp8 == doctest::Approx(330.3));
  for (const char* ampere : {"a100-40gb", "a100-80gb", "rtx3090"}) {
    CHECK(gpu_named(ampere).tflops_fp8 == 0.0);
    CHECK(gpu_named(ampere).fp8_flops() == 0.0);
  }
  for (const GpuSpec& g : gpu_catalog()) {
    // FP4 only on Blackwell; every card's board within its NVLink domain.
    CHECK((g.tflops_fp4 > 0) == (g.architecture == Architecture::Blackwell));
    CHECK(g.gpus_per_board <= g.nvlink_domain);
  }
}

TEST_CASE("a job's ranks fill 64 of an NVL72 rack's 72 GPUs (Slurm's --segment 16), a whole HGX board elsewhere") {
  // NVIDIA's recommendation for jobs of 128 GPUs and more: segments of 16 compute trays of 4 GPUs.
  for (const char* name : {"gb200", "gb300"}) {
    const GpuSpec& g = gpu_named(name);
    CHECK(g.placement_domain() == 16 * g.gpus_per_board);
    CHECK(g.placement_domain() <= g.nvlink_domain);
  }
  for (const char* name : {"h100", "b200", "b300", "a100-80gb"}) CHECK(gpu_named(name).placement_domain() == 8);
  // 256 GB200s, pp 8 over dp 32 (tp-dp-pp, dp innermost): the expert groups of 32 consecutive
  // ranks start at 0, 32, 64, ...; in blocks of 72 the one at 64 spans ranks 64 to 95, two racks.
  const GpuSpec& gb200 = gpu_named("gb200");
  const GroupLinks in_segments = group_links(gb200, {1, 8, 32, 32, gb200.placement_domain(), RankOrder::TpDpPp});
  const GroupLinks in_racks = group_links(gb200, {1, 8, 32, 32, gb200.nvlink_domain, RankOrder::TpDpPp});
  CHECK(in_segments.experts.name == gb200.intra_node.name);
  CHECK(in_racks.experts.name == gb200.inter_node.name);
}
