// pipeplan list: the generators, one line each, with their constraints.
#include <fmt/format.h>

#include <iostream>

#include "command.hpp"
#include "schedules/generator.hpp"

namespace pipeplan::cli {

Runner add_list(CLI::App& /*sub*/) {
  return [] {
    std::cout << fmt::format("{:<12}  {:<15}  {}\n", "name", "needs", "description");
    for (const Generator& g : generators()) {
      std::cout << fmt::format("{:<12}  {:<15}  {}\n", g.name, g.constraints, g.description);
    }
    std::cout << "P = --stages (devices), M = --microbatches\n";
    return kExitOk;
  };
}

}  // namespace pipeplan::cli
