#pragma once
// The built-in GPU table (docs/costs.md, "GPUs"): dense peak rates, memory and links, from the
// vendor's data sheets. A profile measured by `pipeplan-gpu calibrate` replaces these estimates.
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "estimate/training.hpp"
#include "model/units.hpp"

namespace pipeplan {

/// One direction of a link between two GPUs.
struct LinkSpec {
  std::string_view name;      ///< "NVLink 4", "PCIe 4.0 x16 (no peer access)", ...
  double bandwidth_gb_per_s;  ///< per direction, 1 GB = 1e9 bytes
  double latency_ms;
  /// The bus bandwidth a large ring collective reaches over the link, as a fraction of
  /// `bandwidth_gb_per_s`: nccl-tests' busbw at gigabyte messages over the nominal rate
  /// (docs/costs.md, "Collectives"). 1 where no measurement is cited.
  double collective_efficiency = 1.0;
  /// What a point-to-point send reaches of `bandwidth_gb_per_s` (docs/costs.md, "Collectives"): 1
  /// where no measurement is cited.
  double send_efficiency = 1.0;

  /// A point-to-point send of `bytes`: one latency, then the bytes at the achievable rate.
  [[nodiscard]] double send_ms(double bytes) const;
  /// One ring collective in which each rank sends `bytes` (a reduce-scatter or all-gather moves
  /// (d-1)/d of the data, an all-reduce twice that): one latency, then the bytes at the
  /// collective's bus bandwidth.
  [[nodiscard]] double collective_ms(double bytes) const;
};

/// The generation of a card's tensor cores: which FP8 recipes it runs and how (fp8_recipe.hpp).
enum class Architecture : unsigned char {
  Ampere,     ///< sm80/sm86: no FP8
  Ada,        ///< sm89: FP8 GEMMs in the TN layout only
  Hopper,     ///< sm90: FP8 GEMMs in the TN layout only
  Blackwell,  ///< sm100/sm103: FP8 in every layout, MXFP8 and FP4 block scaling
};

/// "ampere", "ada", "hopper", "blackwell".
[[nodiscard]] std::string_view architecture_name(Architecture architecture);

/// The CPU that launches a card's kernels (host_launch.hpp): how long the framework's Python
/// takes to issue them.
enum class HostCpu : unsigned char {
  X86,    ///< an HGX or DGX board's x86 server CPUs (Xeon, EPYC)
  Grace,  ///< NVIDIA's Grace (Arm Neoverse V2), one per two GPUs in a GB200 or GB300 compute tray
};

/// One card's facts, each from its data sheet or whitepaper (docs/costs.md lists the sources).
/// Fields are in this order so that the table's rows read alike; tests build cards of round
/// numbers with the first eleven.
struct GpuSpec {
  std::string_view name;  ///< the name `--gpu` takes
  std::string_view description;
  double tflops_bf16;  ///< dense tensor-core peak with fp32 accumulation
  double tflops_fp16;
  double tflops_fp32;      ///< plain fp32 (TF32 off, as PyTorch's default for matmul)
  Bytes memory_bytes;      ///< what nvidia-smi reports as the total where known, else the data sheet's
  double memory_gb_per_s;  ///< memory bandwidth
  /// GPUs one NVLink (or, for GeForce cards, PCIe) domain joins: 8 on an HGX board, 72 in a
  /// GB200/GB300 NVL72 rack. Groups within it take `intra_node`, beyond it `inter_node`; the
  /// rank grid places ranks in blocks of placement_domain() of them.
  int nvlink_domain;
  LinkSpec intra_node;    ///< between GPUs of one NVLink domain
  LinkSpec inter_node;    ///< between domains: the network, one NIC's share per GPU
  int sms;                ///< streaming multiprocessors: a GEMM's tiles run in waves of this many (0: not modelled)
  double tflops_fp8 = 0;  ///< dense FP8 (E4M3/E5M2) tensor-core peak with fp32 accumulation; 0: no FP8
  double tflops_fp4 = 0;  ///< dense FP4 (NVFP4/MXFP4) tensor-core peak; 0: no FP4 (listed, not yet used)
  Architecture architecture = Architecture::Ampere;
  int gpus_per_board = 0;  ///< GPUs of one server board or compute tray (8 HGX, 4 NVL72 tray); 0: as the domain
  /// GPUs of one NVLink domain that a job's ranks are placed in as one block, where a job is not
  /// given the whole domain: NVIDIA recommends Slurm's `--segment 16` (16 of an NVL72 rack's 18
  /// compute trays, 64 GPUs) for jobs of 128 GPUs and more (docs/costs.md, "GPUs"); 0: the domain.
  int job_segment = 0;
  /// The fraction of the 16-bit (bf16, fp16) and of the FP8 dense peak a large GEMM sustains
  /// in training, measured at power and thermal steady state on this card's chip (each row cites
  /// its measurement; docs/costs.md, "GEMM rate"); 0: none cited (sustained_gemm.hpp).
  double sustained_gemm = 0;
  double sustained_gemm_fp8 = 0;
  /// The fraction of the 16-bit dense peak the best-shaped GEMM reaches in a short run, at the
  /// boost clock before power and heat settle it (MAMF, a mean of 100 runs after 50 warm-ups,
  /// measured on this card's chip); 0: none cited. Beside `sustained_gemm` it says how much a
  /// rate measured in a short benchmark overstates a training step's (sustained_gemm.hpp).
  double burst_gemm = 0;
  /// The card's fused attention (forward, backward) against the card whose fractions it takes
  /// (attention_kernel.hpp), measured by one benchmark on both; 1: none measured, the same.
  double attention_forward_ratio = 1.0;
  double attention_backward_ratio = 1.0;
  /// The card's word in the name CUDA reports (cudaDeviceProp::name), by which `pipeplan-gpu
  /// calibrate` finds the row: "H100" in "NVIDIA H100 80GB HBM3", "GB200" in "NVIDIA GB200".
  /// Rows sharing it are told apart by their memory (lib/calibrate/card_match).
  std::string_view cuda_name;
  /// The card's link to its host's memory, one direction: what activation offloading copies over
  /// (activation_offload.hpp); a bandwidth of 0 where none is known.
  LinkSpec host_link{"none", 0.0, 0.0};
  HostCpu host_cpu = HostCpu::X86;  ///< the CPU its kernels are launched from

