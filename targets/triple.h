// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Target triples as LLVM 22's llvm::Triple parses, compares and normalises
// them. The bundler only needs a small part of llvm::Triple, but that part
// must agree with LLVM to the byte: bundle entry IDs are written with
// normalised triples, and unbundling compares triples by their parsed fields.
#pragma once

#include <string>
#include <string_view>

namespace offbundle {

// How many components a normalised triple keeps (llvm::Triple::CanonicalForm).
enum class TripleForm { Any, ThreeIdent, FourIdent, FiveIdent };

class Triple {
public:
  Triple() = default;
  // Parses "arch-vendor-os-env" positionally, like llvm::Triple(const Twine&).
  explicit Triple(std::string_view text);
  // Joins the four parts with '-' and parses each one in its own position,
  // like llvm::Triple(Arch, Vendor, OS, Environment).
  Triple(std::string_view arch, std::string_view vendor, std::string_view os,
         std::string_view environment);

  // The text the triple was built from (llvm::Triple::str()).
  const std::string &str() const { return text_; }

  // getArch() != UnknownArch.
  bool hasKnownArch() const;
  // getOS() == AMDHSA.
  bool isOSAMDHSA() const;
  // amdgcn or r600 (llvm::Triple::isAMDGPU()).
  bool isAMDGPU() const;
  bool isAMDGCN() const;

  // llvm::Triple::normalize(Form) applied to str(). Meaningless when
  // normalizationIsFatal().
  std::string normalize(TripleForm form) const;
  // Whether LLVM stops the tool while normalising this triple (a DXIL
  // shader model 6.N with N > 9: "LLVM ERROR: Unsupported Shader Model
  // version"). Callers check it before normalize() and report it.
  bool normalizationIsFatal() const;

  // llvm::Triple::isCompatibleWith.
  bool isCompatibleWith(const Triple &other) const;
  // llvm::Triple::operator==: compares the parsed fields, not the text.
  bool operator==(const Triple &other) const;

private:
  std::string text_;
  // Parsed fields; the values are the positions of LLVM's enumerators, kept
  // as plain integers so the header does not carry LLVM's long tables.
  int arch_ = 0;
  int subArch_ = 0;
  int vendor_ = 0;
  int os_ = 0;
  int environment_ = 0;
  int objectFormat_ = 0;

  void parseFields(std::string_view arch, std::string_view vendor,
                   std::string_view os, std::string_view environment,
                   bool hasVendor, bool hasOs, bool hasEnvironment);
};

} // namespace offbundle
