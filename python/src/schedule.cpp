// pipeplan.Schedule and its files: the schedule JSON (docs/formats.md, "Schedule") and PyTorch
// pipelining's CSV (io/pytorch_csv.hpp), read and written by the library's own readers and writers.
#include <pybind11/stl.h>

#include <optional>
#include <string>
#include <utility>

#include "bindings.hpp"
#include "io/json_text.hpp"
#include "io/pytorch_csv.hpp"
#include "io/read_file.hpp"
#include "io/schedule_json.hpp"
#include "io/schedule_text.hpp"
#include "model/error.hpp"

namespace py = pybind11;

namespace pipeplan::python {

namespace {

// One op as Python sees it: (kind, stage, micro-batch), and for DualPipe's overlapped FB pair
// (kind, stage, micro-batch, overlap stage, overlap micro-batch).
py::tuple op_tuple(const Op& op) {
  const std::string kind(kind_name(op.kind));
  if (op.kind == OpKind::FB)
    return py::make_tuple(kind, op.stage, op.microbatch, op.overlap_stage, op.overlap_microbatch);
  return py::make_tuple(kind, op.stage, op.microbatch);
}

PySchedule from_json_text(const std::string& text, const std::string& source) {
  py::gil_scoped_release release;
  // As read_lowered_file reads a file: the one-pass scanner for the text pipeplan writes (to_json's,
  // 786,432 ops in a fraction of the document reader's 5 s), the document reader, which names the
  // problem, for anything else.
  if (std::optional<LoweredSchedule> fast = scan_schedule_text(text)) return {std::move(*fast)};
  return {lowered_from_json(parse_json(text, source), source)};
}

PySchedule from_csv_text(const std::string& text, const std::string& source, const std::string& naming,
                         bool with_comms) {
  const std::optional<CsvNaming> parsed = enum_named(kCsvNamings, naming);
  if (!parsed) throw FlagError("--naming: expected " + enum_choices(kCsvNamings) + ", got '" + naming + "'");
  py::gil_scoped_release release;
  CsvImport imported = schedule_from_pytorch_csv(text, source, *parsed);
  if (with_comms) return {std::move(imported.lowered)};
  return {LoweredSchedule{std::move(imported.schedule), "", {}}};
}

}  // namespace

void register_schedule(py::module_& m) {
  py::class_<PySchedule>(m, "Schedule")
      .def_property_readonly("name", [](const PySchedule& s) { return s.lowered.schedule.name; })
      .def_property_readonly("devices", [](const PySchedule& s) { return s.lowered.schedule.devices; })
      .def_property_readonly("stages", [](const PySchedule& s) { return s.lowered.schedule.stages; })
      .def_property_readonly("microbatches", [](const PySchedule& s) { return s.lowered.schedule.microbatches; })
      .def_property_readonly("placement", [](const PySchedule& s) { return s.lowered.schedule.placement; })
      .def_property_readonly("op_count", [](const PySchedule& s) { return s.lowered.schedule.op_count(); })
      .def_property_readonly("has_communication", [](const PySchedule& s) { return has_communication(s.lowered); })
      .def_property_readonly("order",
                             [](const PySchedule& s) {
                               py::list devices;
                               for (const std::vector<Op>& ops : s.lowered.schedule.order) {
                                 py::list row;
                                 for (const Op& op : ops) row.append(op_tuple(op));
                                 devices.append(row);
                               }
                               return devices;
                             })
      .def("to_json", [](const PySchedule& s) {
        // What `pipeplan generate` and `import` write, byte for byte.
        return has_communication(s.lowered) ? lowered_json_text(s.lowered) : schedule_json_text(s.lowered.schedule);
      });
  m.def("from_json", &from_json_text, py::arg("text"), py::arg("source") = "<json>");
  m.def("from_pytorch_csv", &from_csv_text, py::arg("text"), py::arg("source") = "<csv>", py::arg("naming") = "auto",
        py::arg("with_comms") = false);
  m.def("read_text", [](const std::string& path) {
    py::gil_scoped_release release;
    return read_text_file(path);
  });
  m.def("load_json", [](const std::string& path) {
    py::gil_scoped_release release;
    return PySchedule{read_lowered_file(path)};
  });
}

}  // namespace pipeplan::python
