// RttEstimator: the probe timeout is only as good as RFC 6298's smoothing
// and the clamps around it, so both are checked against numbers worked by
// hand and against a floating-point RFC 6298 reference.
#include "../core/rtt_estimator.h"

#include <cmath>
#include <cstdint>
#include <random>

#include "test.h"

namespace selfscan {
namespace {

TEST(RttEstimator, FirstSample) {
  RttEstimator rtt;
  CHECK(!rtt.HasSamples());
  rtt.AddSample(1000);
  CHECK(rtt.HasSamples());
  CHECK_EQ(rtt.samples(), 1u);
  // RFC 6298 2.2: SRTT = R, RTTVAR = R/2.
  CHECK_EQ(rtt.srtt_us(), 1000);
  CHECK_EQ(rtt.rttvar_us(), 500);
  CHECK_EQ(rtt.UnboundedTimeoutUs(), 3250);  // + SRTT / 4 of room

  RttEstimator negative;
  negative.AddSample(-50);  // a clock step backwards is no negative RTT
  CHECK_EQ(negative.srtt_us(), 0);
  CHECK_EQ(negative.rttvar_us(), 0);
}

TEST(RttEstimator, Rfc6298Smoothing) {
  RttEstimator rtt;
  rtt.AddSample(1000);
  rtt.AddSample(2000);
  // RTTVAR = 3/4 RTTVAR + 1/4 |SRTT - R'| with the old SRTT, then
  // SRTT = 7/8 SRTT + 1/8 R'.
  CHECK_EQ(rtt.rttvar_us(), 625);  // 500 + (1000 - 500) / 4
  CHECK_EQ(rtt.srtt_us(), 1125);   // 1000 + 1000 / 8
  rtt.AddSample(1125);             // on the average: the spread shrinks
  CHECK_EQ(rtt.rttvar_us(), 469);  // 625 + (0 - 625) / 4, truncated
  CHECK_EQ(rtt.srtt_us(), 1125);
  CHECK_EQ(rtt.samples(), 3u);

  // Random samples against the same rule in doubles: the integer version
  // may only drift by its truncations (under 8 us each).
  std::mt19937 random(6298);
  std::uniform_int_distribution<int64_t> sample(200, 20000);
  RttEstimator fixed;
  double srtt = 0;
  double rttvar = 0;
  for (int i = 0; i < 2000; ++i) {
    int64_t r = sample(random);
    fixed.AddSample(r);
    if (i == 0) {
      srtt = static_cast<double>(r);
      rttvar = srtt / 2;
    } else {
      rttvar = 0.75 * rttvar + 0.25 * std::fabs(srtt - static_cast<double>(r));
      srtt = 0.875 * srtt + 0.125 * static_cast<double>(r);
    }
    CHECK_NEAR(fixed.srtt_us(), srtt, 8) << "after sample " << i;
    CHECK_NEAR(fixed.rttvar_us(), rttvar, 16) << "after sample " << i;
  }

  // A steady RTT: SRTT settles on it and the spread falls to almost zero
  // (integer steps stop short: SRTT within 7 us, RTTVAR within 3 us of that).
  RttEstimator steady;
  steady.AddSample(40000);
  for (int i = 0; i < 200; ++i) steady.AddSample(10000);
  CHECK_NEAR(steady.srtt_us(), 10000, 7);
  CHECK_LE(steady.rttvar_us(), 10);
}

TEST(RttEstimator, TimeoutUsClamping) {
  TimeoutBounds bounds{1000000, 100000, 3000000};
  RttEstimator none;
  CHECK_EQ(none.TimeoutUs(bounds), 1000000);  // no sample: the initial timeout

  RttEstimator fast;
  fast.AddSample(10);  // 10 + 4 * 5 + 10 / 4 = 32 us
  CHECK_EQ(fast.UnboundedTimeoutUs(), 32);
  CHECK_EQ(fast.TimeoutUs(bounds), 100000);

  RttEstimator within;
  within.AddSample(50000);  // 50 ms + 4 * 25 ms + 12.5 ms
  CHECK_EQ(within.TimeoutUs(bounds), 162500);

  RttEstimator slow;
  slow.AddSample(2000000);  // 2 s + 4 * 1 s + 0.5 s
  CHECK_EQ(slow.UnboundedTimeoutUs(), 6500000);
  CHECK_EQ(slow.TimeoutUs(bounds), 3000000);
}

TEST(RttEstimator, Seed) {
  TimeoutBounds bounds{1000000, 10000, 3000000};
  RttEstimator unseeded;
  unseeded.Seed(LearnedTiming{5000, 20000, 5000, 0});  // nothing learned: no-op
  CHECK(!unseeded.HasSamples());
  CHECK_EQ(unseeded.TimeoutUs(bounds), 1000000);

  RttEstimator rtt;
  rtt.Seed(LearnedTiming{5000, 20000, 5000, 7});
  CHECK(rtt.HasSamples());
  CHECK_EQ(rtt.samples(), 7u);
  CHECK_EQ(rtt.TimeoutUs(bounds), 45000);  // 20 ms + 4 * 5 ms + 5 ms, no initial timeout
  // The next sample is smoothed into the learned state, not taken as a first.
  rtt.AddSample(28000);
  CHECK_EQ(rtt.samples(), 8u);
  CHECK_EQ(rtt.rttvar_us(), 5750);  // 5000 + (8000 - 5000) / 4
  CHECK_EQ(rtt.srtt_us(), 21000);   // 20000 + 8000 / 8
}

}  // namespace
}  // namespace selfscan
