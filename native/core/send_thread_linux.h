// The SYN transport's send calls, full batches on a thread of their own:
// the engine thread hands them over and goes on with its bookkeeping and
// its reading while the kernel takes them. The kernel's work for a SYN runs
// inside the call that sends it (a driver's; on a veth the receiving
// host's whole path, its RST included), so at a sweep's full rate it now
// overlaps the engine's. A paced scan's few SYNs per turn are sent at once
// on the engine thread (SendNow): waking the thread for each costs more
// than the call. Linux only (syn_transport_linux.cc).
#pragma once
#include <sys/socket.h>

#include <array>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

#include "packet_codec.h"

namespace selfscan {

constexpr size_t kSendBatch = 64;

struct OutgoingSyn {
  uint8_t bytes[kMaxSynBytes];
  size_t length;
  sockaddr_storage to;  // sockaddr_in, sockaddr_in6 or sockaddr_ll
  uint64_t token;
  uint64_t handle;
};

struct SendBatch {
  int fd = -1;             // the socket it goes out through
  bool to_device = false;  // a packet socket's batch (for the counts)
  std::array<OutgoingSyn, kSendBatch> items;
  size_t count = 0;
};

// A SYN the system would not send: its probe's token and handle, and why.
struct SendFailure {
  uint64_t token;
  uint64_t handle;
  int error_number;
};

class SendThread {
 public:
  SendThread();
  // Stops the thread; batches not sent yet are dropped.
  ~SendThread();
  SendThread(const SendThread&) = delete;
  SendThread& operator=(const SendThread&) = delete;

  // Takes a copy of `batch` to send, and empties it. Waits while kSlots
  // batches are waiting already (the device is slower than the pace).
  void Hand(SendBatch& batch);
  // Sends `batch` on the calling thread, and empties it.
  void SendNow(SendBatch& batch);
  // Moves the SYNs refused since the last call into `out`.
  void TakeFailures(std::vector<SendFailure>& out);
  uint64_t sent_to_device() const { return sent_to_device_.load(std::memory_order_relaxed); }
  uint64_t sent_through_ip() const { return sent_through_ip_.load(std::memory_order_relaxed); }

 private:
  // Batches waiting at most: 512 SYNs, about 2 ms at the rates a veth
  // takes, so a probe's measured RTT holds little of the queue.
  static constexpr size_t kSlots = 8;

  void Run();
  // Sends `batch`; what the system refuses goes to failures_.
  void Send(const SendBatch& batch);

  std::mutex mutex_;
  std::condition_variable work_;  // a batch is waiting, or stop_
  std::condition_variable room_;  // a slot is free
  std::array<SendBatch, kSlots> slots_;
  size_t first_ = 0;    // the oldest waiting batch's slot
  size_t waiting_ = 0;  // batches waiting, the one being sent included
  bool stop_ = false;
  std::vector<SendFailure> failures_;
  std::atomic<uint64_t> sent_to_device_{0};
  std::atomic<uint64_t> sent_through_ip_{0};
  std::thread thread_;  // last: it starts once everything above exists
};

}  // namespace selfscan
