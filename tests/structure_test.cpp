#include <doctest/doctest.h>

#include "model/structure.hpp"
#include "test_support.hpp"

using namespace pipeplan;
using pipeplan::test::generated;

namespace {

std::vector<Problem> problems_of(const Schedule& s) {
  return find_structure_problems(s);
}

}  // namespace

TEST_CASE("a generated schedule has no structural problem") {
  CHECK(problems_of(generated("zbh1", 4, 8)).empty());
}

TEST_CASE("a missing op is named with the device that should run it") {
  Schedule s = generated("1f1b", 3, 4);
  s.order[1].erase(s.order[1].begin() + 2);  // F0 F1 [BW0] F2 ...
  auto p = problems_of(s);
  REQUIRE(p.size() == 1);
  CHECK(p[0].kind == ProblemKind::Missing);
  CHECK(p[0].device == 1);
  CHECK(p[0].message == "missing B(s1,m0) or BW: device 1 holds stage 1 but never runs it");
  CHECK_FALSE(allows_timing(p));
}

TEST_CASE("missing ops are listed up to a thousand, then counted") {
  // 1F1B on 2 devices with 2 micro-batches, its header claiming 100,000: every other micro-batch
  // lacks F and its backward on both stages, 2 x 2 x 99,998 = 399,992 missing ops. A problem each
  // took gigabytes at larger sizes (a fuzzer's 4 KiB CSV asked for six million).
  Schedule s = generated("1f1b", 2, 2);
  s.microbatches = 100'000;
  const auto p = problems_of(s);
  REQUIRE(p.size() == 1001);
  for (std::size_t i = 0; i < 1000; ++i) CHECK(p[i].kind == ProblemKind::Missing);
  CHECK(p[0].message == "missing F(s0,m2): device 0 holds stage 0 but never runs it");
  CHECK(p[1000].kind == ProblemKind::Missing);
  CHECK(p[1000].device == -1);
  CHECK(p[1000].message ==
        "and 398992 more missing ops (399992 in all, the first 1000 listed): the file runs far fewer ops than its 2 "
        "stages and 100000 micro-batches need");
}

TEST_CASE("a file far from complete gets one problem, not a census of every slot") {
  // 1F1B on 2 devices with 1 micro-batch (4 ops) whose header claims 3,000,000 micro-batches:
  // 6,000,000 slots, past the 4,000,000 a census is built for when the ops cannot fill them, and
  // at least 2 x 6,000,000 ops needed. One problem, named by its numbers, and no 360 MB census.
  Schedule s = generated("1f1b", 2, 1);
  s.microbatches = 3'000'000;
  const auto p = problems_of(s);
  REQUIRE(p.size() == 1);
  CHECK(p[0].kind == ProblemKind::Missing);
  CHECK(p[0].device == -1);
  CHECK(p[0].message ==
        "the file holds 4 ops where its 2 stages and 3000000 micro-batches need at least 12000000 (an F and a "
        "backward for each): too few to check one by one, so none is named");
  CHECK_FALSE(allows_timing(p));
}

TEST_CASE("a repeated op says how often and where it first appears") {
  Schedule s = generated("zbh1", 2, 2);
  s.order[0].push_back({OpKind::W, 0, 1});
  auto p = problems_of(s);
  REQUIRE(p.size() == 1);
  CHECK(p[0].kind == ProblemKind::Repeated);
  CHECK(p[0].message == "W(s0,m1) appears 2 times (first at order[0][5]): expected once");
}

TEST_CASE("an op on a device that does not hold its stage") {
  Schedule s = generated("gpipe", 2, 1);
  s.order[1].insert(s.order[1].begin(), Op{OpKind::F, 0, 0});
  s.order[0].erase(s.order[0].begin());
  auto p = problems_of(s);
  REQUIRE(p.size() >= 1);
  CHECK(p[0].kind == ProblemKind::WrongDevice);
  CHECK(p[0].message == "order[1][0] F(s0,m0) is on device 1, but stage 0 lives on device 0");
}

TEST_CASE("a backward before its forward on the same device is misordered, and still timeable") {
  Schedule s = generated("1f1b", 1, 2);  // F0 BW0 F1 BW1 on one device
  std::swap(s.order[0][2], s.order[0][3]);
  auto p = problems_of(s);
  REQUIRE(p.size() == 1);
  CHECK(p[0].kind == ProblemKind::Misordered);
  CHECK(p[0].message == "order[0][2] BW(s0,m1) comes before order[0][3] F(s0,m1), which it needs");
  CHECK(allows_timing(p));
}

TEST_CASE("a fused BW beside a split B of the same micro-batch") {
  Schedule s = generated("zbh1", 1, 1);  // F0 B0 W0
  s.order[0][2] = Op{OpKind::BW, 0, 0};
  auto p = problems_of(s);
  REQUIRE(!p.empty());
  CHECK(p[0].kind == ProblemKind::MixedBackward);
}

TEST_CASE("out-of-range ops and inconsistent headers") {
  Schedule s = generated("gpipe", 2, 2);
  s.order[0].push_back({OpKind::F, 5, 0});
  auto p = problems_of(s);
  REQUIRE(!p.empty());
  CHECK(p[0].kind == ProblemKind::OutOfRange);

  Schedule h = generated("gpipe", 2, 2);
  h.placement = {0, 2};
  h.order.pop_back();
  auto q = problems_of(h);
  REQUIRE(q.size() == 2);
  CHECK(q[0].message == "placement[1] is device 2: expected 0 to 1");
  CHECK(q[1].message == "order has 1 device lists: expected 2");
}

TEST_CASE("every problem is reported, not only the first") {
  Schedule s = generated("1f1b", 2, 3);
  s.order[0].clear();
  // Device 0 lost 3 F and 3 BW of stage 0.
  CHECK(problems_of(s).size() == 6);
}
