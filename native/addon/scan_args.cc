#include "scan_args.h"

#include <netinet/in.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>

namespace selfscan {

namespace {

[[noreturn]] void Fail(Napi::Env env, const std::string& message) {
  throw Napi::TypeError::New(env, message);
}

// The numeric request fields' ranges, declared once: the parsing below
// enforces them and RequestBoundsToJs exports them, so the TypeScript checks
// (src/native/scan-request.ts) read these rather than copies.
struct Bounds {
  const char* parent;  // the object it is nested in, or ""
  const char* name;    // the field as the addon's request names it
  double min;
  double max;
};
constexpr double kDayMs = 86400000;
constexpr Bounds kChunkSize{"", "chunkSize", 1, 65535};
constexpr Bounds kBudgetMs{"", "budgetMs", 0, kDayMs};
constexpr Bounds kInitialTimeoutMs{"", "initialTimeoutMs", 1, 60000};
constexpr Bounds kMinTimeoutMs{"", "minTimeoutMs", 1, 60000};
constexpr Bounds kMaxTimeoutMs{"", "maxTimeoutMs", 1, 60000};
constexpr Bounds kBannerTimeoutMs{"", "bannerTimeoutMs", 1, 60000};
// A learned timing's fields.
constexpr Bounds kTimingRate{"timing", "rate", 0, 1 << 24};       // as EngineOptions' initialRate
constexpr Bounds kTimingSrttUs{"timing", "srttUs", 0, 60000000};  // as the timeouts' bounds
constexpr Bounds kTimingRttvarUs{"timing", "rttvarUs", 0, 60000000};
// 2^53 - 1: exact in JavaScript.
constexpr Bounds kTimingSamples{"timing", "samples", 0, 9007199254740991};
constexpr Bounds kRequestBounds[] = {
    kChunkSize,       kBudgetMs,   kInitialTimeoutMs, kMinTimeoutMs,   kMaxTimeoutMs,
    kBannerTimeoutMs, kTimingRate, kTimingSrttUs,     kTimingRttvarUs, kTimingSamples};

// An optional integer field in [min, max]; `fallback` when absent.
int64_t IntegerField(const Napi::Object& object, const char* name, int64_t min, int64_t max,
                     int64_t fallback) {
  Napi::Value value = object.Get(name);
  if (value.IsUndefined()) return fallback;
  if (!value.IsNumber()) Fail(object.Env(), std::string(name) + " must be a number");
  double number = value.As<Napi::Number>().DoubleValue();
  if (!std::isfinite(number) || std::floor(number) != number || number < min || number > max) {
    Fail(object.Env(), std::string(name) + " must be an integer from " + std::to_string(min) +
                           " to " + std::to_string(max));
  }
  return static_cast<int64_t>(number);
}

// A required number field of a nested object (`path` names it in errors),
// finite, in [min, max], and whole if `integer`.
double NumberField(const Napi::Object& object, const std::string& path, const char* name,
                   double min, double max, bool integer) {
  Napi::Value value = object.Get(name);
  double number = value.IsNumber() ? value.As<Napi::Number>().DoubleValue() : NAN;
  if (!std::isfinite(number) || number < min || number > max ||
      (integer && std::floor(number) != number)) {
    char rule[96];
    std::snprintf(rule, sizeof rule, " must be %s from %.17g to %.17g",
                  integer ? "an integer" : "a number", min, max);
    Fail(object.Env(), path + "." + name + rule);
  }
  return number;
}

// An optional field in milliseconds, kept in microseconds; `us` stays as it
// is when the field is absent.
void MillisecondsField(const Napi::Object& object, const Bounds& bounds, int64_t& us) {
  us = IntegerField(object, bounds.name, static_cast<int64_t>(bounds.min),
                    static_cast<int64_t>(bounds.max), us / 1000) *
       1000;
}

// A required number of a nested object, within `bounds`.
double NestedField(const Napi::Object& object, const Bounds& bounds, bool integer) {
  return NumberField(object, bounds.parent, bounds.name, bounds.min, bounds.max, integer);
}

bool BoolField(const Napi::Object& object, const char* name, bool fallback) {
  Napi::Value value = object.Get(name);
  if (value.IsUndefined()) return fallback;
  if (!value.IsBoolean()) Fail(object.Env(), std::string(name) + " must be a boolean");
  return value.As<Napi::Boolean>().Value();
}

void ParseTarget(const Napi::Object& request, ScanSpec& spec) {
  Napi::Env env = request.Env();
  Napi::Value address = request.Get("address");
  if (!address.IsTypedArray() ||
      address.As<Napi::TypedArray>().TypedArrayType() != napi_uint8_array) {
    Fail(env, "address must be a Uint8Array of 4 or 16 bytes");
  }
  auto bytes = address.As<Napi::Uint8Array>();
  if (bytes.ElementLength() == 4) {
    auto* in = reinterpret_cast<sockaddr_in*>(&spec.target);
    in->sin_family = AF_INET;
    std::memcpy(&in->sin_addr, bytes.Data(), 4);
    spec.target_len = sizeof(sockaddr_in);
  } else if (bytes.ElementLength() == 16) {
    auto* in6 = reinterpret_cast<sockaddr_in6*>(&spec.target);
    in6->sin6_family = AF_INET6;
    std::memcpy(&in6->sin6_addr, bytes.Data(), 16);
    spec.target_len = sizeof(sockaddr_in6);
  } else {
    Fail(env, "address must be a Uint8Array of 4 or 16 bytes");
  }
}

void ParsePorts(const Napi::Object& request, ScanSpec& spec) {
  Napi::Env env = request.Env();
  Napi::Value value = request.Get("ports");
  if (!value.IsTypedArray() || value.As<Napi::TypedArray>().TypedArrayType() != napi_uint16_array) {
    Fail(env, "ports must be a Uint16Array");
  }
  auto ports = value.As<Napi::Uint16Array>();
  spec.ports.assign(ports.Data(), ports.Data() + ports.ElementLength());
  std::vector<bool> seen(65536, false);
  for (uint16_t port : spec.ports) {
    if (port == 0) Fail(env, "ports must be from 1 to 65535");
    if (seen[port]) Fail(env, "ports must not repeat (" + std::to_string(port) + ")");
    seen[port] = true;
  }
}

// What an earlier scan learned of the target (its summary's `timing`), all
// four fields required when the object is there.
void ParseTiming(const Napi::Object& request, ScanSpec& spec) {
  Napi::Value value = request.Get("timing");
  if (value.IsUndefined()) return;
  if (!value.IsObject() || value.IsArray()) Fail(request.Env(), "timing must be an object");
  Napi::Object timing = value.As<Napi::Object>();
  spec.timing.rate = NestedField(timing, kTimingRate, false);
  spec.timing.srtt_us = std::llround(NestedField(timing, kTimingSrttUs, false));
  spec.timing.rttvar_us = std::llround(NestedField(timing, kTimingRttvarUs, false));
  spec.timing.samples = static_cast<uint64_t>(NestedField(timing, kTimingSamples, true));
}

}  // namespace

ScanSpec ParseScanSpec(const Napi::Object& request) {
  ScanSpec spec;  // what a field left out becomes
  ParseTarget(request, spec);
  ParsePorts(request, spec);
  spec.chunk_size = static_cast<uint32_t>(
      IntegerField(request, kChunkSize.name, kChunkSize.min, kChunkSize.max, spec.chunk_size));
  MillisecondsField(request, kBudgetMs, spec.budget_us);
  MillisecondsField(request, kMinTimeoutMs, spec.timeouts.min_us);
  MillisecondsField(request, kMaxTimeoutMs, spec.timeouts.max_us);
  MillisecondsField(request, kInitialTimeoutMs, spec.timeouts.initial_us);
  if (spec.timeouts.min_us > spec.timeouts.max_us) {
    Fail(request.Env(), "minTimeoutMs must not exceed maxTimeoutMs");
  }
  spec.banners = BoolField(request, "banners", spec.banners);
  MillisecondsField(request, kBannerTimeoutMs, spec.banner_timeout_us);
  ParseTiming(request, spec);
  return spec;
}

Napi::Object ScanDefaultsToJs(Napi::Env env) {
  const ScanSpec spec;
  Napi::Object out = Napi::Object::New(env);
  out.Set("chunkSize", spec.chunk_size);
  out.Set("initialTimeoutMs", static_cast<double>(spec.timeouts.initial_us / 1000));
  out.Set("minTimeoutMs", static_cast<double>(spec.timeouts.min_us / 1000));
  out.Set("maxTimeoutMs", static_cast<double>(spec.timeouts.max_us / 1000));
  out.Set("banners", spec.banners);
  out.Set("bannerTimeoutMs", static_cast<double>(spec.banner_timeout_us / 1000));
  out.Freeze();
  return out;
}

Napi::Object EngineDefaultsToJs(Napi::Env env) {
  const EngineOptions options;
  Napi::Object out = Napi::Object::New(env);
  out.Set("maxInFlight", options.max_in_flight);
  out.Set("perTargetInFlight", options.per_target_in_flight);
  out.Set("initialRate", options.initial_rate);
  out.Set("connectThreads", options.connect_threads);
  out.Set("poller", PollerName(options.poller));
  out.Set("engine", EngineName(options.engine));
  out.Freeze();
  return out;
}

Napi::Object RequestBoundsToJs(Napi::Env env) {
  Napi::Object out = Napi::Object::New(env);
  for (const Bounds& bounds : kRequestBounds) {
    Napi::Object range = Napi::Object::New(env);
    range.Set("min", bounds.min);
    range.Set("max", bounds.max);
    range.Freeze();
    std::string parent = bounds.parent;
    out.Set(parent.empty() ? bounds.name : parent + "." + bounds.name, range);
  }
  out.Freeze();
  return out;
}

Napi::Array PollersToJs(Napi::Env env) {
  const std::vector<PollerKind>& kinds = AvailablePollers();
  Napi::Array names = Napi::Array::New(env, kinds.size());
  for (size_t i = 0; i < kinds.size(); ++i) {
    names.Set(static_cast<uint32_t>(i), Napi::String::New(env, PollerName(kinds[i])));
  }
  names.Freeze();
  return names;
}

namespace {

// `poller`: auto or one of the backends this build has.
PollerKind PollerField(const Napi::Object& object) {
  Napi::Value value = object.Get("poller");
  if (value.IsUndefined()) return PollerKind::kAuto;
  PollerKind kind;
  if (!value.IsString() || !ParsePollerKind(value.As<Napi::String>().Utf8Value(), &kind)) {
    Fail(object.Env(), "poller must be one of auto, epoll, kqueue, poll");
  }
  const std::vector<PollerKind>& kinds = AvailablePollers();
  if (kind != PollerKind::kAuto && std::find(kinds.begin(), kinds.end(), kind) == kinds.end()) {
    std::string have;
    for (PollerKind k : kinds) have += std::string(have.empty() ? "" : ", ") + PollerName(k);
    Fail(object.Env(), std::string("poller ") + PollerName(kind) +
                           " is not available in this build (it has " + have + ")");
  }
  return kind;
}

// `engine`: auto, syn or connect.
EngineKind EngineField(const Napi::Object& object) {
  Napi::Value value = object.Get("engine");
  if (value.IsUndefined()) return EngineKind::kAuto;
  EngineKind kind;
  if (!value.IsString() || !ParseEngineKind(value.As<Napi::String>().Utf8Value(), &kind)) {
    Fail(object.Env(), "engine must be one of auto, syn, connect");
  }
  return kind;
}

}  // namespace

EngineOptions ParseEngineOptions(const Napi::Value& value) {
  EngineOptions options;
  if (value.IsUndefined()) return options;
  if (!value.IsObject()) Fail(value.Env(), "engine options must be an object");
  Napi::Object object = value.As<Napi::Object>();
  options.max_in_flight = static_cast<int>(IntegerField(object, "maxInFlight", 0, 1 << 20, 0));
  options.per_target_in_flight = static_cast<int>(
      IntegerField(object, "perTargetInFlight", 1, 1 << 20, options.per_target_in_flight));
  options.initial_rate =
      static_cast<int>(IntegerField(object, "initialRate", 1, 1 << 24, options.initial_rate));
  options.connect_threads =
      static_cast<int>(IntegerField(object, "connectThreads", -1, 64, options.connect_threads));
  options.poller = PollerField(object);
  options.engine = EngineField(object);
  return options;
}

}  // namespace selfscan
