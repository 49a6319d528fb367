// Layouts as Megatron-LM writes them (docs/costs.md, "Layouts").
#include <doctest/doctest.h>

#include "estimate/megatron_layout.hpp"
#include "io/model_config_json.hpp"
#include "io/plan_json.hpp"
#include "io/plan_text.hpp"
#include "plan/planner.hpp"
#include "test_support.hpp"

using namespace pipeplan;

TEST_CASE("Megatron's --pipeline-model-parallel-layout reads into the same stages") {
  // Megatron's own example shape, Et*3|(tt|)*N,m|L, without its multi-token prediction layer:
  // stage 0 holds E and 3 layers, then N stages of 2, then the loss alone (an empty stage but L).
  const Layout l = parse_layout("Et*3|(tt|)*2,L", 7, "--layout");
  CHECK(layout_string(l) == "E,t*3|t*2|t*2|H");
  CHECK(parse_layout("Et*3|(tt|)*29L", 61, "--layout").size() == 31);  // DeepSeek-V3's 61 layers
  // pipeplan's layouts in Megatron's notation and back; H is read as L, commas are cosmetic.
  const Layout ours = parse_layout("E,t*7|t*8|t*8|t*7,H", 30, "x");
  CHECK(megatron_layout_string(ours) == "Et*7|t*8|t*8|t*7L");
  CHECK(layout_string(parse_layout("Et*7|t*8|t*8|t*7L", 30, "x")) == "E,t*7|t*8|t*8|t*7,H");
  CHECK(layout_string(parse_layout("Et*7|t*8, t*8|t*7H", 30, "x")) == "E,t*7|t*16|t*7,H");
  // Megatron allows a stage with nothing on it.
  CHECK(layout_string(parse_layout("Et*4||t*4L", 8, "x")) == "E,t*4||t*4,H");
  CHECK(!is_megatron_layout("E,t*7|t*8,H"));
  CHECK(is_megatron_layout("Et*7|t*8L"));
}

TEST_CASE("a Megatron layout that cannot be right says why") {
  const auto error = [](const char* text) { return test::error_of([&] { (void)parse_layout(text, 8, "--layout"); }); };
  CHECK(error("Et*3|(tt|)*2,m|L").find("m (a multi-token prediction layer) must come just before L") !=
        std::string::npos);
  CHECK(error("Et*4|(t*4L").find("a '(' without its ')'") != std::string::npos);
  CHECK(error("Et*4|t*4)L").find("a ')' without its '('") != std::string::npos);
  CHECK(error("Et*0|t*8L").find("'*' needs a whole number of repetitions from 1") != std::string::npos);
  CHECK(error("tEt*7L").find("E (the embedding) must be the first piece of the first stage") != std::string::npos);
  CHECK(error("Et*4L|t*4").find("L (the loss) must be the last piece of the last stage") != std::string::npos);
  CHECK(error("Et*4|t*3L").find("the stages hold 7 layers, the model has 8") != std::string::npos);
  CHECK(error("Et*4|x*4L").find("unknown character 'x'") != std::string::npos);
  CHECK(error("Et*8").find("the last stage must end with L (the loss)") != std::string::npos);
}

TEST_CASE("a Megatron layout's multi-token prediction layers stand with the loss, as pipeplan plans them") {
  // Megatron-Bridge's DeepSeek-V3 layout at pp 2 x vp 8 (its recipes' "Et*4|(t*4|)*14tmL"):
  // the MTP layer with the last decoder layer and the loss, where pipeplan's head holds it.
  const Layout deepseek = parse_layout("Et*4|(t*4|)*14tmL", 61, "--layout", 1);
  CHECK(deepseek.size() == 16);
  CHECK(layout_string(deepseek) == layout_string(parse_layout("Et*4|(t*4|)*14tL", 61, "--layout", 1)));  // no m: same
  CHECK(megatron_layout_string(deepseek, 1) == "Et*4|t*4|t*4|t*4|t*4|t*4|t*4|t*4|t*4|t*4|t*4|t*4|t*4|t*4|t*4|tmL");
  CHECK(megatron_layout_string(parse_layout("Et*3|t*4H", 7, "x"), 3) == "Et*3|t*4m*3L");  // Megatron unrolls m*3
  CHECK(layout_string(parse_layout("Et*3|t*4m*3L", 7, "x", 3)) == "E,t*3|t*4,H");
  const auto error = [](const char* text, int mtp) {
    return test::error_of([&] { (void)parse_layout(text, 8, "--layout", mtp); });
  };
  // Megatron asks the m's to number --mtp-num-layers; pipeplan, its model's.
  CHECK(error("Et*4|t*4mmL", 1).find("it names 2 multi-token prediction layers (m), the model has 1") !=
        std::string::npos);
  CHECK(error("Et*4|t*4mL", 0).find("the model has 0") != std::string::npos);
  // On the loss's stage, alone with it, the m is where pipeplan plans it; on a stage before the
  // loss's (Megatron's standalone MTP) or among the layers it is not.
  CHECK(error("Et*4|t*4|mL", 1).empty());
  CHECK(error("Et*4|t*4m|L", 1).find("must come just before L") != std::string::npos);
  CHECK(error("Et*4|t*2mt*2L", 1).find("must come just before L") != std::string::npos);
}

