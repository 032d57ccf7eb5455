// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Block IDs and record codes of LLVM's bitcode that more than one reader
// here needs (their values are fixed by LLVM's LLVMBitCodes.h; the bitcode
// format never renumbers them).
#pragma once

namespace offbundle::bitcode {

// Blocks.
inline constexpr unsigned kModuleBlockId = 8;
inline constexpr unsigned kConstantsBlockId = 11;
inline constexpr unsigned kIdentificationBlockId = 13;
inline constexpr unsigned kMetadataBlockId = 15;
inline constexpr unsigned kTypeBlockId = 17;
inline constexpr unsigned kStrtabBlockId = 23;
inline constexpr unsigned kSymtabBlockId = 25;

// The one record of a string table or symbol table block: its blob.
inline constexpr unsigned kBlobRecordCode = 1;

// Records of the module block (MODULE_CODE_*).
namespace module_code {
inline constexpr unsigned kVersion = 1;
inline constexpr unsigned kDataLayout = 3;
inline constexpr unsigned kInlineAsm = 4;
inline constexpr unsigned kSectionName = 5;
inline constexpr unsigned kGlobalVar = 7;
inline constexpr unsigned kFunction = 8;
inline constexpr unsigned kAliasOld = 9;
inline constexpr unsigned kAlias = 14;
inline constexpr unsigned kIfunc = 18;
} // namespace module_code

} // namespace offbundle::bitcode
