#include "engine.h"

#include <errno.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <stdexcept>
#include <system_error>

#include "clock.h"
#include "engine_internal.h"
#include "fd_budget.h"

namespace selfscan {

using namespace engine_internal;

namespace {

std::string TargetKey(const ScanSpec& spec) {
  const sockaddr_storage& a = spec.target;
  if (a.ss_family == AF_INET) {
    const auto* in = reinterpret_cast<const sockaddr_in*>(&a);
    return std::string("4") + std::string(reinterpret_cast<const char*>(&in->sin_addr), 4);
  }
  const auto* in6 = reinterpret_cast<const sockaddr_in6*>(&a);
  return std::string("6") + std::string(reinterpret_cast<const char*>(&in6->sin6_addr), 16);
}

}  // namespace

Engine::Engine(EngineOptions options, std::unique_ptr<EventSink> sink)
    : options_(options), sink_(std::move(sink)) {
  FdBudget fds = ComputeFdBudget(options_.max_in_flight);
  fd_limit_ = fds.limit;
  budget_ = fds.budget;
  fd_ceiling_ = budget_;
  probes_.resize(budget_);
  free_slots_.reserve(budget_);
  for (int i = budget_ - 1; i >= 0; --i) free_slots_.push_back(static_cast<uint32_t>(i));

  poller_ = MakePoller(options_.poller);
  if (options_.engine != EngineKind::kConnect) {
    syn_ = OpenSynTransport(&syn_fallback_);
    if (syn_ == nullptr && options_.engine == EngineKind::kSyn) {
      throw std::runtime_error("the syn engine needs CAP_NET_RAW (raw and packet sockets): " +
                               syn_fallback_);
    }
    if (syn_ != nullptr &&
        !poller_->Add(syn_->receive_fd(), kSynAnswersToken, Interest::kReadable)) {
      throw std::system_error(errno, std::generic_category(), "watch the packet socket");
    }
  }
  int threads = options_.connect_threads;
  if (threads < 0) threads = std::max(0, static_cast<int>(std::thread::hardware_concurrency()) - 1);
  if (threads > 0) workers_ = std::make_unique<ConnectWorkers>(threads, *poller_);
  thread_ = std::thread([this] { Run(); });
}

Engine::~Engine() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    commands_.push_back(Command{Command::Kind::kStop, 0, nullptr});
  }
  Wake();
  if (thread_.joinable()) thread_.join();
  workers_.reset();  // joins them; closes sockets they opened that nobody took
  for (Probe& probe : probes_) {
    if (probe.fd >= 0) close(probe.fd);
  }
}

uint64_t Engine::Submit(ScanSpec spec) {
  uint64_t id = next_id_.fetch_add(1);
  auto job = std::make_unique<ScanJob>(id, std::move(spec), NowUs());
  {
    std::lock_guard<std::mutex> lock(mutex_);
    commands_.push_back(Command{Command::Kind::kSubmit, id, std::move(job)});
  }
  Wake();
  return id;
}

void Engine::Cancel(uint64_t id) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    commands_.push_back(Command{Command::Kind::kCancel, id, nullptr});
  }
  Wake();
}

EngineStats Engine::Stats() const {
  return EngineStats{poller_->kind(),
                     syn_ != nullptr ? EngineKind::kSyn : EngineKind::kConnect,
                     syn_fallback_,
                     fd_limit_,
                     budget_,
                     stat_in_flight_.load(),
                     stat_scans_.load(),
                     stat_local_retries_.load(),
                     stat_canaries_.load(),
                     stat_canaries_lost_.load(),
                     stat_canaries_lost_to_path_.load(),
                     stat_silences_contradicted_.load(),
                     stat_answers_ignored_.load(),
                     stat_syns_sent_to_device_.load(),
                     stat_syns_sent_through_ip_.load()};
}

void Engine::Wake() { poller_->Wake(); }

void Engine::Run() {
  while (DrainCommands()) {
    int64_t now = NowUs();
    EnforceBudgets(now);
    PrepareTargets(now);
    bool more = FillSlots();
    if (syn_) SendQueuedSyns();
    if (workers_) workers_->Submit(to_workers_);
    FlushJobs();
    int64_t wait = WaitTimeoutUs(NowUs(), more);
    if (wait > 0 && wait < kNapUs) {
      SleepUs(kNapUs);
      wait = 0;
    }
    poller_->Wait(ready_, wait);
    for (const Readiness& ready : ready_) HandleEvent(ready);
    CollectLaunches();
    ExpireTimers(NowUs());
  }
}

bool Engine::DrainCommands() {
  std::vector<Command> commands;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    commands.swap(commands_);
  }
  for (Command& command : commands) {
    switch (command.kind) {
      case Command::Kind::kStop:
        return false;
      case Command::Kind::kSubmit:
        Attach(std::move(command.job));
        break;
      case Command::Kind::kCancel:
        for (auto& job : jobs_) {
          if (job->id() == command.id) EndJob(*job, ScanStatus::kCancelled);
        }
        break;
    }
  }
  return true;
}

void Engine::Attach(std::unique_ptr<ScanJob> job) {
  std::string key = TargetKey(job->spec());
  auto found = targets_.find(key);
  if (found == targets_.end()) {
    // The scan's learned timing seeds only a new state: while another scan
    // of this target runs here, what the engine is learning live wins.
    auto state = std::make_unique<TargetState>(options_.initial_rate, job->spec().timing);
    found = targets_.emplace(key, std::move(state)).first;
  }
  found->second->scans++;
  job->target = found->second.get();
  stat_scans_.fetch_add(1, std::memory_order_relaxed);
  jobs_.push_back(std::move(job));
  if (jobs_.back()->spec().ports.empty()) EndJob(*jobs_.back(), ScanStatus::kComplete);
}

