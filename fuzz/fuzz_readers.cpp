// libFuzzer targets for every reader: each takes arbitrary bytes and must either read them or
// throw pipeplan::Error; a crash, a hang, a leak or a sanitizer report is a bug. One binary per
// reader, chosen at compile time by PIPEPLAN_FUZZ_TARGET.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "estimate/layout.hpp"
#include "estimate/model_config.hpp"
#include "estimate/piece_work.hpp"
#include "io/json_text.hpp"
#include "io/model_config_json.hpp"
#include "io/profile_json.hpp"
#include "io/pytorch_csv.hpp"
#include "io/result_json.hpp"
#include "io/schedule_json.hpp"
#include "io/schedule_text.hpp"
#include "lower/lowering.hpp"
#include "model/error.hpp"
#include "model/size_string.hpp"
#include "model/structure.hpp"

namespace {

void read(std::string_view text) {
  using namespace pipeplan;
  const std::string source = "fuzz";
#if PIPEPLAN_FUZZ_TARGET == 1
  (void)profile_from_json(parse_json(text, source), source);
#elif PIPEPLAN_FUZZ_TARGET == 2
  // Read as a lowered schedule: its compute ops, and its sends and receives when complete.
  // Whatever the one-pass scanner accepts, the document reader must read the same.
  std::optional<LoweredSchedule> fast = scan_schedule_text(text);
  LoweredSchedule l;
  try {
    l = lowered_from_json(parse_json(text, source), source);
  } catch (const Error&) {
    if (fast) __builtin_trap();  // the scanner took a file the reader refuses
    throw;
  }
  if (fast && (fast->schedule.order != l.schedule.order || fast->schedule.placement != l.schedule.placement ||
               fast->schedule.name != l.schedule.name || fast->actions.size() != l.actions.size())) {
    __builtin_trap();
  }
  if (allows_timing(find_structure_problems(l.schedule))) (void)lowering_problems(l);
#elif PIPEPLAN_FUZZ_TARGET == 3
  (void)result_from_json(parse_json(text, source), source);
#elif PIPEPLAN_FUZZ_TARGET == 4
  CsvImport c = schedule_from_pytorch_csv(text, source);
  if (allows_timing(find_structure_problems(c.schedule))) (void)lowering_problems(c.lowered);
#elif PIPEPLAN_FUZZ_TARGET == 5
  (void)parse_size(text);
#elif PIPEPLAN_FUZZ_TARGET == 6
  // A config that reads must also give finite work for every piece.
  ModelConfig m = model_config_from_json(parse_json(text, source), source);
  (void)model_parameters(m);
#else
  (void)parse_layout(text, 32, "--layout");
#endif
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    read(std::string_view(reinterpret_cast<const char*>(data), size));
  } catch (const pipeplan::Error&) {
    // A clear refusal is the right answer to bad input.
  }
  return 0;
}
