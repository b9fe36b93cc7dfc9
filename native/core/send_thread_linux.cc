#include "send_thread_linux.h"

#include <errno.h>
#include <linux/if_packet.h>
#include <netinet/in.h>
#include <time.h>

#include <algorithm>
#include <chrono>

namespace selfscan {

namespace {

// A device that refuses a SYN (ENOBUFS: its queue, or a veth's ring of 256,
// is full) drains in well under a millisecond at line rate: the batch's rest
// is sent again after a short nap, for up to kDeviceBusyLimitUs in all;
// after that the rest is refused and the engine puts those probes back.
constexpr int64_t kDeviceBusyNapUs = 20;
constexpr int64_t kDeviceBusyLimitUs = 10000;

socklen_t AddressLength(const sockaddr_storage& to) {
  return to.ss_family == AF_INET    ? sizeof(sockaddr_in)
         : to.ss_family == AF_INET6 ? sizeof(sockaddr_in6)
                                    : sizeof(sockaddr_ll);
}

void NapUs(int64_t us) {
  timespec pause{0, static_cast<long>(us * 1000)};
  nanosleep(&pause, nullptr);
}

}  // namespace

SendThread::SendThread() : thread_([this] { Run(); }) {}

SendThread::~SendThread() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  work_.notify_one();
  room_.notify_all();
  thread_.join();
}

void SendThread::Hand(SendBatch& batch) {
  {
    std::unique_lock<std::mutex> lock(mutex_);
    room_.wait(lock, [this] { return waiting_ < kSlots || stop_; });
    if (stop_) return;
    SendBatch& slot = slots_[(first_ + waiting_) % kSlots];
    slot.fd = batch.fd;
    slot.to_device = batch.to_device;
    slot.count = batch.count;
    std::copy_n(batch.items.begin(), batch.count, slot.items.begin());
    waiting_++;
  }
  work_.notify_one();
  batch.count = 0;
}

void SendThread::SendNow(SendBatch& batch) {
  Send(batch);
  batch.count = 0;
}

void SendThread::TakeFailures(std::vector<SendFailure>& out) {
  std::lock_guard<std::mutex> lock(mutex_);
  out.insert(out.end(), failures_.begin(), failures_.end());
  failures_.clear();
}

void SendThread::Run() {
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    work_.wait(lock, [this] { return waiting_ > 0 || stop_; });
    if (stop_) return;
    // The slot stays taken while it is sent: Hand never writes it.
    const SendBatch& batch = slots_[first_];
    lock.unlock();
    Send(batch);
    lock.lock();
    first_ = (first_ + 1) % kSlots;
    waiting_--;
    room_.notify_one();
  }
}

void SendThread::Send(const SendBatch& batch) {
  std::array<mmsghdr, kSendBatch> messages{};
  std::array<iovec, kSendBatch> iov{};
  for (size_t i = 0; i < batch.count; ++i) {
    const OutgoingSyn& out = batch.items[i];
    iov[i] = iovec{const_cast<uint8_t*>(out.bytes), out.length};
    messages[i].msg_hdr.msg_iov = &iov[i];
    messages[i].msg_hdr.msg_iovlen = 1;
    messages[i].msg_hdr.msg_name = const_cast<sockaddr_storage*>(&out.to);
    messages[i].msg_hdr.msg_namelen = AddressLength(out.to);
  }
  size_t sent = 0;
  auto busy_until = std::chrono::steady_clock::time_point::max();
  while (sent < batch.count) {
    int n =
        sendmmsg(batch.fd, messages.data() + sent, static_cast<unsigned>(batch.count - sent), 0);
    if (n > 0) {
      sent += static_cast<size_t>(n);
      continue;
    }
    if (errno == EINTR) continue;
    if (errno == ENOBUFS) {
      auto now = std::chrono::steady_clock::now();
      if (busy_until == std::chrono::steady_clock::time_point::max()) {
        busy_until = now + std::chrono::microseconds(kDeviceBusyLimitUs);
      }
      if (now < busy_until) {
        NapUs(kDeviceBusyNapUs);
        continue;
      }
    }
    int error_number = errno;
    std::lock_guard<std::mutex> lock(mutex_);
    for (size_t i = sent; i < batch.count; ++i) {
      failures_.push_back(SendFailure{batch.items[i].token, batch.items[i].handle, error_number});
    }
    break;
  }
  (batch.to_device ? sent_to_device_ : sent_through_ip_).fetch_add(sent, std::memory_order_relaxed);
}

}  // namespace selfscan
