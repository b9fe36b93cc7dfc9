// The addon's entry: one engine per Node environment, created on first use,
// and one thread-safe function that carries every scan's events from the
// engine thread to the callbacks registered here. Only this file and its
// neighbours in native/addon include napi.h. Main (JavaScript) thread,
// except TsfnSink::TryDeliver, which the engine thread calls.
#include <napi.h>

#include <memory>
#include <stdexcept>
#include <unordered_map>

#include "../core/engine.h"
#include "descriptor_dup.h"
#include "scan_args.h"
#include "scan_event_js.h"

namespace selfscan {

namespace {

// Events waiting for the JavaScript thread, across all scans. When full,
// the engine keeps events in its own small per-scan outbox and stops
// launching probes for that scan.
constexpr size_t kQueueSize = 64;

class Addon;
void CallJs(Napi::Env env, Napi::Function, Addon* addon, ScanEvent* event);
using Tsfn = Napi::TypedThreadSafeFunction<Addon, ScanEvent, CallJs>;

class TsfnSink : public EventSink {
 public:
  explicit TsfnSink(Tsfn tsfn) : tsfn_(tsfn) {}
  ~TsfnSink() override { tsfn_.Release(); }
  bool TryDeliver(std::unique_ptr<ScanEvent>& event) override {
    if (tsfn_.NonBlockingCall(event.get()) != napi_ok) return false;
    event.release();  // CallJs owns it now
    return true;
  }

 private:
  Tsfn tsfn_;
};

class Addon : public Napi::Addon<Addon> {
 public:
  Addon(Napi::Env env, Napi::Object exports) {
    DefineAddon(exports,
                {
                    InstanceMethod("configure", &Addon::Configure),
                    InstanceMethod("startScan", &Addon::StartScan),
                    InstanceMethod("cancelScan", &Addon::CancelScan),
                    InstanceMethod("stats", &Addon::GetStats),
                    InstanceMethod("duplicateDescriptor", &Addon::Duplicate),
                    InstanceValue("scanDefaults", ScanDefaultsToJs(env), napi_enumerable),
                    InstanceValue("requestBounds", RequestBoundsToJs(env), napi_enumerable),
                    InstanceValue("engineDefaults", EngineDefaultsToJs(env), napi_enumerable),
                    InstanceValue("pollers", PollersToJs(env), napi_enumerable),
                });
  }

  void Dispatch(Napi::Env env, std::unique_ptr<ScanEvent> event) {
    auto found = callbacks_.find(event->scan_id);
    if (found == callbacks_.end()) return;
    Napi::FunctionReference callback = std::move(found->second);
    bool last = event->kind == ScanEvent::Kind::kEnd;
    if (last) {
      callbacks_.erase(found);
      // An idle scanner must not keep the process alive.
      if (callbacks_.empty()) tsfn_.Unref(env);
    }
    Napi::Object payload = ScanEventToJs(env, *event);
    try {
      callback.Call({payload});
    } catch (const Napi::Error& error) {
      error.ThrowAsJavaScriptException();
    }
    if (!last) callbacks_[event->scan_id] = std::move(callback);
  }

 private:
  Engine& EnsureEngine(Napi::Env env, const Napi::Value& options) {
    if (engine_) return *engine_;
    EngineOptions parsed = ParseEngineOptions(options);
    tsfn_ = Tsfn::New(env, "selfscan:events", kQueueSize, 1, this);
    tsfn_.Unref(env);
    try {
      engine_ = std::make_unique<Engine>(parsed, std::make_unique<TsfnSink>(tsfn_));
    } catch (const std::system_error& error) {
      tsfn_.Release();
      Napi::Error failure = Napi::Error::New(env, error.what());
      failure.Set("errno", Napi::Number::New(env, error.code().value()));
      throw failure;
    } catch (const std::invalid_argument& error) {
      tsfn_.Release();
      throw Napi::TypeError::New(env, error.what());
    } catch (const std::runtime_error& error) {  // the syn engine without CAP_NET_RAW
      tsfn_.Release();
      throw Napi::Error::New(env, error.what());
    }
    // Registered after the thread-safe function, so it runs before Node
    // tears that function down (cleanup hooks run last-in, first-out).
    env.AddCleanupHook([this] { engine_.reset(); });
    return *engine_;
  }

  Napi::Value Configure(const Napi::CallbackInfo& info) {
    return StatsObject(info.Env(), EnsureEngine(info.Env(), info[0]));
  }

  Napi::Value StartScan(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    if (!info[0].IsObject()) throw Napi::TypeError::New(env, "scan request must be an object");
    if (!info[1].IsFunction()) throw Napi::TypeError::New(env, "onEvent must be a function");
    ScanSpec spec = ParseScanSpec(info[0].As<Napi::Object>());
    Engine& engine = EnsureEngine(env, env.Undefined());
    if (callbacks_.empty()) tsfn_.Ref(env);
    uint64_t id = engine.Submit(std::move(spec));
    callbacks_[id] = Napi::Persistent(info[1].As<Napi::Function>());
    return Napi::Number::New(env, static_cast<double>(id));
  }

  Napi::Value CancelScan(const Napi::CallbackInfo& info) {
    if (!info[0].IsNumber()) throw Napi::TypeError::New(info.Env(), "scan id must be a number");
    if (engine_) engine_->Cancel(static_cast<uint64_t>(info[0].As<Napi::Number>().Int64Value()));
    return info.Env().Undefined();
  }

  Napi::Value Duplicate(const Napi::CallbackInfo& info) { return DuplicateDescriptor(info); }

  Napi::Value GetStats(const Napi::CallbackInfo& info) {
    if (!engine_) return info.Env().Null();
    return StatsObject(info.Env(), *engine_);
  }

  static Napi::Object StatsObject(Napi::Env env, const Engine& engine) {
    EngineStats stats = engine.Stats();
    Napi::Object out = Napi::Object::New(env);
    out.Set("poller", PollerName(stats.poller));
    out.Set("engine", EngineName(stats.engine));
    if (!stats.engine_fallback.empty()) out.Set("engineFallback", stats.engine_fallback);
    out.Set("fdLimit", stats.fd_limit);
    out.Set("budget", stats.budget);
    out.Set("inFlight", stats.in_flight);
    out.Set("scans", stats.scans);
    out.Set("localRetries", static_cast<double>(stats.local_retries));
    out.Set("canaries", static_cast<double>(stats.canaries));
    out.Set("canariesLost", static_cast<double>(stats.canaries_lost));
    out.Set("canariesLostToPath", static_cast<double>(stats.canaries_lost_to_path));
    out.Set("silencesContradicted", static_cast<double>(stats.silences_contradicted));
    out.Set("answersIgnored", static_cast<double>(stats.answers_ignored));
    out.Set("synsSentToDevice", static_cast<double>(stats.syns_sent_to_device));
    out.Set("synsSentThroughIp", static_cast<double>(stats.syns_sent_through_ip));
    return out;
  }

  Tsfn tsfn_;
  std::unique_ptr<Engine> engine_;
  std::unordered_map<uint64_t, Napi::FunctionReference> callbacks_;
};

void CallJs(Napi::Env env, Napi::Function, Addon* addon, ScanEvent* event) {
  std::unique_ptr<ScanEvent> owned(event);
  if (env == nullptr || owned == nullptr) return;  // torn down: drop it
  addon->Dispatch(env, std::move(owned));
}

}  // namespace

}  // namespace selfscan

using selfscan::Addon;
NODE_API_ADDON(Addon)
