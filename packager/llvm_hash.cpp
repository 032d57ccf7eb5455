// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// llvm::hash_value for strings (see llvm_hash.h), as LLVM's Hashing.h computes
// it: one function per length range up to 64 bytes, a running state over
// 64-byte blocks beyond that. It must match LLVM bit for bit.

#include "packager/llvm_hash.h"

#include "support/byte_order.h"

#include <cstring>
#include <utility>

namespace offbundle {
namespace {

// Multipliers of the CityHash family (primes between 2^63 and 2^64).
constexpr uint64_t kPrime0 = 0xc3a5c85c97cb3127ULL;
constexpr uint64_t kPrime1 = 0xb492b66fbe98f273ULL;
constexpr uint64_t kPrime2 = 0x9ae16a3b2f90404fULL;
constexpr uint64_t kPrime3 = 0xc949d7c7509e6557ULL;
constexpr uint64_t kMurmurMultiplier = 0x9ddfea08eb382d69ULL;
// LLVM's seed when it is built without ABI-breaking checks; with them the
// seed (and so every order derived from it) changes from run to run.
constexpr uint64_t kSeed = 0xff51afd7ed558ccdULL;

uint64_t rotateRight(uint64_t value, unsigned shift) {
  return shift == 0 ? value : (value >> shift) | (value << (64 - shift));
}

uint64_t mixHigh(uint64_t value) { return value ^ (value >> 47); }

uint64_t combine128(uint64_t low, uint64_t high) {
  uint64_t a = (low ^ high) * kMurmurMultiplier;
  a ^= a >> 47;
  uint64_t b = (high ^ a) * kMurmurMultiplier;
  b ^= b >> 47;
  return b * kMurmurMultiplier;
}

uint64_t hashUpTo3(const unsigned char *s, uint64_t length) {
  const uint32_t first = s[0];
  const uint32_t middle = s[length >> 1];
  const uint32_t last = s[length - 1];
  const uint32_t y = first + (middle << 8);
  const uint32_t z = static_cast<uint32_t>(length) + (last << 2);
  return mixHigh(y * kPrime2 ^ z * kPrime3 ^ kSeed) * kPrime2;
}

uint64_t hash4To8(const unsigned char *s, uint64_t length) {
  const uint64_t head = loadLittle32(s);
  return combine128(length + (head << 3), kSeed ^ loadLittle32(s + length - 4));
}

uint64_t hash9To16(const unsigned char *s, uint64_t length) {
  const uint64_t head = loadLittle64(s);
  const uint64_t tail = loadLittle64(s + length - 8);
  return combine128(kSeed ^ head,
                    rotateRight(tail + length, static_cast<unsigned>(length))) ^
         tail;
}

uint64_t hash17To32(const unsigned char *s, uint64_t length) {
  const uint64_t a = loadLittle64(s) * kPrime1;
  const uint64_t b = loadLittle64(s + 8);
  const uint64_t c = loadLittle64(s + length - 8) * kPrime2;
  const uint64_t d = loadLittle64(s + length - 16) * kPrime0;
  return combine128(rotateRight(a - b, 43) + rotateRight(c ^ kSeed, 30) + d,
                    a + rotateRight(b ^ kPrime3, 20) - c + length + kSeed);
}

uint64_t hash33To64(const unsigned char *s, uint64_t length) {
  uint64_t z = loadLittle64(s + 24);
  uint64_t a =
      loadLittle64(s) + (length + loadLittle64(s + length - 16)) * kPrime0;
  uint64_t b = rotateRight(a + z, 52);
  uint64_t c = rotateRight(a, 37);
  a += loadLittle64(s + 8);
  c += rotateRight(a, 7);
  a += loadLittle64(s + 16);
  const uint64_t frontFast = a + z;
  const uint64_t frontSlow = b + rotateRight(a, 31) + c;

  a = loadLittle64(s + 16) + loadLittle64(s + length - 32);
  z = loadLittle64(s + length - 8);
  b = rotateRight(a + z, 52);
  c = rotateRight(a, 37);
  a += loadLittle64(s + length - 24);
  c += rotateRight(a, 7);
  a += loadLittle64(s + length - 16);
  const uint64_t backFast = a + z;
  const uint64_t backSlow = b + rotateRight(a, 31) + c;

  const uint64_t r = mixHigh((frontFast + backSlow) * kPrime2 +
                             (backFast + frontSlow) * kPrime0);
  return mixHigh((kSeed ^ (r * kPrime0)) + frontSlow) * kPrime2;
}

// The running state for inputs longer than 64 bytes, fed 64-byte blocks.
class LongHashState {
public:
  explicit LongHashState(const unsigned char *firstBlock) {
    h1_ = kSeed;
    h2_ = combine128(kSeed, kPrime1);
    h3_ = rotateRight(kSeed ^ kPrime1, 49);
    h4_ = kSeed * kPrime1;
    h5_ = mixHigh(kSeed);
    h6_ = combine128(h4_, h5_);
    absorb(firstBlock);
  }

  void absorb(const unsigned char *s) {
    h0_ = rotateRight(h0_ + h1_ + h3_ + loadLittle64(s + 8), 37) * kPrime1;
    h1_ = rotateRight(h1_ + h4_ + loadLittle64(s + 48), 42) * kPrime1;
    h0_ ^= h6_;
    h1_ += h3_ + loadLittle64(s + 40);
    h2_ = rotateRight(h2_ + h5_, 33) * kPrime1;
    h3_ = h4_ * kPrime1;
    h4_ = h0_ + h5_;
    mixHalf(s, h3_, h4_);
    h5_ = h2_ + h6_;
    h6_ = h1_ + loadLittle64(s + 16);
    mixHalf(s + 32, h5_, h6_);
    std::swap(h2_, h0_);
  }

  uint64_t finish(uint64_t length) const {
    return combine128(combine128(h3_, h5_) + mixHigh(h1_) * kPrime1 + h2_,
                      combine128(h4_, h6_) + mixHigh(length) * kPrime1 + h0_);
  }

private:
  // Folds 32 bytes into the pair (a, b).
  static void mixHalf(const unsigned char *s, uint64_t &a, uint64_t &b) {
    a += loadLittle64(s);
    const uint64_t c = loadLittle64(s + 24);
    b = rotateRight(b + a + c, 21);
    const uint64_t d = a;
    a += loadLittle64(s + 8) + loadLittle64(s + 16);
    b += rotateRight(a, 44) + d;
    a += c;
  }

  uint64_t h0_ = 0, h1_ = 0, h2_ = 0, h3_ = 0, h4_ = 0, h5_ = 0, h6_ = 0;
};

} // namespace

uint64_t llvmHashValue(std::string_view bytes) {
  const auto *s = reinterpret_cast<const unsigned char *>(bytes.data());
  const uint64_t length = bytes.size();
  if (length == 0)
    return kPrime2 ^ kSeed;
  if (length <= 3)
    return hashUpTo3(s, length);
  if (length <= 8)
    return hash4To8(s, length);
  if (length <= 16)
    return hash9To16(s, length);
  if (length <= 32)
    return hash17To32(s, length);
  if (length <= 64)
    return hash33To64(s, length);

  // Whole 64-byte blocks, then the last 64 bytes again (overlapping the
  // previous block) when the length is not a multiple of 64.
  LongHashState state(s);
  const uint64_t wholeBlocksEnd = length & ~uint64_t{63};
  for (uint64_t at = 64; at < wholeBlocksEnd; at += 64)
    state.absorb(s + at);
  if (length % 64 != 0)
    state.absorb(s + length - 64);
  return state.finish(length);
}

} // namespace offbundle
