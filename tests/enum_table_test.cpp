#include <doctest/doctest.h>

#include <set>
#include <string>

#include "estimate/training.hpp"
#include "io/pytorch_csv.hpp"
#include "lower/lowering.hpp"
#include "model/enum_table.hpp"
#include "model/name_fold.hpp"
#include "sim/comm_mode.hpp"
#include "sim/sim_result.hpp"

using namespace pipeplan;

namespace {

// Every row names its value and back, in any case; names and values are each unique; each row
// describes itself (the CLI's help shows it).
template <class E, std::size_t N>
void check_table(const EnumTable<E, N>& table) {
  std::set<std::string> names;
  std::set<E> values;
  for (const EnumName<E>& row : table) {
    CHECK(names.insert(folded(row.name)).second);
    CHECK(values.insert(row.value).second);
    CHECK(!row.description.empty());
    CHECK(enum_name(table, row.value) == row.name);
    CHECK(enum_named(table, row.name) == row.value);
    std::string upper(row.name);
    for (char& c : upper) c = static_cast<char>(c >= 'a' && c <= 'z' ? c - 'a' + 'A' : c);
    CHECK(enum_named(table, upper) == row.value);
  }
  CHECK(!enum_named(table, "no-such-name").has_value());
  CHECK(!enum_named(table, "").has_value());
}

}  // namespace

TEST_CASE("every enum table names each value once and parses its names back") {
  check_table(kCommModes);
  check_table(kLowerPolicies);
  check_table(kOptimizerModes);
  check_table(kCsvNamings);
  check_table(kDTypes);
  check_table(kRecomputes);
}

TEST_CASE("the named functions are the tables") {
  CHECK(comm_mode_name(CommMode::Rendezvous) == "rendezvous");
  CHECK(parse_comm_mode("Blocking") == CommMode::Blocking);
  CHECK(policy_name(LowerPolicy::JustBefore) == "just-before");
  CHECK(optimizer_mode_name(OptimizerMode::PostValidation) == "post-validation");
  CHECK(parse_optimizer_mode("SYNC") == OptimizerMode::Sync);
  CHECK(csv_naming_name(CsvNaming::Legacy) == "legacy");
  CHECK(dtype_named("FP16") == DType::FP16);
  CHECK(recompute_name(Recompute::Selective) == "selective");
  CHECK(all_policies().size() == kLowerPolicies.size());
}

TEST_CASE("the choices read as a sentence") {
  CHECK(enum_choices(kLowerPolicies) == "just-before, early, megatron, batched or timed");
  CHECK(enum_choices(kOptimizerModes) == "sync or post-validation");
  constexpr EnumTable<int, 1> one = {{{"only", 0, "the one"}}};
  CHECK(enum_choices(one) == "only");
}