TEST_CASE("Megatron's even split, and padded: the embedding and the loss counted as a layer") {
  CHECK(layout_string(*even_layout(4, 8, false)) == "E,t*2|t*2|t*2|t*2,H");
  CHECK(!even_layout(3, 8, false));  // Megatron refuses 8 layers on 3 stages
  // Padded: 8 layers + 2 = 10 pieces, 2 a stage; the first and last stages hold one layer fewer.
  CHECK(layout_string(*even_layout(5, 8, true)) == "E,t|t*2|t*2|t*2|t,H");
  CHECK(layout_string(*even_layout(1, 8, true)) == "E,t*8,H");
  CHECK(!even_layout(4, 8, true));
  // Llama-3-70B: 80 layers + 2 = 82 = 2 x 41, so padded splits only into 2, 41 or 82 stages.
  CHECK(layout_string(*even_layout(2, 80, true)) == "E,t*40|t*40,H");
  CHECK(!even_layout(8, 80, true));
}

TEST_CASE("the planner takes --layout even or padded for every stage count, and writes Megatron's notation") {
  PlanRequest r;
  r.model = read_model_config_file(PIPEPLAN_TEST_DATA "/models/tiny-llama.json");
  r.training.seq = 256;
  r.training.global_batch = 16;
  r.gpu = &gpu_named("h100");
  r.gpus = 4;
  r.schedules = {"1f1b", "interleaved"};
  r.search = {false, false, false, false};
  r.layout = "padded";
  const PlanOutcome out = plan(r);
  REQUIRE(!out.rows.empty());
  for (const PlanRow& row : out.rows) {
    CHECK(row.layout == layout_string(*even_layout(row.pp * row.chunks, 8, true)));
    CHECK(row.megatron_layout == megatron_layout_string(parse_layout(row.layout, 8, "x")));
  }
  // 10 pieces on 4 stages (pp 4, or pp 2 x 2 chunks) do not split: refused, by name.
  const auto refused = [&](const std::string& reason) {
    return out.refused.count(reason) > 0 ? out.refused.at(reason) : 0;
  };
  CHECK(refused("1f1b: --layout padded: 8 layers, the embedding and the loss do not split evenly into 4 stages") == 1);
  CHECK(plan_to_json(out)["rows"][0]["megatron_layout"] == out.rows.front().megatron_layout);
}

TEST_CASE("a planned row of a model with multi-token prediction writes its m's for Megatron") {
  PlanRequest r;
  r.model = model_config_from_json(Json::parse(R"({"model_type": "minimax_m2", "hidden_size": 64,
      "intermediate_size": 32, "num_hidden_layers": 4, "num_attention_heads": 4, "num_key_value_heads": 2,
      "head_dim": 16, "vocab_size": 128, "num_local_experts": 4, "num_experts_per_tok": 2, "use_mtp": true,
      "num_mtp_modules": 2})"),
                                   "mtp.json");
  r.training.seq = 256;
  r.training.global_batch = 8;
  r.gpu = &gpu_named("h100");
  r.gpus = 2;
  r.pp = 2;
  r.schedules = {"1f1b"};
  const PlanOutcome out = plan(r);
  REQUIRE(!out.rows.empty());
  for (const PlanRow& row : out.rows) {
    CAPTURE(row.megatron_layout);
    CHECK(row.megatron_layout.ends_with("m*2L"));
    // Read back as Megatron reads it, with --mtp-num-layers 2: the row's own stages.
    CHECK(layout_string(parse_layout(row.megatron_layout, 4, "x", 2)) == row.layout);
  }
}
