#include "io/version.hpp"

namespace pipeplan {

std::string tool_version() {
  return std::string("pipeplan ") + PIPEPLAN_VERSION_STRING;
}

}  // namespace pipeplan
