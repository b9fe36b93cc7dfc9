// SilencesForFiltered: how many silences make a port `filtered` on a lossy
// path. Checked at points worked by hand, for monotony, and as a property
// over a grid: the k returned meets both bars (one in a million a port, one
// in a thousand a scan) and k - 1 does not.
#include "../core/filtered_rule.h"

#include <cmath>

#include "test.h"

namespace selfscan {
namespace {

TEST(SilencesForFiltered, WorkedExamples) {
  CHECK_EQ(SilencesForFiltered(1e-4, 3), 2);  // 1e-8: two silences, never fewer
  CHECK_EQ(SilencesForFiltered(0, 3), 2);
  CHECK_EQ(SilencesForFiltered(-1, 3), 2);  // clamped to 0
  // 0.02^3 = 8e-6 >= 1e-6 > 0.02^4 = 1.6e-7, and 4 * 1.6e-7 < 1e-3.
  CHECK_EQ(SilencesForFiltered(0.02, 4), 4);
  // 65,531 * 1.6e-7 = 0.0105 >= 1e-3; 65,531 * 0.02^5 = 2.1e-4.
  CHECK_EQ(SilencesForFiltered(0.02, 65531), 5);
  // 0.04^4 = 2.6e-6 >= 1e-6 > 0.04^5 = 1.0e-7: five with few answering ports,
  // six with 65,531 (65,531 * 1.0e-7 = 6.7e-3; * 0.04^6 = 2.7e-4).
  CHECK_EQ(SilencesForFiltered(0.04, 4), 5);
  CHECK_EQ(SilencesForFiltered(0.04, 9000), 5);   // 9.2e-4
  CHECK_EQ(SilencesForFiltered(0.04, 10000), 6);  // 1.02e-3
  CHECK_EQ(SilencesForFiltered(0.04, 65531), 6);
  // No answering port is taken as one.
  CHECK_EQ(SilencesForFiltered(0.02, 0), SilencesForFiltered(0.02, 1));
  // A path that loses most probes cannot be judged: the most it asks for.
  CHECK_EQ(SilencesForFiltered(0.6, 4), kMaxSilences);  // 0.6^15 = 4.7e-4
  CHECK_EQ(SilencesForFiltered(1.5, 4), kMaxSilences);  // clamped to 1
}

TEST(SilencesForFiltered, MonotoneInLossAndPorts) {
  const double ports[] = {0, 1, 4, 100, 1000, 10000, 65531};
  int last_in_ports[sizeof ports / sizeof ports[0]] = {};
  for (double p = 0; p <= 1.0; p += 0.0005) {
    int last = 0;
    for (size_t i = 0; i < sizeof ports / sizeof ports[0]; ++i) {
      int k = SilencesForFiltered(p, ports[i]);
      CHECK_GE(k, 2);
      CHECK_LE(k, kMaxSilences);
      CHECK_GE(k, last) << "p " << p << ", ports " << ports[i];
      CHECK_GE(k, last_in_ports[i]) << "p " << p << ", ports " << ports[i];
      last = k;
      last_in_ports[i] = k;
    }
  }
}

TEST(SilencesForFiltered, KIsTheLeastThatMeetsBothBars) {
  int checked = 0;
  // Losses from 1e-5 to 0.6, about 40 a decade, at answering-port counts from
  // 1 to 65,536; points within a rounding error of a bar are skipped.
  for (double p = 1e-5; p < 0.6; p *= 1.0593) {
    for (double ports = 1; ports <= 65536; ports *= 4.1) {
      int k = SilencesForFiltered(p, ports);
      auto meets = [&](int silences) {
        double chance = std::pow(p, silences);
        return chance < 1e-6 && ports * chance < 1e-3;
      };
      auto near_bar = [&](int silences) {
        double log_chance = silences * std::log(p);
        return std::fabs(log_chance - std::log(1e-6)) < 1e-9 ||
               std::fabs(log_chance + std::log(ports) - std::log(1e-3)) < 1e-9;
      };
      if (near_bar(k) || near_bar(k - 1)) continue;
      ++checked;
      // kMaxSilences is returned when nothing below it meets the bars.
      if (k < kMaxSilences) CHECK(meets(k)) << "p " << p << ", ports " << ports << ", k " << k;
      if (k - 1 >= 2) {
        CHECK(!meets(k - 1)) << "p " << p << ", ports " << ports << ", k " << k;
      }
    }
  }
  CHECK_GT(checked, 1000);
}

}  // namespace
}  // namespace selfscan
