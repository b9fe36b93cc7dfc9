// Threads that open sockets and start their connects for the engine. On a
// nearby host, connect() carries most of a probe's cost: the SYN goes out and
// the host's answer is processed on the same CPU before the call returns. The
// engine thread keeps every decision; these threads only run the syscalls of
// the orders it hands them, so one scan can use more than one core. Submit,
// Collect and pending are for the engine thread; the workers run Work.
#pragma once

#include <sys/socket.h>

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>
#include <thread>
#include <vector>

#include "poller.h"

namespace selfscan {

// What a probe's launch needs: where to connect, and the probe it is for.
struct ConnectOrder {
  uint32_t slot;
  uint32_t gen;
  sockaddr_storage address;
  socklen_t length;
};

// How the launch went: the socket (or -1) and connect()'s errno, or, when
// the host's answer was already in by the time connect() returned (on a
// nearby host it is processed within the call), the socket's error. A
// refused socket is closed right there and comes back as fd -1.
struct ConnectDone {
  uint32_t slot;
  uint32_t gen;
  int fd;
  int error_number;    // of socket() when not answered and fd < 0, else of connect() or SO_ERROR
  int64_t started_us;  // when connect() was called
  bool answered;       // error_number is SO_ERROR after the network answered
  bool icmp;           // answered ECONNREFUSED by an ICMP port unreachable
};

// Runs one order on the calling thread.
ConnectDone RunConnectOrder(const ConnectOrder& order);

class ConnectWorkers {
 public:
  // `poller`: woken whenever finished orders are waiting.
  ConnectWorkers(int count, Poller& poller);
  ~ConnectWorkers();
  ConnectWorkers(const ConnectWorkers&) = delete;
  ConnectWorkers& operator=(const ConnectWorkers&) = delete;

  int count() const { return static_cast<int>(threads_.size()); }
  void Submit(std::vector<ConnectOrder>& orders);  // takes them all
  void Collect(std::vector<ConnectDone>& out);     // appends what is done
  // Orders handed over and not yet run.
  size_t pending() const { return submitted_ - finished_.load(std::memory_order_relaxed); }

 private:
  void Work();

  Poller& poller_;
  std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<ConnectOrder> orders_;
  std::vector<ConnectDone> done_;
  bool stopping_ = false;
  size_t submitted_ = 0;  // engine thread only
  std::atomic<size_t> finished_{0};
  std::vector<std::thread> threads_;
};

}  // namespace selfscan
