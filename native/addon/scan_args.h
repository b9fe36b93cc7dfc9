// Turns the JavaScript scan request into a ScanSpec, throwing TypeError for
// anything malformed, so that nothing unchecked reaches the engine thread;
// a field left out keeps ScanSpec's default, which JavaScript reads as the
// binding's `scanDefaults`. Main (JavaScript) thread only.
#pragma once

#include <napi.h>

#include "../core/engine.h"
#include "../core/scan_spec.h"

namespace selfscan {

ScanSpec ParseScanSpec(const Napi::Object& request);
// The request fields' defaults (a default ScanSpec's), frozen, in the
// request's names and units.
Napi::Object ScanDefaultsToJs(Napi::Env env);
// The numeric fields' ranges, `{ min, max }` by field (`timing.rate` for a
// nested one), frozen: what ParseScanSpec enforces.
Napi::Object RequestBoundsToJs(Napi::Env env);
EngineOptions ParseEngineOptions(const Napi::Value& value);
// A default EngineOptions' values, frozen, in the options' names (what
// ParseEngineOptions uses for a field left out).
Napi::Object EngineDefaultsToJs(Napi::Env env);
// The readiness backends this build has, the platform's choice first; frozen.
Napi::Array PollersToJs(Napi::Env env);

}  // namespace selfscan
