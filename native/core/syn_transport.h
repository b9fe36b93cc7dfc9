// The half-open probe transport: SYNs from a packet socket straight to the
// device (or from raw sockets through IP), answers from one
// AF_PACKET socket whose BPF filter passes only TCP to the transport's own
// source ports and ICMP unreachables. Every SYN carries a cookie in its
// sequence number (SipHash of the target, both ports and a nonce under a
// key drawn at start), so an answer counts only when its acknowledgement is
// the cookie of a probe still waiting: forged, replayed or late answers and
// duplicates change nothing. The source ports are the transport's own,
// outside the kernel's ephemeral range, so no socket of this host owns them
// and the kernel resets each SYN-ACK (the half-open scan never completes a
// handshake). One transport serves every scan of the engine. Engine thread
// only.
#pragma once

#include <sys/socket.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "packet_codec.h"

namespace selfscan {

struct SynAnswer {
  uint64_t token;  // as given to Queue
  AnswerKind kind;
  // A SYN-ACK with window 0 and no options: a SYN proxy's or a tarpit's
  // shape, never a host listener's.
  bool window_closed;
};

// A SYN the system would not send, and why.
struct SynRefusal {
  uint64_t token;
  int error_number;
};

class SynTransport {
 public:
  virtual ~SynTransport() = default;
  // The receiving socket, for the engine's poller (readable: answers wait).
  virtual int receive_fd() const = 0;
  // Queues a SYN to `target`:`port` for the probe `token`; returns a handle
  // for Forget, or 0 with errno set when this target cannot be reached
  // half-open (no route, or no raw socket for its family).
  virtual uint64_t Queue(uint64_t token, const sockaddr_storage& target, uint16_t port) = 0;
  // Sends what is queued; SYNs the system refused go to `refused` and are
  // no longer expected.
  virtual void Flush(std::vector<SynRefusal>& refused) = 0;
  // The probe `token` stopped waiting (timed out or its scan ended).
  virtual void Forget(uint64_t handle, uint64_t token) = 0;
  // Reads every answer waiting; genuine ones go to `out`, once each.
  virtual void Drain(std::vector<SynAnswer>& out) = 0;
  // Answers read that proved nothing: no probe waiting for them, or a
  // wrong acknowledgement.
  virtual uint64_t ignored() const = 0;
  // SYNs sent, straight to the device (a packet socket) and through the IP layer (a raw socket).
  virtual uint64_t sent_to_device() const = 0;
  virtual uint64_t sent_through_ip() const = 0;
};

// The transport, or nullptr with `why` set when this process may not open
// raw sockets (no CAP_NET_RAW) or the platform has none.
std::unique_ptr<SynTransport> OpenSynTransport(std::string* why);

}  // namespace selfscan
