// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// DirectX containers ("DXBC") as LLVM 22's archive writer opens them: it
// parses the container (DXContainer::create) and, when that succeeds, lists
// no symbols (a DXContainerObjectFile has none), but the member still makes
// the archive get a symbol table.
//
//   header, 32 bytes:   "DXBC", hash (16 bytes), version (u16 major, u16
//                       minor), file size (u32, not checked), part count
//                       (u32); then the part offsets (u32 each)
//   each part:          name (4 bytes), data size (u32), data
//     "DXIL"            a program header (24 bytes) at least; once
//     "SFI0"            8 bytes of feature flags at least; once
//     "HASH"            a shader hash (20 bytes) at least; once
//     "ISG1" "OSG1" "PSG1"
//                       a signature: parameter count (u32), offset of the
//                       first parameter (u32), then 32-byte parameters
//                       whose name offsets (u32 at 4) must fall in the
//                       string table that follows them
//     "PSV0"            pipeline state (once; needs a "DXIL" part)
//     "RTS0"            a root signature (once)
//     other names       not looked at
//
// Every part must start at or after the end of the one before (the first
// after the offset table) and inside the file, its name and size too. The
// messages are LLVM's. Pipeline state and root signature parts, whose
// contents LLVM checks in far more detail, are refused with an error
// rather than accepted where LLVM might not.
#pragma once

#include <string_view>

#include "support/error.h"

namespace offbundle {

// Parses a member identify_magic() calls a DirectX container the way
// LLVM's writer does; success means a symbolic file without symbols.
Status checkDxContainerForArchive(std::string_view bytes);

} // namespace offbundle
