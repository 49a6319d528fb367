// pipeplan import: a schedule from PyTorch pipelining's CSV, as pipeplan's schedule JSON.
#include <iostream>
#include <memory>

#include "command.hpp"
#include "enum_flags.hpp"
#include "file_roles.hpp"
#include "io/json_text.hpp"
#include "io/memory_estimate.hpp"
#include "io/pytorch_csv.hpp"
#include "io/schedule_text.hpp"
#include "memory_budget.hpp"
#include "model/limits.hpp"
#include "output.hpp"
#include "progress.hpp"

namespace pipeplan::cli {

namespace {

struct ImportOptions {
  std::string file;
  std::string naming = "auto";
  std::string output;
  bool with_comms = false;
};

}  // namespace

Runner add_import(CLI::App& sub) {
  auto o = std::make_shared<ImportOptions>();
  sub.add_option("FILE", o->file, "PyTorch pipelining CSV schedule (one row per rank)")
      ->required()
      ->type_name("FILE")
      ->check(file_name());
  sub.add_option("--naming", o->naming, enum_help(kCsvNamings))
      ->type_name("NAMING")
      ->transform(enum_choices_of(kCsvNamings));
  sub.add_option("-o,--output", o->output, "Write the schedule JSON here instead of stdout")
      ->type_name("FILE")
      ->check(file_name());
  sub.add_flag("--with-comms", o->with_comms,
               "Keep the file's SEND_F, RECV_F, SEND_B, RECV_B as a lowered schedule (for --comm blocking|rendezvous)");
  return [o] {
    check_file_roles({{"the input", o->file}, {"-o", o->output, true}});
    const CsvNaming naming = enum_named(kCsvNamings, o->naming).value_or(CsvNaming::Auto);
    // The shortest cell is "0F0" and a comma; each becomes an entry of the JSON written whole,
    // whose ids have at most 7 digits each (kMaxStages, kMaxMicrobatches).
    check_input_memory(o->file, 4, schedule_entry_bytes(kMaxStages, kMaxMicrobatches));
    CsvImport imported = [&] {
      const Activity doing("reading " + o->file);
      return schedule_from_pytorch_csv(read_text_file(o->file), o->file, naming);
    }();
    const Schedule& s = imported.schedule;
    std::cerr << "pipeplan: read " << o->file << " in the " << csv_naming_name(imported.naming)
              << " naming: " << s.devices << " ranks, " << s.stages << " stages, " << s.microbatches
              << " micro-batches, " << s.op_count() << " ops";
    const bool keep = o->with_comms && imported.transfers > 0;
    if (keep) {
      std::cerr << "; kept " << imported.transfers << " sends and receives";
      if (imported.communication_actions > imported.transfers) {
        std::cerr << ", dropped " << imported.communication_actions - imported.transfers << " FSDP actions";
      }
    } else if (imported.communication_actions > 0 && o->with_comms) {
      // Only FSDP's actions (UNSHARD, RESHARD, REDUCE_GRAD): nothing --with-comms could keep.
      std::cerr
          << "; dropped " << imported.communication_actions
          << " FSDP actions (UNSHARD, RESHARD, REDUCE_GRAD: not modelled); the file has no sends or receives to keep";
    } else if (imported.communication_actions > 0) {
      std::cerr << "; dropped " << imported.communication_actions
                << " communication actions (pipeplan models the transfers itself; --with-comms keeps them)";
    }
    if (imported.overlapped_pairs > 0) {
      std::cerr << "; " << imported.overlapped_pairs << " overlapped F;B pairs as FB ops";
    }
    std::cerr << "\n";
    emit(o->output, keep ? lowered_json_text(imported.lowered) : schedule_json_text(s));
    return kExitOk;
  };
}

}  // namespace pipeplan::cli
