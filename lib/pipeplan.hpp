#pragma once
// The installed library in one include: #include <pipeplan/pipeplan.hpp> with pipeplan::pipeplan
// linked (cmake/Install.cmake). Each header below says what it does; docs/architecture.md says
// how the layers stack.
#include "costs/cost_model.hpp"
#include "io/cost_flags.hpp"
#include "io/generate_request.hpp"
#include "io/profile_json.hpp"
#include "io/pytorch_csv.hpp"
#include "io/result_json.hpp"
#include "io/run_flags.hpp"
#include "io/schedule_json.hpp"
#include "io/version.hpp"
#include "model/error.hpp"
#include "model/schedule.hpp"
#include "model/size_string.hpp"
#include "schedules/generator.hpp"
#include "sim/simulator.hpp"
#include "validate/validator.hpp"