  /// The GPUs a job's consecutive ranks fill before the next block begins on another domain: the
  /// rank grid's default gpus_per_node (`--gpus-per-node` overrides it).
  [[nodiscard]] int placement_domain() const { return job_segment > 0 ? job_segment : nvlink_domain; }

  /// The dense peak for `dtype`, in FLOP/s.
  [[nodiscard]] double peak_flops(DType dtype) const;
  /// The dense FP8 peak in FLOP/s; 0 for a card without FP8.
  [[nodiscard]] double fp8_flops() const { return tflops_fp8 * 1e12; }
};

/// A network `--network` names: one card per GPU, as the table's cards have them.
struct NamedNetwork {
  std::string_view name;  ///< what --network takes: "hdr", "ndr", "xdr"
  LinkSpec link;
};

/// InfiniBand HDR, NDR and ConnectX-8 (XDR), one card per GPU, in that order.
[[nodiscard]] std::span<const NamedNetwork> named_networks();

/// A network giving each GPU `gbit_per_s` Gb/s each way (one card's rate, or a GPU's share of
/// the cards its node shares), at the latency and the measured fraction of its rate that the
/// table takes for InfiniBand (docs/costs.md, "Collectives"); `name` is the LinkSpec's name and
/// must outlive it.
[[nodiscard]] LinkSpec network_at(double gbit_per_s, std::string_view name);

/// Every built-in GPU, in a fixed order.
[[nodiscard]] std::span<const GpuSpec> gpu_catalog();

/// The GPU called `name`; throws Error listing the closest names when there is none.
[[nodiscard]] const GpuSpec& gpu_named(std::string_view name);

}  // namespace pipeplan
