#include "clean_stretch.h"

#include <algorithm>

namespace selfscan {

namespace {
// Long enough that a limiter with a burst of a few hundred probes, or one
// that lets a short spell through, would have dropped some of the canaries.
constexpr uint32_t kMinCanaries = 256;
constexpr int64_t kMinUs = 500000;
}  // namespace

double CleanStretch::Settled(double rate, uint64_t launched, int64_t now_us) {
  if (canaries_ == 0) {
    since_us_ = now_us;
    launched_from_ = launched;
    lowest_rate_ = rate;
  }
  ++canaries_;
  lowest_rate_ = std::min(lowest_rate_, rate);
  int64_t span_us = now_us - since_us_;
  if (canaries_ < kMinCanaries || span_us < kMinUs) return 0;
  double sent_rate =
      static_cast<double>(launched - launched_from_) * 1e6 / static_cast<double>(span_us);
  canaries_ = 0;
  return std::min(lowest_rate_, sent_rate);
}

}  // namespace selfscan
