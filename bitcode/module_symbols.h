// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The archive symbols of a bitcode file, from its modules' own records.
//
// LLVM's archive writer does not trust the irsymtab a bitcode file carries:
// it loads each module lazily (IRObjectFile) and lists its global values the
// way ModuleSymbolTable does: functions, then global variables, then aliases,
// then ifuncs, each in the order the module block declares them, spelled by
// the Mangler for the module's data layout. Only the module-level records
// (one per global value) are needed for that, never a function body, so this
// reader walks just those. Where the stored table and this list differ (an
// unnamed global is "__unnamed_<n>", numbered among the indexed symbols
// only; a table written by another LLVM), this list is the one LLVM writes.
//
// What it cannot rebuild, and says so with an error: module-level inline
// assembly (its symbols need an assembler), Windows name decorations, and
// bitcode older than LLVM 5, which keeps names outside the string table.
#pragma once

#include "bitcode/bitstream_reader.h"
#include "support/error.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace offbundle {

// Collects the module-level records of every module of a file while its
// top level is walked, then names the symbols an archive indexes.
class ModuleSymbolCollector {
public:
  // `cursor` stands just after the announcement of a module block (a copy
  // of the walking cursor: a module this cannot read leaves the walk
  // undisturbed and only fails names()).
  void readModule(bitcode::BitstreamCursor cursor);
  // A string table block's blob, which holds the names of every module read
  // since the previous one.
  void addStringTable(std::string_view strtab);
  // The names LLVM's archive writer indexes for the file, in its order;
  // an error if they would add up to more than `maxNameBytes` (records may
  // all name the whole string table).
  Result<std::vector<std::string>> names(uint64_t maxNameBytes) const;
  // LLVM's reason for refusing a module's data layout, for the first module
  // whose layout it refuses (bitcode/data_layout.h): such a file cannot be
  // opened at all.
  std::optional<std::string> dataLayoutError() const;

private:
  struct GlobalValueRecord {
    uint64_t nameOffset = 0;
    uint64_t nameSize = 0;
    uint64_t linkage = 0;
    bool isDefinition = false;
    uint64_t section = 0;     // global variables: section ID + 1, 0 for none
    uint64_t callingConv = 0; // functions
  };
  struct Module {
    uint64_t version = 0;
    std::string dataLayout;
    bool hasInlineAsm = false;
    std::vector<std::string> sectionNames;
    // In ModuleSymbolTable's order: functions, variables, aliases, ifuncs.
    std::vector<GlobalValueRecord> functions, variables, aliases, ifuncs;
    std::string_view strtab;
    bool hasStrtab = false;
  };

  Status readModuleRecords(bitcode::BitstreamCursor &cursor, Module &module);
  // One record of a module block, kept in `module` when it says something
  // about the module's symbols.
  static Status addModuleRecord(const bitcode::Record &record, Module &module);
  // A global variable, function, alias or ifunc record.
  static Status addGlobalValueRecord(const bitcode::Record &record,
                                     Module &module);

  std::vector<Module> modules_;
  // Why a module could not be read, if one could not.
  std::string failure_;
};

} // namespace offbundle
