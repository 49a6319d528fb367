// The page's one entry: runs a pipeplan command (the command line's own parsing and printing,
// apps/pipeplan) on files the page hands over, and returns what it printed. JSON in:
// {"args": ["simulate", "s.json", ...], "files": {"s.json": "..."}}; JSON out:
// {"exit": 0, "stdout": "...", "stderr": "..."}. {"registry": true} answers the generators'
// registry instead, the fields the page needs to offer only the flags a schedule takes, and the
// names --comm, --policy, --optimizer-mode and --gpu take (their tables, so the page offers each
// one). The files live in emscripten's in-memory file system for the call; outputs come on stdout
// (--svg -, export to stdout), so no output file is needed, except a folder a command writes
// (plan --emit-rows DIR): {"collect": "DIR"} returns its files too, as
// {"files": {"DIR/1/schedule.json": "...", ...}}, and removes it.
#include <emscripten/emscripten.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "estimate/gpu_catalog.hpp"
#include "lower/lowering.hpp"
#include "model/enum_table.hpp"
#include "schedules/generator.hpp"
#include "sim/comm_mode.hpp"
#include "sim/sim_result.hpp"

int pipeplan_cli_main(int argc, char** argv);  // apps/pipeplan/main.cpp's main, renamed by web/CMakeLists.txt

namespace {

std::string answer;  // kept until the next call: the page reads it through the returned pointer

// std::cout and std::cerr into strings while it lives.
class Captured {
 public:
  Captured() : out_(std::cout.rdbuf(stdout_.rdbuf())), err_(std::cerr.rdbuf(stderr_.rdbuf())) {}
  ~Captured() {
    std::cout.rdbuf(out_);
    std::cerr.rdbuf(err_);
  }
  Captured(const Captured&) = delete;
  Captured& operator=(const Captured&) = delete;
  std::string out() const { return stdout_.str(); }
  std::string err() const { return stderr_.str(); }

 private:
  std::ostringstream stdout_;
  std::ostringstream stderr_;
  std::streambuf* out_;
  std::streambuf* err_;
};

// A table's names and descriptions, for a select of the page.
template <typename E, std::size_t N>
nlohmann::json choices(const pipeplan::EnumTable<E, N>& table) {
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& row : table)
    rows.push_back({{"name", std::string(row.name)}, {"description", std::string(row.description)}});
  return rows;
}

// The built-in GPUs' names (`pipeplan gpus`, --gpu), in the table's order.
nlohmann::json gpu_names() {
  nlohmann::json names = nlohmann::json::array();
  for (const pipeplan::GpuSpec& g : pipeplan::gpu_catalog()) names.push_back(std::string(g.name));
  return names;
}

// The registry's rows, as schedules/generator.hpp defines them.
nlohmann::json generator_rows() {
  nlohmann::json rows = nlohmann::json::array();
  for (const pipeplan::Generator& g : pipeplan::generators()) {
    rows.push_back({{"name", g.name},
                    {"description", g.description},
                    {"constraints", g.constraints},
                    {"min_chunks", g.min_chunks},
                    {"max_chunks", g.max_chunks},
                    {"default_chunks", g.default_chunks},
                    {"memory_limit", pipeplan::memory_limit_use_name(g.memory_limit)},
                    {"uses_costs", g.uses_costs},
                    {"takes_group", g.takes_group}});
  }
  return rows;
}

// The files under `dir`, by their path from the working folder, and then the folder removed.
nlohmann::json collect(const std::string& dir) {
  nlohmann::json files = nlohmann::json::object();
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec)) return files;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(dir)) {
    if (!entry.is_regular_file()) continue;
    std::ifstream in(entry.path(), std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    files[entry.path().generic_string()] = text.str();
  }
  std::filesystem::remove_all(dir, ec);
  return files;
}

// A file or folder name of the working folder alone: no path into another.
bool plain_name(const std::string& name) {
  return !name.empty() && name.find('/') == std::string::npos && name != "." && name != "..";
}

nlohmann::json run(const nlohmann::json& request) {
  if (request.value("registry", false)) {
    return {{"exit", 0},
            {"generators", generator_rows()},
            {"comm_modes", choices(pipeplan::kCommModes)},
            {"policies", choices(pipeplan::kLowerPolicies)},
            {"optimizer_modes", choices(pipeplan::kOptimizerModes)},
            {"gpus", gpu_names()}};
  }
  std::vector<std::string> args{"pipeplan"};
  for (const auto& a : request.at("args")) args.push_back(a.get<std::string>());
  std::vector<std::string> written;
  if (request.contains("files")) {
    for (const auto& [name, text] : request.at("files").items()) {
      if (!plain_name(name)) {
        return {{"exit", 2}, {"stdout", ""}, {"stderr", "pipeplan: error: the page passed a bad file name"}};
      }
      std::ofstream(name, std::ios::binary) << text.get<std::string>();
      written.push_back(name);
    }
  }
  const std::string folder = request.value("collect", std::string());
  if (!folder.empty() && !plain_name(folder)) {
    return {{"exit", 2}, {"stdout", ""}, {"stderr", "pipeplan: error: the page passed a bad folder name"}};
  }
  std::error_code ec;
  if (!folder.empty()) std::filesystem::remove_all(folder, ec);  // nothing of an earlier call's
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  int code = 0;
  std::string out;
  std::string err;
  {
    const Captured captured;
    code = pipeplan_cli_main(static_cast<int>(args.size()), argv.data());
    out = captured.out();
    err = captured.err();
  }
  for (const std::string& name : written) std::remove(name.c_str());
  nlohmann::json result{{"exit", code}, {"stdout", out}, {"stderr", err}};
  if (!folder.empty()) result["files"] = collect(folder);
  return result;
}

}  // namespace

extern "C" EMSCRIPTEN_KEEPALIVE const char* pipeplan_call(const char* request_json) {
  try {
    answer = run(nlohmann::json::parse(request_json)).dump();
  } catch (const std::exception& e) {
    answer =
        nlohmann::json{{"exit", 2}, {"stdout", ""}, {"stderr", std::string("pipeplan: error: ") + e.what()}}.dump();
  }
  return answer.c_str();
}
