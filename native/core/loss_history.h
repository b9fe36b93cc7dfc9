// The rates at which this target was seen to drop probes beyond the path's
// own random loss (canaries lost as excess, path_loss.h), and from them the rate below which a
// silence may count as evidence of a filter. One figure per loss episode,
// the last few kept, so one stray loss long ago does not slow every later
// round, while a limiter that keeps dropping near its rate keeps the bar
// there. An episode is also forgotten once the target has been seen to
// take clearly more than its rate without excess loss (Refute): a lossy
// path's stray false alarm early in slow start, at a low pace, must not
// hold every later re-probe to a crawl. Engine thread only.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

namespace selfscan {

class LossHistory {
 public:
  // A probe sent at `rate` (connects/s) was dropped; noticed at `now_us`.
  void Record(double rate, int64_t now_us);
  // The target took probes at `rate` for a long stretch with no excess
  // loss: no episode clearly below it was a limiter's.
  void Refute(double rate);
  // Silences of probes sent above this rate prove nothing; 0 = no loss yet
  // (any rate is fine).
  double SafeRate() const;
  // The lowest rate of the episodes kept; 0 = none.
  double LowestRate() const;

 private:
  static constexpr size_t kEpisodes = 8;
  std::array<double, kEpisodes> rates_{};  // oldest first
  size_t kept_ = 0;
  int64_t last_us_ = INT64_MIN / 2;  // when the newest episode last grew
};

}  // namespace selfscan
