// The page's one entry: runs a pipeplan command (the command line's own parsing and printing,
// apps/pipeplan) on files the page hands over, and returns what it printed. JSON in:
// {"args": ["simulate", "s.json", ...], "files": {"s.json": "..."}}; JSON out:
// {"exit": 0, "stdout": "...", "stderr": "..."}. {"registry": true} answers the generators'
// registry instead, the fields the page needs to offer only the flags a schedule takes. The files live in emscripten's
// in-memory file system for the call; outputs come on stdout (--svg -, export to stdout), so no output file is needed.
#include <emscripten/emscripten.h>

#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "schedules/generator.hpp"

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

// The registry's rows, as schedules/generator.hpp defines them.
nlohmann::json registry() {
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

nlohmann::json run(const nlohmann::json& request) {
  if (request.value("registry", false)) return {{"exit", 0}, {"generators", registry()}};
  std::vector<std::string> args{"pipeplan"};
  for (const auto& a : request.at("args")) args.push_back(a.get<std::string>());
  std::vector<std::string> written;
  if (request.contains("files")) {
    for (const auto& [name, text] : request.at("files").items()) {
      if (name.empty() || name.find('/') != std::string::npos) {
        return {{"exit", 2}, {"stdout", ""}, {"stderr", "pipeplan: error: the page passed a bad file name"}};
      }
      std::ofstream(name, std::ios::binary) << text.get<std::string>();
      written.push_back(name);
    }
  }
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
  return {{"exit", code}, {"stdout", out}, {"stderr", err}};
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
