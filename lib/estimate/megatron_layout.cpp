#include "estimate/megatron_layout.hpp"

#include <cctype>
#include <charconv>

#include "model/error.hpp"

namespace pipeplan {

namespace {

// Repetitions beyond this are a typo: no model has more pieces than ten thousand layers.
constexpr long kMaxExpanded = 1 << 20;

[[noreturn]] void refuse(std::string_view flag, std::string_view text, const std::string& why) {
  throw Error(std::string(flag) + " '" + std::string(text) + "': " + why +
              " (Megatron's notation: E the embedding, t a layer, m a multi-token prediction layer, L the loss, '|' "
              "between stages, X*N or (...)*N to repeat; for example Et*3|(tt|)*2,mL)");
}

// Expands text[at..] up to the closing parenthesis (or the end at depth 0) into pieces and '|'.
std::string expand(std::string_view text, std::size_t& at, int depth, std::string_view flag, std::string_view whole) {
  std::string out;
  while (at < text.size()) {
    const char c = text[at];
    std::string unit;
    if (c == ')') {
      if (depth == 0) refuse(flag, whole, "a ')' without its '('");
      ++at;
      return out;
    }
    if (c == ',' || c == ' ') {
      ++at;
      continue;
    }
    if (c == '(') {
      ++at;
      unit = expand(text, at, depth + 1, flag, whole);
    } else if (c == 'E' || c == 't' || c == 'm' || c == 'L' || c == 'H' || c == '|') {
      unit = std::string(1, c == 'H' ? 'L' : c);  // pipeplan's H is Megatron's L
      ++at;
    } else {
      refuse(flag, whole, "unknown character '" + std::string(1, c) + "'");
    }
    long times = 1;
    if (at < text.size() && text[at] == '*') {
      std::size_t end = at + 1;
      while (end < text.size() && std::isdigit(static_cast<unsigned char>(text[end])) != 0) ++end;
      auto [p, ec] = std::from_chars(text.data() + at + 1, text.data() + end, times);
      if (ec != std::errc() || p == text.data() + at + 1 || times < 1 || times > kMaxExpanded) {
        refuse(flag, whole, "'*' needs a whole number of repetitions from 1");
      }
      at = end;
    }
    if (long(out.size()) + times * long(unit.size()) > kMaxExpanded) refuse(flag, whole, "too many pieces");
    for (long i = 0; i < times; ++i) out += unit;
  }
  if (depth > 0) refuse(flag, whole, "a '(' without its ')'");
  return out;
}

}  // namespace

bool is_megatron_layout(std::string_view text) {
  if (text.find_first_of("L()m") != std::string_view::npos) return true;
  for (std::size_t i = 1; i < text.size(); ++i) {
    const bool piece = text[i] == 'E' || text[i] == 't' || text[i] == 'H';
    const bool after_piece =
        text[i - 1] == 'E' || text[i - 1] == 't' || std::isdigit(static_cast<unsigned char>(text[i - 1])) != 0;
    if (piece && after_piece) return true;  // "Et", "tt", "3t": pieces run together
  }
  return false;
}

Layout parse_megatron_layout(std::string_view text, int layers, std::string_view flag, int mtp_layers) {
  std::size_t at = 0;
  const std::string flat = expand(text, at, 0, flag, text);
  Layout layout(1);
  long total = 0;
  long mtp = 0;
  for (std::size_t i = 0; i < flat.size(); ++i) {
    const char c = flat[i];
    if (c == 'm') {
      // pipeplan prices the multi-token prediction layers with the loss, on the last stage: the
      // place Megatron gives them when the layout ends "mL" (a stage of its own is not modelled).
      const std::size_t loss = flat.find('L', i);
      if (loss == std::string::npos || flat.find_first_not_of('m', i) != loss) {
        refuse(flag, text,
               "m (a multi-token prediction layer) must come just before L, on the loss's stage, where pipeplan "
               "plans them");
      }
      ++mtp;
    } else if (c == '|') {
      layout.emplace_back();
    } else if (c == 'E') {
      if (layout.size() != 1 || layout.back().layers > 0 || layout.back().embedding) {
        refuse(flag, text, "E (the embedding) must be the first piece of the first stage");
      }
      layout.back().embedding = true;
    } else if (c == 't') {
      if (layout.back().head) refuse(flag, text, "L (the loss) must be the last piece of the last stage");
      ++layout.back().layers;
      if (++total > layers)
        refuse(flag, text, "the stages hold more layers than the model's " + std::to_string(layers));
    } else {  // L
      if (layout.back().head || flat.find('|', i) != std::string::npos) {
        refuse(flag, text, "L (the loss) must be the last piece of the last stage");
      }
      layout.back().head = true;
    }
  }
  if (!layout.front().embedding) refuse(flag, text, "the first stage must start with E (the embedding)");
  if (!layout.back().head) refuse(flag, text, "the last stage must end with L (the loss)");
  if (total != layers) {
    refuse(flag, text, "the stages hold " + std::to_string(total) + " layers, the model has " + std::to_string(layers));
  }
  // Megatron asks for every multi-token prediction layer in its layout (validate_layer_layout);
  // pipeplan places them with the loss whether the layout names them or not.
  if (mtp != 0 && mtp != mtp_layers) {
    refuse(flag, text,
           "it names " + std::to_string(mtp) + " multi-token prediction layer" + (mtp == 1 ? "" : "s") +
               " (m), the model has " + std::to_string(mtp_layers));
  }
  return layout;
}

std::string megatron_layout_string(const Layout& layout, int mtp_layers) {
  const auto pieces = [](char piece, int count) {
    return count == 1 ? std::string(1, piece) : count > 1 ? piece + ("*" + std::to_string(count)) : std::string();
  };
  std::string text;
  for (std::size_t s = 0; s < layout.size(); ++s) {
    if (s > 0) text += '|';
    if (layout[s].embedding) text += 'E';
    text += pieces('t', layout[s].layers);
    if (layout[s].head) text += pieces('m', mtp_layers) + 'L';
  }
  return text;
}

std::optional<Layout> even_layout(int stages, int layers, bool padded) {
  const int pieces = layers + (padded ? 2 : 0);
  if (stages < 1 || pieces % stages != 0) return std::nullopt;
  const int per_stage = pieces / stages;
  Layout layout(static_cast<std::size_t>(stages), StagePieces{false, per_stage, false});
  layout.front().embedding = true;
  layout.back().head = true;
  if (padded) {  // the embedding and the loss each take a layer's place
    --layout.front().layers;
    --layout.back().layers;
    if (layout.front().layers < 0 || layout.back().layers < 0) return std::nullopt;
  }
  return layout;
}

}  // namespace pipeplan
