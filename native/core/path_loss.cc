#include "path_loss.h"

#include <algorithm>
#include <cmath>

namespace selfscan {

namespace {
// A window holding this few losses or more is excess when random loss at
// the path's rate would make it less often than this.
constexpr double kExcessTail = 1e-4;
// On a path that has lost nothing, a lone loss is excess: it may be a
// limiter's first drop. Once the path has lost any in clear times, its
// share is measured and a lone loss reads as the path's.
constexpr double kMinReference = 1e-6;
// A path that lost more than this share at random would be no path to scan
// through; a share above it, however steady, is a limiter's or a queue's
// (a pace held above a limiter loses a steady share too).
constexpr double kMaxReference = 0.1;
// Judging leans low: as if this many canaries had been answered before the
// first, so early losses, before the path's rate is known, read as excess
// (a limiter that drops a large share from the start must not pass for the
// path, which would then judge its loss by that share).
constexpr double kReferencePrior = 64;
constexpr double kShareWeight = 1.0 / 16;
// A band of pace counts once it has this many canaries; bands are half an
// octave wide.
constexpr uint32_t kBandMin = 200;
constexpr double kBandsPerOctave = 2;

// An upper bound of the share lost in a band (about two standard
// deviations above, with a loss added): a band that happened to lose
// little is not taken for a clean path.
double UpperShare(double lost, double settled) {
  return (lost + 1 + 2 * std::sqrt(lost + 1)) / (settled + 1);
}

// The share lost of `settled` with `lost` lost, leaning high while few are
// in (a prior of half a loss).
double ShareOf(double lost, double settled) { return (lost + 0.5) / (settled + 1); }
}  // namespace

size_t PathLoss::BandOf(double rate) {
  if (!(rate > 1)) return 0;
  return std::min(kBands - 1, static_cast<size_t>(std::log2(rate) * kBandsPerOctave));
}

double PathLoss::BandTop(size_t band) {
  return std::exp2(static_cast<double>(band + 1) / kBandsPerOctave);
}

void PathLoss::Settle(double rate, bool lost) {
  if (since_excess_ < kWindow) ++since_excess_;
  if (window_filled_ == kWindow) {
    window_lost_ -= window_[window_next_] ? 1 : 0;
  } else {
    ++window_filled_;
  }
  window_[window_next_] = lost;
  window_lost_ += lost ? 1 : 0;
  window_next_ = (window_next_ + 1) % kWindow;
  lost_share_ += ((lost ? 1.0 : 0.0) - lost_share_) * kShareWeight;
  CountInBand(rate, lost);
}

void PathLoss::CountInBand(double rate, bool lost) {
  Band& band = bands_[BandOf(rate)];
  ++band.settled;
  band.lost += lost ? 1 : 0;
}

void PathLoss::Answered(double rate) {
  Settle(rate, false);
  ++answered_;
  if (since_excess_ >= kWindow) ++answered_clear_;
}

PathLoss::Kind PathLoss::Lost(double rate) {
  double reference = std::clamp(reference_loss(), kMinReference, kMaxReference);
  // A loss in clear times counts towards the path's share however it is
  // judged: the first losses of a lossy path read as excess (one cut each)
  // until the share is known; a limiter adds one a loss episode at most.
  if (since_excess_ >= kWindow) ++lost_clear_;
  Settle(rate, true);
  int trials = static_cast<int>(window_filled_);
  if (BinomialTail(trials, window_lost_, reference) < kExcessTail) {
    ++lost_excess_;
    // A lone loss (the first on a path that has lost nothing) opens no
    // stretch: it counts towards the path's share like any clear loss, so a
    // lossy path learns its share from its first losses.
    if (window_lost_ >= 2) since_excess_ = 0;
    return Kind::kExcess;
  }
  ++lost_path_;
  return Kind::kPath;
}

void PathLoss::LostBeforeCut(double rate) {
  CountInBand(rate, true);
  ++lost_excess_;
}

double PathLoss::loss(double excess_rate) const {
  if (excess_rate <= 0) {
    return ShareOf(static_cast<double>(lost_clear_),
                   static_cast<double>(answered_clear_ + lost_clear_));
  }
  double lost = 0;
  double settled = 0;
  for (size_t band = 0; band < kBands && BandTop(band) <= excess_rate; ++band) {
    lost += bands_[band].lost;
    settled += bands_[band].settled;
  }
  return ShareOf(lost, settled);
}

void PathLoss::Restart() {
  window_.fill(false);
  window_next_ = 0;
  window_filled_ = 0;
  window_lost_ = 0;
  lost_share_ = 0;
}

double PathLoss::reference_loss() const {
  double reference = static_cast<double>(lost_clear_) /
                     (static_cast<double>(answered_clear_ + lost_clear_) + kReferencePrior);
  for (const Band& band : bands_) {
    if (band.settled >= kBandMin)
      reference = std::min(reference, UpperShare(band.lost, band.settled));
  }
  return reference;
}

double PathLoss::excess_share() const { return std::max(0.0, lost_share_ - reference_loss()); }

double PathLoss::BinomialTail(int trials, int losses, double p) {
  if (losses <= 0) return 1;
  if (losses > trials || p <= 0) return 0;
  if (p >= 1) return 1;
  // The first term in logs (it may be tiny), then each from the one before.
  double log_term = std::lgamma(trials + 1.0) - std::lgamma(losses + 1.0) -
                    std::lgamma(trials - losses + 1.0) + losses * std::log(p) +
                    (trials - losses) * std::log1p(-p);
  double term = std::exp(log_term);
  double sum = 0;
  for (int k = losses; k <= trials && term > 0; ++k) {
    sum += term;
    term *= static_cast<double>(trials - k) / (k + 1) * p / (1 - p);
  }
  return std::min(1.0, sum);
}

}  // namespace selfscan
