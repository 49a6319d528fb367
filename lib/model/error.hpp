#pragma once
// The one exception type the library throws. Its message names the input (file, field or
// parameter) and what was expected; apps/ turns it into "pipeplan: error: ..." and exit code 1.
#include <stdexcept>

namespace pipeplan {

class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace pipeplan