void Engine::Detach(size_t position) {
  ScanJob& job = *jobs_[position];
  std::string key = TargetKey(job.spec());
  if (--job.target->scans == 0) targets_.erase(key);
  jobs_.erase(jobs_.begin() + static_cast<std::ptrdiff_t>(position));
}

void Engine::PrepareTargets(int64_t now) {
  for (auto& entry : targets_) entry.second->sweeping = false;
  for (auto& job : jobs_) {
    if (!job->ended() && job->sweeping()) job->target->sweeping = true;
  }
  for (auto& entry : targets_) entry.second->Prepare(now);
}

void Engine::EndJob(ScanJob& job, ScanStatus status, int error_number, const char* syscall) {
  if (job.ended()) return;
  for (Probe& probe : probes_) {
    // A launching probe is closed when its worker hands it back.
    if (probe.phase == Phase::kFree || probe.phase == Phase::kLaunching || probe.job != &job) {
      continue;
    }
    if (probe.phase >= Phase::kAwaitBanner && status == ScanStatus::kIncomplete) {
      // Found open, banner not read yet: still a finding.
      job.Resolve(probe.index, PortState::kOpen, nullptr);
    }
    Abandon(probe);
  }
  job.Finish(status, NowUs(), job.target->Learned(), error_number, syscall);
  // Counted down before the end event leaves, so a caller that saw the end
  // never sees the scan as still running.
  stat_scans_.fetch_sub(1, std::memory_order_relaxed);
}

void Engine::EnforceBudgets(int64_t now) {
  for (auto& job : jobs_) {
    if (!job->ended() && now >= job->deadline_us()) EndJob(*job, ScanStatus::kIncomplete);
  }
}

int64_t Engine::EtaUs(const ScanJob& job) const {
  const TargetState& target = *job.target;
  if (!target.rtt.HasSamples()) return -1;
  int silences = SilencesNeeded(job);
  int64_t timeout = target.rtt.TimeoutUs(job.spec().timeouts);
  return target.SendingUs(job.ProbesOwed(silences)) + silences * timeout;
}

void Engine::FlushJobs() {
  for (size_t i = 0; i < jobs_.size();) {
    if (jobs_[i]->NeedsEta()) jobs_[i]->StampEta(jobs_[i]->ended() ? 0 : EtaUs(*jobs_[i]));
    if (jobs_[i]->Flush(*sink_)) {
      Detach(i);
    } else {
      ++i;
    }
  }
}

int64_t Engine::WaitTimeoutUs(int64_t now, bool more_to_launch) const {
  if (more_to_launch) return 0;
  int64_t wake = INT64_MAX;
  if (!timers_.empty()) wake = timers_.top().deadline_us;
  bool waiting_work = false;
  for (const auto& job : jobs_) {
    if (job->HasUndelivered()) wake = std::min(wake, now + 1000);  // sink was full
    if (!job->ended()) wake = std::min(wake, job->deadline_us());
    const TargetState& target = *job->target;
    if (!job->CanLaunch(target.CanJudgeSilence())) continue;
    waiting_work = true;
    // The pace's next token only where FillSlots would spend it on a probe:
    // at the limits less the canaries' slot it launches none, and waking for
    // each token there spun the loop for a whole scan of a dropping host.
    // A canary it may still launch is sent on the wake of a probe's timer.
    if (in_flight_ < KeepOneForCanaries(SlotLimit()) &&
        target.connecting < KeepOneForCanaries(options_.per_target_in_flight)) {
      wake = std::min(wake, target.pacer.NextTokenUs(now, target.ceiling()));
    }
  }
  if (waiting_work && backoff_until_us_ > now) wake = std::min(wake, backoff_until_us_);
  if (wake == INT64_MAX) return -1;
  return std::clamp<int64_t>(wake - now, 0, 60000000);
}

void Engine::ArmTimer(Probe& probe, int64_t deadline_us) {
  timers_.push(Timer{deadline_us, SlotOf(probe), probe.gen});
}

bool Engine::Watch(Probe& probe, Interest interest) {
  uint64_t token = Token(SlotOf(probe), probe.gen);
  bool ok = probe.watched ? poller_->Change(probe.fd, token, interest)
                          : poller_->Add(probe.fd, token, interest);
  probe.watched = probe.watched || ok;
  return ok;
}

void Engine::LeaveConnecting(Probe& probe) {
  if (probe.phase != Phase::kConnecting && probe.phase != Phase::kLaunching) return;
  probe.job->target->connecting--;
  probe.phase = Phase::kAnswered;
}

void Engine::CloseProbe(Probe& probe) {
  if (probe.awaiting_canaries) {
    probe.job->target->awaiting_canaries--;
    probe.awaiting_canaries = false;
  }
  if (probe.half_open) {
    syn_->Forget(probe.syn_handle, Token(SlotOf(probe), probe.gen));
    probe.half_open = false;
  }
  probe.confirming = false;
  probe.window_closed = false;
  if (probe.fd >= 0) {
    if (probe.watched) poller_->Remove(probe.fd);
    close(probe.fd);
  }
  probe.fd = -1;
  probe.watched = false;
  probe.job->in_flight--;
  probe.job = nullptr;
  probe.phase = Phase::kFree;
  probe.gen++;
  stat_in_flight_.store(--in_flight_, std::memory_order_relaxed);
  free_slots_.push_back(SlotOf(probe));
}

}  // namespace selfscan
