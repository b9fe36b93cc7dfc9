// CleanStretch: what runs of canaries settled within the path's loss prove.
// Checked: nothing before 256 canaries over 500 ms, then the lowest pace
// they went at or the rate probes actually went out at, whichever is lower,
// the next stretch measured afresh; a loss beyond the path's starts it over.
#include "../core/clean_stretch.h"

#include <cstdint>

#include "test.h"

namespace selfscan {
namespace {

constexpr int64_t kStartUs = 1000000;
constexpr int64_t kMs = 1000;

struct Feed {
  CleanStretch& stretch;
  int64_t now = kStartUs;
  uint64_t launched = 0;
  // `canaries` canaries at `rate`, one every `gap_us` after `per_canary`
  // probes; returns what the last of them proved.
  double operator()(int canaries, double rate, int64_t gap_us, uint64_t per_canary) {
    double proven = 0;
    for (int i = 0; i < canaries; ++i) {
      launched += per_canary;
      now += gap_us;
      proven = stretch.Settled(rate, launched, now);
    }
    return proven;
  }
};

TEST(CleanStretch, ProvesNothingUntilLongEnoughInCanariesAndTime) {
  // 256 canaries 10 ms apart: the 256th (2.55 s after the first) proves the pace.
  CleanStretch slow;
  Feed feed{slow};
  CHECK_EQ(feed(255, 8000, 10 * kMs, 80), 0);
  CHECK_NEAR(feed(1, 8000, 10 * kMs, 80), 8000, 1e-6);

  // 1,000 canaries within 499 ms: too short; one more 2 ms later is not.
  CleanStretch quick;
  Feed fast{quick};
  CHECK_EQ(fast(1000, 40000, 499, 20), 0);
  CHECK(fast(1, 40000, 2 * kMs, 20) > 0);
}

TEST(CleanStretch, ProvesTheLowerOfThePaceAndWhatWasSent) {
  // Labelled 120,000/s, but only 8 probes a millisecond went out: 8,000/s.
  CleanStretch starved;
  Feed feed{starved};
  CHECK_EQ(feed(500, 120000, kMs, 8), 0);
  CHECK_NEAR(feed(1, 120000, kMs, 8), 8000, 8000 * 0.01);
  // Sent at 16,000/s, but one canary went at a pace of 5,000/s.
  CleanStretch mixed;
  Feed other{mixed};
  CHECK_EQ(other(255, 16000, 2 * kMs, 32), 0);
  CHECK_NEAR(other(1, 5000, 2 * kMs, 32), 5000, 1e-9);
}

TEST(CleanStretch, EachStretchIsMeasuredAfresh) {
  // Slow start: 2,000/s, then 50,000/s. The first stretch proves 2,000;
  // the next, alone, 50,000, however slow the first was.
  CleanStretch stretch;
  Feed feed{stretch};
  CHECK_EQ(feed(500, 2000, kMs, 2), 0);
  CHECK_NEAR(feed(1, 2000, kMs, 2), 2000, 2000 * 0.01);
  CHECK_EQ(feed(500, 50000, kMs, 50), 0);
  CHECK_NEAR(feed(1, 50000, kMs, 50), 50000, 50000 * 0.01);
}

TEST(CleanStretch, ALossBeyondThePathStartsItOver) {
  CleanStretch stretch;
  Feed feed{stretch};
  feed(200, 10000, 2 * kMs, 20);
  stretch.Broken();
  // 256 canaries since the break, 200 before it: counted from the break.
  CHECK_EQ(feed(255, 10000, 2 * kMs, 20), 0);
  CHECK_NEAR(feed(1, 10000, 2 * kMs, 20), 10000, 10000 * 0.01);
}

}  // namespace
}  // namespace selfscan
