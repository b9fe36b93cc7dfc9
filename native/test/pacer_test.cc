// Pacer: the rate is what every other part of the scanner leans on, so its
// growth (doubling in slow start, only while the sender uses its tokens),
// its cut on loss (to goodput, once per episode) and its token cap (no
// burst after a stall) are each driven by a synthetic sender here.
#include "../core/pacer.h"

#include <algorithm>
#include <cstdint>

#include "test.h"

namespace selfscan {
namespace {

constexpr int64_t kStartUs = 1000000;
constexpr int64_t kEpochUs = 10000;

// Sends whenever a token is due (a sender with work to spare) until
// `until_us`, ticking the pacer's epochs; returns the probes sent.
int64_t SendFlatOut(Pacer& pacer, int64_t& now_us, int64_t until_us) {
  int64_t sent = 0;
  while (true) {
    now_us = std::max(now_us, pacer.NextTokenUs(now_us, 0));
    if (now_us >= until_us) break;
    pacer.Tick(now_us, kEpochUs);
    if (pacer.TryTake(now_us, 0)) ++sent;
  }
  now_us = until_us;
  pacer.Tick(now_us, kEpochUs);
  return sent;
}

// Tries one send every `gap_us` until `until_us` (an application-limited
// sender when the gap is longer than the pacer's).
int64_t SendEvery(Pacer& pacer, int64_t& now_us, int64_t until_us, double gap_us) {
  int64_t sent = 0;
  double at = static_cast<double>(now_us);
  for (; at < static_cast<double>(until_us); at += gap_us) {
    now_us = static_cast<int64_t>(at);
    pacer.Tick(now_us, kEpochUs);
    if (pacer.TryTake(now_us, 0)) ++sent;
  }
  now_us = until_us;
  pacer.Tick(now_us, kEpochUs);
  return sent;
}

TEST(Pacer, SlowStartDoublesPerEpochWhileTokensAreUsed) {
  Pacer pacer(1000);
  int64_t now = kStartUs;
  pacer.Tick(now, kEpochUs);  // the first epoch starts here
  double rate = pacer.Rate(0);
  CHECK_EQ(rate, 1000);
  for (int epoch = 0; epoch < 6; ++epoch) {
    int64_t sent = SendFlatOut(pacer, now, now + kEpochUs);
    // The sender got (about) the whole epoch's worth at the old rate...
    CHECK_GE(sent, static_cast<int64_t>(rate * kEpochUs / 1e6 * 0.9)) << "epoch " << epoch;
    CHECK_LE(sent, static_cast<int64_t>(rate * kEpochUs / 1e6) + 1) << "epoch " << epoch;
    // ...and the rate doubled once at its end, not more.
    CHECK_EQ(pacer.Rate(0), 2 * rate) << "epoch " << epoch;
    rate = pacer.Rate(0);
  }
  CHECK_EQ(pacer.Rate(0), 64000);
  // The ceiling caps the rate a send goes at, not the rate learnt.
  CHECK_EQ(pacer.Rate(5000), 5000);
  CHECK_EQ(pacer.Rate(0), 64000);
}

TEST(Pacer, NoGrowthWhenApplicationLimited) {
  Pacer pacer(10000);  // 100 tokens per epoch
  int64_t now = kStartUs;
  pacer.Tick(now, kEpochUs);
  // One probe a millisecond: a tenth of what it may send.
  int64_t sent = SendEvery(pacer, now, now + 20 * kEpochUs, 1000);
  CHECK_NEAR(sent, 200, 2);
  CHECK_EQ(pacer.Rate(0), 10000);
  // 40% of the tokens used: still not the network's limit being tested.
  sent = SendEvery(pacer, now, now + 10 * kEpochUs, 250);
  CHECK_NEAR(sent, 400, 2);
  CHECK_EQ(pacer.Rate(0), 10000);
  // 60% used: that is enough to learn from, and it doubles.
  SendEvery(pacer, now, now + kEpochUs, 1e6 / 6000);
  CHECK_EQ(pacer.Rate(0), 20000);
  // Idle (nothing tried at all) over many epochs: no growth either.
  now += 50 * kEpochUs;
  pacer.Tick(now, kEpochUs);
  CHECK_EQ(pacer.Rate(0), 20000);
}

TEST(Pacer, OnLossCutsToGoodputOncePerEpisode) {
  int64_t now = kStartUs;
  {
    Pacer pacer(10000);
    // Half the canaries lost beyond the path: the rate goes to (a margin
    // under) what got through.
    pacer.OnLoss(now - 5000, 10000, now, 0.5);
    CHECK_LE(pacer.Rate(0), 10000 * 0.5);
    CHECK_GE(pacer.Rate(0), 10000 * 0.5 * 0.8);
  }
  {
    Pacer pacer(10000);
    pacer.OnLoss(now - 5000, 10000, now, 0);  // a single loss: at least 15% off
    CHECK_NEAR(pacer.Rate(0), 8500, 1e-6);
  }
  {
    Pacer pacer(10000);
    pacer.OnLoss(now - 5000, 10000, now, 0.99);  // almost nothing through: a tenth, no less
    CHECK_NEAR(pacer.Rate(0), 1000, 1e-6);
  }
  {
    Pacer pacer(10000);
    // The probe went at 4,000/s (the rate was raised since): the goodput
    // is measured at the rate it was sent at.
    pacer.OnLoss(now - 5000, 4000, now, 0.5);
    CHECK_LE(pacer.Rate(0), 4000 * 0.5);
    CHECK_GE(pacer.Rate(0), 4000 * 0.5 * 0.8);
  }
  {
    Pacer pacer(100);
    pacer.OnLoss(now - 5000, 100, now, 0.99);
    CHECK_EQ(pacer.Rate(0), 20);  // the floor
  }
  Pacer pacer(10000);
  pacer.OnLoss(now - 3000, 10000, now, 0);
  double after_cut = pacer.Rate(0);
  CHECK_LT(after_cut, 10000);
  // More losses of probes sent before that cut are the same episode.
  pacer.OnLoss(now - 2000, 10000, now + 1000, 0.5);
  pacer.OnLoss(now - 1, 10000, now + 2000, 0.9);
  CHECK_EQ(pacer.Rate(0), after_cut);
  // A probe sent after the cut, lost: a new episode, a new cut.
  pacer.OnLoss(now + 500, after_cut, now + 3000, 0);
  CHECK_LT(pacer.Rate(0), after_cut * 0.86);
}

TEST(Pacer, GrowsByAPercentPer5MsOfEpochAfterTheFirstLoss) {
  Pacer pacer(8000);
  int64_t now = kStartUs;
  pacer.Tick(now, kEpochUs);
  SendFlatOut(pacer, now, now + kEpochUs);
  CHECK_EQ(pacer.Rate(0), 16000);
  pacer.OnLoss(now - 1000, 16000, now, 0);
  double cut = pacer.Rate(0);
  SendFlatOut(pacer, now, now + 10 * kEpochUs);
  // Nine or ten epochs ended (an epoch ends at the first send after it is
  // due), each growing 1% per 5 ms of it (1.01^2 for 10 ms): 1.0201^9 to
  // 1.0201^10, where slow start would have been 2^9.
  CHECK_GE(pacer.Rate(0), cut * 1.1951);
  CHECK_LE(pacer.Rate(0), cut * 1.2190);
}

TEST(Pacer, TokenCapNoBurstAfterStall) {
  Pacer pacer(64000);
  int64_t now = kStartUs;
  CHECK(pacer.TryTake(now, 0));  // the one token it starts with
  CHECK(!pacer.TryTake(now, 0));
  // The engine loop stalls for a second: 64,000 tokens' worth of time.
  now += 1000000;
  int burst = 0;
  while (pacer.TryTake(now, 0)) ++burst;
  CHECK_LE(burst, 32);  // half a millisecond's worth at most
  CHECK_GE(burst, 16);
  // The next token comes at the rate's spacing (1/64 ms), not at once.
  int64_t next = pacer.NextTokenUs(now, 0);
  CHECK_GT(next, now);
  CHECK_LE(next, now + 17);

  // At a low rate the cap is three tokens: a stall never sends more at
  // once, and a wake-up a little late loses none.
  Pacer slow(200);
  CHECK(slow.TryTake(now, 0));
  now += 1000000;
  for (int i = 0; i < 3; ++i) CHECK(slow.TryTake(now, 0));
  CHECK(!slow.TryTake(now, 0));
  CHECK_NEAR(slow.NextTokenUs(now, 0) - now, 5000, 2);

  // Under a ceiling the cap follows the ceiling's rate.
  Pacer capped(64000);
  CHECK(capped.TryTake(now, 8000));
  now += 1000000;
  burst = 0;
  while (capped.TryTake(now, 8000)) ++burst;
  CHECK_LE(burst, 4);
  CHECK_GE(burst, 1);

  // A cut also drops the tokens saved up before it.
  Pacer cut(64000);
  CHECK(cut.TryTake(now, 0));
  now += 400;
  CHECK(cut.TryTake(now, 0));  // refilled: 25 tokens saved, one taken
  cut.OnLoss(now - 300, 64000, now, 0);
  burst = 0;
  while (cut.TryTake(now, 0)) ++burst;
  CHECK_EQ(burst, 1);
}

TEST(Pacer, SeedDisablesSlowStart) {
  Pacer pacer(2000);
  pacer.Seed(5000);
  CHECK_EQ(pacer.Rate(0), 5000);
  int64_t now = kStartUs;
  pacer.Tick(now, kEpochUs);
  int64_t sent = SendFlatOut(pacer, now, now + 10 * kEpochUs);
  CHECK_GE(sent, 450);  // it did use its tokens...
  // ...but grew by 1% per 5 ms of epoch over the nine or ten that ended.
  CHECK_GE(pacer.Rate(0), 5000 * 1.1951);
  CHECK_LE(pacer.Rate(0), 5000 * 1.2190);
  Pacer floor(2000);
  floor.Seed(1);
  CHECK_EQ(floor.Rate(0), 20);
}

}  // namespace
}  // namespace selfscan
