// Route, link and neighbour lookups over one rtnetlink socket per call:
// RTM_GETROUTE for the target (its device and gateway), RTM_GETLINK for the
// device's hardware type, RTM_GETNEIGH for the next hop's MAC address.
#include "link_hop_linux.h"

#include <errno.h>
#include <linux/if_arp.h>
#include <linux/neighbour.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstring>

namespace selfscan {

namespace {

constexpr size_t kRequestBytes = 256;
constexpr size_t kReplyBytes = 16384;

// A request under construction: its header, its family header, then attributes.
struct Request {
  alignas(nlmsghdr) uint8_t bytes[kRequestBytes] = {};
  nlmsghdr* header() { return reinterpret_cast<nlmsghdr*>(bytes); }

  Request(uint16_t type, size_t family_header_bytes) {
    header()->nlmsg_len = NLMSG_LENGTH(family_header_bytes);
    header()->nlmsg_type = type;
    header()->nlmsg_flags = NLM_F_REQUEST;
  }
  template <typename T>
  T* body() {
    return reinterpret_cast<T*>(NLMSG_DATA(header()));
  }
  void Add(uint16_t type, const void* data, size_t length) {
    auto* attribute = reinterpret_cast<rtattr*>(bytes + NLMSG_ALIGN(header()->nlmsg_len));
    attribute->rta_type = type;
    attribute->rta_len = static_cast<uint16_t>(RTA_LENGTH(length));
    std::memcpy(RTA_DATA(attribute), data, length);
    header()->nlmsg_len =
        static_cast<uint32_t>(NLMSG_ALIGN(header()->nlmsg_len) + RTA_ALIGN(attribute->rta_len));
  }
};

// One rtnetlink socket for a lookup's requests.
class Rtnetlink {
 public:
  Rtnetlink() : fd_(socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE)) {}
  ~Rtnetlink() {
    if (fd_ >= 0) close(fd_);
  }
  Rtnetlink(const Rtnetlink&) = delete;
  Rtnetlink& operator=(const Rtnetlink&) = delete;

  // Sends `request` and returns the kernel's answer to it, or nullptr with
  // errno set (the kernel's error, or the system call's).
  const nlmsghdr* Ask(Request& request) {
    if (fd_ < 0) return nullptr;
    request.header()->nlmsg_seq = ++sequence_;
    sockaddr_nl kernel{};
    kernel.nl_family = AF_NETLINK;
    if (sendto(fd_, request.bytes, request.header()->nlmsg_len, 0,
               reinterpret_cast<sockaddr*>(&kernel), sizeof kernel) < 0) {
      return nullptr;
    }
    for (;;) {
      ssize_t length = recv(fd_, reply_, sizeof reply_, 0);
      if (length < 0) {
        if (errno == EINTR) continue;
        return nullptr;
      }
      auto remaining = static_cast<unsigned>(length);
      for (auto* message = reinterpret_cast<const nlmsghdr*>(reply_); NLMSG_OK(message, remaining);
           message = NLMSG_NEXT(message, remaining)) {
        if (message->nlmsg_seq != sequence_) continue;  // an answer to an earlier request
        if (message->nlmsg_type == NLMSG_ERROR) {
          errno = -reinterpret_cast<const nlmsgerr*>(NLMSG_DATA(message))->error;
          return nullptr;
        }
        return message;
      }
    }
  }

 private:
  int fd_;
  uint32_t sequence_ = 0;
  alignas(nlmsghdr) uint8_t reply_[kReplyBytes];
};

// Calls `visit(type, data, length)` for each attribute after a message's family header.
template <typename Visit>
void EachAttribute(const nlmsghdr* message, size_t family_header_bytes, Visit visit) {
  auto* attribute = reinterpret_cast<const rtattr*>(
      reinterpret_cast<const uint8_t*>(NLMSG_DATA(message)) + NLMSG_ALIGN(family_header_bytes));
  int remaining =
      static_cast<int>(message->nlmsg_len) - static_cast<int>(NLMSG_LENGTH(family_header_bytes));
  for (; RTA_OK(attribute, remaining); attribute = RTA_NEXT(attribute, remaining)) {
    visit(attribute->rta_type, RTA_DATA(attribute), RTA_PAYLOAD(attribute));
  }
}

// The target's address bytes and family from `target`.
size_t AddressOf(const sockaddr_storage& target, const void** bytes) {
  if (target.ss_family == AF_INET) {
    *bytes = &reinterpret_cast<const sockaddr_in*>(&target)->sin_addr;
    return 4;
  }
  *bytes = &reinterpret_cast<const sockaddr_in6*>(&target)->sin6_addr;
  return 16;
}

}  // namespace

