#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>

#include "io/read_file.hpp"
#include "test_support.hpp"

using namespace pipeplan;
namespace fs = std::filesystem;

TEST_CASE("a file is read whole, what holds no text is an error naming it") {
  fs::path dir = fs::temp_directory_path() / "pipeplan_read_file_test";
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::ofstream(dir / "a.json") << "{\"x\": 1}\n";
  CHECK(read_text_file((dir / "a.json").string()) == "{\"x\": 1}\n");
  CHECK(test::error_of([&] { (void)read_text_file(dir.string()); }) ==
        "cannot read " + dir.string() + ": it is a directory; give a file");
  CHECK(test::error_of([] { (void)read_text_file("/dev/null"); }) == "cannot read /dev/null: it is empty");
  // Endless: stops at the first chunk instead of filling the memory.
  CHECK(test::error_of([] { (void)read_text_file("/dev/zero"); }) ==
        "cannot read /dev/zero: not a text file (it holds a NUL byte)");
  CHECK(test::error_of([&] { (void)read_text_file((dir / "none.json").string()); }) ==
        "cannot read " + (dir / "none.json").string() + ": No such file or directory");
  fs::remove_all(dir);
}
