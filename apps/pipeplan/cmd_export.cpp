// pipeplan export: a schedule file in another tool's format. Formats live in a table, so that
// those of issue 4 (SVG, HTML, Chrome trace, text) join as rows.
#include <array>
#include <memory>

#include "command.hpp"
#include "io/pytorch_csv.hpp"
#include "io/schedule_json.hpp"
#include "output.hpp"

namespace pipeplan::cli {

namespace {

struct ExportFormat {
  const char* name;
  const char* description;
  std::string (*write)(const Schedule&);
};

const std::array<ExportFormat, 1> kFormats = {{
    {"csv", "PyTorch pipelining's CSV, compute only, today's naming (I = input gradient, B = full backward)",
     schedule_to_pytorch_csv},
}};

struct ExportOptions {
  std::string file;
  std::string format;
  std::string output;
};

}  // namespace

Runner add_export(CLI::App& sub) {
  auto o = std::make_shared<ExportOptions>();
  std::vector<std::string> names;
  std::string help = "Output format:";
  for (const ExportFormat& f : kFormats) {
    names.emplace_back(f.name);
    help += std::string(" ") + f.name + " (" + f.description + ")";
  }
  sub.add_option("FILE", o->file, "Schedule JSON")->required()->type_name("FILE");
  sub.add_option("--format", o->format, help)->required()->type_name("FORMAT")->check(CLI::IsMember(names));
  sub.add_option("-o,--output", o->output, "Write here instead of stdout")->type_name("FILE");
  return [o] {
    Schedule schedule = read_schedule_file(o->file);
    for (const ExportFormat& f : kFormats) {
      if (o->format == f.name) emit(o->output, f.write(schedule));
    }
    return kExitOk;
  };
}

}  // namespace pipeplan::cli
