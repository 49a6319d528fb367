// pipeplan-gpu: calibrate pipeplan's costs on real cards and replay schedules on them
// (docs/gpu.md). `info` lists the devices and versions; `calibrate` times a model's layer, head
// and embedding and the NCCL transfers and writes a profile; `replay` runs a schedule with those
// kernels and compares with the prediction. Exit codes: 0 success, 1 failure or invalid input
// (a driver too old for the runtime included), 2 usage, 3 no GPU.
#include <CLI/CLI.hpp>

#include <cstdlib>
#include <iostream>
#include <optional>

#include "../pipeplan/command.hpp"
#include "../pipeplan/flag_checks.hpp"
#include "calibrate.hpp"
#include "early_checks.hpp"
#include "estimate/layout.hpp"
#include "estimate/model_config.hpp"
#include "gpu_error.hpp"
#include "gpu_info.hpp"
#include "io/atomic_file.hpp"
#include "io/json_text.hpp"
#include "io/model_config_json.hpp"
#include "model/error.hpp"
#include "replay.hpp"

namespace {

using namespace pipeplan;
using namespace pipeplan::gpu;

struct CalibrateFlags {
  std::string model;
  std::string dtype = "bf16";
  std::string output;
  int layers_per_stage = 0;
  bool no_transfers = false;
  bool stages_given = false;  ///< --stages on the command line, which a --layout must then agree with
  CalibrateRequest request;
};

int fail(int code, const std::string& message) {
  std::cerr << "pipeplan-gpu: " << (code == kExitNoGpu ? "" : "error: ") << message << "\n";
  return code;
}

// One process drives every GPU of its host (a thread per rank, NCCL's unique id shared in
// memory). Under torchrun, Slurm or MPI every process would run the whole calibration or replay
// on the same GPUs, and the ranks of different hosts would never meet: refuse, naming the
// variable, until a multi-host path (the unique id over a rendezvous, a process per GPU) exists.
std::optional<std::string> launched_as_many() {
  for (const char* name : {"WORLD_SIZE", "SLURM_NTASKS", "OMPI_COMM_WORLD_SIZE", "PMI_SIZE"}) {
    const char* value = std::getenv(name);
    if (value != nullptr && std::atoi(value) > 1) {
      return std::string(name) + "=" + value +
             ": pipeplan-gpu runs as one process per host and drives every GPU "
             "of it; it cannot yet span hosts or run one process per GPU. Run it once, without torchrun, srun or "
             "mpirun, on one host";
    }
  }
  return std::nullopt;
}

int run_calibrate(CalibrateFlags& f) {
  CalibrateRequest& r = f.request;
  auto dtype = dtype_named(f.dtype);
  if (!dtype) return fail(2, "--dtype: expected bf16, fp16 or fp32, got '" + f.dtype + "'");
  r.training.dtype = *dtype;
  r.transfers = !f.no_transfers;
  r.model = read_model_config_file(f.model);
  if (f.layers_per_stage > 0) {
    if (!r.layout.empty()) return fail(2, "--layers-per-stage and --layout: give one of them");
    // A pipeline of --stages stages of L layers each, whatever the config's own depth.
    r.model.layers = r.stages * f.layers_per_stage;
    r.layout = "E";
    for (int s = 0; s < r.stages; ++s) r.layout += (s == 0 ? ",t*" : "|t*") + std::to_string(f.layers_per_stage);
    r.layout += ",H";
  } else if (!r.layout.empty() && f.stages_given) {
    // Before the GPU: a layout of 3 stages beside --stages 4 reached the device check (exit 3),
    // and on a GPU the layout's count would have won silently (issue 31, item 10).
    const std::size_t stages = parse_layout(r.layout, r.model.layers, "--layout", r.model.mtp_layers).size();
    if (stages != static_cast<std::size_t>(r.stages)) {
      return fail(2, "--layout has " + std::to_string(stages) + " stages but --stages is " + std::to_string(r.stages) +
                         ": give one of them, or the same count");
    }
  }
  const Calibration c = calibrate(r);
  if (!f.output.empty()) write_file_atomically(f.output, to_json_text(c.profile));
  std::cout << c.report;
  if (f.output.empty()) std::cout << to_json_text(c.profile);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"pipeplan-gpu: measure pipeplan's costs on real GPUs"};
  app.name("pipeplan-gpu");
  app.require_subcommand(1, 1);
  CLI::App* info = app.add_subcommand("info", "Devices, driver, CUDA, cuBLAS and NCCL versions, peer access");
  CLI::App* cal =
      app.add_subcommand("calibrate", "Time a model's layer, head, embedding and NCCL transfers; write a profile");
  CalibrateFlags f;
  TrainingSettings& t = f.request.training;
  cal->add_option("--model", f.model, "Hugging Face config.json")->required()->type_name("FILE");
  cal->add_option("--seq", t.seq, "Tokens per sequence")->check(CLI::Range(1, 1 << 20))->capture_default_str();
  cal->add_option("--micro-batch", t.micro_batch, "Sequences per micro-batch")
      ->check(CLI::Range(1, 4096))
      ->capture_default_str();
  cal->add_option("--dtype", f.dtype, "bf16, fp16 or fp32")->capture_default_str();
  cal->add_option("--tp", t.tp, "Tensor parallelism: time one rank's share")
      ->check(CLI::Range(1, 1024))
      ->capture_default_str();
  cal->add_flag("--flash-attention,!--no-flash-attention", t.flash_attention,
                "Without it, the softmax over the s x s scores runs as a kernel of its own");
  cal->add_option("--stages", f.request.stages, "Pipeline stages of the profile")
      ->check(CLI::Range(1, 4096))
      ->capture_default_str();
  cal->add_option("--layers-per-stage", f.layers_per_stage,
                  "Layers on every stage (the profile's model has stages x L)")
      ->check(CLI::Range(1, 10000));
  cal->add_option("--layout", f.request.layout,
                  "A layout string E,t*N|...,H (default: balanced by the measured costs)");
  cal->add_option("--gpu", f.request.gpu_name,
                  "The GPU table's entry for peaks and links (default: from the device's name)");
  cal->add_option("--device", f.request.device, "Which device times the compute")
      ->check(CLI::Range(0, 1023))
      ->capture_default_str();
  cal->add_option("--repetitions", f.request.plan.repetitions, "Timed runs of each kernel")
      ->check(CLI::Range(1, 10000))
      ->capture_default_str();
  cal->add_option("--warmup", f.request.plan.warmup, "Untimed runs first")
      ->check(CLI::Range(0, 1000))
      ->capture_default_str();
  cal->add_flag("--no-transfers", f.no_transfers, "Skip the NCCL measurements");
  cal->add_option("-o,--output", f.output, "Write the profile here (default: stdout)")->type_name("FILE");
  CLI::App* rep = app.add_subcommand("replay", "Run a schedule on this machine's GPUs and compare with the prediction");
  ReplayRequest rq;
  rep->add_option("SCHEDULE", rq.schedule, "Schedule JSON, one device per GPU")->required()->type_name("FILE");
  rep->add_option("--profile", rq.profile, "A profile from calibrate, with the stages of the schedule")
      ->required()
      ->type_name("FILE");
  rep->add_option("-o,--output", rq.output, "Write the measured result JSON here")->type_name("FILE");
  rep->add_option("--trace", rq.trace, "Write the measured timeline as a Chrome trace")->type_name("FILE");
  rep->add_option("--warmup", rq.warmup, "Untimed runs of the step first")
      ->check(CLI::Range(0, 100))
      ->capture_default_str();
  rep->add_option("--iterations", rq.iterations, "Timed runs; the median is reported")
      ->check(CLI::Range(1, 1000))
      ->capture_default_str();
  rep->add_option("--watchdog", rq.watchdog_s, "Seconds a step may take before it is taken as hung and aborted")
      ->check(pipeplan::cli::finite_range(1.0, 86400.0))
      ->capture_default_str();
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    return fail(2, std::string(e.what()) + " (run 'pipeplan-gpu --help')");
  }
  if (const std::optional<std::string> many = launched_as_many()) return fail(1, *many);
  try {
    if (info->parsed()) {
      std::cout << inventory_text(inventory());
      return 0;
    }
    // Files and flags first, so that a machine without a GPU still says what is wrong with them.
    if (rep->parsed()) {
      check_replay_early(rq);
      return replay(rq);
    }
    check_calibrate_early(f.model, f.output, f.request);
    f.stages_given = cal->count("--stages") > 0;
    return run_calibrate(f);
  } catch (const pipeplan::cli::UsageError& e) {
    return fail(2, e.what());
  } catch (const NoGpu& e) {
    return fail(kExitNoGpu, e.what());
  } catch (const GpuError& e) {
    return fail(1, e.what());
  } catch (const Error& e) {
    return fail(1, e.what());
  } catch (const std::exception& e) {
    return fail(1, std::string("internal error: ") + e.what());
  }
}
