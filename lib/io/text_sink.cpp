#include "io/text_sink.hpp"

#include <utility>

namespace pipeplan {

TextSink::TextSink(Destination destination, std::size_t chunk) : destination_(std::move(destination)), chunk_(chunk) {
  buffer_.reserve(chunk_ + chunk_ / 4);  // a record past the chunk does not reallocate
}

void TextSink::flush() {
  if (buffer_.empty()) return;
  destination_(buffer_);
  buffer_.clear();
}

}  // namespace pipeplan
