// SipHash-2-4 against the reference vectors of the paper's appendix: key
// 00..0f, messages 00, 00 01, ... (the first and the 15-byte one here), so
// the cookie is the hash the algorithm defines, not one that only looks
// random.
#include "../core/siphash.h"

#include <cstdint>

#include "test.h"

namespace selfscan {
namespace {

SipKey ReferenceKey() {
  uint8_t bytes[16];
  for (int i = 0; i < 16; ++i) bytes[i] = static_cast<uint8_t>(i);
  SipKey key;
  for (int i = 0; i < 8; ++i) {
    key.k0 |= static_cast<uint64_t>(bytes[i]) << (8 * i);
    key.k1 |= static_cast<uint64_t>(bytes[8 + i]) << (8 * i);
  }
  return key;
}

TEST(SipHash, ReferenceVectors) {
  uint8_t message[64];
  for (int i = 0; i < 64; ++i) message[i] = static_cast<uint8_t>(i);
  CHECK_EQ(SipHash24(ReferenceKey(), message, 0), 0x726fdb47dd0e0e31ULL);
  CHECK_EQ(SipHash24(ReferenceKey(), message, 1), 0x74f839c593dc67fdULL);
  CHECK_EQ(SipHash24(ReferenceKey(), message, 8), 0x93f5f5799a932462ULL);
  CHECK_EQ(SipHash24(ReferenceKey(), message, 15), 0xa129ca6149be45e5ULL);
}

TEST(SipHash, KeyChangesEverything) {
  uint8_t message[29] = {4, 198, 18, 0, 2};
  SipKey other = ReferenceKey();
  other.k1 ^= 1;
  CHECK(SipHash24(ReferenceKey(), message, sizeof message) !=
        SipHash24(other, message, sizeof message));
}

}  // namespace
}  // namespace selfscan
