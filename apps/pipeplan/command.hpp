#pragma once
// The subcommands of `pipeplan`, in a table: each registers its options on a CLI11 subcommand
// and returns the function that runs it once the command line has parsed.
#include <CLI/CLI.hpp>

#include <functional>
#include <span>
#include <stdexcept>

namespace pipeplan::cli {

/// Exit codes: 0 success, 1 invalid input or an invalid schedule, 2 a usage error.
inline constexpr int kExitOk = 0;
inline constexpr int kExitInvalid = 1;
inline constexpr int kExitUsage = 2;

/// A command line that is wrong in itself (a flag's value, a missing flag): exit code 2.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

using Runner = std::function<int()>;

struct Command {
  const char* name;
  const char* description;
  Runner (*add)(CLI::App& sub);
  /// Takes --max-memory: refuses work estimated past the memory it may use (memory_budget.hpp).
  bool estimates_memory = false;
};

/// Every subcommand, in the order `pipeplan --help` lists them.
[[nodiscard]] std::span<const Command> commands();

Runner add_list(CLI::App& sub);
Runner add_generate(CLI::App& sub);
Runner add_simulate(CLI::App& sub);
Runner add_validate(CLI::App& sub);
Runner add_compare(CLI::App& sub);
Runner add_export(CLI::App& sub);
Runner add_import(CLI::App& sub);
Runner add_gpus(CLI::App& sub);
Runner add_profile(CLI::App& sub);
Runner add_plan(CLI::App& sub);
Runner add_lower(CLI::App& sub);

}  // namespace pipeplan::cli
