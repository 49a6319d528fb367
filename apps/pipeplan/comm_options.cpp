#include "comm_options.hpp"

#include "enum_flags.hpp"

namespace pipeplan::cli {

void add_comm_options(CLI::App& sub, CommFlags& flags, bool reads_files) {
  sub.add_option("--comm", flags.mode, enum_help(kCommModes))
      ->type_name("MODE")
      ->transform(enum_choices_of(kCommModes))
      ->capture_default_str();
  sub.add_option("--policy", flags.policy,
                 "With blocking or rendezvous: where sends and receives go (" + enum_list(kLowerPolicies) +
                     "; default timed)" + (reads_files ? " unless the file has its own" : ""))
      ->type_name("NAME");
}

}  // namespace pipeplan::cli
