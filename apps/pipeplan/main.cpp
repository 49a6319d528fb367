// pipeplan: parse the command line, dispatch to one subcommand, and turn errors into
// "pipeplan: error: ..." on stderr and an exit code. Only apps/ prints and exits.
#include <array>
#include <cstring>
#include <iostream>
#include <new>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "command.hpp"
#include "io/printable.hpp"
#include "io/version.hpp"
#include "memory_budget.hpp"
#include "model/closest_names.hpp"
#include "model/error.hpp"
#include "model/memory_reuse.hpp"
#include "sim_options.hpp"
#include "standard_output.hpp"

namespace pipeplan::cli {

std::span<const Command> commands() {
  static const std::array<Command, 11> kCommands = {{
      {"list", "List the schedule generators and their constraints", add_list, false},
      {"generate", "Generate a schedule as JSON", add_generate, true},
      {"simulate", "Time a schedule: step time, bubble rate, peak memory per device", add_simulate, true},
      {"validate", "Check a schedule: complete, ordered, deadlock-free, within memory", add_validate, true},
      {"compare", "Generate and simulate several schedules side by side", add_compare, true},
      {"export", "Write a schedule in another tool's format (PyTorch pipelining CSV)", add_export, true},
      {"import", "Read a PyTorch pipelining CSV schedule as pipeplan's schedule JSON", add_import, true},
      {"lower", "Add the sends and receives each device posts, placed by a policy", add_lower, true},
      {"gpus", "List the built-in GPUs the planner and profile estimate with", add_gpus, false},
      {"profile", "Estimate a profile from a model config.json, a GPU and a stage layout", add_profile, false},
      {"plan", "Find the best pipeline configuration and schedule for a model on N GPUs", add_plan, false},
  }};
  return kCommands;
}

namespace {

// Messages quote files and their fields, which could hold terminal escapes: shown, never sent.
int fail(int code, const std::string& message) {
  std::cerr << "pipeplan: error: " << printable(message) << "\n";
  return code;
}

// An unknown first word gets the closest command names instead of CLI11's generic message.
int unknown_command(std::string_view word) {
  std::vector<std::string_view> names;
  for (const Command& c : commands()) names.emplace_back(c.name);
  std::string message = "unknown command '" + std::string(word) + "'";
  std::vector<std::string> close = closest_names(word, names, 3);
  if (!close.empty()) {
    message += "; did you mean ";
    for (std::size_t i = 0; i < close.size(); ++i) message += (i == 0 ? "'" : ", '") + close[i] + "'";
    message += "?";
  }
  return fail(kExitUsage, message + " (run 'pipeplan --help' for the list)");
}

// CLI11 says only "The following arguments were not expected: 1,1,1 --cost"; this names the
// unknown flag and the closest flags of the command instead.
int unexpected_arguments(const CLI::App& app) {
  const CLI::App* sub = app.get_subcommands().empty() ? &app : app.get_subcommands().front();
  std::vector<std::string> flags;
  for (const CLI::Option* option : sub->get_options()) {
    for (const std::string& name : option->get_lnames()) flags.push_back("--" + name);
    for (const std::string& name : option->get_snames()) flags.push_back("-" + name);
  }
  const std::vector<std::string_view> candidates(flags.begin(), flags.end());
  const std::string usage =
      " (run 'pipeplan " + (sub == &app ? std::string("--help") : sub->get_name() + " --help") + "' for usage)";
  const std::vector<std::string> extras = app.remaining(true);
  for (const std::string& extra : extras) {
    if (extra.size() < 2 || extra[0] != '-') continue;
    const std::string flag = extra.substr(0, extra.find('='));
    std::string message = "unknown flag '" + flag + "'";
    const std::vector<std::string> close = closest_names(flag, candidates, 3);
    for (std::size_t i = 0; i < close.size(); ++i) message += (i == 0 ? "; did you mean '" : ", '") + close[i] + "'";
    if (!close.empty()) message += "?";
    return fail(kExitUsage, message + usage);
  }
  std::string message = extras.size() == 1 ? "unexpected argument" : "unexpected arguments";
  for (std::size_t i = 0; i < extras.size(); ++i) message += (i == 0 ? " '" : ", '") + extras[i] + "'";
  return fail(kExitUsage, message + usage);
}

bool is_command(std::string_view word) {
  for (const Command& c : commands()) {
    if (word == c.name) return true;
  }
  return false;
}

int run(int argc, char** argv) {
  CLI::App app{"pipeplan: pipeline-parallel training schedule simulator and planner"};
  app.name("pipeplan");
  app.set_version_flag("--version", tool_version());
  app.require_subcommand(1, 1);
  std::vector<std::pair<CLI::App*, Runner>> runners;
  for (const Command& c : commands()) {
    CLI::App* sub = app.add_subcommand(c.name, c.description);
    runners.emplace_back(sub, c.add(*sub));
    if (c.estimates_memory) add_max_memory_option(*sub);
  }
  if (argc > 1 && argv[1][0] != '-' && !is_command(argv[1])) return unknown_command(argv[1]);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ExtrasError&) {
    return unexpected_arguments(app);
  } catch (const CLI::ParseError& e) {
    return fail(kExitUsage,
                std::string(e.what()) + " (run 'pipeplan " +
                    (app.get_subcommands().empty() ? std::string("--help")
                                                   : app.get_subcommands().front()->get_name() + " --help") +
                    "' for usage)");
  }
  for (auto& [sub, runner] : runners) {
    if (sub->parsed()) return runner();
  }
  return fail(kExitUsage, "no command given (run 'pipeplan --help')");
}

}  // namespace

}  // namespace pipeplan::cli

namespace {

// The command, with every error turned into its message and exit code.
int run_reporting_errors(int argc, char** argv) {
  using namespace pipeplan::cli;
  try {
    return run(argc, argv);
  } catch (const UsageError& e) {
    return fail(kExitUsage, e.what());
  } catch (const pipeplan::RunLimitError& e) {
    return fail(kExitInvalid, run_limit_text(e));  // lower, validate, plan: named by their flags
  } catch (const pipeplan::FlagError& e) {         // a malformed value, read by the library for us and Python
    return fail(kExitUsage, e.what());
  } catch (const pipeplan::Error& e) {
    return fail(kExitInvalid, e.what());
  } catch (const std::bad_alloc&) {
    return fail(kExitInvalid, "out of memory");
  } catch (const std::exception& e) {
    // Never a crash: anything the library did not turn into an Error is still reported.
    return fail(kExitInvalid, std::string("internal error: ") + e.what());
  }
}

}  // namespace

int main(int argc, char** argv) {
  using namespace pipeplan::cli;
  hold_standard_streams();
  // The planner, compare and the automatic schedules allocate and drop many schedules.
  pipeplan::keep_freed_memory_for_reuse();
  const int code = run_reporting_errors(argc, argv);
  // Every command's exit passes here: what it wrote to standard output (results, tables,
  // --help) must have got there, or the exit is not 0 (issue 31, item 1).
  if (const std::optional<std::string> failure = finish_standard_output()) {
    fail(kExitInvalid, *failure);
    return code == kExitOk ? kExitInvalid : code;
  }
  return code;
}
