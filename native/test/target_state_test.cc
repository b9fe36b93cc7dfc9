// TargetState: the bar for silences through a scan's life. A lossy path can
// raise a false alarm early, while the pace is low (a few canaries lost
// together read as excess before the path's share is known); a clean stretch
// at a clearly higher pace must lift that bar, or every re-probe of a silent
// port would crawl under it. A limiter's episodes stay: no clean stretch
// goes clearly above its rate. Canaries in flight when the pace is cut
// belong to the episode that cut it, not to the path's share. Silences the
// canaries vouched for, of ports that answered later, raise the bar too.
#include "../core/target_state.h"

#include <cstdint>
#include <vector>

#include "../core/filtered_rule.h"
#include "test.h"

namespace selfscan {
namespace {

constexpr int64_t kStartUs = 1000000;
constexpr int64_t kMs = 1000;

struct Clock {
  int64_t now = kStartUs;
};

// One canary sent at `rate` after `probes` other probes, settled `ms` later:
// answered, or lost.
void Canary(TargetState& target, Clock& clock, double rate, int probes, bool answered) {
  for (int i = 0; i < probes; ++i) target.Launched(false, clock.now);
  uint32_t seq = target.ledger.Begin(clock.now, rate);
  target.Launched(true, clock.now);
  clock.now += kMs;
  if (answered) {
    target.CanaryAnswered(seq, clock.now);
  } else {
    target.CanaryLost(seq, clock.now);
  }
}

// Twenty answered canaries at 4,000/s, then a run of them lost together:
// excess on a path whose share is not known yet.
void FalseAlarm(TargetState& target, Clock& clock) {
  for (int i = 0; i < 20; ++i) Canary(target, clock, 4000, 3, true);
  for (int i = 0; i < 6; ++i) Canary(target, clock, 4000, 3, false);
}

TEST(TargetState, AnEarlyFalseAlarmIsLiftedByACleanStretchFarAboveIt) {
  TargetState target(2000, LearnedTiming{});
  Clock clock;
  FalseAlarm(target, clock);
  CHECK(target.losses.SafeRate() > 0);
  CHECK(target.losses.SafeRate() <= 3200);
  // 1,200 canaries over 1.2 s, 40 probes each: 40,000/s sent, 2 % lost to
  // the path at random (one in fifty), none judged beyond it. The first
  // stretch holds the alarm's last canaries (lost to the path at 4,000/s)
  // and proves little; the second proves 40,000/s.
  for (int i = 0; i < 1200; ++i) Canary(target, clock, 40000, 39, i % 50 != 25);
  CHECK_EQ(target.losses.SafeRate(), 0);
  CHECK(target.CanJudgeSilence());
}

TEST(TargetState, ALimitersEpisodeStaysUnderAStretchJustBelowIt) {
  TargetState target(2000, LearnedTiming{});
  Clock clock;
  FalseAlarm(target, clock);
  double bar = target.losses.SafeRate();
  CHECK(bar > 0);
  // Clean for 600 ms at a pace of 4,800/s, 4,000/s of it sent (what a
  // limiter at 4,100/s lets through): not clearly above the 4,000/s
  // episode, which stays.
  for (int i = 0; i < 600; ++i) Canary(target, clock, 4800, 3, true);
  CHECK_EQ(target.losses.SafeRate(), bar);
}

TEST(TargetState, CanariesSentBeforeACutAreTheEpisodesNotThePaths) {
  TargetState target(2000, LearnedTiming{});
  Clock clock;
  for (int i = 0; i < 200; ++i) Canary(target, clock, 4000, 15, true);
  // Twenty canaries in flight at 8,000/s, over a limiter's rate...
  std::vector<uint32_t> in_flight;
  for (int i = 0; i < 20; ++i) in_flight.push_back(target.ledger.Begin(clock.now, 8000));
  clock.now += kMs;
  // ...the first of them lost: excess, and the pace is cut.
  double before = target.pacer.Rate(0);
  CHECK(target.CanaryLost(in_flight[0], clock.now) == PathLoss::Kind::kExcess);
  CHECK(target.pacer.Rate(0) < before);
  double share = target.PathShare();
  // The rest, noticed one by one after the cut: the same episode's, each
  // excess, none the path's, and the share the rule for `filtered` reads
  // stays where it was.
  for (size_t i = 1; i < in_flight.size(); ++i) {
    clock.now += 100;
    CHECK(target.CanaryLost(in_flight[i], clock.now) == PathLoss::Kind::kExcess) << "canary " << i;
  }
  CHECK_EQ(target.path_loss.lost_path(), 0u);
  CHECK_EQ(target.PathShare(), share);
}

TEST(TargetState, SilencesThatLiedRaiseTheBarForFiltered) {
  TargetState target(2000, LearnedTiming{});
  Clock clock;
  // Every canary answered: the path loses nothing, two silences would do.
  for (int i = 0; i < 2000; ++i) Canary(target, clock, 1000, 15, true);
  CHECK_EQ(target.SilenceDoubt(), target.PathShare());
  CHECK_EQ(SilencesForFiltered(target.SilenceDoubt(), 1000), 2);
  // Yet 50 of 1,000 ports that answered had gone silent once between
  // answered canaries (a limiter dropping between them): one probe in
  // twenty lies, and two such silences of a closed port would have made
  // it filtered.
  for (int port = 0; port < 1000; ++port) target.PortAnswered(port % 20 == 0 ? 1 : 0);
  CHECK(target.SilenceDoubt() > 0.04);
  CHECK(target.SilenceDoubt() < 0.05);
  CHECK_EQ(SilencesForFiltered(target.SilenceDoubt(), 1000), 5);
  // The path's share stays the canaries': the pace does not slow for this.
  CHECK_EQ(target.PathShare(), target.path_loss.loss(0));
}

}  // namespace
}  // namespace selfscan
