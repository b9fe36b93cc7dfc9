#include "loss_history.h"

#include <algorithm>

namespace selfscan {

namespace {
// Losses noticed this close together are one episode (one burst of drops).
constexpr int64_t kEpisodeUs = 50000;
// How far below the lowest loss rate a silence must have been sent.
constexpr double kSafety = 0.8;
constexpr size_t kRobustFrom = 3;
}  // namespace

void LossHistory::Record(double rate, int64_t now_us) {
  if (count_ > 0 && now_us - last_us_ < kEpisodeUs) {
    double& last = rates_[(count_ - 1) % kEpisodes];
    last = std::min(last, rate);
  } else {
    rates_[count_ % kEpisodes] = rate;
    ++count_;
  }
  last_us_ = now_us;
}

double LossHistory::SafeRate() const {
  if (count_ == 0) return 0;
  size_t kept = std::min(count_, kEpisodes);
  std::array<double, kEpisodes> sorted = rates_;
  for (size_t i = 1; i < kept; ++i) {  // eight at most: an insertion sort
    for (size_t j = i; j > 0 && sorted[j] < sorted[j - 1]; --j) std::swap(sorted[j], sorted[j - 1]);
  }
  // The lowest while there are few episodes; then the lower middle one, so
  // one stray episode far below the others (the path's loss bunched up by
  // chance, a busy moment) does not slow every later round.
  size_t pick = kept < kRobustFrom ? 0 : (kept - 1) / 2;
  return kSafety * sorted[pick];
}

}  // namespace selfscan
