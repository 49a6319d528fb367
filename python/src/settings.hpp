#pragma once
// The keywords of pipeplan.plan and pipeplan.profile beside their positional arguments, each
// named after the command line's flag (dashes as underscores) and written into the same
// ModelFlags, PlanFlags or ProfileFlags the flag fills, so lib/io reads and checks them as it
// reads the command line's.
#include <pybind11/pybind11.h>

#include "io/model_flags.hpp"
#include "io/plan_flags.hpp"
#include "io/profile_flags.hpp"

namespace pipeplan::python {

struct Settings {
  ModelFlags model;
  PlanFlags plan;
  ProfileFlags profile;
  bool breakdown = false;
};

/// Which command a keyword belongs to: the model's settings are both commands'.
enum class Command : unsigned char { Plan, Profile };

/// Sets each of `fixed` (keyword: value) in `s`; FlagError naming an unknown keyword of
/// `command` with the closest one, or a value of the wrong type.
void apply_settings(Settings& s, Command command, const pybind11::dict& fixed);

}  // namespace pipeplan::python
