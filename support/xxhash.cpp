// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// XXH3 64-bit with seed 0 and the default 192-byte secret. Only the scalar
// algorithm is needed: the result has to match LLVM's llvm::xxh3_64bits bit
// for bit because LLVM's StringMap derives bucket positions (and therefore
// iteration order) from it. Inputs are read as little-endian words regardless
// of the host byte order, as the reference algorithm specifies.
#include "support/xxhash.h"

#include "support/byte_order.h"

#include <array>
#include <cstddef>
#include <cstdint>

namespace offbundle {
namespace {

constexpr uint32_t kPrime32One = 0x9E3779B1U;
constexpr uint32_t kPrime32Two = 0x85EBCA77U;
constexpr uint32_t kPrime32Three = 0xC2B2AE3DU;

constexpr uint64_t kPrime64One = 0x9E3779B185EBCA87ULL;
constexpr uint64_t kPrime64Two = 0xC2B2AE3D27D4EB4FULL;
constexpr uint64_t kPrime64Three = 0x165667B19E3779F9ULL;
constexpr uint64_t kPrime64Four = 0x85EBCA77C2B2AE63ULL;
constexpr uint64_t kPrime64Five = 0x27D4EB2F165667C5ULL;

// Multipliers of the XXH3-specific finalizers.
constexpr uint64_t kPrimeMx1 = 0x165667919E3779F9ULL;
constexpr uint64_t kPrimeMx2 = 0x9FB21C651E98DF25ULL;

// The default secret of XXH3 (pseudo-random bytes fixed by the algorithm).
constexpr std::size_t kSecretSize = 192;
constexpr std::array<uint8_t, kSecretSize> kDefaultSecret = {
    0xb8, 0xfe, 0x6c, 0x39, 0x23, 0xa4, 0x4b, 0xbe, 0x7c, 0x01, 0x81, 0x2c,
    0xf7, 0x21, 0xad, 0x1c, 0xde, 0xd4, 0x6d, 0xe9, 0x83, 0x90, 0x97, 0xdb,
    0x72, 0x40, 0xa4, 0xa4, 0xb7, 0xb3, 0x67, 0x1f, 0xcb, 0x79, 0xe6, 0x4e,
    0xcc, 0xc0, 0xe5, 0x78, 0x82, 0x5a, 0xd0, 0x7d, 0xcc, 0xff, 0x72, 0x21,
    0xb8, 0x08, 0x46, 0x74, 0xf7, 0x43, 0x24, 0x8e, 0xe0, 0x35, 0x90, 0xe6,
    0x81, 0x3a, 0x26, 0x4c, 0x3c, 0x28, 0x52, 0xbb, 0x91, 0xc3, 0x00, 0xcb,
    0x88, 0xd0, 0x65, 0x8b, 0x1b, 0x53, 0x2e, 0xa3, 0x71, 0x64, 0x48, 0x97,
    0xa2, 0x0d, 0xf9, 0x4e, 0x38, 0x19, 0xef, 0x46, 0xa9, 0xde, 0xac, 0xd8,
    0xa8, 0xfa, 0x76, 0x3f, 0xe3, 0x9c, 0x34, 0x3f, 0xf9, 0xdc, 0xbb, 0xc7,
    0xc7, 0x0b, 0x4f, 0x1d, 0x8a, 0x51, 0xe0, 0x4b, 0xcd, 0xb4, 0x59, 0x31,
    0xc8, 0x9f, 0x7e, 0xc9, 0xd9, 0x78, 0x73, 0x64, 0xea, 0xc5, 0xac, 0x83,
    0x34, 0xd3, 0xeb, 0xc3, 0xc5, 0x81, 0xa0, 0xff, 0xfa, 0x13, 0x63, 0xeb,
    0x17, 0x0d, 0xdd, 0x51, 0xb7, 0xf0, 0xda, 0x49, 0xd3, 0x16, 0x55, 0x26,
    0x29, 0xd4, 0x68, 0x9e, 0x2b, 0x16, 0xbe, 0x58, 0x7d, 0x47, 0xa1, 0xfc,
    0x8f, 0xf8, 0xb8, 0xd1, 0x7a, 0xd0, 0x31, 0xce, 0x45, 0xcb, 0x3a, 0x8f,
    0x95, 0x16, 0x04, 0x28, 0xaf, 0xd7, 0xfb, 0xca, 0xbb, 0x4b, 0x40, 0x7e,
};

// Geometry of the long-input loop: 64-byte stripes feed eight 64-bit
// accumulator lanes, and each successive stripe of a block uses the secret
// shifted by 8 bytes.
constexpr std::size_t kStripeBytes = 64;
constexpr std::size_t kAccumulatorLanes = kStripeBytes / sizeof(uint64_t);
constexpr std::size_t kSecretAdvancePerStripe = 8;
constexpr std::size_t kStripesPerBlock =
    (kSecretSize - kStripeBytes) / kSecretAdvancePerStripe;
constexpr std::size_t kBlockBytes = kStripeBytes * kStripesPerBlock;

// Secret offsets the reference uses for the last stripe and the final merge.
constexpr std::size_t kLastStripeSecretOffset = kSecretSize - kStripeBytes - 7;
constexpr std::size_t kMergeSecretOffset = 11;
constexpr std::size_t kScrambleSecretOffset = kSecretSize - kStripeBytes;

// Parameters of the 129..240 byte path. Its tail block is keyed with an
// offset computed from the minimum secret size the algorithm allows (136).
constexpr std::size_t kMidSizeMax = 240;
constexpr std::size_t kMidSizeSecretStart = 3;
constexpr std::size_t kMinimumSecretSize = 136;
constexpr std::size_t kMidSizeTailSecretOffset = kMinimumSecretSize - 17;

uint64_t rotateLeft(uint64_t value, unsigned bits) {
  return (value << bits) | (value >> (64 - bits));
}

uint64_t byteSwap64(uint64_t value) {
  uint64_t swapped = 0;
  for (int index = 0; index < 8; ++index) {
    swapped = (swapped << 8) | (value & 0xFF);
    value >>= 8;
  }
  return swapped;
}

// Full 64x64->128 multiply whose halves are xor-folded back into 64 bits.
uint64_t multiplyFold(uint64_t lhs, uint64_t rhs) {
#if defined(__SIZEOF_INT128__)
  // __extension__ keeps -Wpedantic quiet about the non-standard type.
  __extension__ using UInt128 = unsigned __int128;
  const UInt128 product = static_cast<UInt128>(lhs) * rhs;
  return static_cast<uint64_t>(product) ^ static_cast<uint64_t>(product >> 64);
#else
  // Schoolbook multiplication on 32-bit halves; no partial sum can overflow.
  const uint64_t lowLow = (lhs & 0xFFFFFFFFULL) * (rhs & 0xFFFFFFFFULL);
  const uint64_t highLow = (lhs >> 32) * (rhs & 0xFFFFFFFFULL);
  const uint64_t lowHigh = (lhs & 0xFFFFFFFFULL) * (rhs >> 32);
  const uint64_t highHigh = (lhs >> 32) * (rhs >> 32);
  const uint64_t middle = (lowLow >> 32) + (highLow & 0xFFFFFFFFULL) + lowHigh;
  const uint64_t upper = (highLow >> 32) + (middle >> 32) + highHigh;
  const uint64_t lower = (middle << 32) | (lowLow & 0xFFFFFFFFULL);
  return upper ^ lower;
#endif
}

// Finalizer inherited from XXH64; XXH3 still uses it for the tiny inputs.
uint64_t xxh64Avalanche(uint64_t hash) {
  hash ^= hash >> 33;
  hash *= kPrime64Two;
  hash ^= hash >> 29;
  hash *= kPrime64Three;
  hash ^= hash >> 32;
  return hash;
}

uint64_t xxh3Avalanche(uint64_t hash) {
  hash ^= hash >> 37;
  hash *= kPrimeMx1;
  hash ^= hash >> 32;
  return hash;
}

uint64_t hashEmpty(const uint8_t *secret) {
  return xxh64Avalanche(loadLittle64(secret + 56) ^ loadLittle64(secret + 64));
}

uint64_t hash1To3(const uint8_t *input, std::size_t length,
                  const uint8_t *secret) {
  // First, middle and last byte plus the length make up one 32-bit word.
  const uint32_t combined = (static_cast<uint32_t>(input[0]) << 16) |
                            (static_cast<uint32_t>(input[length >> 1]) << 24) |
                            static_cast<uint32_t>(input[length - 1]) |
                            (static_cast<uint32_t>(length) << 8);
  const uint64_t keyMask = loadLittle32(secret) ^ loadLittle32(secret + 4);
  return xxh64Avalanche(static_cast<uint64_t>(combined) ^ keyMask);
}

uint64_t hash4To8(const uint8_t *input, std::size_t length,
                  const uint8_t *secret) {
  // The leading and trailing 4 bytes (overlapping when shorter than 8).
  const uint64_t leading = loadLittle32(input);
  const uint64_t trailing = loadLittle32(input + length - 4);
  uint64_t accumulator =
      (loadLittle64(secret + 8) ^ loadLittle64(secret + 16)) ^
      (trailing | (leading << 32));
  accumulator ^= rotateLeft(accumulator, 49) ^ rotateLeft(accumulator, 24);
  accumulator *= kPrimeMx2;
  accumulator ^= (accumulator >> 35) + length;
  accumulator *= kPrimeMx2;
  return accumulator ^ (accumulator >> 28);
}

uint64_t hash9To16(const uint8_t *input, std::size_t length,
                   const uint8_t *secret) {
  const uint64_t low = (loadLittle64(secret + 24) ^ loadLittle64(secret + 32)) ^
                       loadLittle64(input);
  const uint64_t high =
      (loadLittle64(secret + 40) ^ loadLittle64(secret + 48)) ^
      loadLittle64(input + length - 8);
  const uint64_t accumulator =
      length + byteSwap64(low) + high + multiplyFold(low, high);
  return xxh3Avalanche(accumulator);
}

// Mixes 16 input bytes with 16 secret bytes (seed 0, so no seed terms).
uint64_t mix16(const uint8_t *input, const uint8_t *secret) {
  return multiplyFold(loadLittle64(input) ^ loadLittle64(secret),
                      loadLittle64(input + 8) ^ loadLittle64(secret + 8));
}

uint64_t hash17To128(const uint8_t *input, std::size_t length,
                     const uint8_t *secret) {
  // Pairs of 16-byte chunks are taken from both ends moving inwards; the
  // number of pairs grows with each 32-byte step of the length.
  uint64_t fromFront = length * kPrime64One;
  uint64_t fromBack = 0;
  const std::size_t pairCount = (length - 1) / 32 + 1;
  for (std::size_t pair = 0; pair < pairCount; ++pair) {
    fromFront += mix16(input + 16 * pair, secret + 32 * pair);
    fromBack +=
        mix16(input + length - 16 * (pair + 1), secret + 32 * pair + 16);
  }
  return xxh3Avalanche(fromFront + fromBack);
}

uint64_t hash129To240(const uint8_t *input, std::size_t length,
                      const uint8_t *secret) {
  uint64_t accumulator = length * kPrime64One;
  const std::size_t chunkCount = length / 16;
  // The first eight chunks use the secret from its start and are avalanched
  // on their own before the remaining chunks reuse the secret at an offset.
  for (std::size_t chunk = 0; chunk < 8; ++chunk)
    accumulator += mix16(input + 16 * chunk, secret + 16 * chunk);
  accumulator = xxh3Avalanche(accumulator);
  for (std::size_t chunk = 8; chunk < chunkCount; ++chunk)
    accumulator += mix16(input + 16 * chunk,
                         secret + 16 * (chunk - 8) + kMidSizeSecretStart);
  accumulator += mix16(input + length - 16, secret + kMidSizeTailSecretOffset);
  return xxh3Avalanche(accumulator);
}

using Accumulators = std::array<uint64_t, kAccumulatorLanes>;

void accumulateStripe(Accumulators &lanes, const uint8_t *stripe,
                      const uint8_t *secret) {
  for (std::size_t lane = 0; lane < kAccumulatorLanes; ++lane) {
    const uint64_t data = loadLittle64(stripe + 8 * lane);
    const uint64_t keyed = data ^ loadLittle64(secret + 8 * lane);
    // Raw data goes into the neighbouring lane so every lane keeps some
    // unmultiplied input as well as the 32x32 product.
    lanes[lane ^ 1] += data;
    lanes[lane] += (keyed & 0xFFFFFFFFULL) * (keyed >> 32);
  }
}

void accumulateStripes(Accumulators &lanes, const uint8_t *input,
                       std::size_t stripeCount, const uint8_t *secret) {
  for (std::size_t stripe = 0; stripe < stripeCount; ++stripe)
    accumulateStripe(lanes, input + stripe * kStripeBytes,
                     secret + stripe * kSecretAdvancePerStripe);
}

void scrambleLanes(Accumulators &lanes, const uint8_t *secret) {
  for (std::size_t lane = 0; lane < kAccumulatorLanes; ++lane) {
    uint64_t value = lanes[lane];
    value ^= value >> 47;
    value ^= loadLittle64(secret + 8 * lane);
    value *= kPrime32One;
    lanes[lane] = value;
  }
}

uint64_t mergeLanes(const Accumulators &lanes, const uint8_t *secret,
                    uint64_t start) {
  uint64_t result = start;
  for (std::size_t pair = 0; pair < kAccumulatorLanes / 2; ++pair)
    result += multiplyFold(lanes[2 * pair] ^ loadLittle64(secret + 16 * pair),
                           lanes[2 * pair + 1] ^
                               loadLittle64(secret + 16 * pair + 8));
  return xxh3Avalanche(result);
}

uint64_t hashLong(const uint8_t *input, std::size_t length,
                  const uint8_t *secret) {
  Accumulators lanes = {kPrime32Three, kPrime64One, kPrime64Two,  kPrime64Three,
                        kPrime64Four,  kPrime32Two, kPrime64Five, kPrime32One};
  // Whole blocks are followed by a scramble. The "- 1" guarantees the final
  // stripe below always has data after the last full block, so an input that
  // is an exact multiple of the block size leaves its last block partial.
  const std::size_t fullBlocks = (length - 1) / kBlockBytes;
  for (std::size_t block = 0; block < fullBlocks; ++block) {
    accumulateStripes(lanes, input + block * kBlockBytes, kStripesPerBlock,
                      secret);
    scrambleLanes(lanes, secret + kScrambleSecretOffset);
  }
  const std::size_t remainingStripes =
      (length - 1 - fullBlocks * kBlockBytes) / kStripeBytes;
  accumulateStripes(lanes, input + fullBlocks * kBlockBytes, remainingStripes,
                    secret);
  // The last 64 bytes are always consumed as one more (possibly overlapping)
  // stripe.
  accumulateStripe(lanes, input + length - kStripeBytes,
                   secret + kLastStripeSecretOffset);
  return mergeLanes(lanes, secret + kMergeSecretOffset, length * kPrime64One);
}

} // namespace

uint64_t xxh3_64bits(std::string_view data) {
  const auto *input = reinterpret_cast<const uint8_t *>(data.data());
  const std::size_t length = data.size();
  const uint8_t *secret = kDefaultSecret.data();
  if (length == 0)
    return hashEmpty(secret);
  if (length <= 3)
    return hash1To3(input, length, secret);
  if (length <= 8)
    return hash4To8(input, length, secret);
  if (length <= 16)
    return hash9To16(input, length, secret);
  if (length <= 128)
    return hash17To128(input, length, secret);
  if (length <= kMidSizeMax)
    return hash129To240(input, length, secret);
  return hashLong(input, length, secret);
}

} // namespace offbundle
