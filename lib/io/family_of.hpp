#pragma once
// Which family a config.json document is (docs/costs.md, "Model input"), and the refusals of a
// document its family would read as another model: keys of experts or latent attention that
// the family does not read, a model_type or architecture no family has.
#include "io/json_fields.hpp"
#include "io/model_family.hpp"

namespace pipeplan {

/// The family of a config.json document: its model_type's row (the Llama family's when it has
/// none, GPT-2's for GPT-2's key names). Throws Error naming the key and the value when the
/// model_type or one of the architectures is not modelled, when the config has experts under a
/// key its family does not read them from, or latent attention in a family without it.
[[nodiscard]] const ModelFamily& family_of(const Json& document, const JsonPath& root);

}  // namespace pipeplan
