// Converts a ScanEvent into the plain JavaScript object the TypeScript
// binding expects. Main (JavaScript) thread only.
#pragma once

#include <napi.h>

#include "../core/scan_event.h"

namespace selfscan {

Napi::Object ScanEventToJs(Napi::Env env, const ScanEvent& event);

}  // namespace selfscan
