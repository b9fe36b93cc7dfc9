#include "packet_codec.h"

#include <netinet/in.h>

#include <cstring>

namespace selfscan {

namespace {

constexpr uint8_t kTcp = 6;
constexpr uint8_t kIcmp = 1;
constexpr uint8_t kIcmp6 = 58;
constexpr uint8_t kFin = 0x01, kSyn = 0x02, kRst = 0x04, kAck = 0x10;
constexpr size_t kTcpSynBytes = 24;  // 20-byte header and the 4-byte MSS option
constexpr uint8_t kIcmpUnreachable = 3;
constexpr uint8_t kIcmpFragmentationNeeded = 4;  // a path MTU message, no verdict
constexpr uint8_t kIcmp6Unreachable = 1;

void Put16(uint8_t* p, uint16_t v) {
  p[0] = static_cast<uint8_t>(v >> 8);
  p[1] = static_cast<uint8_t>(v);
}
void Put32(uint8_t* p, uint32_t v) {
  Put16(p, static_cast<uint16_t>(v >> 16));
  Put16(p + 2, static_cast<uint16_t>(v));
}
uint16_t Get16(const uint8_t* p) { return static_cast<uint16_t>((p[0] << 8) | p[1]); }
uint32_t Get32(const uint8_t* p) { return (static_cast<uint32_t>(Get16(p)) << 16) | Get16(p + 2); }

uint32_t SumWords(const uint8_t* p, size_t n, uint32_t sum) {
  for (size_t i = 0; i + 1 < n; i += 2) sum += Get16(p + i);
  if (n % 2 != 0) sum += static_cast<uint32_t>(p[n - 1]) << 8;
  return sum;
}
uint16_t Fold(uint32_t sum) {
  while (sum >> 16) sum = (sum & 0xffff) + (sum >> 16);
  return static_cast<uint16_t>(~sum);
}

void SetAddress(IpAddress* out, uint8_t family, const uint8_t* bytes) {
  out->family = family;
  std::memcpy(out->bytes, bytes, family == AF_INET ? 4 : 16);
}

// The TCP header of an answer, with `target` already set from the IP layer.
bool ParseTcp(const uint8_t* tcp, size_t length, ParsedAnswer* out) {
  if (length < 20) return false;
  uint8_t flags = tcp[13];
  if ((flags & kAck) == 0 || (flags & kFin) != 0) return false;
  if ((flags & (kSyn | kRst)) == kSyn) {
    out->kind = AnswerKind::kSynAck;
  } else if ((flags & (kSyn | kRst)) == kRst) {
    out->kind = AnswerKind::kReset;
  } else {
    return false;
  }
  out->target_port = Get16(tcp);
  out->our_port = Get16(tcp + 2);
  out->ack = Get32(tcp + 8);
  out->window = Get16(tcp + 14);
  out->tcp_options = (tcp[12] >> 4) > 5;
  return true;
}

// The first 8 bytes of our SYN as an ICMP error quotes them.
bool ParseQuotedSyn(const uint8_t* tcp, size_t length, ParsedAnswer* out) {
  if (length < 8) return false;
  out->kind = AnswerKind::kUnreachable;
  out->our_port = Get16(tcp);
  out->target_port = Get16(tcp + 2);
  out->ack = Get32(tcp + 4) + 1;
  return true;
}

bool ParseIpv4(const uint8_t* p, size_t length, ParsedAnswer* out) {
  if (length < 20) return false;
  size_t header = static_cast<size_t>(p[0] & 0x0f) * 4;
  if (header < 20 || length < header) return false;
  if ((Get16(p + 6) & 0x1fff) != 0) return false;  // a later fragment
  const uint8_t* body = p + header;
  size_t rest = length - header;
  if (p[9] == kTcp) {
    SetAddress(&out->target, AF_INET, p + 12);
    return ParseTcp(body, rest, out);
  }
  if (p[9] != kIcmp || rest < 8 + 20 || body[0] != kIcmpUnreachable ||
      body[1] == kIcmpFragmentationNeeded) {
    return false;
  }
  const uint8_t* quoted = body + 8;
  size_t quoted_header = static_cast<size_t>(quoted[0] & 0x0f) * 4;
  if ((quoted[0] >> 4) != 4 || quoted[9] != kTcp || quoted_header < 20 ||
      rest < 8 + quoted_header) {
    return false;
  }
  SetAddress(&out->target, AF_INET, quoted + 16);
  return ParseQuotedSyn(quoted + quoted_header, rest - 8 - quoted_header, out);
}

bool ParseIpv6(const uint8_t* p, size_t length, ParsedAnswer* out) {
  if (length < 40) return false;
  const uint8_t* body = p + 40;
  size_t rest = length - 40;
  if (p[6] == kTcp) {
    SetAddress(&out->target, AF_INET6, p + 8);
    return ParseTcp(body, rest, out);
  }
  if (p[6] != kIcmp6 || rest < 8 + 40 || body[0] != kIcmp6Unreachable) return false;
  const uint8_t* quoted = body + 8;
  if ((quoted[0] >> 4) != 6 || quoted[6] != kTcp) return false;
  SetAddress(&out->target, AF_INET6, quoted + 24);
  return ParseQuotedSyn(quoted + 40, rest - 8 - 40, out);
}

}  // namespace

bool IpAddressOf(const sockaddr_storage& address, IpAddress* out) {
  if (address.ss_family == AF_INET) {
    const auto* in = reinterpret_cast<const sockaddr_in*>(&address);
    SetAddress(out, AF_INET, reinterpret_cast<const uint8_t*>(&in->sin_addr));
    return true;
  }
  if (address.ss_family == AF_INET6) {
    const auto* in6 = reinterpret_cast<const sockaddr_in6*>(&address);
    SetAddress(out, AF_INET6, reinterpret_cast<const uint8_t*>(&in6->sin6_addr));
    return true;
  }
  return false;
}

size_t BuildSyn(const IpAddress& source, const IpAddress& target, uint16_t source_port,
                uint16_t target_port, uint32_t seq, uint8_t* out) {
  bool v4 = target.family == AF_INET;
  size_t ip_bytes = v4 ? 20 : 40;
  size_t address_bytes = target.size();
  std::memset(out, 0, ip_bytes + kTcpSynBytes);
  if (v4) {
    out[0] = 0x45;
    Put16(out + 2, static_cast<uint16_t>(ip_bytes + kTcpSynBytes));
    Put16(out + 4, static_cast<uint16_t>(seq));  // identification: any value
    out[8] = 64;                                 // TTL
    out[9] = kTcp;
    std::memcpy(out + 12, source.bytes, 4);
    std::memcpy(out + 16, target.bytes, 4);
    Put16(out + 10, Fold(SumWords(out, 20, 0)));
  } else {
    out[0] = 0x60;
    Put16(out + 4, static_cast<uint16_t>(kTcpSynBytes));
    out[6] = kTcp;
    out[7] = 64;  // hop limit
    std::memcpy(out + 8, source.bytes, 16);
    std::memcpy(out + 24, target.bytes, 16);
  }
  uint8_t* tcp = out + ip_bytes;
  Put16(tcp, source_port);
  Put16(tcp + 2, target_port);
  Put32(tcp + 4, seq);
  tcp[12] = (kTcpSynBytes / 4) << 4;
  tcp[13] = kSyn;
  Put16(tcp + 14, 65535);  // window
  tcp[20] = 2;             // MSS option: kind 2, length 4
  tcp[21] = 4;
  Put16(tcp + 22, v4 ? 1460 : 1440);
  // Checksum over the pseudo-header (addresses, protocol, length) and the segment.
  uint32_t sum = SumWords(source.bytes, address_bytes, 0);
  sum = SumWords(target.bytes, address_bytes, sum);
  sum += kTcp + kTcpSynBytes;
  Put16(tcp + 16, Fold(SumWords(tcp, kTcpSynBytes, sum)));
  return ip_bytes + kTcpSynBytes;
}

bool ParseAnswer(const uint8_t* packet, size_t length, ParsedAnswer* out) {
  if (length < 1) return false;
  switch (packet[0] >> 4) {
    case 4:
      return ParseIpv4(packet, length, out);
    case 6:
      return ParseIpv6(packet, length, out);
    default:
      return false;
  }
}

}  // namespace selfscan
