// The module's entry point, and the one exception type Python sees: every pipeplan::Error (a
// FlagError too) becomes pipeplan.Error, a ValueError, with the library's message, which is the
// command line's ("--costs: expected F,B,W in milliseconds, got '1,2'").
#include "bindings.hpp"

#include "model/error.hpp"

PYBIND11_MODULE(_pipeplan, m) {
  m.doc() = "pipeplan's library: pipeline-parallel schedules, their simulation and their files";
  pybind11::register_exception<pipeplan::Error>(m, "Error", PyExc_ValueError);
  pipeplan::python::register_schedule(m);
  pipeplan::python::register_run(m);
  pipeplan::python::register_catalog(m);
  pipeplan::python::register_plan(m);
}
