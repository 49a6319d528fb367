#pragma once
#include <functional>
#include <string>

#include "io/text_sink.hpp"

namespace pipeplan::cli {

/// Writes `content` to `path` whole or not at all, or to stdout when `path` is empty or "-".
void emit(const std::string& path, const std::string& content);

/// What `write` streams, to the same places: to stdout piece by piece as it comes, so a large
/// result or trace never sits whole in memory; to a file whole or not at all, as emit() does.
void emit_streamed(const std::string& path, const std::function<void(TextSink&)>& write);

}  // namespace pipeplan::cli
