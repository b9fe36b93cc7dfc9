// Linux: SYNs handed straight to the device through an AF_PACKET socket
// when the target's next hop is known (link_hop_linux.h: an Ethernet
// neighbour), else through IPPROTO_RAW sockets (the IP layer
// routes each one and resolves the neighbour); the header is ours either
// way, so its source address and checksums are too. Answers through one
// AF_PACKET socket that sees every interface of the namespace, loopback
// included, behind a BPF filter. Batched both ways: sendmmsg and recvmmsg.
#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <cstring>
#include <string>
#include <unordered_map>
#include <utility>

#include "link_hop_linux.h"
#include "send_thread_linux.h"
#include "siphash.h"
#include "syn_transport.h"

#ifndef PACKET_IGNORE_OUTGOING
#define PACKET_IGNORE_OUTGOING 23
#endif

namespace selfscan {

namespace {

constexpr size_t kBatch = kSendBatch;
// Enough for any header pair an answer needs (IP and TCP with options, or
// an ICMP error quoting our IP and TCP headers); the filter cuts the rest.
constexpr size_t kSnapBytes = 256;
// Answers read per Drain at most, so sending is never starved; the
// level-triggered poller reports the rest on the next turn.
constexpr int kMaxBatchesPerDrain = 16;
// Socket buffers: a deep scan's answers arrive at hundreds of thousands a
// second, and the kernel drops what does not fit.
constexpr int kReceiveBuffer = 32 << 20;
constexpr int kSendBuffer = 4 << 20;
// Source ports the transport takes below the ephemeral range when nothing
// is free above it.
constexpr int kPortsBelow = 4096;
// SYNs to a target between lookups of its next hop: often enough to follow
// a neighbour that changed mid-scan, rare enough to cost nothing; and, while
// its neighbour is still being resolved (the first SYNs through IP start
// that), a few batches.
constexpr uint32_t kSynsPerLookup = 4096;
constexpr uint32_t kSynsPerUnresolvedLookup = 64;

std::string ErrorText(const char* call, int error_number) {
  return std::string(call) + ": " + std::strerror(error_number);
}

// The kernel's ephemeral range, from which connect() takes its ports.
std::pair<int, int> EphemeralRange() {
  int low = 32768, high = 60999;  // Linux's default
  if (FILE* file = std::fopen("/proc/sys/net/ipv4/ip_local_port_range", "r")) {
    if (std::fscanf(file, "%d %d", &low, &high) != 2) low = 32768, high = 60999;
    std::fclose(file);
  }
  return {low, high};
}

bool OwnPorts(std::pair<uint16_t, uint16_t>* out, std::string* why) {
  auto [low, high] = EphemeralRange();
  if (high < 65535 - 255) {
    *out = {static_cast<uint16_t>(high + 1), 65535};
  } else if (low > 1024 + 255) {
    *out = {static_cast<uint16_t>(std::max(1025, low - kPortsBelow)),
            static_cast<uint16_t>(low - 1)};
  } else {
    *why = "ip_local_port_range leaves no source ports for the SYN engine";
    return false;
  }
  return true;
}

void SetBuffer(int fd, int force_option, int option, int bytes) {
  if (setsockopt(fd, SOL_SOCKET, force_option, &bytes, sizeof bytes) != 0) {
    setsockopt(fd, SOL_SOCKET, option, &bytes, sizeof bytes);
  }
}

// Passes TCP to a port in [low, high] and ICMP/ICMPv6 destination
// unreachables (cut to kSnapBytes); drops everything else in the kernel.
std::vector<sock_filter> AnswerFilter(uint16_t low, uint16_t high) {
  // Jumps count instructions from the next one; the numbers are the indices.
  return {
      BPF_STMT(BPF_LD | BPF_H | BPF_ABS, static_cast<uint32_t>(SKF_AD_OFF + SKF_AD_PROTOCOL)),  // 0
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, ETH_P_IP, 0, 8),           // 1: IPv4, else 10
      BPF_STMT(BPF_LD | BPF_B | BPF_ABS, 9),                         // 2: protocol
      BPF_STMT(BPF_LDX | BPF_B | BPF_MSH, 0),                        // 3: X = header length
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, IPPROTO_ICMP, 0, 2),       // 4: ICMP, else 7
      BPF_STMT(BPF_LD | BPF_B | BPF_IND, 0),                         // 5: its type
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 3, 12, 13),                // 6: unreachable: accept
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, IPPROTO_TCP, 0, 12),       // 7: TCP, else drop
      BPF_STMT(BPF_LD | BPF_H | BPF_IND, 2),                         // 8: destination port
      BPF_STMT(BPF_JMP | BPF_JA, 7),                                 // 9: to the range, 17
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, ETH_P_IPV6, 0, 9),         // 10: IPv6, else drop
      BPF_STMT(BPF_LD | BPF_B | BPF_ABS, 6),                         // 11: next header
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, IPPROTO_ICMPV6, 0, 2),     // 12: ICMPv6, else 15
      BPF_STMT(BPF_LD | BPF_B | BPF_ABS, 40),                        // 13: its type
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 1, 4, 5),                  // 14: unreachable: accept
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, IPPROTO_TCP, 0, 4),        // 15: TCP, else drop
      BPF_STMT(BPF_LD | BPF_H | BPF_ABS, 42),                        // 16: destination port
      BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, low, 0, 2),                // 17: below: drop
      BPF_JUMP(BPF_JMP | BPF_JGT | BPF_K, high, 1, 0),               // 18: above: drop
      BPF_STMT(BPF_RET | BPF_K, static_cast<uint32_t>(kSnapBytes)),  // 19: accept
      BPF_STMT(BPF_RET | BPF_K, 0),                                  // 20: drop
  };
}

