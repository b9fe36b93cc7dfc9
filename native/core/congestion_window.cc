#include "congestion_window.h"

#include <algorithm>

namespace selfscan {

namespace {
constexpr double kFloor = 4;
}

CongestionWindow::CongestionWindow(double initial, double ceiling)
    : cwnd_(std::clamp(initial, kFloor, std::max(ceiling, kFloor))),
      ssthresh_(std::max(ceiling, kFloor)),
      ceiling_(std::max(ceiling, kFloor)) {}

void CongestionWindow::OnAnswer() {
  // Slow start below ssthresh (doubles per round), then additive increase.
  cwnd_ += cwnd_ < ssthresh_ ? 1.0 : 1.0 / cwnd_;
  if (cwnd_ > ceiling_) cwnd_ = ceiling_;
}

void CongestionWindow::OnLoss(int64_t now_us, int64_t round_us) {
  if (now_us - last_cut_us_ < round_us) return;
  last_cut_us_ = now_us;
  ssthresh_ = std::max(cwnd_ / 2, kFloor);
  cwnd_ = ssthresh_;
}

}  // namespace selfscan
