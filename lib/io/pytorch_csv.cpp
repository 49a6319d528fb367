#include "io/pytorch_csv.hpp"

#include <algorithm>
#include <cctype>
#include <map>
#include <optional>

#include "io/excerpt.hpp"
#include "lower/lowering.hpp"
#include "model/error.hpp"
#include "model/limits.hpp"

namespace pipeplan {

namespace {

// One action as written, before the naming decides what B means.
struct Action {
  int stage = 0;
  std::string type;  // F, I, W, B, BW
  int microbatch = 0;
  bool overlaps_next = false;  // the forward of an OVERLAP_F_B pair; the next action is its backward
};

struct Cell {
  std::size_t row = 0;
  std::size_t column = 0;
};

[[noreturn]] void fail(const std::string& source, const Cell& at, const std::string& text, const std::string& why) {
  throw Error(source + ": row " + std::to_string(at.row) + ", column " + std::to_string(at.column) + ": '" +
              excerpt(text) + "': " + why);
}

bool is_communication(std::string_view type) {
  return type == "SEND_F" || type == "RECV_F" || type == "SEND_B" || type == "RECV_B" || type == "UNSHARD" ||
         type == "RESHARD" || type == "REDUCE_GRAD";
}

// "12BW3" -> {12, "BW", 3}; nullopt when the text is not digits, letters or '_', digits. The
// communication actions without a micro-batch come back with microbatch -1.
std::optional<Action> parse_action(std::string_view text) {
  std::size_t i = 0;
  while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) ++i;
  if (i == 0 || i > 7) return std::nullopt;
  std::size_t type_end = i;
  while (type_end < text.size() &&
         (std::isupper(static_cast<unsigned char>(text[type_end])) || text[type_end] == '_')) {
    ++type_end;
  }
  if (type_end == i) return std::nullopt;
  std::size_t j = type_end;
  while (j < text.size() && std::isdigit(static_cast<unsigned char>(text[j]))) ++j;
  if (j != text.size() || j - type_end > 7) return std::nullopt;
  Action a;
  a.stage = std::stoi(std::string(text.substr(0, i)));
  a.type = std::string(text.substr(i, type_end - i));
  a.microbatch = j == type_end ? -1 : std::stoi(std::string(text.substr(type_end)));
  return a;
}

std::string trim(std::string_view s) {
  std::size_t b = s.find_first_not_of(" \t\r");
  if (b == std::string_view::npos) return "";
  std::size_t e = s.find_last_not_of(" \t\r");
  return std::string(s.substr(b, e - b + 1));
}

std::vector<std::string> split(std::string_view line, char separator) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (true) {
    std::size_t end = line.find(separator, start);
    out.push_back(trim(line.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start)));
    if (end == std::string_view::npos) return out;
    start = end + 1;
  }
}

struct Parsed {
  std::vector<std::vector<std::pair<Action, Cell>>> rows;
  int communication = 0;
  int overlapped = 0;
};

void add_action(const std::string& source, const Cell& at, const std::string& text, std::string_view action_text,
                Parsed& parsed) {
  std::optional<Action> a = parse_action(action_text);
  if (!a) fail(source, at, text, "expected an action such as 0F0, 2I3, 1W0 or 3B1");
  if (is_communication(a->type)) {
    ++parsed.communication;
    // Sends and receives are kept for a lowered schedule; FSDP's actions are not pipelining's.
    if (parse_comm_kind(a->type) && a->microbatch >= 0) parsed.rows.back().emplace_back(*a, at);
    return;
  }
  if (a->type != "F" && a->type != "I" && a->type != "W" && a->type != "B" && a->type != "BW") {
    fail(source, at, text, "unknown action type '" + excerpt(a->type) + "': expected F, I, W, B or BW");
  }
  if (a->microbatch < 0) fail(source, at, text, "the action has no micro-batch");
  parsed.rows.back().emplace_back(*a, at);
}

