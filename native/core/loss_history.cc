#include "loss_history.h"

#include <algorithm>

namespace selfscan {

namespace {
// Losses noticed this close together are one episode (one burst of drops).
constexpr int64_t kEpisodeUs = 50000;
// How far below the lowest loss rate a silence must have been sent.
constexpr double kSafety = 0.8;
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
  return kSafety *
         *std::min_element(rates_.begin(), rates_.begin() + static_cast<std::ptrdiff_t>(kept));
}

}  // namespace selfscan
