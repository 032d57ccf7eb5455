// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Checking a module's data layout string as LLVM 22 parses it.
//
// A data layout is a list of specifications separated by '-', each named by
// its first letter ("ni" is the one two-letter name): e/E (endianness),
// m:<mangling>, S<stack alignment>, P/A/G<address space> (program, alloca
// and globals address spaces), F{i,n}<alignment> (function pointers),
// n<size>[:<size>]... (native integer widths), ni:<address space>...
// (non-integral pointers), i/f/v<size>:<abi>[:<pref>] (integers, floats,
// vectors), a[0]:<abi>[:<pref>] (aggregates), p[<flags>][<n>][(<name>)]:
// <size>:<abi>[:<pref>[:<index size>]] (pointers: flags 'e' and 'u', for
// external state and an unstable representation, need an address space
// other than 0, and a name names one address space only), and s..., which
// is ignored. Numbers are plain
// decimal digits; sizes are non-zero 24-bit bit counts, address spaces
// 24-bit, alignments 16-bit bit counts that are a power of two bytes.
//
// LLVM's bitcode reader parses the layout before anything in the module can
// be used, so a module whose layout it rejects cannot be opened at all: the
// archive writer then indexes nothing for it and warns with the parser's
// message, which is what this gives. (The layout of DataLayout::parse in
// llvm/lib/IR/DataLayout.cpp.)
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace offbundle {

// Why LLVM 22 rejects this data layout, in its words; nullopt when it
// accepts it.
std::optional<std::string> dataLayoutError(std::string_view layout);

} // namespace offbundle
