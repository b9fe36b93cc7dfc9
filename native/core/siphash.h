// SipHash-2-4 (Aumasson and Bernstein): a keyed hash, short and fast, that
// an attacker who does not know the key cannot steer. The SYN transport
// puts it in the sequence number of each probe, so an answer proves it
// answers that probe. Pure function, any thread.
#pragma once

#include <cstddef>
#include <cstdint>

namespace selfscan {

struct SipKey {
  uint64_t k0 = 0;
  uint64_t k1 = 0;
};

uint64_t SipHash24(const SipKey& key, const uint8_t* data, size_t length);

}  // namespace selfscan
