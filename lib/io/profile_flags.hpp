#pragma once
// What `profile` is asked beside the model (io/model_flags.hpp): the pipeline degree, the chunks
// and their placement, the stage layout and the data-parallel replicas. The command line's
// `pipeplan profile` and the Python package's pipeplan.profile both estimate through here, so
// both write the same document and refuse the same values with the same messages.
#include <string>

#include "io/json_text.hpp"
#include "io/model_flags.hpp"

namespace pipeplan {

inline constexpr SettingRange kProfileStagesRange{"--stages", 1, 4096};
inline constexpr SettingRange kProfileChunksRange{"--chunks", 1, 64};
inline constexpr SettingRange kProfileDpRange{"--dp", 1, 1 << 20};

struct ProfileFlags {
  int stages = 0;                  ///< P, devices
  int chunks = 1;                  ///< V, stages per device: the profile has P x V stages
  std::string placement = "loop";  ///< loop (stage s on device s mod P) or vee (V = 2)
  std::string layout;              ///< "" balanced by cost; "even", "padded" or pieces per stage
  int data_parallel = 1;           ///< replicas whose gradient all-reduce the optimizer time includes
};

/// The analytic profile of `in` (read_model_input of `model`, whose `given` says which flags were
/// given) for `flags`, as the profile file's document (docs/formats.md, "Profile"). FlagError for
/// a value out of range or flags that contradict each other; Error for a model it cannot price.
[[nodiscard]] Json analytic_profile_document(const ModelInput& in, const ModelFlags& model, const ProfileFlags& flags);

}  // namespace pipeplan
