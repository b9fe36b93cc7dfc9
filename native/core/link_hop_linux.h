// The link-layer next hop of a target as the kernel's route and neighbour
// tables give it now: what a packet socket needs to hand a SYN straight to
// an Ethernet device, past the IP layer's per-packet route lookup and
// netfilter (the SYN transport's fast way out; syn_transport_linux.cc).
// Linux only.
#pragma once
#include <sys/socket.h>

#include <cstdint>

namespace selfscan {

struct LinkHop {
  int ifindex = 0;
  uint8_t mac[6] = {};  // the next hop's
};

enum class LinkHopLookup {
  kFound,        // `hop` is set
  kUnresolved,   // an Ethernet next hop with no usable neighbour entry yet: ask again later
  kUnsupported,  // a local target, no unicast route, or a device other than Ethernet
};

// Asks the kernel (rtnetlink: the route to `target`, its device's type,
// then the next hop's neighbour entry). A few system calls: call it once
// per target, not per packet.
LinkHopLookup FindLinkHop(const sockaddr_storage& target, LinkHop* hop);

}  // namespace selfscan
