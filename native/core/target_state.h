// What the engine knows of one target address, shared by every scan of it:
// its RTT, the pace probes may go at, the canary ports and how the canaries
// fared, the path's own loss and the rates at which the host dropped probes
// beyond it, and how many connects are outstanding. From these it judges
// whether a silence is evidence of a filter. Engine thread only.
#pragma once

#include <cstdint>
#include <vector>

#include "canary_ledger.h"
#include "clean_stretch.h"
#include "loss_history.h"
#include "pacer.h"
#include "path_loss.h"
#include "rtt_estimator.h"
#include "scan_spec.h"

namespace selfscan {

class TargetState {
 public:
  // A target no scan has taught this engine about: its pace and RTT start
  // from what an earlier scan (maybe in another process) learned, when the
  // scan that brings it here passes that on, else from scratch.
  TargetState(double initial_rate, const LearnedTiming& learned);

  // Called once per engine turn: epoch growth and the verification ceiling.
  void Prepare(int64_t now_us);
  // The pace's epoch: twice the plausible RTT, at least 5 ms.
  int64_t EpochUs() const;
  // How long `probes` take to send from now: at the pace in force, or,
  // while it still doubles per epoch, as it doubles.
  int64_t SendingUs(double probes) const;
  // The rate cap in force (connects/s, 0 = none): once every scan is only
  // re-probing silent ports, they go clearly below the lowest loss rate.
  double ceiling() const { return ceiling_; }
  double rate() const { return pacer.Rate(ceiling_); }
  // The share of probes the path itself loses.
  double PathShare() const;
  // A port answered after `clean_silences` silences that counted towards
  // `filtered`: each of those silences lied, though the canaries around it
  // answered: a limiter with a small bucket drops between canaries.
  void PortAnswered(int clean_silences);
  // The share of probes a silence may be loss on, as the rule for
  // `filtered` reads it: the path's loss, or the share of probes to ports
  // that answered whose silence counted clean, when that is higher.
  double SilenceDoubt() const;
  // Whether re-probes of silent ports may go now (their silence could count).
  bool CanJudgeSilence() const { return UnderSafeRate(rate()); }
  // What a later scan of this target may start from: the rate in force
  // (under the verification ceiling, if one holds: below any loss rate
  // seen, which that scan will not know) and the RTT estimator's state.
  LearnedTiming Learned() const;

  // Canaries: due after enough probes and time since the last one, when a
  // port is known to answer.
  bool CanaryDue(int64_t now_us) const;
  uint16_t NextCanaryPort();
  void Launched(bool canary, int64_t now_us);
  void LearnClosed(uint16_t port);
  void LearnOpen(uint16_t port);
  bool has_canary() const { return !closed_ports_.empty() || !open_ports_.empty(); }
  // How long a canary may take before it counts as lost.
  int64_t CanaryLateUs(const TimeoutBounds& bounds) const;

  // A canary was answered.
  void CanaryAnswered(uint32_t seq, int64_t now_us);
  // A canary went unanswered: the silences around it do not count either
  // way. The path's own loss leaves the pace be; loss beyond it means the
  // host (or a queue) was dropping: slow down.
  PathLoss::Kind CanaryLost(uint32_t seq, int64_t now_us);
  // A silence of a probe launched with `canary_after` at `rate`: clean (it
  // counts towards filtered), not clean, or undecided until the canaries
  // around it have come back.
  CanaryLedger::Verdict JudgeSilence(uint32_t canary_after, double rate) const;

  RttEstimator rtt;
  Pacer pacer;
  CanaryLedger ledger;
  PathLoss path_loss;
  LossHistory losses;         // rates of excess loss only
  int connecting = 0;         // probes waiting for the handshake to answer
  int awaiting_canaries = 0;  // silent probes whose verdict waits for canaries
  bool sweeping = false;      // some scan of it has not finished its first pass
  int scans = 0;              // jobs that point here

 private:
  // Sent at `rate`, a silence can count: no loss seen yet, or below the rate
  // at which this target dropped probes.
  bool UnderSafeRate(double rate) const;
  // A canary sent at `rate` settled within the path's loss: each long
  // enough stretch of them refutes loss episodes clearly below what it
  // proves.
  void SettledClean(double rate, int64_t now_us);

  double ceiling_ = 0;
  CleanStretch clean_;
  uint64_t launched_ = 0;  // probes launched, canaries included
  uint64_t ports_answered_ = 0;
  uint64_t silences_contradicted_ = 0;  // clean silences of ports that answered
  std::vector<uint16_t> closed_ports_;
  std::vector<uint16_t> open_ports_;
  size_t next_canary_ = 0;
  uint32_t since_canary_ = 0;  // probes launched since the last canary
  int64_t last_canary_us_ = 0;
  int64_t last_open_canary_us_ = 0;
};

}  // namespace selfscan
