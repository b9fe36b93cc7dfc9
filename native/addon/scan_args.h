// Turns the JavaScript scan request into a ScanSpec, throwing TypeError for
// anything malformed, so that nothing unchecked reaches the engine thread.
// Main (JavaScript) thread only.
#pragma once

#include <napi.h>

#include "../core/engine.h"
#include "../core/scan_spec.h"

namespace selfscan {

ScanSpec ParseScanSpec(const Napi::Object& request);
EngineOptions ParseEngineOptions(const Napi::Value& value);

}  // namespace selfscan
