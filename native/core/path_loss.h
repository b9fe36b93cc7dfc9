// The loss a target's canaries meet, split in two. The path's own loss
// (random loss on the way) stays flat whatever the pace: retransmit through
// it and keep the pace. Loss beyond it appears or grows when the pace rises
// (a limiter, a full queue): back off. A lost canary is judged against the
// recent window of canaries: more losses than the path's share explains (a
// binomial tail below 1e-4) is excess, anything else is the path's. The
// path's share is measured over the canaries settled in clear times, away
// from any excess loss (not within a window of one): a limiter's loss comes
// in episodes, which stand out and are left out but for their first loss. A limiter the pace stays
// above could still slip in that way, so judging also reads the share per
// band of pace: a limiter's loss only grows with the pace, and the least
// lossy band (by an upper bound, so noise in a small band is no evidence)
// caps what the path may be said to lose; once excess loss is known, the
// share the rule for `filtered` reads comes from the bands below it.
// Pure logic; engine thread only.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

namespace selfscan {

class PathLoss {
 public:
  enum class Kind : uint8_t { kPath, kExcess };

  // A canary sent at `rate` (connects/s) was answered.
  void Answered(double rate);
  // A canary sent at `rate` went unanswered: the path's own loss, or more.
  Kind Lost(double rate);
  // A canary sent at `rate` before the pace's last cut went unanswered: the
  // excess episode that cut the pace already answered for it. Excess, and
  // in its band of pace, but not in the window (Restart) nor the share of
  // clear times.
  void LostBeforeCut(double rate);

  // The share of probes the path loses (a SYN or its answer); with few
  // canaries it leans high. What the rule for `filtered` reads. While no
  // excess loss is known (`excess_rate` 0), measured over the canaries
  // settled in clear times. Once excess loss was seen at `excess_rate`,
  // over the bands of pace wholly below it: a limiter the pace keeps
  // crossing makes clear times short and the first loss of each episode
  // (lone, so far the path's for all it could tell) a large share of them:
  // a loss-free path behind one once read as losing a third of its probes,
  // and the rule for `filtered` asked 16 silences a port.
  double loss(double excess_rate = 0) const;
  // What a loss is judged against: the same share, leaning low (as if many
  // canaries had been answered before the first), at most the least lossy
  // band of pace's upper bound.
  double reference_loss() const;
  // Recent share of canaries lost beyond the path's loss, for the goodput
  // cut after excess loss.
  double excess_share() const;
  // The pace was just cut for excess loss: the window and the recent share
  // start afresh, so losses of canaries sent before the cut, already
  // answered by it, do not make the next path loss read as excess again.
  void Restart();
  // Canaries settled (answered or lost), and lost, in all.
  uint64_t settled() const { return answered_ + lost_path_ + lost_excess_; }
  uint64_t lost_path() const { return lost_path_; }
  // Canaries lost within the current window.
  int window_losses() const { return window_lost_; }
  // Canaries loss() is measured on: those settled in clear times.
  uint64_t settled_clear() const { return answered_clear_ + lost_clear_; }
  uint64_t lost_excess() const { return lost_excess_; }

  // P(X >= losses) for X ~ Binomial(trials, p): how likely random loss at
  // rate p makes at least `losses` of `trials` canaries go unanswered.
  static double BinomialTail(int trials, int losses, double p);

 private:
  static constexpr size_t kWindow = 64;
  static constexpr size_t kBands = 64;
  struct Band {
    uint32_t settled = 0;
    uint32_t lost = 0;
  };
  static size_t BandOf(double rate);
  // The rate above every rate of band `band`.
  static double BandTop(size_t band);
  void Settle(double rate, bool lost);
  // Counts a settled canary in its band of pace.
  void CountInBand(double rate, bool lost);

  std::array<bool, kWindow> window_{};  // recent canaries, true = lost
  size_t window_next_ = 0;
  size_t window_filled_ = 0;
  int window_lost_ = 0;
  std::array<Band, kBands> bands_{};
  uint64_t answered_ = 0;
  // Canaries settled in clear times (no excess loss within a window before).
  uint64_t answered_clear_ = 0;
  uint64_t lost_clear_ = 0;
  size_t since_excess_ = kWindow;  // canaries settled since the last excess loss
  uint64_t lost_path_ = 0;
  uint64_t lost_excess_ = 0;
  double lost_share_ = 0;  // moving average over settled canaries
};

}  // namespace selfscan
