// A second descriptor for an open socket, for the HTTP front's accept lanes
// (src/http/node-accept-lanes.ts). Main (JavaScript) thread.
#ifndef SELFSCAN_ADDON_DESCRIPTOR_DUP_H_
#define SELFSCAN_ADDON_DESCRIPTOR_DUP_H_

#include <napi.h>

namespace selfscan {

// duplicateDescriptor(fd): a new close-on-exec descriptor for the same open
// socket; throws with the errno on failure.
Napi::Value DuplicateDescriptor(const Napi::CallbackInfo& info);

}  // namespace selfscan

#endif  // SELFSCAN_ADDON_DESCRIPTOR_DUP_H_
