// What an answer or a silence means for a port: the verdict state machine
// every transport feeds, and the timers that turn waiting into silence.
#include <errno.h>
#include <poll.h>
#include <sys/socket.h>

#include "clock.h"
#include "engine.h"
#include "engine_internal.h"
#include "filtered_rule.h"

namespace selfscan {

using namespace engine_internal;

void Engine::HandleEvent(const Readiness& ready) {
  if (ready.token == kSynAnswersToken) {
    ReadSynAnswers();
    return;
  }
  Probe* found = ProbeOf(ready.token);
  if (found == nullptr || found->fd < 0) return;  // a probe that already ended
  Probe& probe = *found;
  switch (probe.phase) {
    case Phase::kConnecting: {
      int error = ready.error != 0 ? ready.error : ConnectErrorOf(probe.fd, ready.writable);
      OnConnectResult(probe, error, true, "connect");
      break;
    }
    case Phase::kAwaitBanner:
    case Phase::kAwaitHttp:
      OnReadable(probe);
      break;
    case Phase::kFree:
    case Phase::kLaunching:
    case Phase::kAnswered:
      break;
  }
}

void Engine::ExpireTimers(int64_t now) {
  // An answer read late must not turn into a silence.
  if (syn_ && !timers_.empty() && timers_.top().deadline_us <= now) ReadSynAnswers();
  while (!timers_.empty() && timers_.top().deadline_us <= now) {
    Timer timer = timers_.top();
    timers_.pop();
    Probe& probe = probes_[timer.slot];
    if (probe.gen != timer.gen || probe.phase == Phase::kFree) continue;
    if (probe.phase == Phase::kConnecting) {
      // A busy loop must not turn a late-read answer into "filtered".
      pollfd check{probe.fd, POLLOUT, 0};
      if (poll(&check, 1, 0) == 1 && check.revents != 0) {
        HandleEvent(
            Readiness{Token(timer.slot, timer.gen), (check.revents & POLLOUT) != 0, false, 0});
        continue;
      }
      if (probe.canary) {
        OnCanaryLate(probe);
        continue;
      }
      const ScanSpec& spec = probe.job->spec();
      int64_t deadline = probe.started_us + probe.job->target->rtt.TimeoutUs(spec.timeouts);
      if (deadline > now) {
        ArmTimer(probe, deadline);
      } else {
        OnSilence(probe, now);
      }
    } else {
      pollfd check{probe.fd, POLLIN, 0};
      if (poll(&check, 1, 0) == 1 && check.revents != 0) {
        OnReadable(probe);
        continue;
      }
      OnBannerTimeout(probe);
    }
  }
}

void Engine::OnConnectResult(Probe& probe, int error_number, bool from_network, const char* syscall,
                             bool icmp) {
  ConnectOutcome outcome = ClassifyConnectErrno(error_number, from_network);
  if (outcome == ConnectOutcome::kClosed && (icmp || (probe.fd >= 0 && RefusedByIcmp(probe.fd)))) {
    outcome = ConnectOutcome::kFiltered;  // an ICMP port unreachable: a REJECT
  }
  if (outcome == ConnectOutcome::kOpen && IsSelfConnect(probe)) {
    // Our own ephemeral port met itself (loopback): nothing learnt.
    RetryLater(probe, EADDRINUSE);
    return;
  }
  OnOutcome(probe, outcome, error_number, syscall);
}

void Engine::OnOutcome(Probe& probe, ConnectOutcome outcome, int error_number,
                       const char* syscall) {
  ScanJob& job = *probe.job;
  TargetState& target = *job.target;
  bool answered = outcome == ConnectOutcome::kOpen || outcome == ConnectOutcome::kClosed ||
                  outcome == ConnectOutcome::kFiltered;
  int64_t now = NowUs();
  if (answered) {
    if (now - probe.started_us < kMaxRttSampleUs) target.rtt.AddSample(now - probe.started_us);
    LeaveConnecting(probe);
  }
  if (probe.canary) {
    OnCanaryResult(probe, outcome);
    return;
  }
  bool port_answered = outcome == ConnectOutcome::kOpen || outcome == ConnectOutcome::kClosed;
  if (port_answered && !probe.confirming) {  // a confirming connect answers a second time
    int lied = job.clean_silences(probe.index);
    target.PortAnswered(lied);
    stat_silences_contradicted_.fetch_add(lied, std::memory_order_relaxed);
  }
  switch (outcome) {
    case ConnectOutcome::kOpen:
      if (probe.half_open) {
        Confirm(probe);
        return;
      }
      target.LearnOpen(probe.port);
      BeginBanner(probe);
      return;
    case ConnectOutcome::kClosed:
      // A port that answered a SYN-ACK and then refused is no canary.
      if (!probe.confirming) target.LearnClosed(probe.port);
      Resolve(probe, PortState::kClosed);
      return;
    case ConnectOutcome::kFiltered:
      Resolve(probe, PortState::kFiltered);
      return;
    case ConnectOutcome::kTimedOut:
      OnConnectTimeout(probe, false);  // the kernel gave up: long past any canary
      return;
    case ConnectOutcome::kRetryLater:
    case ConnectOutcome::kPending:
      RetryLater(probe, error_number);
      return;
    case ConnectOutcome::kFatal:
      EndJob(job, ScanStatus::kFailed, error_number, syscall);
      return;
  }
}

void Engine::Confirm(Probe& probe) {
  probe.half_open = false;  // the transport let go of it with the answer
  probe.confirming = true;
  probe.gen++;  // the SYN's timer must not judge the connect
  probe.phase = Phase::kLaunching;
  probe.job->target->connecting++;
  Connect(probe);
}

void Engine::OnCanaryResult(Probe& probe, ConnectOutcome outcome) {
  TargetState& target = *probe.job->target;
  switch (outcome) {
    case ConnectOutcome::kOpen: {
      if (probe.fd >= 0) {
        linger reset{1, 0};  // no TIME_WAIT, and the service sees a reset at once
        setsockopt(probe.fd, SOL_SOCKET, SO_LINGER, &reset, sizeof reset);
      }
      target.CanaryAnswered(probe.canary_seq, NowUs());
      break;
    }
    case ConnectOutcome::kClosed:
    case ConnectOutcome::kFiltered:
      target.CanaryAnswered(probe.canary_seq, NowUs());
      break;
    case ConnectOutcome::kTimedOut:
      OnCanaryLate(probe);
      return;
    case ConnectOutcome::kRetryLater:
    case ConnectOutcome::kPending:
    case ConnectOutcome::kFatal:
      RetryLater(probe, EAGAIN);
      return;
  }
  CloseProbe(probe);
}

void Engine::OnCanaryLate(Probe& probe) {
  stat_canaries_lost_.fetch_add(1, std::memory_order_relaxed);
  if (probe.job->target->CanaryLost(probe.canary_seq, NowUs()) == PathLoss::Kind::kPath) {
    stat_canaries_lost_to_path_.fetch_add(1, std::memory_order_relaxed);
  }
  LeaveConnecting(probe);
  CloseProbe(probe);
}

void Engine::OnSilence(Probe& probe, int64_t now) {
  TargetState& target = *probe.job->target;
  CanaryLedger::Verdict verdict = target.JudgeSilence(probe.canary_seq, probe.rate);
  if (verdict != CanaryLedger::Verdict::kUndecided) {
    OnConnectTimeout(probe, verdict == CanaryLedger::Verdict::kAnswered);
    return;
  }
  // Keep listening: an answer may still come, and the canaries around this
  // probe will say whether its silence counts.
  if (!probe.awaiting_canaries) {
    probe.awaiting_canaries = true;
    target.awaiting_canaries++;
  }
  ArmTimer(probe, now + kVerdictRecheckUs);
}

void Engine::OnConnectTimeout(Probe& probe, bool clean) {
  LeaveConnecting(probe);
  ScanJob& job = *probe.job;
  const TargetState& target = *job.target;
  job.RecordSilence(probe.index, clean);
  bool filtered = job.clean_silences(probe.index) >= SilencesNeeded(job) ||
                  (!target.has_canary() && job.silences(probe.index) >= kSilentHostTries);
  if (filtered) {
    Resolve(probe, PortState::kFiltered);
  } else {
    job.Reprobe(probe.index);
    CloseProbe(probe);
  }
}

int Engine::SilencesNeeded(const ScanJob& job) const {
  return SilencesForFiltered(job.target->SilenceDoubt(), job.AnsweringEstimate());
}

void Engine::Resolve(Probe& probe, PortState state, const std::string* banner) {
  ScanJob& job = *probe.job;
  job.Resolve(probe.index, state, banner);
  CloseProbe(probe);
  if (job.AllResolved()) EndJob(job, ScanStatus::kComplete);
}

}  // namespace selfscan
