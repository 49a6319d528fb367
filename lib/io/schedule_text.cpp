#include "io/schedule_text.hpp"

#include <charconv>
#include <cstdint>

#include "io/json_text.hpp"
#include "io/version.hpp"
#include "model/limits.hpp"

namespace pipeplan {

namespace {

// ---- Writing.

std::string quoted(const std::string& text) {
  return Json(text).dump(-1, ' ', false, Json::error_handler_t::replace);
}

void append_int(std::string& out, long long value) {
  char buffer[24];
  auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, value);
  out.append(buffer, end);
}

void append_op(std::string& out, std::string_view kind, int stage, int microbatch) {
  out += "{\"kind\": \"";
  out += kind;
  out += "\", \"stage\": ";
  append_int(out, stage);
  out += ", \"microbatch\": ";
  append_int(out, microbatch);
}

void append_entry(std::string& out, const Op& op) {
  append_op(out, kind_name(op.kind), op.stage, op.microbatch);
  if (op.kind == OpKind::FB) {
    out += ", \"overlap_stage\": ";
    append_int(out, op.overlap_stage);
    out += ", \"overlap_microbatch\": ";
    append_int(out, op.overlap_microbatch);
  }
  out += '}';
}

void append_entry(std::string& out, const LoweredAction& a) {
  if (!a.is_comm) {
    append_entry(out, a.op);
    return;
  }
  append_op(out, comm_kind_name(a.comm.kind), a.comm.stage, a.comm.microbatch);
  if (a.batched) out += ", \"batched\": true";
  out += '}';
}

// The layout of to_json_text: two-space indents, a container of scalars on one line.
template <class Lists>
std::string document(const Schedule& s, const std::string* lowering, const Lists& lists) {
  std::string out;
  std::size_t entries = 0;
  for (const auto& list : lists) entries += list.size();
  out.reserve(256 + entries * 56);
  out += "{\n  \"format\": \"pipeplan.schedule\",\n  \"schema_version\": 1,\n  \"tool\": ";
  out += quoted(tool_version());
  out += ",\n  \"name\": " + quoted(s.name) + ",\n  \"devices\": ";
  append_int(out, s.devices);
  out += ",\n  \"stages\": ";
  append_int(out, s.stages);
  out += ",\n  \"microbatches\": ";
  append_int(out, s.microbatches);
  out += ",\n  \"placement\": [";
  for (std::size_t i = 0; i < s.placement.size(); ++i) {
    if (i > 0) out += ", ";
    append_int(out, s.placement[i]);
  }
  out += "],\n";
  if (lowering != nullptr) out += "  \"lowering\": " + quoted(*lowering) + ",\n";
  if (lists.empty()) return out + "  \"order\": []\n}\n";
  out += "  \"order\": [\n";
  for (std::size_t d = 0; d < lists.size(); ++d) {
    if (d > 0) out += ",\n";
    if (lists[d].empty()) {
      out += "    []";
      continue;
    }
    out += "    [\n";
    for (std::size_t i = 0; i < lists[d].size(); ++i) {
      if (i > 0) out += ",\n";
      out += "      ";
      append_entry(out, lists[d][i]);
    }
    out += "\n    ]";
  }
  out += "\n  ]\n}\n";
  return out;
}

// ---- Reading.

// A cursor over the text that gives up (sets failed) at the first thing outside the fast path.
class Scanner {
 public:
  explicit Scanner(std::string_view text) : text_(text) {}

  bool failed() const { return failed_; }
  void fail_here() { failed_ = true; }
  bool at_end() {
    skip();
    return pos_ == text_.size();
  }

