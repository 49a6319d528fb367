#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <string_view>

#include "io/json_text.hpp"
#include "io/pytorch_csv.hpp"
#include "lower/lowering.hpp"
#include "model/error.hpp"
#include "model/structure.hpp"
#include "sim/comm_simulator.hpp"
#include "test_support.hpp"

using namespace pipeplan;

namespace {

CsvImport read(std::string_view text, CsvNaming naming = CsvNaming::Auto) {
  return schedule_from_pytorch_csv(text, "t.csv", naming);
}

// Whether test::generated must refuse: a generator that needs --memory-limit gets none, and
// interleaved and interleaved-zb follow PyTorch's rounds: floor(M/P) of them must divide M (M < P
// is one round), so M = 3P+1 is refused for P >= 2 (3 rounds, remainder 1). M >= 2P meets every
// other rule.
bool refuses(const Generator& g, int p, int m) {
  return std::string_view(g.constraints).find("--memory-limit") != std::string_view::npos ||
         ((g.name == "interleaved" || g.name == "interleaved-zb") && m % std::max(1, m / p) != 0);
}

}  // namespace

TEST_CASE("every generator's schedule survives a round trip through the CSV") {
  for (const Generator& g : generators()) {
    for (int p : {1, 2, 4}) {
      for (int m : {2 * p, 3 * p + 1}) {
        CAPTURE(g.name);
        CAPTURE(p);
        CAPTURE(m);
        Schedule s;
        const std::string why = test::error_of([&] { s = test::generated(std::string(g.name), p, m); });
        CHECK(why.empty() != refuses(g, p, m));
        if (!why.empty()) continue;
        CsvImport back = read(schedule_to_pytorch_csv(s));
        CHECK(back.naming == CsvNaming::Current);
        CHECK(back.schedule.placement == s.placement);
        CHECK(back.schedule.order == s.order);
        CHECK(back.schedule.microbatches == s.microbatches);
      }
    }
  }
}

TEST_CASE("with communication, the CSV posts a lowering's sends and receives in its order") {
  // 1F1B, P = 2, M = 1 lowered just-before: device 0 runs F0 BW0, device 1 F0 BW0.
  Schedule s = test::generated("1f1b", 2, 1);
  CHECK(lowered_to_pytorch_csv(lower(s, LowerPolicy::JustBefore)) ==
        "0F0,0SEND_F0,0RECV_B0,0B0\n"
        "1RECV_F0,1F0,1B0,1SEND_B0\n");
}

TEST_CASE("every generator's timed lowering, written and imported back, runs under rendezvous") {
  // What export --with-comms writes by default: the timed lowering. NCCL pairs sends and
  // receives in posting order per link and blocks until both sides post; rendezvous models that,
  // so the imported posts must pass lowering_problems (no mispairing) and run to the end.
  for (const Generator& g : generators()) {
    for (int p : {4, 8}) {
      CAPTURE(g.name);
      CAPTURE(p);
      Schedule t;
      const std::string why = test::error_of([&] { t = test::generated(std::string(g.name), p, 2 * p); });
      CHECK(why.empty() != refuses(g, p, 2 * p));
      if (!why.empty()) continue;
      const CostModel c = test::uniform(t, 1, 1.2, 0.8);
      const std::string csv = lowered_to_pytorch_csv(lower(t, LowerPolicy::Timed, &c));
      CsvImport back = read(csv);
      CHECK(back.schedule.order == t.order);
      CHECK(back.transfers > 0);
      for (const Problem& problem : lowering_problems(back.lowered)) FAIL_CHECK(problem.message);
      CommSimResult run = simulate_with_comm(back.lowered, c, CommMode::Rendezvous);
      CHECK(run.stuck.empty());
    }
  }
}

TEST_CASE("today's naming: I is the input gradient, B the full backward") {
  CsvImport i = read("0F0,0I0,0W0\n");
  CHECK(i.schedule.order[0] == std::vector<Op>{{OpKind::F, 0, 0}, {OpKind::B, 0, 0}, {OpKind::W, 0, 0}});
  // The two-rank example of schedules.md: empty cells are idle steps; B is the full backward.
  CsvImport two = read("0F0,0F1,,0B0,,0B1\n,1F0,1B0,1F1,1B1,\n");
  CHECK(two.naming == CsvNaming::Current);
  CHECK(two.schedule.placement == std::vector<int>{0, 1});
  CHECK(two.schedule.order[1] ==
        std::vector<Op>{{OpKind::F, 1, 0}, {OpKind::BW, 1, 0}, {OpKind::F, 1, 1}, {OpKind::BW, 1, 1}});
  CHECK(find_structure_problems(two.schedule).empty());
}

