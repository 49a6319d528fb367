// pipeplan profile: an analytic profile from a model config, training settings, a GPU and a
// layout, in the format simulate, compare and generate read.
#include <memory>

#include "command.hpp"
#include "file_roles.hpp"
#include "io/profile_flags.hpp"
#include "model_options.hpp"
#include "output.hpp"

namespace pipeplan::cli {

namespace {

struct ProfileOptions {
  ModelOptions model;
  ProfileFlags profile;
  std::string output;
};

// CLI11's check of a count, from the library's row (io/profile_flags.hpp), so the help shows it.
CLI::Range whole_range(const SettingRange& r) {
  return CLI::Range(static_cast<int>(r.least), static_cast<int>(r.most));
}

}  // namespace

Runner add_profile(CLI::App& sub) {
  auto o = std::make_shared<ProfileOptions>();
  add_model_options(sub, o->model, false);
  sub.add_option("--stages", o->profile.stages, "Pipeline degree P: devices")
      ->type_name("P")
      ->required()
      ->check(whole_range(kProfileStagesRange));
  sub.add_option("--chunks", o->profile.chunks, "Stages per device V; the profile then has P x V stages")
      ->type_name("V")
      ->check(whole_range(kProfileChunksRange))
      ->capture_default_str();
  sub.add_option("--placement", o->profile.placement, "With --chunks: loop (stage s on device s mod P) or vee (V = 2)")
      ->type_name("loop|vee")
      ->capture_default_str();
  sub.add_option(
         "--layout", o->profile.layout,
         "Pieces per stage, e.g. E,t*7|t*8|t*8|t*7,H (E embedding, t layer, H head), Megatron's Et*7|t*8|t*8|t*7L, "
         "or 'even' / 'padded' (Megatron's splits; default: balanced by cost)")
      ->type_name("LAYOUT");
  sub.add_option("--dp", o->profile.data_parallel,
                 "Data-parallel replicas whose gradient all-reduce the optimizer time includes (each of tp x cp "
                 "ranks a stage)")
      ->type_name("D")
      ->check(whole_range(kProfileDpRange))
      ->capture_default_str();
  sub.add_option("-o,--output", o->output, "Write the profile here (default: stdout)")
      ->type_name("FILE")
      ->check(file_name());
  return [o] {
    check_file_roles({{"--model", o->model.model}, {"-o", o->output, true}});
    // The library's estimate (io/profile_flags.cpp), as pipeplan.profile asks it.
    const ModelInput in = read_model_input(o->model);
    emit(o->output, to_json_text(analytic_profile_document(in, model_flags(o->model), o->profile)));
    return kExitOk;
  };
}

}  // namespace pipeplan::cli
