#pragma once
// The Python module _pipeplan (python/pipeplan/__init__.py wraps it): each file registers one part.
// The rules stay in the library: these files convert between Python and the library's types and
// call the same functions the command line calls (lib/io/cost_flags.hpp, generate_request.hpp,
// run_flags.hpp), so a value is accepted or refused, and timed, exactly as `pipeplan` does.
#include <pybind11/pybind11.h>

#include "model/lowered.hpp"

namespace pipeplan::python {

/// A schedule as Python holds it: the compute ops and, for a file lowered already, its sends and
/// receives (what --comm blocking or rendezvous runs).
struct PySchedule {
  LoweredSchedule lowered;
};

void register_schedule(pybind11::module_& m);  // schedule.cpp: Schedule, from_json, from_pytorch_csv, load
void register_run(pybind11::module_& m);       // run.cpp: generate, simulate, validate, Result
void register_catalog(pybind11::module_& m);   // catalog.cpp: generators, gpus, version
void register_plan(pybind11::module_& m);      // plan.cpp: plan, profile

}  // namespace pipeplan::python
