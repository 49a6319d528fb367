#include "picture_options.hpp"

#include "file_roles.hpp"

namespace pipeplan::cli {

void add_picture_options(CLI::App& sub, PictureFlags& flags) {
  sub.add_option("--svg", flags.svg, "Also draw the timeline as SVG into this file")
      ->type_name("FILE")
      ->check(file_name());
  sub.add_option("--trace", flags.trace, "Also write a Chrome trace (Perfetto) into this file")
      ->type_name("FILE")
      ->check(file_name());
}

}  // namespace pipeplan::cli
