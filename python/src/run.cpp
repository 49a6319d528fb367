// generate, simulate and validate, with the costs and flags as texts: the package's keyword
// arguments arrive here as the command line's flag values (python/pipeplan/__init__.py writes them),
// so lib/io/cost_flags.hpp, generate_request.hpp and run_flags.hpp accept and refuse them. Each
// call releases the GIL while the library works.
#include <pybind11/stl.h>

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "bindings.hpp"
#include "io/generate_request.hpp"
#include "io/json_text.hpp"
#include "io/profile_json.hpp"
#include "io/pytorch_csv.hpp"
#include "io/reports.hpp"
#include "io/result_json.hpp"
#include "io/run_flags.hpp"
#include "io/text_sink.hpp"
#include "model/dependencies.hpp"
#include "model/error.hpp"
#include "model/units.hpp"
#include "validate/validator.hpp"

namespace py = pybind11;

namespace pipeplan::python {

namespace {

// The costs of a call: the flags' texts, or a profile already loaded (a dict, as JSON text).
struct CostSpec {
  CostFlags flags;
  std::string profile_json;  ///< a loaded profile's document; "" when none
  std::string profile_name;  ///< what messages call it: "profile", or "per-stage costs" for the lists

  [[nodiscard]] CostModel given(int devices) const {
    if (profile_json.empty()) return given_costs(flags, devices);
    CostModel costs = profile_from_json(parse_json(profile_json, profile_name), profile_name);
    default_devices(costs, devices);
    return costs;
  }
  [[nodiscard]] CostModel fitted(int stages, int devices) const {
    return fit_costs(given(devices), flags, stages, devices);
  }
};

// One column of numbers for numpy.asarray (the buffer protocol): no Python object per op.
template <class T>
struct Column {
  std::vector<T> values;
};

template <class T>
void register_column(py::module_& m, const char* name) {
  py::class_<Column<T>>(m, name, py::buffer_protocol())
      .def_buffer([](Column<T>& c) {
        return py::buffer_info(c.values.data(), sizeof(T), py::format_descriptor<T>::format(), 1, {c.values.size()},
                               {sizeof(T)});
      })
      .def("__len__", [](const Column<T>& c) { return c.values.size(); });
}

// The outcome of simulate: the run and the schedule it timed (for to_json).
struct PyResult {
  Schedule schedule;
  LoweredRun run;
  bool timeline = true;
};

struct OpColumns {
  Column<std::int32_t> device, iteration, stage, microbatch;
  Column<std::uint8_t> kind;
  Column<double> start_ms, end_ms;
};

OpColumns op_columns(const SimResult& r) {
  OpColumns c;
  std::size_t n = 0;
  for (const DeviceTimeline& d : r.devices) n += d.ops.size();
  for (auto* v : {&c.device.values, &c.iteration.values, &c.stage.values, &c.microbatch.values}) v->reserve(n);
  c.kind.values.reserve(n);
  c.start_ms.values.reserve(n);
  c.end_ms.values.reserve(n);
  for (const DeviceTimeline& d : r.devices) {
    for (const OpTiming& t : d.ops) {
      c.device.values.push_back(t.device);
      c.iteration.values.push_back(t.iteration);
      c.stage.values.push_back(t.op.stage);
      c.microbatch.values.push_back(t.op.microbatch);
      c.kind.values.push_back(static_cast<std::uint8_t>(t.op.kind));
      c.start_ms.values.push_back(ns_to_ms(t.start));
      c.end_ms.values.push_back(ns_to_ms(t.end));
    }
  }
  return c;
}

PySchedule generate(const std::string& name, int stages, int microbatches, int chunks, bool chunks_given, int group,
                    bool group_given, const CostSpec& costs, const std::string& cost_given,
                    const std::string& memory_limit, const std::string& optimizer_mode, int iterations,
                    const std::string& objective_given) {
  py::gil_scoped_release release;
  const Generator& generator = generator_named(name);
  RequestFlags flags;
  flags.request.devices = stages;
  flags.request.microbatches = microbatches;
  flags.request.group = group;
  flags.chunks = chunks;
  flags.memory_limit = memory_limit;
  GivenFlags given{chunks_given, group_given, cost_given, objective_given};
  const Generator* chosen[] = {&generator};
  check_flags_apply(chosen, flags, given, true);
  const SimOptions objective = sim_options_of(iterations, optimizer_mode);
  Generated g = generate_for(generator, flags, costs.given(stages), costs.flags, objective);
  return {LoweredSchedule{std::move(g.schedule), "", {}}};
}

PyResult simulate(const PySchedule& s, const CostSpec& costs, const CommFlags& comm, int iterations,
                  const std::string& optimizer_mode, bool timeline) {
  py::gil_scoped_release release;
  const Schedule& schedule = s.lowered.schedule;
  const CostModel model = costs.fitted(schedule.stages, schedule.devices);
  SimOptions options = sim_options_of(iterations, optimizer_mode);
  options.record_timeline = timeline;
  LoweredRun run = simulate_under(s.lowered, model, options, comm, "the schedule");
  const SimResult& result = run.run.result;
  if (result.deadlocked()) {  // as `pipeplan simulate` says it
    const BlockedDevice& b = result.deadlock.front();
    throw Error("the schedule deadlocks (device " + std::to_string(b.device) + " is stuck at " + describe(b.head) +
                "); pipeplan.validate lists every blocked device");
  }
  return {schedule, std::move(run), timeline};
}

py::list validate_schedule(const PySchedule& s, const CostSpec& costs, const CommFlags& comm,
                           const std::string& memory_limit) {
  std::vector<Problem> problems;
  {
    py::gil_scoped_release release;
    ValidateOptions options;
    if (!memory_limit.empty()) {
      options.memory_limit = parse_size_flag(memory_limit, "--memory-limit");
      if (!has_memory_costs(costs.flags) && costs.profile_json.empty()) {
        throw FlagError("--memory-limit needs memory costs: give --profile FILE or --memory A_F,A_W");
      }
    }
    const Schedule& schedule = s.lowered.schedule;
    const CostModel model = costs.fitted(schedule.stages, schedule.devices);
    problems = validate_lowered(s.lowered, model, comm_run(comm, s.lowered, {}), options);
  }
  py::list out;
  for (const Problem& p : problems) {
    py::dict d;
    d["kind"] = std::string(problem_kind_name(p.kind));
    d["device"] = p.device;
    d["message"] = p.message;
    out.append(d);
  }
  return out;
}

// Schedule.to_pytorch_csv: `pipeplan export --format csv [--with-comms]`. With the sends and
// receives, a schedule without its own is lowered by --policy (default timed) with the costs, as
// export lowers it; without them, costs and a policy would be ignored, so they are refused.
std::string pytorch_csv(const PySchedule& s, bool with_comms, const CostSpec& costs, const std::string& cost_given,
                        const std::string& policy) {
  if (!with_comms) {
    if (!cost_given.empty())
      throw FlagError(cost_given + ": the CSV without with_comms is not timed; give with_comms=True");
    if (!policy.empty()) throw FlagError("--policy: applies to the CSV with_comms=True");
    return schedule_to_pytorch_csv(s.lowered.schedule);
  }
  py::gil_scoped_release release;
  const Schedule& schedule = s.lowered.schedule;
  return lowered_to_pytorch_csv(lowering_for(s.lowered, policy, costs.fitted(schedule.stages, schedule.devices)));
}

}  // namespace

void register_run(py::module_& m) {
  register_column<std::int32_t>(m, "_Int32Column");
  register_column<std::uint8_t>(m, "_UInt8Column");
  register_column<double>(m, "_DoubleColumn");

  py::class_<CostSpec>(m, "_Costs")
      .def(py::init([](std::string profile, std::string costs, std::string transfer, std::string memory,
                       std::string profile_json, std::string profile_name) {
             return CostSpec{{std::move(profile), std::move(costs), std::move(transfer), std::move(memory)},
                             std::move(profile_json),
                             std::move(profile_name)};
           }),
           py::arg("profile") = "", py::arg("costs") = "", py::arg("transfer") = "", py::arg("memory") = "",
           py::arg("profile_json") = "", py::arg("profile_name") = "profile")
      .def("describe", [](const CostSpec& c) { return describe_costs(c.flags); });

  py::class_<CommFlags>(m, "_Comm")
      .def(py::init([](std::string mode, std::string policy) {
             return CommFlags{std::move(mode), std::move(policy)};
           }),
           py::arg("mode") = "overlap", py::arg("policy") = "");

  py::class_<PyResult>(m, "Result")
      .def_property_readonly("makespan_ms", [](const PyResult& r) { return ns_to_ms(r.run.run.result.makespan); })
      .def_property_readonly("step_ms", [](const PyResult& r) { return ns_to_ms(r.run.run.result.step_time()); })
      .def_property_readonly("bubble_rate", [](const PyResult& r) { return r.run.run.result.bubble_rate(); })
      .def_property_readonly("span_bubble_rate", [](const PyResult& r) { return r.run.run.result.span_bubble_rate(); })
      .def_property_readonly("lower_bound_ms", [](const PyResult& r) { return ns_to_ms(r.run.run.result.lower_bound); })
      .def_property_readonly("comm", [](const PyResult& r) { return std::string(comm_mode_name(r.run.mode)); })
      .def_property_readonly("_devices",
                             [](const PyResult& r) {
                               // The per-device figures of the result JSON (io/result_json_writer.cpp).
                               const SimResult& s = r.run.run.result;
                               py::list out;
                               for (std::size_t i = 0; i < s.devices.size(); ++i) {
                                 const DeviceTimeline& t = s.devices[i];
                                 py::dict d;
                                 d["device"] = i;
                                 d["busy_ms"] = ns_to_ms(t.busy());
                                 d["idle_ms"] = ns_to_ms(s.makespan - t.busy());
                                 d["static_memory_bytes"] = t.static_memory;
                                 d["peak_memory_bytes"] = t.peak_memory;
                                 d["peak_time_ms"] = ns_to_ms(t.peak_time);
                                 out.append(d);
                               }
                               return out;
                             })
      .def("_op_columns",
           [](const PyResult& r) {
             if (!r.timeline) throw Error("ops: simulated with timeline=False, which keeps no op's times");
             OpColumns c = op_columns(r.run.run.result);
             return py::make_tuple(std::move(c.device), std::move(c.iteration), std::move(c.kind), std::move(c.stage),
                                   std::move(c.microbatch), std::move(c.start_ms), std::move(c.end_ms));
           })
      .def("to_json", [](const PyResult& r) {
        if (!r.timeline) throw Error("to_json: simulated with timeline=False, which keeps no op's times");
        return collect_text([&](TextSink& out) { write_result_json(out, r.schedule, r.run); });
      });

  m.def("_generate", &generate);
  m.def("_simulate", &simulate);
  m.def("_validate", &validate_schedule);
  m.def("_pytorch_csv", &pytorch_csv);
}

}  // namespace pipeplan::python
