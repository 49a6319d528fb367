#include "cost_options.hpp"

#include "file_roles.hpp"

namespace pipeplan::cli {

void add_cost_options(CLI::App& sub, CostOptions& o) {
  auto* profile = sub.add_option("--profile", o.profile, "Cost profile JSON (docs/formats.md)")
                      ->type_name("FILE")
                      ->check(file_name());
  auto* costs =
      sub.add_option("--costs", o.costs, "F,B,W milliseconds, every stage alike (default 1,1,1)")->type_name("F,B,W");
  auto* transfer = sub.add_option("--transfer", o.transfer,
                                  "Milliseconds per transfer between devices (default 0); or one per stage "
                                  "boundary, stage 0's to 1's first (stages - 1 values)")
                       ->type_name("MS[,MS...]");
  auto* memory =
      sub.add_option("--memory", o.memory, "A_F,A_W: activation bytes F keeps and the part W needs, e.g. 2GiB,512MiB")
          ->type_name("A_F,A_W");
  profile->excludes(costs)->excludes(transfer)->excludes(memory);
}

}  // namespace pipeplan::cli
