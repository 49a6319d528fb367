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

TEST_CASE("a file written in pieces appears whole on commit, and not at all without it") {
  fs::path dir = fs::temp_directory_path() / "pipeplan_atomic_pieces_test";
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string path = (dir / "out.json").string();
  write_file_atomically(path, "old");
  {
    AtomicFile file(path);
    file.write("new ");
    file.write("content");
    CHECK(content_of(dir / "out.json") == "old");  // nothing shows before the commit
    file.commit();
  }
  CHECK(content_of(dir / "out.json") == "new content");
  {
    AtomicFile file(path);
    file.write("half of a text the writer never finishes");
  }  // destroyed without commit, as when the writer throws
  CHECK(content_of(dir / "out.json") == "new content");
  CHECK(std::distance(fs::directory_iterator(dir), fs::directory_iterator()) == 1);
  {
    AtomicFile file((dir / "fresh.json").string());
    file.write("x");
  }
  CHECK(!fs::exists(dir / "fresh.json"));
  CHECK(std::distance(fs::directory_iterator(dir), fs::directory_iterator()) == 1);
  fs::remove_all(dir);
}

TEST_CASE("an unwritable path is an error that names it") {
  CHECK(test::error_of([] { write_file_atomically("/no/such/dir/out.json", "x"); }) ==
        "cannot write /no/such/dir/out.json: No such file or directory");
}

TEST_CASE("a regular file keeps its mode, a read-only one is refused and kept") {
  fs::path dir = fs::temp_directory_path() / "pipeplan_atomic_mode_test";
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string path = (dir / "private.json").string();
  write_file_atomically(path, "old");
  fs::permissions(path, fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);
  write_file_atomically(path, "new");
  CHECK(content_of(path) == "new");
  CHECK(fs::status(path).permissions() == (fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read));
  fs::permissions(path, fs::perms::owner_read | fs::perms::group_read);
  CHECK(test::error_of([&] { write_file_atomically(path, "newer"); }) ==
        "cannot write " + path + ": the file is read-only; make it writable (chmod u+w) or remove it first");
  CHECK(content_of(path) == "new");
  CHECK(std::distance(fs::directory_iterator(dir), fs::directory_iterator()) == 1);
  fs::remove_all(dir);
}

TEST_CASE("a symbolic link is followed: the target is replaced, the link stays") {
  fs::path dir = fs::temp_directory_path() / "pipeplan_atomic_link_test";
  fs::remove_all(dir);
  fs::create_directories(dir / "real");
  fs::create_symlink("real/target.json", dir / "link.json");  // dangling at first
  CHECK(follow_links((dir / "link.json").string()) == (dir / "real/target.json").string());
  write_file_atomically((dir / "link.json").string(), "one");
  write_file_atomically((dir / "link.json").string(), "two");
  CHECK(fs::is_symlink(dir / "link.json"));
  CHECK(content_of(dir / "real/target.json") == "two");
  fs::create_symlink("loop.json", dir / "loop.json");
  CHECK(test::error_of([&] { write_file_atomically((dir / "loop.json").string(), "x"); }) ==
        "cannot write " + (dir / "loop.json").string() + ": Too many levels of symbolic links");
  fs::remove_all(dir);
}

TEST_CASE("a character device is written in place, not replaced") {
  write_file_atomically("/dev/null", "nothing lost");
  CHECK(fs::is_character_file("/dev/null"));
  if (fs::exists("/dev/full")) {
    CHECK(test::error_of([] { write_file_atomically("/dev/full", "x"); }) ==
          "cannot write /dev/full: No space left on device");
  }
}
