// The readiness backends against one set of loopback fixtures: each backend
// this test build has (epoll, poll, and kqueue over the kqueue-on-epoll
// translation of test/native/kqueue-on-epoll) must report a finished
// connect, a refused one with its error, data and end of stream after a
// change of interest, a wake from another thread, a microsecond timeout, and
// never an event of a socket it was told to forget. The engine leans on
// exactly these; the scanning suites run on each backend too.
#include "../core/poller.h"

#include <errno.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <set>
#include <thread>
#include <vector>

#include "../core/clock.h"
#include "../core/connect_outcome.h"
#include "test.h"

namespace selfscan {
namespace {

constexpr int64_t kPatienceUs = 2000000;

sockaddr_in Loopback(uint16_t port) {
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  address.sin_port = htons(port);
  return address;
}

uint16_t PortOf(int fd) {
  sockaddr_in address{};
  socklen_t length = sizeof address;
  getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length);
  return ntohs(address.sin_port);
}

// A listening socket on 127.0.0.1 (`listen_too` false: bound, not listening,
// so a connect to its port is refused).
int BoundSocket(bool listen_too, uint16_t* port) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address = Loopback(0);
  bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address);
  if (listen_too) listen(fd, 512);
  *port = PortOf(fd);
  return fd;
}

// A probe socket whose nonblocking connect to `port` is under way (or over).
int StartConnect(uint16_t port) {
  int fd = OpenProbeSocket(AF_INET);
  sockaddr_in address = Loopback(port);
  connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address);
  return fd;
}

// Waits until `token` is reported, up to kPatienceUs; every readiness seen
// goes to `seen` when given.
bool WaitFor(Poller& poller, uint64_t token, Readiness* found,
             std::vector<Readiness>* seen = nullptr) {
  std::vector<Readiness> ready;
  int64_t deadline = NowUs() + kPatienceUs;
  while (NowUs() < deadline) {
    if (poller.Wait(ready, 10000) < 0 && errno != EINTR) return false;
    for (const Readiness& r : ready) {
      if (seen != nullptr) seen->push_back(r);
      if (r.token == token) {
        *found = r;
        return true;
      }
    }
  }
  return false;
}

// A probe socket connecting to a loopback listener (or, `listening` false,
// to a bound port nobody listens on), watched for writable under `token`,
// and what the poller first reported of it.
struct WatchedConnect {
  int server = -1;
  int fd = -1;
  bool reported = false;
  Readiness first{};

  WatchedConnect(Poller& poller, bool listening, uint64_t token) {
    uint16_t port;
    server = BoundSocket(listening, &port);
    fd = StartConnect(port);
    reported = poller.Add(fd, token, Interest::kWritable) && WaitFor(poller, token, &first);
  }
  void Close(Poller& poller) {
    poller.Remove(fd);
    close(fd);
    close(server);
  }
};

// Every backend this build has, by name, for the failure messages.
template <typename Body>
void ForEachPoller(Body body) {
  for (PollerKind kind : AvailablePollers()) {
    std::unique_ptr<Poller> poller = MakePoller(kind);
    CHECK(poller->kind() == kind) << PollerName(kind);
    body(*poller, PollerName(kind));
  }
}

TEST(Poller, ThisTestBuildHasEveryBackendOfItsPlatform) {
#ifdef SELFSCAN_HAVE_EPOLL
  // Linux: epoll first, kqueue over the translation, poll.
  CHECK_EQ(AvailablePollers().size(), 3u);
  PollerKind preferred = PollerKind::kEpoll;
#else
  CHECK_EQ(AvailablePollers().size(), 2u);
  PollerKind preferred = PollerKind::kKqueue;
#endif
  CHECK(AvailablePollers().front() == preferred);
  CHECK(AvailablePollers().back() == PollerKind::kPoll);
  CHECK(MakePoller(PollerKind::kAuto)->kind() == preferred);
  PollerKind kind;
  CHECK(ParsePollerKind("kqueue", &kind) && kind == PollerKind::kKqueue);
  CHECK(!ParsePollerKind("select", &kind));
}

TEST(Poller, AFinishedConnectIsWritableWithNoError) {
  ForEachPoller([](Poller& poller, const char* name) {
    WatchedConnect probe(poller, true, 7);
    CHECK(probe.reported) << name;
    CHECK(probe.first.writable) << name;
    CHECK_EQ(probe.first.error, 0) << name;
    CHECK_EQ(ConnectErrorOf(probe.fd, probe.first.writable), 0) << name;
    probe.Close(poller);
  });
}

TEST(Poller, ARefusedConnectReportsItsError) {
  ForEachPoller([](Poller& poller, const char* name) {
    WatchedConnect probe(poller, false, 9);
    CHECK(probe.reported) << name;
    const Readiness& ready = probe.first;
    int error = ready.error != 0 ? ready.error : ConnectErrorOf(probe.fd, ready.writable);
    CHECK_EQ(error, ECONNREFUSED) << name;
    probe.Close(poller);
  });
}

