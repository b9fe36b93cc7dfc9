// How fast probes may go to one target: a rate (connects per second), not
// only a window, because with a sub-millisecond RTT a window bounds nothing.
// The rate doubles per epoch until the first loss beyond the path's own
// random loss (path_loss.h; slow start), then grows by a percent per 5 ms
// of epoch (at most a quarter an epoch);
// each such loss cuts it to the measured goodput, as TCP congestion control
// and masscan/ZMap-style pacing would, while the path's own loss leaves it
// be, as BBR does. Tokens are
// capped at a fraction of a millisecond's worth, so a stall in the engine
// loop never turns into a burst that a small-burst limiter would drop.
// Engine thread only.
#pragma once

#include <cstdint>

namespace selfscan {

class Pacer {
 public:
  explicit Pacer(double initial_rate);

  // Starts at a rate an earlier scan of the target left in force, growing
  // by a percent per epoch, not doubling: that rate may sit just below
  // where the target starts dropping (it was cut there, or would have been
  // soon), and a doubling would cross that line at once, with this scan's
  // state knowing nothing of the loss rate its silences must stay under.
  // If that rate was still in slow start, growing slowly from it costs
  // some speed; overshooting would cost dropped probes and re-probes.
  void Seed(double learned_rate);

  // Takes a token if one is there under `ceiling` (connects/s, 0 = none).
  bool TryTake(int64_t now_us, double ceiling);
  // When the next token is due under `ceiling`.
  int64_t NextTokenUs(int64_t now_us, double ceiling) const;
  // The rate probes go at now under `ceiling`: what a send is labelled with.
  double Rate(double ceiling) const;
  // Still doubling per epoch (no loss beyond the path's yet).
  bool slow_start() const { return slow_start_; }

  // Grows the rate once per epoch, only while the target used what it was
  // given (an application-limited target learns nothing about the network).
  void Tick(int64_t now_us, int64_t epoch_us);
  // A canary sent at `sent_us` at `sent_rate` was lost beyond the path's
  // own loss; `excess_share` is the recent share of canaries so lost. One
  // cut per loss episode: losses of probes sent before the last cut were
  // already answered by it. True when it cut.
  bool OnLoss(int64_t sent_us, double sent_rate, int64_t now_us, double excess_share);
  // A probe sent at `sent_us` went out before the last cut: what befell it
  // belongs to the episode that cut.
  bool SentBeforeCut(int64_t sent_us) const { return sent_us < last_cut_us_; }

 private:
  void Refill(int64_t now_us, double ceiling);

  double rate_;
  double tokens_ = 1;
  int64_t refilled_us_ = 0;
  bool slow_start_ = true;
  int64_t epoch_start_us_ = 0;
  uint64_t sent_in_epoch_ = 0;
  int64_t last_cut_us_ = INT64_MIN / 2;
};

}  // namespace selfscan