class LinuxSynTransport final : public SynTransport {
 public:
  LinuxSynTransport(std::pair<uint16_t, uint16_t> ports, SipKey key)
      : ports_(ports),
        key_(key),
        // Another engine on this host takes ports from the same range: start
        // somewhere else in it.
        next_port_(static_cast<uint16_t>(ports.first + key.k0 % (ports.second - ports.first + 1))) {
  }

  ~LinuxSynTransport() override {
    sender_.reset();  // its calls use the sockets
    for (int fd : {receive_fd_, send4_fd_, send6_fd_, link_fd_}) {
      if (fd >= 0) close(fd);
    }
  }

  // Opens the sockets; false with `why` when the system refuses.
  bool Open(std::string* why) {
    send4_fd_ = socket(AF_INET, SOCK_RAW | SOCK_NONBLOCK | SOCK_CLOEXEC, IPPROTO_RAW);
    if (send4_fd_ < 0) {
      *why = ErrorText("raw socket", errno);
      return false;
    }
    // Without IP_RECVERR a raw socket drops a SYN the device refused
    // (ENOBUFS) and says nothing; with it, the probe is put back and retried.
    int on = 1;
    setsockopt(send4_fd_, IPPROTO_IP, IP_RECVERR, &on, sizeof on);
    SetBuffer(send4_fd_, SO_SNDBUFFORCE, SO_SNDBUF, kSendBuffer);
    // IPv6 may be off on this host: IPv6 targets then go to the connect transport.
    send6_fd_ = socket(AF_INET6, SOCK_RAW | SOCK_NONBLOCK | SOCK_CLOEXEC, IPPROTO_RAW);
    if (send6_fd_ >= 0) {
      setsockopt(send6_fd_, IPPROTO_IPV6, IPV6_RECVERR, &on, sizeof on);
      SetBuffer(send6_fd_, SO_SNDBUFFORCE, SO_SNDBUF, kSendBuffer);
    }
    // Protocol 0 and never bound: it only sends. Without it every SYN goes through IP.
    link_fd_ = socket(AF_PACKET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (link_fd_ >= 0) SetBuffer(link_fd_, SO_SNDBUFFORCE, SO_SNDBUF, kSendBuffer);
    // Protocol 0 receives nothing until bound: the filter is in place before
    // the first packet can queue.
    receive_fd_ = socket(AF_PACKET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (receive_fd_ < 0) {
      *why = ErrorText("packet socket", errno);
      return false;
    }
    std::vector<sock_filter> code = AnswerFilter(ports_.first, ports_.second);
    sock_fprog program{static_cast<unsigned short>(code.size()), code.data()};
    if (setsockopt(receive_fd_, SOL_SOCKET, SO_ATTACH_FILTER, &program, sizeof program) != 0) {
      *why = ErrorText("SO_ATTACH_FILTER", errno);
      return false;
    }
    // Linux 4.20+; older kernels: outgoing packets are skipped below.
    setsockopt(receive_fd_, SOL_PACKET, PACKET_IGNORE_OUTGOING, &on, sizeof on);
    SetBuffer(receive_fd_, SO_RCVBUFFORCE, SO_RCVBUF, kReceiveBuffer);
    batch4_.fd = send4_fd_;
    batch6_.fd = send6_fd_;
    batch_device_.fd = link_fd_;
    batch_device_.to_device = true;
    sender_ = std::make_unique<SendThread>();
    sockaddr_ll bound{};
    bound.sll_family = AF_PACKET;
    bound.sll_protocol = htons(ETH_P_ALL);
    if (bind(receive_fd_, reinterpret_cast<sockaddr*>(&bound), sizeof bound) != 0) {
      *why = ErrorText("bind packet socket", errno);
      return false;
    }
    return true;
  }

  int receive_fd() const override { return receive_fd_; }
  uint64_t ignored() const override { return ignored_; }
  uint64_t sent_to_device() const override { return sender_->sent_to_device(); }
  uint64_t sent_through_ip() const override { return sender_->sent_through_ip(); }

  uint64_t Queue(uint64_t token, const sockaddr_storage& address, uint16_t port) override {
    IpAddress target;
    if (!IpAddressOf(address, &target)) {
      errno = EAFNOSUPPORT;
      return 0;
    }
    if ((target.family == AF_INET ? send4_fd_ : send6_fd_) < 0) {
      errno = EAFNOSUPPORT;
      return 0;
    }
    Target* entry = Enter(target, address);
    if (entry == nullptr) return 0;
    ChooseWayOut(*entry, address);
    SendBatch& batch = entry->to_device           ? batch_device_
                       : target.family == AF_INET ? batch4_
                                                  : batch6_;
    uint64_t handle = 0;
    uint16_t source_port = 0;
    for (int tries = 0; tries < 16 && handle == 0; ++tries) {
      source_port = TakePort();
      uint64_t candidate = HandleOf(entry->id, port, source_port);
      if (waiting_.count(candidate) == 0) handle = candidate;
    }
    if (handle == 0) {
      errno = EAGAIN;  // every port tried is waiting on this target port
      return 0;
    }
    uint32_t cookie = Cookie(target, port, source_port, ++nonce_);
    waiting_.emplace(handle, Waiting{token, cookie, entry});
    entry->live++;
    OutgoingSyn& out = batch.items[batch.count++];
    out.token = token;
    out.handle = handle;
    out.length = BuildSyn(entry->source, target, source_port, port, cookie, out.bytes);
    if (entry->to_device) {
      out.to = entry->device;
    } else {
      out.to = address;
      // A raw socket takes the port field as a protocol number (IPv6) or ignores it.
      if (address.ss_family == AF_INET6) reinterpret_cast<sockaddr_in6*>(&out.to)->sin6_port = 0;
    }
    if (batch.count == kBatch) sender_->Hand(batch);
    return handle;
  }

  void Flush(std::vector<SynRefusal>& refused) override {
    for (SendBatch* batch : {&batch4_, &batch6_, &batch_device_}) {
      if (batch->count > 0) sender_->SendNow(*batch);
    }
    // What the sender could not send, of this call's batches or earlier ones.
    failures_.clear();
    sender_->TakeFailures(failures_);
    for (const SendFailure& failure : failures_) {
      refused.push_back(SynRefusal{failure.token, failure.error_number});
      auto found = waiting_.find(failure.handle);
      if (found != waiting_.end() && found->second.token == failure.token) Release(found);
    }
  }

  void Forget(uint64_t handle, uint64_t token) override {
    auto found = waiting_.find(handle);
    if (found == waiting_.end() || found->second.token != token) return;
    Release(found);
  }

  void Drain(std::vector<SynAnswer>& out) override {
    for (int round = 0; round < kMaxBatchesPerDrain; ++round) {
      for (size_t i = 0; i < kBatch; ++i) {
        iov_[i] = iovec{receive_[i].data(), kSnapBytes};
        messages_[i].msg_hdr = msghdr{};
        messages_[i].msg_hdr.msg_iov = &iov_[i];
        messages_[i].msg_hdr.msg_iovlen = 1;
        messages_[i].msg_hdr.msg_name = &from_[i];
        messages_[i].msg_hdr.msg_namelen = sizeof from_[i];
      }
      int n = recvmmsg(receive_fd_, messages_.data(), kBatch, MSG_DONTWAIT, nullptr);
      if (n <= 0) return;  // EAGAIN: all read
      for (int i = 0; i < n; ++i) {
        if (from_[i].sll_pkttype == PACKET_OUTGOING) continue;
        Answer(receive_[i].data(), std::min<size_t>(messages_[i].msg_len, kSnapBytes), out);
      }
      if (static_cast<size_t>(n) < kBatch) return;
    }
  }

 private:
  struct Target {
    std::string key;
    uint32_t id;
    IpAddress source;           // the address the kernel would send from to this target
    uint32_t live = 0;          // probes waiting
    bool to_device = false;     // SYNs go out through link_fd_ to `device`
    sockaddr_storage device{};  // when to_device: the packet socket's destination (DeviceAddress)
    uint32_t syns_until_lookup = 0;  // SYNs before the next hop is looked up again
  };
  struct Waiting {
    uint64_t token;
    uint32_t cookie;
    Target* target;
  };

  static std::string KeyOf(const IpAddress& address) {
    return std::string(1, static_cast<char>(address.family)) +
           std::string(reinterpret_cast<const char*>(address.bytes), address.size());
  }
  static uint64_t HandleOf(uint32_t target_id, uint16_t target_port, uint16_t source_port) {
    return (static_cast<uint64_t>(target_id) << 32) | (static_cast<uint64_t>(target_port) << 16) |
           source_port;
  }

  Target* Find(const IpAddress& address) {
    auto found = targets_.find(KeyOf(address));
    return found == targets_.end() ? nullptr : &found->second;
  }

  // The entry of `target` (`to` as the scan gave it), made on first use:
  // its source address from a UDP socket connected to it (no packet is sent).
  Target* Enter(const IpAddress& target, const sockaddr_storage& to) {
    if (Target* entry = Find(target)) return entry;
    std::string key = KeyOf(target);
    Target entry{key, next_target_id_++, {}, 0};
    if (next_target_id_ == 0) next_target_id_ = 1;  // handle 0 means "none"
    if (!SourceFor(to, &entry.source)) return nullptr;
    return &targets_.emplace(key, entry).first->second;
  }

  static bool SourceFor(sockaddr_storage to, IpAddress* source) {
    int fd = socket(to.ss_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return false;
    bool v4 = to.ss_family == AF_INET;
    if (v4) {
      reinterpret_cast<sockaddr_in*>(&to)->sin_port = htons(9);
    } else {
      reinterpret_cast<sockaddr_in6*>(&to)->sin6_port = htons(9);
    }
    socklen_t length = v4 ? sizeof(sockaddr_in) : sizeof(sockaddr_in6);
    sockaddr_storage local{};
    socklen_t local_length = sizeof local;
    bool ok = connect(fd, reinterpret_cast<sockaddr*>(&to), length) == 0 &&
              getsockname(fd, reinterpret_cast<sockaddr*>(&local), &local_length) == 0 &&
              IpAddressOf(local, source);
    int saved = errno;
    close(fd);
    errno = saved;
    return ok;
  }

  // Whether `target`'s SYNs go straight to the device: looked up on its
  // first SYN, then every kSynsPerLookup (kSynsPerUnresolvedLookup while its
  // neighbour is unknown); never again once its route cannot take them.
  void ChooseWayOut(Target& target, const sockaddr_storage& address) {
    if (target.syns_until_lookup > 0) {
      target.syns_until_lookup--;
      return;
    }
    LinkHop hop;
    LinkHopLookup lookup = link_fd_ < 0 ? LinkHopLookup::kUnsupported : FindLinkHop(address, &hop);
    target.to_device = lookup == LinkHopLookup::kFound;
    if (target.to_device) target.device = DeviceAddress(hop, address.ss_family);
    target.syns_until_lookup = lookup == LinkHopLookup::kFound        ? kSynsPerLookup
                               : lookup == LinkHopLookup::kUnresolved ? kSynsPerUnresolvedLookup
                                                                      : UINT32_MAX;
  }

  // A packet socket's destination: the device, the next hop's MAC address
  // (the kernel writes the link header) and the network protocol.
  static sockaddr_storage DeviceAddress(const LinkHop& hop, int family) {
    sockaddr_storage storage{};
    auto* device = reinterpret_cast<sockaddr_ll*>(&storage);
    device->sll_family = AF_PACKET;
    device->sll_protocol = htons(family == AF_INET ? ETH_P_IP : ETH_P_IPV6);
    device->sll_ifindex = hop.ifindex;
    device->sll_halen = sizeof hop.mac;
    std::memcpy(device->sll_addr, hop.mac, sizeof hop.mac);
    return storage;
  }

  uint16_t TakePort() {
    uint16_t port = next_port_;
    next_port_ = next_port_ == ports_.second ? ports_.first : static_cast<uint16_t>(next_port_ + 1);
    return port;
  }

  uint32_t Cookie(const IpAddress& target, uint16_t target_port, uint16_t source_port,
                  uint64_t nonce) const {
    uint8_t input[1 + 16 + 2 + 2 + 8] = {};
    input[0] = target.family;
    std::memcpy(input + 1, target.bytes, target.size());
    std::memcpy(input + 17, &target_port, 2);
    std::memcpy(input + 19, &source_port, 2);
    std::memcpy(input + 21, &nonce, 8);
    return static_cast<uint32_t>(SipHash24(key_, input, sizeof input));
  }

  void Release(std::unordered_map<uint64_t, Waiting>::iterator found) {
    Target* target = found->second.target;
    waiting_.erase(found);
    if (--target->live == 0) targets_.erase(target->key);
  }

  void Answer(const uint8_t* packet, size_t length, std::vector<SynAnswer>& out) {
    ParsedAnswer answer;
    if (!ParseAnswer(packet, length, &answer) || answer.our_port < ports_.first ||
        answer.our_port > ports_.second) {
      return;  // not an answer to a SYN of ours (the filter lets some through)
    }
    Target* target = Find(answer.target);
    auto found = target == nullptr
                     ? waiting_.end()
                     : waiting_.find(HandleOf(target->id, answer.target_port, answer.our_port));
    if (found == waiting_.end() || found->second.cookie + 1 != answer.ack) {
      ignored_++;
      return;
    }
    bool window_closed = answer.window == 0 && !answer.tcp_options;
    out.push_back(SynAnswer{found->second.token, answer.kind, window_closed});
    Release(found);
  }

  const std::pair<uint16_t, uint16_t> ports_;
  const SipKey key_;
  uint16_t next_port_;
  uint64_t nonce_ = 0;
  uint32_t next_target_id_ = 1;
  int send4_fd_ = -1;
  int send6_fd_ = -1;
  int link_fd_ = -1;
  int receive_fd_ = -1;
  uint64_t ignored_ = 0;
  std::unordered_map<std::string, Target> targets_;
  std::unordered_map<uint64_t, Waiting> waiting_;
  SendBatch batch4_;
  SendBatch batch6_;
  SendBatch batch_device_;
  std::vector<SendFailure> failures_;
  std::unique_ptr<SendThread> sender_;  // made by Open
  std::array<std::array<uint8_t, kSnapBytes>, kBatch> receive_{};
  std::array<mmsghdr, kBatch> messages_{};
  std::array<iovec, kBatch> iov_{};
  std::array<sockaddr_ll, kBatch> from_{};
};

bool RandomKey(SipKey* key) {
  int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  bool ok = read(fd, key, sizeof *key) == static_cast<ssize_t>(sizeof *key);
  close(fd);
  return ok;
}

}  // namespace

std::unique_ptr<SynTransport> OpenSynTransport(std::string* why) {
  std::pair<uint16_t, uint16_t> ports;
  if (!OwnPorts(&ports, why)) return nullptr;
  SipKey key;
  if (!RandomKey(&key)) {
    *why = ErrorText("/dev/urandom", errno);
    return nullptr;
  }
  auto transport = std::make_unique<LinuxSynTransport>(ports, key);
  if (!transport->Open(why)) return nullptr;
  return transport;
}

}  // namespace selfscan
