#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "io/atomic_file.hpp"
#include "test_support.hpp"

using namespace pipeplan;
namespace fs = std::filesystem;

namespace {

std::string content_of(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

TEST_CASE("a file is written whole and leaves no temporary behind") {
  fs::path dir = fs::temp_directory_path() / "pipeplan_atomic_test";
  fs::remove_all(dir);
  fs::create_directories(dir);
  write_file_atomically((dir / "out.json").string(), "old");
  write_file_atomically((dir / "out.json").string(), "new content");
  CHECK(content_of(dir / "out.json") == "new content");
  CHECK(std::distance(fs::directory_iterator(dir), fs::directory_iterator()) == 1);
  fs::remove_all(dir);
}

TEST_CASE("an unwritable path is an error that names it") {
  CHECK(test::error_of([] { write_file_atomically("/no/such/dir/out.json", "x"); }) ==
        "cannot write /no/such/dir/out.json: No such file or directory");
}