  bool take(char c) {
    skip();
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  void expect(char c) {
    if (!take(c)) failed_ = true;
  }

  // A string without escapes.
  std::string_view string() {
    skip();
    if (pos_ >= text_.size() || text_[pos_] != '"') return fail();
    const std::size_t start = ++pos_;
    while (pos_ < text_.size() && text_[pos_] != '"') {
      // Escapes, control characters and non-ASCII bytes (whose UTF-8 the document reader
      // checks) leave the fast path.
      const auto byte = static_cast<unsigned char>(text_[pos_]);
      if (byte == '\\' || byte < 0x20 || byte >= 0x80) return fail();
      ++pos_;
    }
    if (pos_ >= text_.size()) return fail();
    return text_.substr(start, pos_++ - start);
  }

  // An integer from `min` to `max`, written as JSON writes one: digits, no sign, no leading
  // zero, no fraction or exponent.
  long long integer(long long min, long long max) {
    skip();
    if (pos_ >= text_.size() || text_[pos_] < '0' || text_[pos_] > '9') return fail_int();
    if (text_[pos_] == '0' && pos_ + 1 < text_.size() && text_[pos_ + 1] >= '0' && text_[pos_ + 1] <= '9') {
      return fail_int();
    }
    long long value = 0;
    const char* first = text_.data() + pos_;
    const char* last = text_.data() + text_.size();
    auto [end, ec] = std::from_chars(first, last, value);
    if (ec != std::errc() || end == first) return fail_int();
    pos_ = static_cast<std::size_t>(end - text_.data());
    if (pos_ < text_.size() && (text_[pos_] == '.' || text_[pos_] == 'e' || text_[pos_] == 'E')) return fail_int();
    if (value < min || value > max) return fail_int();
    return value;
  }

  bool boolean() {
    skip();
    if (text_.substr(pos_, 4) == "true") {
      pos_ += 4;
      return true;
    }
    if (text_.substr(pos_, 5) == "false") {
      pos_ += 5;
      return false;
    }
    failed_ = true;
    return false;
  }

 private:
  void skip() {
    while (pos_ < text_.size() &&
           (text_[pos_] == ' ' || text_[pos_] == '\n' || text_[pos_] == '\r' || text_[pos_] == '\t')) {
      ++pos_;
    }
  }
  std::string_view fail() {
    failed_ = true;
    return {};
  }
  long long fail_int() {
    failed_ = true;
    return 0;
  }

  std::string_view text_;
  std::size_t pos_ = 0;
  bool failed_ = false;
};

// One entry of a device's list; fails on unknown keys, missing ones or values out of range.
LoweredAction scan_entry(Scanner& in, const Schedule& s) {
  std::string_view kind_text;
  long long stage = -1, microbatch = -1, overlap_stage = -1, overlap_microbatch = -1;
  bool batched = false, has_batched = false;
  in.expect('{');
  do {
    std::string_view key = in.string();
    in.expect(':');
    if (key == "kind" && kind_text.empty()) {
      kind_text = in.string();
    } else if (key == "stage" && stage < 0) {
      stage = in.integer(0, s.stages - 1);
    } else if (key == "microbatch" && microbatch < 0) {
      microbatch = in.integer(0, s.microbatches - 1);
    } else if (key == "overlap_stage" && overlap_stage < 0) {
      overlap_stage = in.integer(0, s.stages - 1);
    } else if (key == "overlap_microbatch" && overlap_microbatch < 0) {
      overlap_microbatch = in.integer(0, s.microbatches - 1);
    } else if (key == "batched" && !has_batched) {
      has_batched = true;
      batched = in.boolean();
    } else {
      in.fail_here();  // an unknown or repeated key: leave it to the document reader
    }
  } while (!in.failed() && in.take(','));
  in.expect('}');
  const auto kind = parse_kind(kind_text);
  const auto comm = parse_comm_kind(kind_text);
  const bool overlap = overlap_stage >= 0 || overlap_microbatch >= 0;
  if (in.failed() || stage < 0 || microbatch < 0 || (!kind && !comm) || (comm && overlap) || (kind && has_batched) ||
      (kind && (*kind == OpKind::FB) != overlap) || (overlap && (overlap_stage < 0 || overlap_microbatch < 0))) {
    in.fail_here();
    return {};
  }
  const int st = static_cast<int>(stage), mb = static_cast<int>(microbatch);
  if (comm) return LoweredAction::communicate({*comm, st, mb}, batched);
  if (*kind == OpKind::FB) {
    return LoweredAction::compute(
        overlapped(st, mb, static_cast<int>(overlap_stage), static_cast<int>(overlap_microbatch)));
  }
  return LoweredAction::compute(Op{*kind, st, mb});
}

void scan_order(Scanner& in, LoweredSchedule& out, bool with_actions) {
  Schedule& s = out.schedule;
  // Room for the ops of an even split, so the lists rarely grow.
  const auto expected = static_cast<std::size_t>(s.stages) * static_cast<std::size_t>(s.microbatches) * 3 /
                        static_cast<std::size_t>(s.devices);
  in.expect('[');
  if (in.take(']')) return;
  do {
    std::vector<LoweredAction>* actions = with_actions ? &out.actions.emplace_back() : nullptr;
    std::vector<Op>& ops = s.order.emplace_back();
    ops.reserve(expected);
    in.expect('[');
    if (in.take(']')) continue;
    do {
      LoweredAction a = scan_entry(in, s);
      if (in.failed()) return;
      if (!a.is_comm) ops.push_back(a.op);
      if (actions != nullptr) actions->push_back(a);
    } while (in.take(','));
    in.expect(']');
  } while (!in.failed() && in.take(','));
  in.expect(']');
}

}  // namespace

std::string schedule_json_text(const Schedule& schedule) {
  return document(schedule, nullptr, schedule.order);
}

std::string lowered_json_text(const LoweredSchedule& lowered) {
  return document(lowered.schedule, &lowered.policy, lowered.actions);
}

std::optional<LoweredSchedule> scan_schedule_text(std::string_view text, bool with_actions) {
  Scanner in(text);
  LoweredSchedule out;
  Schedule& s = out.schedule;
  bool format = false, version = false, order = false, has_lowering = false, has_name = false, has_tool = false;
  bool has_placement = false;
  in.expect('{');
  do {
    if (in.failed()) return std::nullopt;
    std::string_view key = in.string();
    in.expect(':');
    if (key == "format" && !format) {
      format = in.string() == "pipeplan.schedule";
      if (!format) return std::nullopt;
    } else if (key == "schema_version" && !version) {
      version = in.integer(1, 1) == 1;
    } else if (key == "tool" && !has_tool) {
      has_tool = true;
      (void)in.string();
    } else if (key == "name" && !has_name) {
      has_name = true;
      s.name = std::string(in.string());
    } else if (key == "devices" && s.devices == 0) {
      s.devices = static_cast<int>(in.integer(1, kMaxDevices));
    } else if (key == "stages" && s.stages == 0) {
      s.stages = static_cast<int>(in.integer(1, kMaxStages));
    } else if (key == "microbatches" && s.microbatches == 0) {
      s.microbatches = static_cast<int>(in.integer(1, kMaxMicrobatches));
    } else if (key == "placement" && !has_placement && s.devices > 0) {
      has_placement = true;
      in.expect('[');
      if (!in.take(']')) {
        do {
          s.placement.push_back(static_cast<int>(in.integer(0, s.devices - 1)));
        } while (!in.failed() && in.take(','));
        in.expect(']');
      }
    } else if (key == "lowering" && !has_lowering) {
      has_lowering = true;
      out.policy = std::string(in.string());
    } else if (key == "order" && !order && s.devices > 0 && s.stages > 0 && s.microbatches > 0) {
      if (static_cast<long long>(s.stages) * s.microbatches * 3 > kMaxOps) return std::nullopt;
      order = true;
      scan_order(in, out, with_actions);
    } else {
      return std::nullopt;
    }
  } while (!in.failed() && in.take(','));
  in.expect('}');
  if (in.failed() || !in.at_end() || !format || !version || !order || !has_placement ||
      s.placement.size() != static_cast<std::size_t>(s.stages) ||
      s.order.size() != static_cast<std::size_t>(s.devices)) {
    return std::nullopt;
  }
  return out;
}

}  // namespace pipeplan
