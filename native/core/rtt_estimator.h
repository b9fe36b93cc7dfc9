// Smoothed round-trip time of one target, as TCP computes it (RFC 6298):
// the probe timeout follows the answers the target actually gives.
// Engine thread only.
#pragma once

#include <cstdint>

#include "scan_spec.h"

namespace selfscan {

class RttEstimator {
 public:
  void AddSample(int64_t rtt_us);
  // Starts from what earlier scans measured (no-op when `learned` has no
  // samples): later samples are smoothed into it as if this estimator had
  // taken them all.
  void Seed(const LearnedTiming& learned);
  // The connect timeout to use now, clamped to the scan's bounds.
  int64_t TimeoutUs(const TimeoutBounds& bounds) const;
  bool HasSamples() const { return samples_ > 0; }
  // srtt + 4 * rttvar + srtt / 4, without bounds: how long an answer may
  // plausibly take. The quarter of srtt is room for what rttvar misses on a
  // far path: the edge of its jitter, and a busy moment of the host or of
  // this engine (TCP has a whole second of minimum RTO for it).
  int64_t UnboundedTimeoutUs() const { return srtt_us_ + 4 * rttvar_us_ + srtt_us_ / 4; }
  int64_t srtt_us() const { return srtt_us_; }
  int64_t rttvar_us() const { return rttvar_us_; }
  uint64_t samples() const { return samples_; }

 private:
  int64_t srtt_us_ = 0;
  int64_t rttvar_us_ = 0;
  uint64_t samples_ = 0;
};

}  // namespace selfscan