Parsed parse_rows(std::string_view text, const std::string& source) {
  Parsed parsed;
  // A spreadsheet may save the file as UTF-8 with a byte-order mark (and CRLF, which trim drops).
  if (text.starts_with("\xEF\xBB\xBF")) text.remove_prefix(3);
  std::size_t row = 0;
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t end = text.find('\n', start);
    std::string_view line = text.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start);
    start = end == std::string_view::npos ? text.size() + 1 : end + 1;
    ++row;
    if (trim(line).empty() && end == std::string_view::npos) break;  // the file's last newline
    parsed.rows.emplace_back();
    std::vector<std::string> cells = split(line, ',');
    for (std::size_t c = 0; c < cells.size(); ++c) {
      const std::string& cell = cells[c];
      Cell at{row, c + 1};
      if (cell.empty()) continue;  // an idle step
      static constexpr std::string_view kOverlap = ")OVERLAP_F_B";
      if (cell.front() == '(' && cell.size() > kOverlap.size() && cell.ends_with(kOverlap)) {
        std::vector<std::string> pair = split(std::string_view(cell).substr(1, cell.size() - 1 - kOverlap.size()), ';');
        if (pair.size() != 2) fail(source, at, cell, "expected an overlapped pair (F;B)OVERLAP_F_B");
        const std::size_t before = parsed.rows.back().size();
        add_action(source, at, cell, pair[0], parsed);
        add_action(source, at, cell, pair[1], parsed);
        auto& row_actions = parsed.rows.back();
        if (row_actions.size() != before + 2 || row_actions[before].first.type != "F") {
          fail(source, at, cell, "expected an overlapped pair of a forward and a backward, (0F7;7B3)OVERLAP_F_B");
        }
        row_actions[before].first.overlaps_next = true;
        ++parsed.overlapped;
        continue;
      }
      add_action(source, at, cell, cell, parsed);
    }
  }
  while (!parsed.rows.empty() && parsed.rows.back().empty()) parsed.rows.pop_back();
  return parsed;
}

CsvNaming detect(const Parsed& parsed) {
  std::map<std::pair<int, int>, int> split_seen;  // (stage, micro-batch) -> 1 for B, 2 for W
  for (const auto& row : parsed.rows) {
    for (const auto& [a, at] : row) {
      if (a.type == "I") return CsvNaming::Current;
      if (a.type == "BW") return CsvNaming::Legacy;
      if (a.type == "B" || a.type == "W") split_seen[{a.stage, a.microbatch}] |= a.type == "B" ? 1 : 2;
    }
  }
  bool both = std::any_of(split_seen.begin(), split_seen.end(), [](const auto& e) { return e.second == 3; });
  return both ? CsvNaming::Legacy : CsvNaming::Current;
}

OpKind kind_of(const Action& a, CsvNaming naming, const std::string& source, const Cell& at) {
  if (a.type == "F") return OpKind::F;
  if (a.type == "W") return OpKind::W;
  if (naming == CsvNaming::Current) {
    if (a.type == "I") return OpKind::B;
    if (a.type == "B") return OpKind::BW;
  } else {
    if (a.type == "B") return OpKind::B;
    if (a.type == "BW") return OpKind::BW;
  }
  fail(source, at, std::to_string(a.stage) + a.type + std::to_string(a.microbatch),
       "'" + a.type + "' is not an action of the " + std::string(csv_naming_name(naming)) + " naming");
}

}  // namespace

std::string_view csv_naming_name(CsvNaming naming) {
  return enum_name(kCsvNamings, naming);
}

