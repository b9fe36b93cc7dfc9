#include "pacer.h"

#include <algorithm>
#include <cmath>

namespace selfscan {

namespace {
constexpr double kMinRate = 20;      // connects/s; below any real limiter's floor
constexpr double kMaxBurstUs = 500;  // tokens kept: this long's worth...
// ...but always three: the engine wakes for a token some 100 us late, and
// with one kept, each late wake lost that time (a pace of 2,000/s sent
// 1,450/s); three back to back are far below any limiter's burst.
constexpr double kMinBurstTokens = 3;
// After the first loss: 1 % per 5 ms of epoch (epochs are twice the RTT,
// at least 5 ms), so a far path regains its pace in seconds as a near one
// does, but at most 25 % an epoch (BBR's probing gain), since a far path
// also answers an overshoot late.
constexpr double kGrowth = 1.01;
constexpr double kGrowthEpochUs = 5000;
constexpr double kMaxGrowth = 1.25;
constexpr double kDeepestCut = 0.1;      // at most to a tenth in one cut
constexpr double kShallowestCut = 0.85;  // at least 15% off per loss episode
constexpr double kGoodputMargin = 0.9;
}  // namespace

Pacer::Pacer(double initial_rate) : rate_(std::max(initial_rate, kMinRate)) {}

void Pacer::Seed(double learned_rate) {
  rate_ = std::max(learned_rate, kMinRate);
  slow_start_ = false;
}

double Pacer::Rate(double ceiling) const { return ceiling > 0 ? std::min(rate_, ceiling) : rate_; }

void Pacer::Refill(int64_t now_us, double ceiling) {
  double rate = Rate(ceiling);
  double cap = std::max(kMinBurstTokens, rate * kMaxBurstUs / 1e6);
  if (refilled_us_ == 0) refilled_us_ = now_us;
  tokens_ = std::min(cap, tokens_ + static_cast<double>(now_us - refilled_us_) * rate / 1e6);
  refilled_us_ = now_us;
}

bool Pacer::TryTake(int64_t now_us, double ceiling) {
  Refill(now_us, ceiling);
  if (tokens_ < 1) return false;
  tokens_ -= 1;
  ++sent_in_epoch_;
  return true;
}

int64_t Pacer::NextTokenUs(int64_t now_us, double ceiling) const {
  if (tokens_ >= 1) return now_us;
  double missing = 1 - tokens_;
  return refilled_us_ + static_cast<int64_t>(missing * 1e6 / Rate(ceiling)) + 1;
}

void Pacer::Tick(int64_t now_us, int64_t epoch_us) {
  if (epoch_start_us_ == 0) epoch_start_us_ = now_us;
  int64_t elapsed = now_us - epoch_start_us_;
  if (elapsed < epoch_us) return;
  double offered = rate_ * static_cast<double>(elapsed) / 1e6;
  if (static_cast<double>(sent_in_epoch_) >= offered / 2) {
    double growth =
        std::min(kMaxGrowth, std::pow(kGrowth, static_cast<double>(epoch_us) / kGrowthEpochUs));
    rate_ *= slow_start_ ? 2 : growth;
  }
  epoch_start_us_ = now_us;
  sent_in_epoch_ = 0;
}

bool Pacer::OnLoss(int64_t sent_us, double sent_rate, int64_t now_us, double excess_share) {
  if (SentBeforeCut(sent_us)) return false;
  Refill(now_us, 0);  // the tokens due until now, capped, before they are clipped
  double keep = std::clamp((1 - excess_share) * kGoodputMargin, kDeepestCut, kShallowestCut);
  rate_ = std::max(kMinRate, std::min(rate_, sent_rate) * keep);
  tokens_ = std::min(tokens_, 1.0);
  slow_start_ = false;
  last_cut_us_ = now_us;
  epoch_start_us_ = now_us;
  sent_in_epoch_ = 0;
  return true;
}

}  // namespace selfscan
