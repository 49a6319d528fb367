#include "estimate/gpu_catalog.hpp"

#include <array>

#include "model/closest_names.hpp"
#include "model/error.hpp"
#include "model/name_fold.hpp"

namespace pipeplan {

namespace {

constexpr Bytes kMiB = Bytes{1} << 20;

// Peaks are NVIDIA's data-sheet figures without sparsity (half the sheets' "with sparsity" ones
// where they give only those), per GPU (a board's or rack's totals divided by its GPUs); memory
// is what nvidia-smi reports as the total; links are nominal per-direction rates; SM counts are
// the whitepapers' or, for Blackwell, what the CUDA runtime reports (docs/costs.md, "GPUs").
// A ring collective's bus bandwidth over NVLink, measured with nccl-tests' busbw formula at 8 GiB
// (docs/costs.md, "Collectives"): 231.6 GB/s on 8 A100 SXM4 (Azure AI-benchmarking-guide,
// ND A100 v4), 367.6 GB/s on 8 H200 with NVLink SHARP off (stas00/ml-engineering,
// network/benchmarks/results/all-reduce-8xH200.md), 679.6 GB/s on a GB200 tray (Azure
// AI-benchmarking-guide, ND GB200 v6, Ring).
constexpr LinkSpec kNvlink3{"NVLink 3 (600 GB/s both ways)", 300.0, 0.01, 231.6 / 300.0};
constexpr LinkSpec kNvlink4{"NVLink 4 (900 GB/s both ways)", 450.0, 0.01, 367.6 / 450.0};
constexpr LinkSpec kNvlink4H800{"NVLink 4 as the H800 has it (400 GB/s both ways)", 200.0, 0.01, 367.6 / 450.0};
constexpr LinkSpec kNvlink5{"NVLink 5 (1.8 TB/s both ways)", 900.0, 0.01, 679.6 / 900.0};
// GeForce cards have no peer access: a transfer is staged through host memory, so it reaches
// about half of PCIe 4.0 x16's 25 GB/s.
constexpr LinkSpec kPcieHost{"PCIe 4.0 x16 through host memory (no peer access)", 10.0, 0.03};
// A network card reaches 46 to 48 of NDR's 50 GB/s in nccl-tests, ring collectives and
// all-to-alls alike (NVIDIA's answers in nccl-tests issues #290 and #267; an all-to-all "cannot
// aggregate the bandwidth of multiple NICs", #267): 47 / 50, taken alike for InfiniBand's other
// rates (docs/costs.md, "Collectives").
constexpr double kNicEfficiency = 47.0 / 50.0;
constexpr LinkSpec kHdr{"InfiniBand HDR, one 200 Gb/s NIC per GPU", 25.0, 0.02, kNicEfficiency, kNicEfficiency};
constexpr LinkSpec kNdr{"InfiniBand NDR (ConnectX-7), one 400 Gb/s NIC per GPU", 50.0, 0.02, kNicEfficiency,
                        kNicEfficiency};
constexpr LinkSpec kXdr{"ConnectX-8 SuperNIC, one 800 Gb/s NIC per GPU", 100.0, 0.02, kNicEfficiency, kNicEfficiency};
constexpr LinkSpec kEthernet{"100 Gb/s Ethernet per node", 12.5, 0.05};
// Each card's link to its host's memory, nominal per direction (docs/costs.md, "Activation
// offloading"): PCIe 4.0 x16, 64 GB/s both ways (the A100 data sheet); PCIe 5.0 x16, 128 GB/s
// both ways (the H100 and H200 data sheets; the HGX B200 and B300 boards' x86 hosts are PCIe 5.0
// too, as Transformer Engine's CPU-offloading guide counts such systems); NVLink-C2C between a
// Grace CPU and its Blackwell GPUs, 900 GB/s both ways (the GB200 NVL72 data sheet and that guide).
constexpr LinkSpec kPcie4Host{"PCIe 4.0 x16 to the host (64 GB/s both ways)", 32.0, 0.01};
constexpr LinkSpec kPcie5Host{"PCIe 5.0 x16 to the host (128 GB/s both ways)", 64.0, 0.01};
constexpr LinkSpec kC2cHost{"NVLink-C2C to the Grace CPU (900 GB/s both ways)", 450.0, 0.01};

// Sustained GEMM rates, measured at steady state (docs/costs.md, "GEMM rate"):
// - A100 SXM4 80GB, FP16 cuBLASLt at 16384^3 after 10,000 warm-up iterations: 256.5 of 312
//   TFLOP/s (Azure AI-benchmarking-guide, Azure_Results/ND_A100_v4_results.md).
// - The power-saturated rate (MSMF: the chip soaked at its power limit, the clock settled;
//   stas00/ml-engineering, compute/accelerator/README.md, "Maximum Achievable Matmul FLOPS
//   comparison table", and benchmarks/README.md):
//   - H200 bf16 with all 8 GPUs computing: 698.6 of 989 ("All 8 GPUs x 5 rounds"); FP8
//     (float8_e4m3fn): 1288.7 of 1979, one GPU, its siblings idle. The H100 and H800 have the
//     same chip at the same 700 W.
//   - B200 bf16 with all 8 computing: 1426.4 of 2250; FP8: 2795.7 of 4500, one GPU.
//   A training step computes on every GPU of the node, and busy siblings share the board's power
//   and cooling: the same protocol, GPU0 alone against all 8 at once, measured bf16 at 1455.7 and
//   1426.4 on the B200 and 702.9 and 698.6 on the H200 ("What we measured: alone vs all-8
//   concurrent", benchmarks/README.md). The FP8 rates, measured alone, take their board's ratio.
// - GB200 FP8 cuBLASLt at 16384^3 after 10,000 warm-ups: 2906.9 of 5000 (Azure, ND_GB200_v6
//   results). It has no bf16 measurement: the B200's chip at a higher power, it takes the B200's
//   power-saturated rate times what the two were measured to reach in a short run (the burst
//   rates below, 1822 against 1745), not times their data sheets' peaks (2500 against 2250),
//   which claim 11% where the chips measure 4.4%: 1489.3 TFLOP/s.
// - GB300 FP8, the same benchmark on an ND GB300 v6 (1400 W against the GB200's 1200 W):
//   3308.5 of 5000, 1.138 times the GB200's on the same peak (ND_GB300_v6_results.md, in the
//   egmsft/AI-benchmarking-guide fork at 18e80a2, CUDA 13.0 against the GB200's 12.8; the GB200's
//   own file has held 2695.0 to 2929.0 over its history: a run's spread is several percent).
// Blackwell Ultra has no bf16 rate of its own, and the B300 no FP8 one: each takes its Blackwell
// sibling's, whose bf16 and FP8 peaks it shares (NVIDIA's HGX B300 and GB300 NVL72 data sheets)
// and whose short-run maximum the B300 matches (MAMF bf16 1769.0 against the B200's 1745.0). The
// GeForce cards have none cited.
// Burst rates, bf16, the best shape's mean of 100 runs after 50 warm-ups (MAMF; stas00/ml-
// engineering, compute/accelerator/README.md, "Maximum Achievable Matmul FLOPS comparison
// table"): A100 SXM 271.2, H100 SXM 794.5 ("H200 is the same"), B200 SXM 1745.0, GB200 1822.0.
// Blackwell Ultra's fused attention against Blackwell's (its exponentials at twice the rate):
// cuDNN's own SDPA training benchmark on a GB300 and a GB200 with one cuDNN (9.22;
// NVIDIA/cudnn-frontend, benchmark/sdpa_benchmark_training/results, 2026-04-24), bf16, causal,
// batch 2 at 2k to 32k tokens, the geometric mean of Llama 3.1's (64 heads of 128, 8 key-value
// heads: forward 1.192, backward 1.120), DeepSeek-V3's (128 of 192/128: 1.159, 1.117) and Kimi
// K2.6's (1.202, 1.128). GPT-OSS's 128-token windows gain 1.04 and 1.06 only: not told apart.
constexpr double kUltraAttentionForward = 1.18;
constexpr double kUltraAttentionBackward = 1.12;
// The Grand Teton H100's peaks at 500 W, between the H100 NVL's (400 W) and the SXM's (700 W)
// data sheets, linear in the power limit (the h100-96gb row below).
constexpr double kTetonShare = (500.0 - 400.0) / (700.0 - 400.0);
constexpr double kTetonBf16 = 835.5 + kTetonShare * (989.4 - 835.5);
constexpr double kTetonFp8 = 1670.5 + kTetonShare * (1978.9 - 1670.5);
constexpr double kA100Sustained = 256.5 / 312.0;
constexpr double kHopperSustained = 698.6 / 989.0;
constexpr double kH200AllBusy = 698.6 / 702.9;
constexpr double kB200AllBusy = 1426.4 / 1455.7;
constexpr double kHopperSustainedFp8 = 1288.7 * kH200AllBusy / 1979.0;
constexpr double kBlackwellSustained = 1426.4 / 2250.0;
constexpr double kGb200Sustained = 1426.4 * (1822.0 / 1745.0) / 2500.0;
constexpr double kB200SustainedFp8 = 2795.7 * kB200AllBusy / 4500.0;
constexpr double kGb200SustainedFp8 = 2906.9 / 5000.0;
constexpr double kGb300SustainedFp8 = 3308.5 / 5000.0;
constexpr double kA100Burst = 271.2 / 312.0;
constexpr double kHopperBurst = 794.5 / 989.0;
constexpr double kB200Burst = 1745.0 / 2250.0;
constexpr double kGb200Burst = 1822.0 / 2500.0;

const std::array<GpuSpec, 12> kGpus = {{
    {.name = "a100-40gb",
     .description = "NVIDIA A100 SXM4 40GB",
     .tflops_bf16 = 312.0,
     .tflops_fp16 = 312.0,
     .tflops_fp32 = 19.5,
     .memory_bytes = 40960 * kMiB,
     .memory_gb_per_s = 1555.0,
     .nvlink_domain = 8,
     .intra_node = kNvlink3,
     .inter_node = kHdr,
     .sms = 108,
     .architecture = Architecture::Ampere,
     .gpus_per_board = 8,
     .sustained_gemm = kA100Sustained,
     .burst_gemm = kA100Burst,
     .cuda_name = "A100",
     .host_link = kPcie4Host},
    {.name = "a100-80gb",
     .description = "NVIDIA A100 SXM4 80GB",
     .tflops_bf16 = 312.0,
     .tflops_fp16 = 312.0,
     .tflops_fp32 = 19.5,
     .memory_bytes = 81920 * kMiB,
     .memory_gb_per_s = 2039.0,
     .nvlink_domain = 8,
     .intra_node = kNvlink3,
     .inter_node = kHdr,
     .sms = 108,
     .architecture = Architecture::Ampere,
     .gpus_per_board = 8,
     .sustained_gemm = kA100Sustained,
     .burst_gemm = kA100Burst,
     .cuda_name = "A100",
     .host_link = kPcie4Host},
    {.name = "h100",
     .description = "NVIDIA H100 SXM5 80GB",
     .tflops_bf16 = 989.4,
     .tflops_fp16 = 989.4,
     .tflops_fp32 = 66.9,
     .memory_bytes = 81559 * kMiB,
     .memory_gb_per_s = 3350.0,
     .nvlink_domain = 8,
     .intra_node = kNvlink4,
     .inter_node = kNdr,
     .sms = 132,
     .tflops_fp8 = 1978.9,
     .architecture = Architecture::Hopper,
     .gpus_per_board = 8,
     .sustained_gemm = kHopperSustained,
     .sustained_gemm_fp8 = kHopperSustainedFp8,
     .burst_gemm = kHopperBurst,
     .cuda_name = "H100",
     .host_link = kPcie5Host},
    // Meta's Grand Teton H100 (torchtitan's runs): the H100 SXM5's chip with 96 GB of HBM2e at
    // 2.4 TB/s and a 500 W limit (torchtitan, benchmarks/llama3_h100_202412_torchtitan.md,
    // "Hardware"; its 2024 page reports 95 GB, taken here). Its peak "is between SXM and NVL"
    // and not published (that page's footnote): taken where its 500 W lies between the two data
    // sheets' limits, linearly, a third of the way from the NVL's 400 W (835.5 dense bf16, 1670.5
    // FP8) to the SXM's 700 W (989.4, 1978.9), and the SXM's sustained and burst shares of it.
    {.name = "h100-96gb",
     .description = "NVIDIA H100 SXM5 96GB HBM2e, 500 W (Grand Teton)",
     .tflops_bf16 = kTetonBf16,
     .tflops_fp16 = kTetonBf16,
     .tflops_fp32 = 66.9,
     .memory_bytes = 95 * 1024 * kMiB,
     .memory_gb_per_s = 2400.0,
     .nvlink_domain = 8,
     .intra_node = kNvlink4,
     .inter_node = kNdr,
     .sms = 132,
     .tflops_fp8 = kTetonFp8,
     .architecture = Architecture::Hopper,
     .gpus_per_board = 8,
     .sustained_gemm = kHopperSustained,
     .sustained_gemm_fp8 = kHopperSustainedFp8,
     .burst_gemm = kHopperBurst,
     .cuda_name = "H100",
     .host_link = kPcie5Host},
    // DeepSeek's card: the H100's chip and memory, NVLink cut to 400 GB/s both ways.
    {.name = "h800",
     .description = "NVIDIA H800 SXM5 80GB",
     .tflops_bf16 = 989.4,
     .tflops_fp16 = 989.4,
     .tflops_fp32 = 66.9,
     .memory_bytes = 81559 * kMiB,
     .memory_gb_per_s = 3350.0,
     .nvlink_domain = 8,
     .intra_node = kNvlink4H800,
     .inter_node = kNdr,
     .sms = 132,
     .tflops_fp8 = 1978.9,
     .architecture = Architecture::Hopper,
     .gpus_per_board = 8,
     .sustained_gemm = kHopperSustained,
     .sustained_gemm_fp8 = kHopperSustainedFp8,
     .burst_gemm = kHopperBurst,
     .cuda_name = "H800",
     .host_link = kPcie5Host},
    {.name = "h200",
     .description = "NVIDIA H200 SXM 141GB",
     .tflops_bf16 = 989.4,
     .tflops_fp16 = 989.4,
     .tflops_fp32 = 66.9,
     .memory_bytes = 143771 * kMiB,
     .memory_gb_per_s = 4800.0,
     .nvlink_domain = 8,
     .intra_node = kNvlink4,
     .inter_node = kNdr,
     .sms = 132,
     .tflops_fp8 = 1978.9,
     .architecture = Architecture::Hopper,
     .gpus_per_board = 8,
     .sustained_gemm = kHopperSustained,
     .sustained_gemm_fp8 = kHopperSustainedFp8,
     .burst_gemm = kHopperBurst,
     .cuda_name = "H200",
     .host_link = kPcie5Host},
    {.name = "b200",
     .description = "NVIDIA B200 SXM 180GB (HGX B200)",
     .tflops_bf16 = 2250.0,
     .tflops_fp16 = 2250.0,
     .tflops_fp32 = 75.0,
     .memory_bytes = 183359 * kMiB,
     .memory_gb_per_s = 8000.0,
     .nvlink_domain = 8,
     .intra_node = kNvlink5,
     .inter_node = kNdr,
     .sms = 148,
     .tflops_fp8 = 4500.0,
     .tflops_fp4 = 9000.0,
     .architecture = Architecture::Blackwell,
     .gpus_per_board = 8,
     .sustained_gemm = kBlackwellSustained,
     .sustained_gemm_fp8 = kB200SustainedFp8,
     .burst_gemm = kB200Burst,
     .cuda_name = "B200",
     .host_link = kPcie5Host},
    // One GPU of the rack: 72 in one NVLink domain, 4 on a compute tray.
    {.name = "gb200",
     .description = "NVIDIA GB200 NVL72, one Blackwell GPU of 72",
     .tflops_bf16 = 2500.0,
     .tflops_fp16 = 2500.0,
     .tflops_fp32 = 80.0,
     .memory_bytes = 189471 * kMiB,
     .memory_gb_per_s = 8000.0,
     .nvlink_domain = 72,
     .intra_node = kNvlink5,
     .inter_node = kNdr,
     .sms = 152,
     .tflops_fp8 = 5000.0,
     .tflops_fp4 = 10000.0,
     .architecture = Architecture::Blackwell,
     .gpus_per_board = 4,
     .job_segment = 64,
     .sustained_gemm = kGb200Sustained,
     .sustained_gemm_fp8 = kGb200SustainedFp8,
     .burst_gemm = kGb200Burst,
     .cuda_name = "GB200",
     .host_link = kC2cHost,
     .host_cpu = HostCpu::Grace},
    {.name = "b300",
     .description = "NVIDIA B300 SXM 288GB (HGX B300, Blackwell Ultra)",
     .tflops_bf16 = 2250.0,
     .tflops_fp16 = 2250.0,
     .tflops_fp32 = 75.0,
     .memory_bytes = 275040 * kMiB,
     .memory_gb_per_s = 8000.0,
     .nvlink_domain = 8,
     .intra_node = kNvlink5,
     .inter_node = kXdr,
     .sms = 148,
     .tflops_fp8 = 4500.0,
     .tflops_fp4 = 13500.0,
     .architecture = Architecture::Blackwell,
     .gpus_per_board = 8,
     .sustained_gemm = kBlackwellSustained,
     .sustained_gemm_fp8 = kB200SustainedFp8,
     .burst_gemm = kB200Burst,
     .attention_forward_ratio = kUltraAttentionForward,
     .attention_backward_ratio = kUltraAttentionBackward,
     .cuda_name = "B300",
     .host_link = kPcie5Host},
    {.name = "gb300",
     .description = "NVIDIA GB300 NVL72, one Blackwell Ultra GPU of 72",
     .tflops_bf16 = 2500.0,
     .tflops_fp16 = 2500.0,
     .tflops_fp32 = 80.0,
     .memory_bytes = 284208 * kMiB,
     .memory_gb_per_s = 8000.0,
     .nvlink_domain = 72,
     .intra_node = kNvlink5,
     .inter_node = kXdr,
     .sms = 152,
     .tflops_fp8 = 5000.0,
     .tflops_fp4 = 15000.0,
     .architecture = Architecture::Blackwell,
     .gpus_per_board = 4,
     .job_segment = 64,
     .sustained_gemm = kGb200Sustained,
     .sustained_gemm_fp8 = kGb300SustainedFp8,
     .burst_gemm = kGb200Burst,
     .attention_forward_ratio = kUltraAttentionForward,
     .attention_backward_ratio = kUltraAttentionBackward,
     .cuda_name = "GB300",
     .host_link = kC2cHost,
     .host_cpu = HostCpu::Grace},
    {.name = "rtx3090",
     .description = "NVIDIA GeForce RTX 3090 24GB",
     .tflops_bf16 = 71.0,
     .tflops_fp16 = 71.0,
     .tflops_fp32 = 35.6,
     .memory_bytes = 24576 * kMiB,
     .memory_gb_per_s = 936.0,
     .nvlink_domain = 4,
     .intra_node = kPcieHost,
     .inter_node = kEthernet,
     .sms = 82,
     .architecture = Architecture::Ampere,
     .gpus_per_board = 4,
     .cuda_name = "RTX 3090",
     .host_link = kPcie4Host},
    // FP8 with fp32 accumulation, as Transformer Engine runs it (the fp16-accumulate rate is twice).
    {.name = "rtx4090",
     .description = "NVIDIA GeForce RTX 4090 24GB",
     .tflops_bf16 = 165.2,
     .tflops_fp16 = 165.2,
     .tflops_fp32 = 82.6,
     .memory_bytes = 24564 * kMiB,
     .memory_gb_per_s = 1008.0,
     .nvlink_domain = 4,
     .intra_node = kPcieHost,
     .inter_node = kEthernet,
     .sms = 128,
     .tflops_fp8 = 330.3,
     .architecture = Architecture::Ada,
     .gpus_per_board = 4,
     .cuda_name = "RTX 4090",
     .host_link = kPcie4Host},
}};

// The networks --network names: the table's own InfiniBand links.
constexpr std::array kNetworks{NamedNetwork{"hdr", kHdr}, NamedNetwork{"ndr", kNdr}, NamedNetwork{"xdr", kXdr}};

}  // namespace

std::string_view architecture_name(Architecture architecture) {
  switch (architecture) {
    case Architecture::Ampere:
      return "ampere";
    case Architecture::Ada:
      return "ada";
    case Architecture::Hopper:
      return "hopper";
    case Architecture::Blackwell:
      return "blackwell";
  }
  return "ampere";
}

double LinkSpec::send_ms(double bytes) const {
  return latency_ms + bytes / (bandwidth_gb_per_s * send_efficiency * 1e9) * 1e3;
}

double LinkSpec::collective_ms(double bytes) const {
  return latency_ms + bytes / (bandwidth_gb_per_s * collective_efficiency * 1e9) * 1e3;
}

double GpuSpec::peak_flops(DType dtype) const {
  switch (dtype) {
    case DType::BF16:
      return tflops_bf16 * 1e12;
    case DType::FP16:
      return tflops_fp16 * 1e12;
    case DType::FP32:
      return tflops_fp32 * 1e12;
  }
  return tflops_bf16 * 1e12;
}

std::span<const NamedNetwork> named_networks() {
  return kNetworks;
}

LinkSpec network_at(double gbit_per_s, std::string_view name) {
  return {name, gbit_per_s / 8.0, kHdr.latency_ms, kNicEfficiency, kNicEfficiency};
}

std::span<const GpuSpec> gpu_catalog() {
  return kGpus;
}

const GpuSpec& gpu_named(std::string_view name) {
  std::vector<std::string_view> names;
  for (const GpuSpec& g : kGpus) {
    if (same_name(g.name, name)) return g;
    names.push_back(g.name);
  }
  std::string message = "unknown GPU '" + std::string(name) + "'";
  std::vector<std::string> close = closest_names(name, names, 3);
  for (std::size_t i = 0; i < close.size(); ++i) message += (i == 0 ? "; did you mean '" : ", '") + close[i] + "'";
  if (!close.empty()) message += "?";
  throw Error(message + " ('pipeplan gpus' lists them)");
}

}  // namespace pipeplan