CsvImport schedule_from_pytorch_csv(std::string_view text, const std::string& source, CsvNaming naming) {
  Parsed parsed = parse_rows(text, source);
  if (parsed.rows.empty()) throw Error(source + ": no actions: expected one row of actions per rank");
  if (parsed.rows.size() > static_cast<std::size_t>(kMaxDevices)) {
    throw Error(source + ": " + std::to_string(parsed.rows.size()) + " rows: at most " + std::to_string(kMaxDevices) +
                " ranks");
  }
  CsvImport result;
  result.naming = naming == CsvNaming::Auto ? detect(parsed) : naming;
  result.communication_actions = parsed.communication;
  result.overlapped_pairs = parsed.overlapped;
  Schedule& s = result.schedule;
  s.name = source;
  s.devices = static_cast<int>(parsed.rows.size());
  std::map<int, std::pair<int, Cell>> where;  // stage -> row and first cell
  int max_microbatch = -1;
  std::size_t ops = 0;
  for (std::size_t d = 0; d < parsed.rows.size(); ++d) {
    for (const auto& [a, at] : parsed.rows[d]) {
      auto [it, inserted] = where.emplace(a.stage, std::make_pair(static_cast<int>(d), at));
      if (!inserted && it->second.first != static_cast<int>(d)) {
        fail(source, at, std::to_string(a.stage) + a.type + std::to_string(a.microbatch),
             "stage " + std::to_string(a.stage) + " also appears in row " + std::to_string(it->second.second.row) +
                 ": a stage runs on one rank");
      }
      max_microbatch = std::max(max_microbatch, a.microbatch);
      ++ops;
    }
  }
  s.stages = where.rbegin()->first + 1;
  s.microbatches = max_microbatch + 1;
  if (static_cast<long long>(s.stages) > kMaxStages || s.microbatches > kMaxMicrobatches ||
      static_cast<long long>(ops) > kMaxOps) {
    throw Error(source + ": " + std::to_string(s.stages) + " stages and " + std::to_string(s.microbatches) +
                " micro-batches are beyond pipeplan's limits");
  }
  for (int stage = 0; stage < s.stages; ++stage) {
    auto it = where.find(stage);
    if (it == where.end()) {
      throw Error(source + ": stage " + std::to_string(stage) + " never appears, so its rank is unknown (stages 0 to " +
                  std::to_string(s.stages - 1) + " are used)");
    }
    s.placement.push_back(it->second.first);
  }
  s.order.resize(parsed.rows.size());
  result.lowered.actions.resize(parsed.rows.size());
  for (std::size_t d = 0; d < parsed.rows.size(); ++d) {
    const auto& row = parsed.rows[d];
    auto& actions = result.lowered.actions[d];
    for (std::size_t i = 0; i < row.size(); ++i) {
      const auto& [a, at] = row[i];
      if (auto comm = parse_comm_kind(a.type)) {
        actions.push_back(LoweredAction::communicate({*comm, a.stage, a.microbatch}, false));
        ++result.transfers;
        continue;
      }
      if (!a.overlaps_next) {
        s.order[d].push_back({kind_of(a, result.naming, source, at), a.stage, a.microbatch});
        actions.push_back(LoweredAction::compute(s.order[d].back()));
        continue;
      }
      const Action& b = row[++i].first;
      if (kind_of(b, result.naming, source, at) != OpKind::BW) {
        fail(source, at, std::to_string(b.stage) + b.type + std::to_string(b.microbatch),
             "the backward of an overlapped pair must be a full backward");
      }
      s.order[d].push_back(overlapped(a.stage, a.microbatch, b.stage, b.microbatch));
      actions.push_back(LoweredAction::compute(s.order[d].back()));
    }
  }
  result.lowered.schedule = s;
  result.lowered.policy = "pytorch";
  return result;
}

std::string lowered_to_pytorch_csv(const LoweredSchedule& lowered) {
  std::string out;
  for (const std::vector<LoweredAction>& actions : lowered.actions) {
    std::string line;
    const auto cell = [&line](const std::string& text) { line += (line.empty() ? "" : ",") + text; };
    for (const LoweredAction& a : actions) {
      if (a.is_comm) {
        cell(std::to_string(a.comm.stage) + std::string(comm_kind_name(a.comm.kind)) +
             std::to_string(a.comm.microbatch));
        continue;
      }
      const Op& op = a.op;
      if (op.kind == OpKind::FB) {
        cell("(" + std::to_string(op.stage) + "F" + std::to_string(op.microbatch) + ";" +
             std::to_string(op.overlap_stage) + "B" + std::to_string(op.overlap_microbatch) + ")OVERLAP_F_B");
      } else {
        const std::string_view kind = op.kind == OpKind::B ? "I" : op.kind == OpKind::BW ? "B" : kind_name(op.kind);
        cell(std::to_string(op.stage) + std::string(kind) + std::to_string(op.microbatch));
      }
    }
    out += line + '\n';
  }
  return out;
}

std::string schedule_to_pytorch_csv(const Schedule& schedule) {
  LoweredSchedule compute{schedule, "", {}};
  for (const std::vector<Op>& ops : schedule.order) {
    std::vector<LoweredAction>& actions = compute.actions.emplace_back();
    for (const Op& op : ops) actions.push_back(LoweredAction::compute(op));
  }
  return lowered_to_pytorch_csv(compute);
}

}  // namespace pipeplan
