#include "loss_history.h"

#include <algorithm>

namespace selfscan {

namespace {
// Losses noticed this close together are one episode (one burst of drops).
constexpr int64_t kEpisodeUs = 50000;
// How far below the lowest loss rate a silence must have been sent.
constexpr double kSafety = 0.8;
// An episode is refuted by a clean stretch at least this much faster.
constexpr double kRefuteMargin = 1.25;
}  // namespace

void LossHistory::Record(double rate, int64_t now_us) {
  if (kept_ > 0 && now_us - last_us_ < kEpisodeUs) {
    rates_[kept_ - 1] = std::min(rates_[kept_ - 1], rate);
  } else {
    if (kept_ == kEpisodes) {
      std::move(rates_.begin() + 1, rates_.end(), rates_.begin());
      --kept_;
    }
    rates_[kept_++] = rate;
  }
  last_us_ = now_us;
}

void LossHistory::Refute(double rate) {
  if (kept_ == 0) return;
  auto refuted = [rate](double r) { return r * kRefuteMargin <= rate; };
  // With the newest episode gone, a loss soon after starts a new one.
  if (refuted(rates_[kept_ - 1])) last_us_ = INT64_MIN / 2;
  auto end = rates_.begin() + static_cast<std::ptrdiff_t>(kept_);
  kept_ = static_cast<size_t>(std::remove_if(rates_.begin(), end, refuted) - rates_.begin());
}

double LossHistory::LowestRate() const {
  if (kept_ == 0) return 0;
  return *std::min_element(rates_.begin(), rates_.begin() + static_cast<std::ptrdiff_t>(kept_));
}

double LossHistory::SafeRate() const { return kSafety * LowestRate(); }

}  // namespace selfscan
