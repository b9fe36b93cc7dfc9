// LossHistory: the rate below which a silence may count. Checked: no bar
// before any loss, 0.8 of the lowest loss rate of the first episodes and
// of the lower middle one of the last 8 after that (one stray episode
// does not rule), and losses within 50 ms of each other merging into one
// episode.
#include "../core/loss_history.h"

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "test.h"

namespace selfscan {
namespace {

constexpr int64_t kStartUs = 1000000;
constexpr int64_t kMs = 1000;

TEST(LossHistory, NoLossNoBar) {
  LossHistory history;
  CHECK_EQ(history.SafeRate(), 0);
}

// 0.8 of the rate SafeRate reads among the last eight episodes: the lowest
// while there are fewer than three, then the lower middle one.
double Reference(const std::vector<double>& episodes) {
  size_t first = episodes.size() > 8 ? episodes.size() - 8 : 0;
  std::vector<double> kept(episodes.begin() + static_cast<std::ptrdiff_t>(first), episodes.end());
  std::sort(kept.begin(), kept.end());
  size_t pick = kept.size() < 3 ? 0 : (kept.size() - 1) / 2;
  return 0.8 * kept[pick];
}

TEST(LossHistory, SafeRateIsBelowTheLowestOfTheFirstEpisodes) {
  LossHistory history;
  history.Record(10000, kStartUs);
  CHECK_NEAR(history.SafeRate(), 8000, 1e-9);
  history.Record(20000, kStartUs + 100 * kMs);
  CHECK_NEAR(history.SafeRate(), 8000, 1e-9);  // two: still the lowest
}

TEST(LossHistory, OneStrayEpisodeDoesNotRuleTheRest) {
  // A limiter near 10,000/s, and once the path's own loss bunched up at
  // 1,000/s: from the third episode on, the stray one no longer sets the bar.
  LossHistory history;
  int64_t now = kStartUs;
  const double rates[] = {1000, 10000, 11000, 10500, 12000};
  for (double rate : rates) {
    history.Record(rate, now);
    now += 100 * kMs;
  }
  CHECK_NEAR(history.SafeRate(), 0.8 * 10500, 1e-9);
  // A limiter whose episodes keep coming lower moves the bar down with them.
  for (int i = 0; i < 8; ++i) {
    history.Record(5000 - 100 * i, now);
    now += 100 * kMs;
  }
  CHECK_NEAR(history.SafeRate(), 0.8 * 4600, 1e-9);  // the lower middle of 5,000 ... 4,300

  // Against a reference over random episodes.
  std::mt19937 random(8);
  std::uniform_real_distribution<double> rate(500, 50000);
  LossHistory randomized;
  std::vector<double> episodes;
  for (int i = 0; i < 200; ++i) {
    now += 60 * kMs;
    double r = rate(random);
    randomized.Record(r, now);
    episodes.push_back(r);
    CHECK_NEAR(randomized.SafeRate(), Reference(episodes), 1e-9) << "episode " << i;
  }
}

TEST(LossHistory, LossesWithin50MsAreOneEpisode) {
  // A burst of drops every 40 ms is one episode, however long it lasts:
  // the first, lowest rate stays the bar through eight more losses.
  LossHistory chained;
  int64_t now = kStartUs;
  chained.Record(1000, now);
  for (int i = 0; i < 8; ++i) {
    now += 40 * kMs;
    chained.Record(5000, now);
  }
  CHECK_NEAR(chained.SafeRate(), 800, 1e-9);

  // The same nine losses 60 ms apart are nine episodes: the first falls out.
  LossHistory apart;
  now = kStartUs;
  apart.Record(1000, now);
  for (int i = 0; i < 8; ++i) {
    now += 60 * kMs;
    apart.Record(5000, now);
  }
  CHECK_NEAR(apart.SafeRate(), 4000, 1e-9);

  // Within one episode the lowest rate is kept, whatever the order.
  LossHistory merged;
  merged.Record(9000, kStartUs);
  merged.Record(3000, kStartUs + 10 * kMs);
  merged.Record(6000, kStartUs + 20 * kMs);
  CHECK_NEAR(merged.SafeRate(), 2400, 1e-9);

  // The boundary: 49.999 ms merges, 50 ms starts a new episode.
  LossHistory edge;
  now = kStartUs;
  edge.Record(1000, now);
  for (int i = 0; i < 8; ++i) {
    now += 50 * kMs - 1;
    edge.Record(5000, now);
  }
  CHECK_NEAR(edge.SafeRate(), 800, 1e-9);
  for (int i = 0; i < 8; ++i) {
    now += 50 * kMs;
    edge.Record(5000, now);
  }
  CHECK_NEAR(edge.SafeRate(), 4000, 1e-9);
}

}  // namespace
}  // namespace selfscan
