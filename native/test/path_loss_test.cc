// PathLoss: whether a lost canary is the path's own random loss (keep the
// pace, silences still count) or loss beyond it (back off) decides both the
// speed of a scan and whether its `filtered` verdicts hold. Fed synthetic
// canary sequences whose truth is known: random loss alone, a limiter the
// pace ramps through, a limiter switching on at a fixed pace, the same
// sequences settled out of order, a pace that keeps crossing a limiter and
// is cut back each time; and its binomial tail against exact sums.
#include "../core/path_loss.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <ostream>
#include <random>
#include <vector>

#include "test.h"

namespace selfscan {
namespace {

using Kind = PathLoss::Kind;

// P(X >= k), X ~ Binomial(n, p), from the whole distribution built one
// trial at a time in long double: no logs, no factorials, no shortcut the
// code under test might share.
double ExactTail(int n, int k, double p) {
  std::vector<long double> dist(static_cast<size_t>(n) + 1, 0);
  dist[0] = 1;
  for (int trial = 1; trial <= n; ++trial) {
    for (int j = trial; j >= 0; --j) {
      dist[j] = dist[j] * (1 - static_cast<long double>(p)) +
                (j > 0 ? dist[j - 1] * static_cast<long double>(p) : 0);
    }
  }
  long double tail = 0;
  for (int j = n; j >= std::max(k, 0); --j) tail += dist[j];
  return static_cast<double>(tail);
}

TEST(PathLoss, BinomialTailAgainstExactValues) {
  CHECK_EQ(PathLoss::BinomialTail(10, 0, 0.3), 1);  // at least none: certain
  CHECK_EQ(PathLoss::BinomialTail(10, -1, 0.3), 1);
  CHECK_EQ(PathLoss::BinomialTail(10, 11, 0.3), 0);  // more than there are: never
  CHECK_EQ(PathLoss::BinomialTail(10, 1, 0), 0);
  CHECK_EQ(PathLoss::BinomialTail(10, 10, 1), 1);
  // Worked with exact fractions (Python: sum of comb(n, i) p^i (1-p)^(n-i)).
  struct Case {
    int n, k;
    double p, tail;
  };
  const Case cases[] = {
      {64, 3, 0.01, 0.026512290781396483},
      {64, 1, 0.01, 0.4744035124744377},
      {64, 8, 0.02, 4.177343172832509e-05},
      {64, 7, 0.02, 0.0002931582529791058},
      {20, 10, 0.3, 0.04796189733134348},
      {64, 20, 0.08, 7.032892240376874e-08},
      {10, 5, 0.5, 0.623046875},
      {1, 1, 0.25, 0.25},
  };
  for (const Case& c : cases) {
    double tail = PathLoss::BinomialTail(c.n, c.k, c.p);
    CHECK_NEAR(tail, c.tail, c.tail * 1e-9) << "n " << c.n << ", k " << c.k << ", p " << c.p;
    CHECK_NEAR(ExactTail(c.n, c.k, c.p), c.tail, c.tail * 1e-12) << "the reference itself";
  }
  // And over every window size and loss count the judging meets.
  const double ps[] = {1e-4, 0.001, 0.002, 0.01, 0.02, 0.05, 0.1, 0.3, 0.5, 0.9};
  for (int n = 1; n <= 64; ++n) {
    for (int k = 0; k <= n + 1; ++k) {
      for (double p : ps) {
        double want = ExactTail(n, k, p);
        CHECK_NEAR(PathLoss::BinomialTail(n, k, p), want, want * 1e-9)
            << "n " << n << ", k " << k << ", p " << p;
      }
    }
  }
}

TEST(PathLoss, BinomialTailIsMonotone) {
  for (int n = 1; n <= 64; ++n) {
    for (int k = 1; k <= n; ++k) {
      double last = 0;
      for (double p = 1e-4; p < 1; p *= 1.3) {
        // Up to rounding: a sum that should be 1 may come out an ulp short.
        double tail = PathLoss::BinomialTail(n, k, p);
        double slack = 1 - 1e-12;
        CHECK_GE(tail, last * slack) << "rises with p: n " << n << ", k " << k << ", p " << p;
        CHECK_LE(tail * slack, PathLoss::BinomialTail(n, k - 1, p))
            << "falls with k: n " << n << ", k " << k << ", p " << p;
        if (n < 64) {
          CHECK_GE(PathLoss::BinomialTail(n + 1, k, p), tail * slack)
              << "rises with n: n " << n << ", k " << k << ", p " << p;
        }
        last = tail;
      }
    }
  }
}

// The pace of the sequences below: 2,000/s doubling every 500 canaries up
// to 64,000/s, then held.
double RampPace(int i) { return std::min(64000.0, 2000.0 * std::exp2(i / 500)); }

struct Canary {
  double rate;
  bool lost;     // unanswered, for whatever reason
  bool limiter;  // a limiter dropped it (the path may have too)
  bool path;     // the path lost it (the limiter may have too)
};

// Random loss on the way there and back, each way with `each_way`.
std::vector<Canary> RandomLoss(int count, double each_way, uint32_t seed) {
  std::mt19937 random(seed);
  std::bernoulli_distribution lose(each_way);
  std::vector<Canary> canaries;
  for (int i = 0; i < count; ++i) {
    bool path = lose(random) || lose(random);
    canaries.push_back({RampPace(i), path, false, path});
  }
  return canaries;
}

// Round-trip path loss `p` plus a limiter of `limit` connects/s on the
// pace: max(0, 1 - limit / rate) of probes dropped on top, independently.
std::vector<Canary> RampThroughLimiter(int count, double p, double limit, uint32_t seed) {
  std::mt19937 random(seed);
  std::uniform_real_distribution<double> uniform(0, 1);
  std::vector<Canary> canaries;
  for (int i = 0; i < count; ++i) {
    double rate = RampPace(i);
    bool path = uniform(random) < p;
    bool limiter = uniform(random) < std::max(0.0, 1 - limit / rate);
    canaries.push_back({rate, path || limiter, limiter, path});
  }
  return canaries;
}

Kind Settle(PathLoss& loss, const Canary& canary) {
  if (!canary.lost) {
    loss.Answered(canary.rate);
    return Kind::kPath;
  }
  return loss.Lost(canary.rate);
}

TEST(PathLoss, RandomLossIsThePaths) {
  constexpr int kCanaries = 20000;
  constexpr int kSeeds = 25;
  const double each_way[] = {0.001, 0.01, 0.02, 0.0408};
  for (double q : each_way) {
    double p = 1 - (1 - q) * (1 - q);  // round trip: 0.2%, 2%, 4%, 8%
    uint64_t losses = 0;
    uint64_t excess = 0;
    double sum_at_10k = 0;
    int worst_excess = 0;
    for (uint32_t seed = 1; seed <= kSeeds; ++seed) {
      std::vector<Canary> canaries = RandomLoss(kCanaries, q, seed);
      PathLoss loss;
      int run_losses = 0;
      int run_excess = 0;
      for (int i = 0; i < kCanaries; ++i) {
        run_losses += canaries[i].lost ? 1 : 0;
        run_excess += Settle(loss, canaries[i]) == Kind::kExcess ? 1 : 0;
        int n = i + 1;
        if (n >= 10000 && n % 5000 == 0) {
          // Within 25% of the true rate once 10,000 canaries are in; where
          // 10,000 canaries cannot tell that close (0.2%: 20 losses), within
          // 3.5 standard deviations of the sample.
          double sigma = std::sqrt(p * (1 - p) / n);
          CHECK_NEAR(loss.loss(), p, std::max(0.25 * p, 3.5 * sigma))
              << "p " << p << ", seed " << seed << ", after " << n << " canaries";
          if (n == 10000) sum_at_10k += loss.loss();
        }
      }
      CHECK_EQ(static_cast<int>(loss.lost_path() + loss.lost_excess()), run_losses);
      CHECK_EQ(loss.settled(), static_cast<uint64_t>(kCanaries));
      // At most a few losses over the run taken for more than the path's.
      CHECK_LE(run_excess, 5) << "p " << p << ", seed " << seed << ": " << run_excess << " of "
                              << run_losses << " losses judged excess, reference_loss() "
                              << loss.reference_loss() << ", loss() " << loss.loss();
      losses += static_cast<uint64_t>(run_losses);
      excess += static_cast<uint64_t>(run_excess);
      worst_excess = std::max(worst_excess, run_excess);
    }
    // Almost every loss is the path's. The first loss of each run is
    // excess by design (on a path that has lost nothing yet, a lone loss
    // may be a limiter's first drop), so it is left out of the share.
    double after_first = static_cast<double>(losses) - kSeeds;
    CHECK_GE(1 - (static_cast<double>(excess) - kSeeds) / after_first, 0.99)
        << "p " << p << ": " << excess << " of " << losses << " losses judged excess over "
        << kSeeds << " runs (worst run " << worst_excess << ")";
    // Averaged over the runs, the estimate is centred on the truth.
    CHECK_NEAR(sum_at_10k / kSeeds, p, 0.15 * p) << "p " << p;
  }
}

// The furthest loss() went past a bound (over > 0), and where.
struct Excursion {
  int at = -1;
  double over = 0;
  double loss = 0;
  double truth = 0;
  void Note(int n, double measured, double path, double past) {
    if (past <= over) return;
    at = n;
    over = past;
    loss = measured;
    truth = path;
  }
};

std::ostream& operator<<(std::ostream& out, const Excursion& excursion) {
  return out << "after " << excursion.at << " canaries loss() " << excursion.loss
             << ", the path's own " << excursion.truth;
}

TEST(PathLoss, LimiterOnTheRampIsExcess) {
  constexpr double kLimit = 5000;
  constexpr int kCanaries = 10000;
  constexpr int kSeeds = 10;
  const double path_loss[] = {0.002, 0.02, 0.08};
  for (double p : path_loss) {
    for (uint32_t seed = 1; seed <= kSeeds; ++seed) {
      std::vector<Canary> canaries = RampThroughLimiter(kCanaries, p, kLimit, seed);
      PathLoss loss;
      int over_limit_from = -1;  // the first canary sent at 1.5 times the limit or more
      int first_excess = -1;
      int absorbed = 0;  // the limiter's drops (the path passed them) judged the path's
      int path_lost = 0;
      // The worst excursions of loss() from the path's own loss once the
      // limiter is on: above it (the limiter's drops absorbed) and below it
      // (the path's losses lost among the limiter's).
      Excursion above;
      Excursion below;
      for (int i = 0; i < kCanaries; ++i) {
        const Canary& canary = canaries[i];
        if (over_limit_from < 0 && canary.rate >= 1.5 * kLimit) over_limit_from = i;
        Kind kind = Settle(loss, canary);
        path_lost += canary.path ? 1 : 0;
        if (kind == Kind::kExcess && first_excess < 0 && over_limit_from >= 0) first_excess = i;
        if (canary.lost && kind == Kind::kPath && canary.limiter && !canary.path) ++absorbed;
        int n = i + 1;
        if (over_limit_from >= 0 && n % 250 == 0) {
          // The path's own loss: the share of all canaries the path lost,
          // with the same prior. Allowed: 25% of it either way, plus, over
          // the canaries loss() is measured on, 16 of the limiter's drops
          // above it and 4 of the path's losses below it (taken for excess).
          double truth = (path_lost + 0.5) / (n + 1);
          double measured_on = static_cast<double>(loss.settled_clear());
          above.Note(n, loss.loss(), truth, loss.loss() - 1.25 * truth - 16 / measured_on);
          below.Note(n, loss.loss(), truth, truth - loss.loss() - 0.25 * truth - 4 / measured_on);
        }
      }
      CHECK_GE(first_excess, over_limit_from) << "p " << p << ", seed " << seed;
      CHECK_LT(first_excess - over_limit_from, 64)
          << "p " << p << ", seed " << seed << ": first excess " << first_excess - over_limit_from
          << " canaries after the pace reached 1.5 times the limit";
      CHECK_LE(absorbed, 16) << "p " << p << ", seed " << seed;
      CHECK_EQ(above.at, -1) << "absorbed: p " << p << ", seed " << seed << ": " << above << " ("
                             << absorbed << " of the limiter's drops judged the path's)";
      CHECK_EQ(below.at, -1) << "diluted: p " << p << ", seed " << seed << ": " << below
                             << "; at the end " << loss.loss() << " vs "
                             << (path_lost + 0.5) / (kCanaries + 1);
    }
  }
}

TEST(PathLoss, LimiterSwitchingOnAtAFixedPaceIsCaughtAtOnce) {
  constexpr double kPace = 10000;
  constexpr int kBefore = 5000;
  struct Level {
    double p;
    int within;  // canaries: half a window, a whole one where the path loses 8%
  };
  const Level levels[] = {{0.002, 32}, {0.02, 32}, {0.08, 64}};
  for (const Level& level : levels) {
    std::vector<int> delays;
    for (uint32_t seed = 1; seed <= 20; ++seed) {
      std::mt19937 random(seed);
      std::uniform_real_distribution<double> uniform(0, 1);
      PathLoss loss;
      int detected = -1;
      int losses_after = 0;
      int excess_after = 0;
      double excess_share_sum = 0;
      for (int i = 0; i < kBefore + 1000; ++i) {
        bool lost = uniform(random) < (i < kBefore ? level.p : 0.5);
        Kind kind = Settle(loss, {kPace, lost, false, false});
        if (i < kBefore) continue;
        if (kind == Kind::kExcess && detected < 0) detected = i - kBefore + 1;
        if (i >= kBefore + 500) {
          // Well into it: the losses are judged excess, and the share lost
          // beyond the path is about 50% minus the path's.
          losses_after += lost ? 1 : 0;
          excess_after += kind == Kind::kExcess ? 1 : 0;
          excess_share_sum += loss.excess_share();
        }
      }
      CHECK_GE(detected, 1) << "p " << level.p << ", seed " << seed;
      CHECK_LE(detected, level.within) << "p " << level.p << ", seed " << seed;
      CHECK_GE(excess_after, losses_after * 95 / 100) << "p " << level.p << ", seed " << seed;
      // (The share is a moving average over 16 canaries: its mean over 500
      // strays by about 0.02 from 0.5 - p; 0.1 is over four times that.)
      CHECK_NEAR(excess_share_sum / 500, 0.5 - level.p, 0.1)
          << "p " << level.p << ", seed " << seed;
      delays.push_back(detected);
    }
    std::sort(delays.begin(), delays.end());
    CHECK_LE(delays[delays.size() / 2], level.within / 2) << "median, p " << level.p;
  }
}

// A pace cut back below a limiter each time it crosses it, and growing
// again, many times over a sweep, then re-probes below the rate at which
// excess loss was seen (the verification ceiling). Each episode's first loss
// comes in clear times, before anything says a limiter is dropping: the
// share of clear times reads several times the path's (a loss-free path
// behind one once read as losing a third of its probes, and the rule for
// `filtered` asked 16 silences a port). The bands of pace below the lowest
// excess rate hold the path's loss alone.
TEST(PathLoss, BelowTheExcessRateTheShareIsThePaths) {
  constexpr double kLimit = 2000;
  for (double p : {0.0, 0.01}) {
    for (uint32_t seed = 1; seed <= 4; ++seed) {
      std::mt19937 random(seed);
      std::uniform_real_distribution<double> uniform(0, 1);
      PathLoss loss;
      double rate = 0.8 * kLimit;
      double lowest_excess = 0;  // as LossHistory keeps it
      int path_lost = 0;
      int episodes = 0;
      auto send = [&](double at) {
        bool path = uniform(random) < p;
        bool limiter = uniform(random) < std::max(0.0, 1 - kLimit / at);
        path_lost += path ? 1 : 0;
        return Settle(loss, {at, path || limiter, limiter, path});
      };
      constexpr int kSweep = 40000;
      for (int i = 0; i < kSweep; ++i) {
        if (send(rate) == Kind::kPath) {
          rate *= 1.002;
          continue;
        }
        if (loss.window_losses() >= 2) {
          lowest_excess = lowest_excess > 0 ? std::min(lowest_excess, rate) : rate;
        }
        rate = 0.8 * kLimit;  // the pacer's cut
        loss.Restart();
        ++episodes;
      }
      constexpr int kVerify = 2000;
      for (int i = 0; i < kVerify; ++i) send(0.64 * lowest_excess);
      double truth = (path_lost + 0.5) / (kSweep + kVerify + 1);
      CHECK_GE(episodes, 50) << "p " << p << ", seed " << seed;
      CHECK_GT(lowest_excess, kLimit) << "p " << p << ", seed " << seed;
      // Within a quarter of the path's share, give or take 3 losses over the
      // verification's canaries.
      double measured = loss.loss(lowest_excess);
      CHECK_LE(measured, 1.25 * truth + 3.0 / kVerify)
          << "p " << p << ", seed " << seed << " after " << episodes << " episodes";
      CHECK_GE(measured, 0.75 * truth - 3.0 / kVerify)
          << "p " << p << ", seed " << seed << " after " << episodes << " episodes";
    }
  }
}

struct Judged {
  uint64_t path;
  uint64_t excess;
  double loss;
  uint64_t settled_clear;
};

Judged Judge(const std::vector<Canary>& canaries) {
  PathLoss loss;
  for (const Canary& canary : canaries) Settle(loss, canary);
  return {loss.lost_path(), loss.lost_excess(), loss.loss(), loss.settled_clear()};
}

// The canaries as they settle when each may come back up to 31 canaries
// after it was sent (answers overtake losses, losses arrive in bursts).
std::vector<Canary> Reordered(const std::vector<Canary>& canaries, uint32_t seed) {
  std::mt19937 random(seed);
  std::uniform_int_distribution<size_t> delay(0, 31);
  std::vector<std::vector<Canary>> at(canaries.size() + 32);
  for (size_t i = 0; i < canaries.size(); ++i) at[i + delay(random)].push_back(canaries[i]);
  std::vector<Canary> out;
  for (std::vector<Canary>& slot : at) {
    std::shuffle(slot.begin(), slot.end(), random);
    out.insert(out.end(), slot.begin(), slot.end());
  }
  return out;
}

TEST(PathLoss, ReorderingChangesNoJudgement) {
  struct Sequence {
    const char* name;
    std::vector<Canary> canaries;
  };
  std::vector<Sequence> sequences;
  for (uint32_t seed = 1; seed <= 4; ++seed) {
    sequences.push_back({"random 2%", RandomLoss(20000, 0.01, seed)});
    sequences.push_back({"random 8%", RandomLoss(20000, 0.0408, seed)});
    sequences.push_back({"limiter, 2%", RampThroughLimiter(4000, 0.02, 5000, seed)});
  }
  for (size_t i = 0; i < sequences.size(); ++i) {
    const Sequence& sequence = sequences[i];
    std::vector<Canary> shuffled = Reordered(sequence.canaries, static_cast<uint32_t>(100 + i));
    size_t moved = 0;
    for (size_t j = 0; j < shuffled.size(); ++j) {
      moved += shuffled[j].lost != sequence.canaries[j].lost ? 1 : 0;
    }
    CHECK_GT(moved, 0u) << "the order did change";
    Judged in_order = Judge(sequence.canaries);
    Judged reordered = Judge(shuffled);
    CHECK_EQ(in_order.path + in_order.excess, reordered.path + reordered.excess);
    CHECK_NEAR(reordered.path, in_order.path, 3) << sequence.name << ", sequence " << i;
    CHECK_NEAR(reordered.excess, in_order.excess, 3) << sequence.name << ", sequence " << i;
    // Within 5 %, or the 4 losses of an excess episode's leading edge,
    // which the order decides, over the canaries the share is measured on.
    double edge = 4.0 / static_cast<double>(in_order.settled_clear);
    CHECK_NEAR(reordered.loss, in_order.loss, 0.05 * in_order.loss + edge)
        << sequence.name << ", sequence " << i;
  }
}

}  // namespace
}  // namespace selfscan