LinkHopLookup FindLinkHop(const sockaddr_storage& target, LinkHop* hop) {
  if (target.ss_family != AF_INET && target.ss_family != AF_INET6)
    return LinkHopLookup::kUnsupported;
  const void* address = nullptr;
  size_t address_bytes = AddressOf(target, &address);
  Rtnetlink netlink;

  Request route(RTM_GETROUTE, sizeof(rtmsg));
  route.body<rtmsg>()->rtm_family = target.ss_family;
  route.body<rtmsg>()->rtm_dst_len = static_cast<uint8_t>(address_bytes * 8);
  route.Add(RTA_DST, address, address_bytes);
  const nlmsghdr* answer = netlink.Ask(route);
  if (answer == nullptr || answer->nlmsg_type != RTM_NEWROUTE) return LinkHopLookup::kUnsupported;
  uint8_t route_type = reinterpret_cast<const rtmsg*>(NLMSG_DATA(answer))->rtm_type;
  // A local target (loopback, or an address of this host) stays with IP: an
  // IPv4 packet written to loopback has no route attached, and the input
  // route then drops a loopback or local source address as martian.
  if (route_type != RTN_UNICAST) return LinkHopLookup::kUnsupported;
  int ifindex = 0;
  uint8_t next_hop[16];
  std::memcpy(next_hop, address, address_bytes);
  bool unusual = false;  // a gateway of another family (RTA_VIA), or a nexthop object
  EachAttribute(answer, sizeof(rtmsg), [&](uint16_t type, const void* data, size_t length) {
    if (type == RTA_OIF && length == sizeof(int)) std::memcpy(&ifindex, data, sizeof(int));
    if (type == RTA_GATEWAY && length == address_bytes) std::memcpy(next_hop, data, address_bytes);
    if (type == RTA_VIA || type == RTA_MULTIPATH) unusual = true;
  });
  if (ifindex <= 0 || unusual) return LinkHopLookup::kUnsupported;

  Request link(RTM_GETLINK, sizeof(ifinfomsg));
  link.body<ifinfomsg>()->ifi_index = ifindex;
  answer = netlink.Ask(link);
  if (answer == nullptr || answer->nlmsg_type != RTM_NEWLINK) return LinkHopLookup::kUnsupported;
  const auto* device = reinterpret_cast<const ifinfomsg*>(NLMSG_DATA(answer));
  if ((device->ifi_flags & IFF_UP) == 0) return LinkHopLookup::kUnsupported;
  if (device->ifi_type != ARPHRD_ETHER || (device->ifi_flags & IFF_NOARP) != 0) {
    return LinkHopLookup::kUnsupported;
  }

  Request neighbour(RTM_GETNEIGH, sizeof(ndmsg));
  neighbour.body<ndmsg>()->ndm_family = target.ss_family;
  neighbour.body<ndmsg>()->ndm_ifindex = ifindex;
  neighbour.Add(NDA_DST, next_hop, address_bytes);
  answer = netlink.Ask(neighbour);
  if (answer == nullptr)
    return errno == ENOENT ? LinkHopLookup::kUnresolved : LinkHopLookup::kUnsupported;
  if (answer->nlmsg_type != RTM_NEWNEIGH) return LinkHopLookup::kUnsupported;
  // An entry being resolved (INCOMPLETE) or that failed has no address to use yet.
  constexpr uint16_t kUsable = NUD_REACHABLE | NUD_STALE | NUD_DELAY | NUD_PROBE | NUD_PERMANENT;
  if ((reinterpret_cast<const ndmsg*>(NLMSG_DATA(answer))->ndm_state & kUsable) == 0) {
    return LinkHopLookup::kUnresolved;
  }
  bool found = false;
  EachAttribute(answer, sizeof(ndmsg), [&](uint16_t type, const void* data, size_t length) {
    if (type == NDA_LLADDR && length == sizeof hop->mac) {
      std::memcpy(hop->mac, data, sizeof hop->mac);
      found = true;
    }
  });
  if (!found) return LinkHopLookup::kUnresolved;
  hop->ifindex = ifindex;
  return LinkHopLookup::kFound;
}

}  // namespace selfscan
