// The SYN transport's packets: a SYN built here must carry valid IPv4 and
// TCP checksums (a host drops a SYN whose checksum is wrong, which a scan
// would read as filtered), and the parser must read exactly the three
// answers (SYN-ACK, RST with ACK, ICMP unreachable quoting our SYN) and
// refuse everything else a packet socket can hand it.
#include "../core/packet_codec.h"

#include <netinet/in.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "test.h"

namespace selfscan {
namespace {

IpAddress V4(uint8_t a, uint8_t b, uint8_t c, uint8_t d) {
  IpAddress out;
  out.family = AF_INET;
  uint8_t bytes[4] = {a, b, c, d};
  std::memcpy(out.bytes, bytes, 4);
  return out;
}

IpAddress V6(uint8_t last) {
  IpAddress out;
  out.family = AF_INET6;
  out.bytes[0] = 0xfd;
  out.bytes[15] = last;
  return out;
}

// The one's-complement sum of 16-bit words, folded: 0xffff over data that
// includes a correct checksum.
uint16_t OnesSum(const uint8_t* p, size_t n, uint32_t sum = 0) {
  for (size_t i = 0; i + 1 < n; i += 2) sum += static_cast<uint32_t>((p[i] << 8) | p[i + 1]);
  while (sum >> 16) sum = (sum & 0xffff) + (sum >> 16);
  return static_cast<uint16_t>(sum);
}

uint32_t PseudoSum(const IpAddress& a, const IpAddress& b, size_t tcp_length) {
  uint32_t sum = 0;
  for (size_t i = 0; i < a.size(); i += 2)
    sum += static_cast<uint32_t>((a.bytes[i] << 8) | a.bytes[i + 1]);
  for (size_t i = 0; i < b.size(); i += 2)
    sum += static_cast<uint32_t>((b.bytes[i] << 8) | b.bytes[i + 1]);
  return sum + 6 + static_cast<uint32_t>(tcp_length);
}

// The answer a host sends to `syn` (as built), with `flags` and `ack`.
std::vector<uint8_t> AnswerTo(const uint8_t* syn, size_t ip_bytes, uint8_t flags, uint32_t ack) {
  std::vector<uint8_t> out(syn, syn + ip_bytes + 20);
  if (ip_bytes == 20) {
    std::memcpy(out.data() + 12, syn + 16, 4);  // swap the addresses
    std::memcpy(out.data() + 16, syn + 12, 4);
  } else {
    std::memcpy(out.data() + 8, syn + 24, 16);
    std::memcpy(out.data() + 24, syn + 8, 16);
  }
  uint8_t* tcp = out.data() + ip_bytes;
  std::memcpy(tcp, syn + ip_bytes + 2, 2);  // swap the ports
  std::memcpy(tcp + 2, syn + ip_bytes, 2);
  tcp[8] = static_cast<uint8_t>(ack >> 24);
  tcp[9] = static_cast<uint8_t>(ack >> 16);
  tcp[10] = static_cast<uint8_t>(ack >> 8);
  tcp[11] = static_cast<uint8_t>(ack);
  tcp[12] = 5 << 4;
  tcp[13] = flags;
  tcp[14] = 0;  // window 0
  tcp[15] = 0;
  return out;
}

TEST(PacketCodec, Ipv4SynHasValidChecksums) {
  uint8_t syn[kMaxSynBytes];
  IpAddress us = V4(198, 18, 0, 1), them = V4(198, 18, 0, 2);
  size_t n = BuildSyn(us, them, 61000, 443, 0xdeadbeef, syn);
  CHECK_EQ(n, 44u);
  CHECK_EQ(syn[0], 0x45);
  CHECK_EQ(syn[9], 6);
  CHECK_EQ(OnesSum(syn, 20), 0xffff);  // IPv4 header checksum
  CHECK_EQ(OnesSum(syn + 20, 24, PseudoSum(us, them, 24)), 0xffff);
  CHECK_EQ(syn[20 + 13], 0x02);  // SYN only
  CHECK_EQ(syn[20 + 20], 2);     // MSS option
}

TEST(PacketCodec, Ipv6SynHasValidChecksum) {
  uint8_t syn[kMaxSynBytes];
  IpAddress us = V6(1), them = V6(2);
  size_t n = BuildSyn(us, them, 65535, 22, 7, syn);
  CHECK_EQ(n, 64u);
  CHECK_EQ(syn[0] >> 4, 6);
  CHECK_EQ(syn[6], 6);
  CHECK_EQ(OnesSum(syn + 40, 24, PseudoSum(us, them, 24)), 0xffff);
}

TEST(PacketCodec, ParsesSynAckAndReset) {
  uint8_t syn[kMaxSynBytes];
  for (bool v4 : {true, false}) {
    IpAddress us = v4 ? V4(10, 0, 0, 1) : V6(1), them = v4 ? V4(10, 0, 0, 2) : V6(2);
    size_t ip_bytes = v4 ? 20 : 40;
    BuildSyn(us, them, 61001, 8080, 41, syn);
    std::vector<uint8_t> syn_ack = AnswerTo(syn, ip_bytes, 0x12, 42);
    ParsedAnswer answer;
    CHECK(ParseAnswer(syn_ack.data(), syn_ack.size(), &answer));
    CHECK_EQ(answer.kind, AnswerKind::kSynAck);
    CHECK_EQ(answer.target.family, them.family);
    CHECK(std::memcmp(answer.target.bytes, them.bytes, them.size()) == 0);
    CHECK_EQ(answer.target_port, 8080);
    CHECK_EQ(answer.our_port, 61001);
    CHECK_EQ(answer.ack, 42u);
    CHECK_EQ(answer.window, 0);
    CHECK(!answer.tcp_options);
    std::vector<uint8_t> reset = AnswerTo(syn, ip_bytes, 0x14, 42);
    CHECK(ParseAnswer(reset.data(), reset.size(), &answer));
    CHECK_EQ(answer.kind, AnswerKind::kReset);
  }
}

TEST(PacketCodec, RefusesWhatIsNoAnswer) {
  uint8_t syn[kMaxSynBytes];
  size_t n = BuildSyn(V4(10, 0, 0, 1), V4(10, 0, 0, 2), 61001, 80, 1, syn);
  ParsedAnswer answer;
  CHECK(!ParseAnswer(syn, n, &answer));  // a SYN without ACK
  for (uint8_t flags :
       {0x10, 0x11, 0x04, 0x18, 0x16}) {  // ACK, FIN-ACK, bare RST, PSH-ACK, SYN-RST-ACK
    std::vector<uint8_t> packet = AnswerTo(syn, 20, flags, 2);
    CHECK(!ParseAnswer(packet.data(), packet.size(), &answer)) << "flags " << int(flags);
  }
  std::vector<uint8_t> fragment = AnswerTo(syn, 20, 0x12, 2);
  fragment[7] = 8;  // fragment offset 64 bytes
  CHECK(!ParseAnswer(fragment.data(), fragment.size(), &answer));
  std::vector<uint8_t> cut = AnswerTo(syn, 20, 0x12, 2);
  CHECK(!ParseAnswer(cut.data(), 30, &answer));  // TCP header cut short
  uint8_t garbage[3] = {0x12, 0, 0};
  CHECK(!ParseAnswer(garbage, sizeof garbage, &answer));
}

// An ICMP error: its own IP header (from a router or the host), 8 bytes of
// ICMP, then our SYN's IP header and first 8 TCP bytes.
std::vector<uint8_t> IcmpQuoting(const uint8_t* syn, bool v4, uint8_t type, uint8_t code) {
  size_t ip_bytes = v4 ? 20 : 40;
  std::vector<uint8_t> out(ip_bytes + 8);
  out[0] = v4 ? 0x45 : 0x60;
  if (v4) {
    out[9] = 1;
  } else {
    out[6] = 58;
  }
  out[ip_bytes] = type;
  out[ip_bytes + 1] = code;
  out.insert(out.end(), syn, syn + ip_bytes + 8);
  return out;
}

TEST(PacketCodec, ParsesUnreachableQuotingOurSyn) {
  uint8_t syn[kMaxSynBytes];
  for (bool v4 : {true, false}) {
    IpAddress us = v4 ? V4(10, 0, 0, 1) : V6(1), them = v4 ? V4(10, 0, 0, 9) : V6(9);
    BuildSyn(us, them, 62000, 25, 1000, syn);
    std::vector<uint8_t> icmp = IcmpQuoting(syn, v4, v4 ? 3 : 1, v4 ? 3 : 4);
    ParsedAnswer answer;
    CHECK(ParseAnswer(icmp.data(), icmp.size(), &answer));
    CHECK_EQ(answer.kind, AnswerKind::kUnreachable);
    CHECK(std::memcmp(answer.target.bytes, them.bytes, them.size()) == 0);
    CHECK_EQ(answer.target_port, 25);
    CHECK_EQ(answer.our_port, 62000);
    CHECK_EQ(answer.ack, 1001u);  // the quoted sequence number, plus one
    std::vector<uint8_t> echo = IcmpQuoting(syn, v4, v4 ? 0 : 129, 0);
    CHECK(!ParseAnswer(echo.data(), echo.size(), &answer));
  }
  BuildSyn(V4(10, 0, 0, 1), V4(10, 0, 0, 9), 62000, 25, 1000, syn);
  std::vector<uint8_t> mtu = IcmpQuoting(syn, true, 3, 4);  // fragmentation needed
  ParsedAnswer answer;
  CHECK(!ParseAnswer(mtu.data(), mtu.size(), &answer));
}

}  // namespace
}  // namespace selfscan
