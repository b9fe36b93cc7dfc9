// The SYN transport's packets as bytes: the SYN it sends (an IPv4 or IPv6
// header and a TCP header with an MSS option, checksums filled in) and what
// it reads back, parsed from the network header on: a SYN-ACK (open), an
// RST with ACK (closed), or an ICMP destination unreachable quoting our SYN
// (filtered). Nothing here decides whether an answer is genuine: that is
// the transport's cookie check. Pure functions, any thread.
#pragma once

#include <sys/socket.h>

#include <cstddef>
#include <cstdint>

namespace selfscan {

struct IpAddress {
  uint8_t family = 0;  // AF_INET or AF_INET6
  uint8_t bytes[16] = {};
  size_t size() const { return family == AF_INET ? 4 : 16; }
};

// False for a family that is neither IPv4 nor IPv6.
bool IpAddressOf(const sockaddr_storage& address, IpAddress* out);

// IPv6 header (40) + TCP header with the MSS option (24).
constexpr size_t kMaxSynBytes = 64;

// Writes a SYN from `source`:`source_port` to `target`:`target_port` with
// sequence number `seq` into `out`; returns its length.
size_t BuildSyn(const IpAddress& source, const IpAddress& target, uint16_t source_port,
                uint16_t target_port, uint32_t seq, uint8_t* out);

enum class AnswerKind : uint8_t { kSynAck, kReset, kUnreachable };

struct ParsedAnswer {
  AnswerKind kind = AnswerKind::kReset;
  IpAddress target;  // the host probed (for ICMP, the quoted destination)
  uint16_t target_port = 0;
  uint16_t our_port = 0;
  // What proves the answer is to our probe: the acknowledgement of a SYN-ACK
  // or RST, or for ICMP the quoted sequence number plus one.
  uint32_t ack = 0;
  uint16_t window = 0;
  bool tcp_options = false;
};

// Parses a packet from its network header; false for anything that is not
// one of the three answers (other flags, fragments, other ICMP messages).
bool ParseAnswer(const uint8_t* packet, size_t length, ParsedAnswer* out);

}  // namespace selfscan
