// LossHistory: the rate below which a silence may count. Checked: no bar
// before any loss, 0.8 of the lowest loss rate over the last 8 episodes,
// losses within 50 ms of each other merging into one episode, and episodes
// refuted by a clean stretch at least 1.25 times their rate.
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

TEST(LossHistory, SafeRateIsBelowTheLowestOfTheLastEightEpisodes) {
  LossHistory history;
  history.Record(10000, kStartUs);
  CHECK_NEAR(history.SafeRate(), 8000, 1e-9);
  int64_t now = kStartUs;
  // Seven more episodes, all at higher rates: the 10,000 one still rules.
  for (int i = 1; i <= 7; ++i) {
    now += 100 * kMs;
    history.Record(10000 + 1000 * i, now);
    CHECK_NEAR(history.SafeRate(), 8000, 1e-9) << "episode " << i + 1;
  }
  // The ninth pushes the first out: the lowest left is 11,000.
  now += 100 * kMs;
  history.Record(30000, now);
  CHECK_NEAR(history.SafeRate(), 8800, 1e-9);
  // A lower rate takes over at once.
  now += 100 * kMs;
  history.Record(2000, now);
  CHECK_NEAR(history.SafeRate(), 1600, 1e-9);

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
    size_t first = episodes.size() > 8 ? episodes.size() - 8 : 0;
    double lowest =
        *std::min_element(episodes.begin() + static_cast<std::ptrdiff_t>(first), episodes.end());
    CHECK_NEAR(randomized.SafeRate(), 0.8 * lowest, 1e-9) << "episode " << i;
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

TEST(LossHistory, ACleanStretchRefutesOnlyEpisodesWellBelowIt) {
  // A false alarm at 4,000/s early on, then real episodes at 20,000 and
  // 30,000: a stretch clean at 24,000 forgets the first alone.
  LossHistory history;
  int64_t now = kStartUs;
  for (double rate : {4000.0, 20000.0, 30000.0}) {
    history.Record(rate, now);
    now += 100 * kMs;
  }
  CHECK_NEAR(history.SafeRate(), 3200, 1e-9);
  history.Refute(24000);
  CHECK_NEAR(history.SafeRate(), 16000, 1e-9);
  // 20,000 x 1.25 = 25,000: refuted at exactly that, not just below.
  history.Refute(24999);
  CHECK_NEAR(history.SafeRate(), 16000, 1e-9);
  history.Refute(25000);
  CHECK_NEAR(history.SafeRate(), 24000, 1e-9);
  history.Refute(1e9);
  CHECK_EQ(history.SafeRate(), 0);
  // Nothing left: a loss starts a new episode, a new bar.
  history.Record(7000, now);
  CHECK_NEAR(history.SafeRate(), 5600, 1e-9);
}

TEST(LossHistory, ALossJustAfterItsEpisodeWasRefutedStartsANewOne) {
  // Refuting the newest episode ends it: a loss 10 ms later at a higher
  // rate is an episode of its own, not merged into a forgotten one.
  LossHistory history;
  history.Record(10000, kStartUs);
  history.Record(2000, kStartUs + 100 * kMs);
  history.Refute(3000);
  CHECK_NEAR(history.SafeRate(), 8000, 1e-9);
  history.Record(9000, kStartUs + 110 * kMs);
  CHECK_NEAR(history.SafeRate(), 7200, 1e-9);
  // An older episode refuted leaves the newest open for merging.
  LossHistory open;
  open.Record(1000, kStartUs);
  open.Record(9000, kStartUs + 100 * kMs);
  open.Refute(2000);
  open.Record(6000, kStartUs + 110 * kMs);
  CHECK_NEAR(open.SafeRate(), 4800, 1e-9);
  open.Record(8000, kStartUs + 300 * kMs);
  CHECK_NEAR(open.SafeRate(), 4800, 1e-9);
}

}  // namespace
}  // namespace selfscan
