// Platforms without AF_PACKET (macOS, the BSDs): no half-open transport;
// the engine runs connect() probes.
#include "syn_transport.h"

namespace selfscan {

std::unique_ptr<SynTransport> OpenSynTransport(std::string* why) {
  *why = "half-open SYN probes are built for Linux only";
  return nullptr;
}

}  // namespace selfscan
