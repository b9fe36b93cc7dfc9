// An open port's banner: wait for a server that speaks first, then ask
// over HTTP. And whether it is a port at all: a SYN proxy or a tarpit
// answers every port's SYN with a SYN-ACK of window 0 (no host's listener
// does) and then resets or holds what it cannot hand on; a port whose
// handshake came with a closed window is open only once a byte arrives or
// the window opens, as it does when a proxy reaches a real listener.
#include <errno.h>
#include <sys/socket.h>

#include <algorithm>
#include <string>

#include "banner.h"
#include "clock.h"
#include "engine.h"
#include "engine_internal.h"

namespace selfscan {

using namespace engine_internal;

void Engine::BeginBanner(Probe& probe) {
  const ScanSpec& spec = probe.job->spec();
  probe.gen++;  // the connect timer still queued must not end the banner read
  probe.window_closed = probe.window_closed || PeerWindowClosed(probe.fd);
  if ((!spec.banners && !probe.window_closed) || !Watch(probe, Interest::kReadable)) {
    FinishWithoutBytes(probe, false);
    return;
  }
  probe.phase = Phase::kAwaitBanner;
  ArmTimer(probe, NowUs() + BannerWaitUs(probe, kServerFirstFloorUs));
}

void Engine::OnReadable(Probe& probe) {
  char buffer[kBannerMaxBytes];
  ssize_t n = recv(probe.fd, buffer, sizeof buffer, 0);
  if (n < 0 && (errno == EAGAIN || errno == EINTR)) return;
  if (n <= 0) {
    FinishWithoutBytes(probe, n < 0 && errno == ECONNRESET);
    return;
  }
  if (!probe.job->spec().banners) {
    FinishOpen(probe, nullptr);
    return;
  }
  std::string banner = PrintableBanner(buffer, static_cast<size_t>(n));
  FinishOpen(probe, banner.empty() ? nullptr : &banner);
}

void Engine::FinishWithoutBytes(Probe& probe, bool reset) {
  if (probe.window_closed && (reset || PeerWindowClosed(probe.fd))) {
    Resolve(probe, PortState::kClosed);  // a middlebox's handshake, nothing behind it
    return;
  }
  FinishOpen(probe, nullptr);
}

void Engine::OnBannerTimeout(Probe& probe) {
  if (probe.phase == Phase::kAwaitBanner && probe.job->spec().banners &&
      send(probe.fd, kHttpProbe, kHttpProbeLength, kSendNoSignal) ==
          static_cast<ssize_t>(kHttpProbeLength)) {
    // A late server-first greeting still arrives before any HTTP answer.
    probe.phase = Phase::kAwaitHttp;
    ArmTimer(probe, NowUs() + BannerWaitUs(probe, kHttpAnswerFloorUs));
    return;
  }
  FinishWithoutBytes(probe, false);
}

int64_t Engine::BannerWaitUs(const Probe& probe, int64_t floor_us) const {
  const RttEstimator& rtt = probe.job->target->rtt;
  int64_t cap = probe.job->spec().banner_timeout_us;
  int64_t wait = rtt.HasSamples() ? 2 * rtt.UnboundedTimeoutUs() : cap;
  return std::min(std::max(wait, floor_us), cap);
}

void Engine::FinishOpen(Probe& probe, const std::string* banner) {
  // Reset instead of FIN: no TIME_WAIT left behind for each open port.
  linger reset{1, 0};
  setsockopt(probe.fd, SOL_SOCKET, SO_LINGER, &reset, sizeof reset);
  Resolve(probe, PortState::kOpen, banner);
}

}  // namespace selfscan
