#pragma once
// The library's exception types. Their messages name the input (file, field or parameter) and
// what was expected; apps/ turns an Error into "pipeplan: error: ..." and exit code 1 (2 for a
// FlagError).
#include <stdexcept>

namespace pipeplan {

class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// A value the caller wrote that is malformed in itself ("--costs: expected F,B,W ..."), as
/// opposed to an input that is well-formed but wrong: the command line exits 2 for it, not 1, and
/// the Python package raises both as pipeplan.Error.
class FlagError : public Error {
 public:
  using Error::Error;
};

}  // namespace pipeplan
