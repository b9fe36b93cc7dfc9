#include "connect_workers.h"

#include <errno.h>
#include <poll.h>
#include <unistd.h>

#include <algorithm>

#include "clock.h"
#include "connect_outcome.h"

namespace selfscan {

namespace {
// Orders a worker takes at once: enough to make the lock cheap, few enough
// that a second worker still finds work.
constexpr size_t kBatch = 16;
}  // namespace

ConnectDone RunConnectOrder(const ConnectOrder& order) {
  int family = order.address.ss_family;
  int fd = OpenProbeSocket(family);
  if (fd < 0) return ConnectDone{order.slot, order.gen, -1, errno, NowUs(), false, false};
  int64_t started = NowUs();
  int error_number = 0;
  if (connect(fd, reinterpret_cast<const sockaddr*>(&order.address), order.length) != 0) {
    error_number = errno;
  }
  if (error_number == EINPROGRESS) {
    // Already answered? Then the engine need not watch it.
    pollfd check{fd, POLLOUT, 0};
    if (poll(&check, 1, 0) == 1 && check.revents != 0) {
      error_number = ConnectErrorOf(fd, check.revents & POLLOUT);
      ConnectDone done{order.slot, order.gen, fd, error_number, started, true, false};
      if (error_number == ECONNREFUSED) {
        done.icmp = RefusedByIcmp(fd);
        close(fd);
        done.fd = -1;
      }
      return done;
    }
  }
  return ConnectDone{order.slot, order.gen, fd, error_number, started, false, false};
}

ConnectWorkers::ConnectWorkers(int count, Poller& poller) : poller_(poller) {
  for (int i = 0; i < count; ++i) threads_.emplace_back([this] { Work(); });
}

ConnectWorkers::~ConnectWorkers() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  ready_.notify_all();
  for (std::thread& thread : threads_) thread.join();
  for (const ConnectDone& done : done_) {
    if (done.fd >= 0) close(done.fd);
  }
}

void ConnectWorkers::Submit(std::vector<ConnectOrder>& orders) {
  if (orders.empty()) return;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    orders_.insert(orders_.end(), orders.begin(), orders.end());
  }
  submitted_ += orders.size();
  orders.clear();
  ready_.notify_one();
}

void ConnectWorkers::Collect(std::vector<ConnectDone>& out) {
  std::lock_guard<std::mutex> lock(mutex_);
  out.insert(out.end(), done_.begin(), done_.end());
  done_.clear();
}

void ConnectWorkers::Work() {
  std::vector<ConnectOrder> batch;
  std::vector<ConnectDone> finished;
  std::unique_lock<std::mutex> lock(mutex_);
  while (true) {
    ready_.wait(lock, [this] { return stopping_ || !orders_.empty(); });
    if (stopping_) return;
    size_t n = std::min(kBatch, orders_.size());
    batch.assign(orders_.begin(), orders_.begin() + static_cast<std::ptrdiff_t>(n));
    orders_.erase(orders_.begin(), orders_.begin() + static_cast<std::ptrdiff_t>(n));
    if (!orders_.empty()) ready_.notify_one();
    lock.unlock();
    finished.clear();
    for (const ConnectOrder& order : batch) finished.push_back(RunConnectOrder(order));
    lock.lock();
    done_.insert(done_.end(), finished.begin(), finished.end());
    finished_.fetch_add(finished.size(), std::memory_order_relaxed);
    poller_.Wake();
  }
}

}  // namespace selfscan
