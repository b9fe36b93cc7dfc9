#include "siphash.h"

namespace selfscan {

namespace {

uint64_t Rotl(uint64_t x, int b) { return (x << b) | (x >> (64 - b)); }

struct State {
  uint64_t v0, v1, v2, v3;
  void Round() {
    v0 += v1;
    v1 = Rotl(v1, 13);
    v1 ^= v0;
    v0 = Rotl(v0, 32);
    v2 += v3;
    v3 = Rotl(v3, 16);
    v3 ^= v2;
    v0 += v3;
    v3 = Rotl(v3, 21);
    v3 ^= v0;
    v2 += v1;
    v1 = Rotl(v1, 17);
    v1 ^= v2;
    v2 = Rotl(v2, 32);
  }
  void Absorb(uint64_t m) {
    v3 ^= m;
    Round();
    Round();
    v0 ^= m;
  }
};

uint64_t LittleEndian(const uint8_t* p, size_t n) {
  uint64_t word = 0;
  for (size_t i = 0; i < n; ++i) word |= static_cast<uint64_t>(p[i]) << (8 * i);
  return word;
}

}  // namespace

uint64_t SipHash24(const SipKey& key, const uint8_t* data, size_t length) {
  State s{key.k0 ^ 0x736f6d6570736575ULL, key.k1 ^ 0x646f72616e646f6dULL,
          key.k0 ^ 0x6c7967656e657261ULL, key.k1 ^ 0x7465646279746573ULL};
  size_t whole = length - length % 8;
  for (size_t i = 0; i < whole; i += 8) s.Absorb(LittleEndian(data + i, 8));
  s.Absorb((static_cast<uint64_t>(length) << 56) | LittleEndian(data + whole, length % 8));
  s.v2 ^= 0xff;
  for (int i = 0; i < 4; ++i) s.Round();
  return s.v0 ^ s.v1 ^ s.v2 ^ s.v3;
}

}  // namespace selfscan