TEST(Poller, AfterAChangeOfInterestDataAndEndOfStreamAreReadable) {
  ForEachPoller([](Poller& poller, const char* name) {
    WatchedConnect probe(poller, true, 1);
    CHECK(probe.reported) << name;
    int peer = accept(probe.server, nullptr, nullptr);
    CHECK(poller.Change(probe.fd, 2, Interest::kReadable)) << name;
    // Writable no longer counts, nothing to read yet: a quiet wait.
    std::vector<Readiness> quiet;
    CHECK_EQ(poller.Wait(quiet, 20000), 0) << name;
    CHECK_EQ(write(peer, "hi", 2), 2);
    Readiness ready{};
    CHECK(WaitFor(poller, 2, &ready)) << name;
    CHECK(ready.readable && !ready.writable) << name;
    char buffer[8];
    CHECK_EQ(recv(probe.fd, buffer, sizeof buffer, 0), 2) << name;
    close(peer);
    CHECK(WaitFor(poller, 2, &ready)) << name;
    CHECK(ready.readable) << name;
    CHECK_EQ(recv(probe.fd, buffer, sizeof buffer, 0), 0) << name;
    probe.Close(poller);
  });
}

TEST(Poller, AWakeFromAnotherThreadEndsAWaitWithNothingReady) {
  ForEachPoller([](Poller& poller, const char* name) {
    std::thread waker([&poller] {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      poller.Wake();
    });
    std::vector<Readiness> ready;
    int64_t started = NowUs();
    int n = poller.Wait(ready, -1);
    waker.join();
    CHECK_EQ(n, 0) << name;
    CHECK_LT(NowUs() - started, kPatienceUs) << name;
    // A wake before the wait is not lost, and is used up by it.
    poller.Wake();
    CHECK_EQ(poller.Wait(ready, -1), 0) << name;
    started = NowUs();
    CHECK_EQ(poller.Wait(ready, 5000), 0) << name;
    CHECK_GE(NowUs() - started, 4900) << name;
  });
}

TEST(Poller, TimeoutsAreMicroseconds) {
  ForEachPoller([](Poller& poller, const char* name) {
    std::vector<Readiness> ready;
    int64_t shortest = INT64_MAX;
    for (int i = 0; i < 20; ++i) {
      int64_t started = NowUs();
      poller.Wait(ready, 300);
      int64_t took = NowUs() - started;
      CHECK_GE(took, 290) << name;
      shortest = std::min(shortest, took);
    }
    // A millisecond-rounding wait would never take less than 1,000 µs.
    CHECK_LT(shortest, 1000) << name;
  });
}

TEST(Poller, AForgottenSocketsEventsNeverReachTheNextOneOfItsNumber) {
  ForEachPoller([](Poller& poller, const char* name) {
    uint16_t port;
    int listener = BoundSocket(true, &port);
    int old_fd = StartConnect(port);
    CHECK(poller.Add(old_fd, 100, Interest::kWritable)) << name;
    poller.Remove(old_fd);
    close(old_fd);
    int fd = StartConnect(port);  // the lowest free number: old_fd's
    CHECK_EQ(fd, old_fd) << name;
    CHECK(poller.Add(fd, 200, Interest::kReadable)) << name;
    std::vector<Readiness> ready;
    int64_t until = NowUs() + 50000;
    while (NowUs() < until) {
      poller.Wait(ready, 5000);
      for (const Readiness& r : ready) CHECK_EQ(r.token, 200u) << name;
    }
    poller.Remove(fd);
    close(fd);
    close(listener);
  });
}

TEST(Poller, ManySocketsEachReportUnderTheirOwnToken) {
  ForEachPoller([](Poller& poller, const char* name) {
    uint16_t port;
    int listener = BoundSocket(true, &port);
    std::vector<int> fds;
    for (uint64_t i = 0; i < 200; ++i) {
      fds.push_back(StartConnect(port));
      CHECK(poller.Add(fds.back(), 1000 + i, Interest::kWritable)) << name;
    }
    // Forget every other one: the rest must still report, under their tokens.
    for (size_t i = 0; i < fds.size(); i += 2) {
      poller.Remove(fds[i]);
      close(fds[i]);
    }
    std::set<uint64_t> seen;
    std::vector<Readiness> ready;
    int64_t deadline = NowUs() + kPatienceUs;
    while (seen.size() < 100 && NowUs() < deadline) {
      poller.Wait(ready, 10000);
      for (const Readiness& r : ready) {
        CHECK(r.token >= 1000 && r.token < 1200 && (r.token - 1000) % 2 == 1) << name;
        CHECK(r.writable) << name;
        seen.insert(r.token);
      }
    }
    CHECK_EQ(seen.size(), 100u) << name;
    for (size_t i = 1; i < fds.size(); i += 2) {
      poller.Remove(fds[i]);
      close(fds[i]);
    }
    close(listener);
  });
}

}  // namespace
}  // namespace selfscan