TEST_CASE("CRLF line ends and a UTF-8 byte-order mark read as the plain text does") {
  // What a spreadsheet on Windows saves: the two-rank example of schedules.md.
  const std::string lf = "0F0,0F1,,0B0,,0B1\n,1F0,1B0,1F1,1B1,\n";
  const std::string crlf = "0F0,0F1,,0B0,,0B1\r\n,1F0,1B0,1F1,1B1,\r\n";
  const std::string bom = "\xEF\xBB\xBF";
  const CsvImport plain = read(lf);
  REQUIRE(plain.schedule.op_count() == 8);
  for (const std::string& text : {crlf, bom + lf, bom + crlf}) {
    CAPTURE(text);
    CsvImport other = read(text);
    CHECK(other.schedule.placement == plain.schedule.placement);
    CHECK(other.schedule.order == plain.schedule.order);
  }
  // A byte-order mark anywhere else is no action.
  CHECK(test::error_of([&] { (void)read("0F0," + bom + "0F1\n"); }).starts_with("t.csv: row 1, column 2:"));
}

TEST_CASE("the legacy naming is recognised, or can be forced") {
  // B and W of the same stage and micro-batch: B must be the input gradient.
  CsvImport legacy = read("0F0,0B0,0W0\n");
  CHECK(legacy.naming == CsvNaming::Legacy);
  CHECK(legacy.schedule.order[0][1].kind == OpKind::B);
  CHECK(read("0F0,0BW0\n").schedule.order[0][1].kind == OpKind::BW);
  CHECK(read("0F0,0B0\n", CsvNaming::Legacy).schedule.order[0][1].kind == OpKind::B);
  CHECK(test::error_of([] {
          (void)read("0F0,0I0\n", CsvNaming::Legacy);
        }).find("'I' is not an action of the legacy naming") != std::string::npos);
}

TEST_CASE("communication actions are dropped and overlapped pairs become FB ops, and both are counted") {
  CsvImport c = read("0F0,0SEND_F0,0RECV_B0,0B0,0UNSHARD\n1RECV_F0,1F0,1B0,1SEND_B0\n");
  CHECK(c.communication_actions == 5);
  CHECK(c.schedule.op_count() == 4);
  // As in DualPipeV, the pair runs two stages of one rank: F of one, full backward of the other.
  CsvImport o = read("0F0,1F0,(0F1;1B0)OVERLAP_F_B,1F1,1B1,0B0,0B1\n");
  CHECK(o.overlapped_pairs == 1);
  CHECK(o.schedule.order[0][2] == overlapped(0, 1, 1, 0));
  CHECK(o.schedule.order[0].size() == 7);  // 0F0 1F0 FB 1F1 1B1 0B0 0B1
  CHECK(find_structure_problems(o.schedule).empty());
}

TEST_CASE("malformed CSV names the row and the column") {
  CHECK(test::error_of([] { (void)read("0F0,0F1\n1F0,1Q0\n"); }) ==
        "t.csv: row 2, column 2: '1Q0': unknown action type 'Q': expected F, I, W, B or BW");
  CHECK(test::error_of([] { (void)read("0F0,F1\n"); }) ==
        "t.csv: row 1, column 2: 'F1': expected an action such as 0F0, 2I3, 1W0 or 3B1");
  CHECK(test::error_of([] { (void)read("0F0\n0B0\n"); }) ==
        "t.csv: row 2, column 1: '0B0': stage 0 also appears in row 1: a stage runs on one rank");
  CHECK(test::error_of([] { (void)read("0F0,2F0\n"); }) ==
        "t.csv: stage 1 never appears, so its rank is unknown (stages 0 to 2 are used)");
  CHECK(test::error_of([] { (void)read("\n\n"); }) == "t.csv: no actions: expected one row of actions per rank");
  CHECK(test::error_of([] { (void)read("0F0,(0F1;1B0;2B0)OVERLAP_F_B\n"); }).find("expected an overlapped pair") !=
        std::string::npos);
}

TEST_CASE("an overlapped pair must be a forward and a full backward") {
  CHECK(test::error_of([] { (void)read("0F0,1F0,(1B0;0F1)OVERLAP_F_B\n"); }).find("a forward and a backward") !=
        std::string::npos);
  CHECK(test::error_of([] {
          (void)read("0F0,1F0,(0F1;1I0)OVERLAP_F_B,1W0\n");
        }).find("the backward of an overlapped pair must be a full backward") != std::string::npos);
}

TEST_CASE("PyTorch's own files import into complete schedules") {
  for (const char* name :
       {"dualpipev_4rank_10mb.csv", "zb1p_2rank_2stagep_comms_legacy.csv", "zb1p_2rank_2stagep_compute_legacy.csv"}) {
    CAPTURE(name);
    std::string path = std::string(PIPEPLAN_TEST_DATA) + "/pytorch/" + name;
    CsvImport c = schedule_from_pytorch_csv(read_text_file(path), path);
    CHECK(find_structure_problems(c.schedule).empty());
  }
}
