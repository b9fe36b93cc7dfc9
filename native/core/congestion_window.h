// How many connects may be outstanding to one target, grown while answers
// flow and halved on evidence of loss, as TCP congestion control does.
// A timeout alone is not loss (a firewall that drops is the answer we look
// for); loss is a retried port that answers, i.e. a probe the network ate.
// Engine thread only.
#pragma once

#include <cstdint>

namespace selfscan {

class CongestionWindow {
 public:
  CongestionWindow(double initial, double ceiling);
  int Allowed() const { return static_cast<int>(cwnd_); }
  void OnAnswer();
  // Halves the window at most once per `round_us`, so one burst of losses
  // counts as one congestion event.
  void OnLoss(int64_t now_us, int64_t round_us);

 private:
  double cwnd_;
  double ssthresh_;
  double ceiling_;
  int64_t last_cut_us_ = INT64_MIN / 2;
};

}  // namespace selfscan
