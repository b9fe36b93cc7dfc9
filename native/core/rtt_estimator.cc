#include "rtt_estimator.h"

#include <algorithm>
#include <cstdlib>

namespace selfscan {

void RttEstimator::AddSample(int64_t rtt_us) {
  if (rtt_us < 0) rtt_us = 0;
  if (samples_++ == 0) {
    srtt_us_ = rtt_us;
    rttvar_us_ = rtt_us / 2;
    return;
  }
  // alpha = 1/8, beta = 1/4
  rttvar_us_ += (std::llabs(srtt_us_ - rtt_us) - rttvar_us_) / 4;
  srtt_us_ += (rtt_us - srtt_us_) / 8;
}

void RttEstimator::Seed(const LearnedTiming& learned) {
  if (learned.samples == 0) return;
  srtt_us_ = learned.srtt_us;
  rttvar_us_ = learned.rttvar_us;
  samples_ = learned.samples;
}

int64_t RttEstimator::TimeoutUs(const TimeoutBounds& bounds) const {
  if (samples_ == 0) return bounds.initial_us;
  return std::clamp(UnboundedTimeoutUs(), bounds.min_us, bounds.max_us);
}

}  // namespace selfscan
