#include "scan_event_js.h"

namespace selfscan {

namespace {

const char* StatusName(ScanStatus status) {
  switch (status) {
    case ScanStatus::kComplete:
      return "complete";
    case ScanStatus::kIncomplete:
      return "incomplete";
    case ScanStatus::kCancelled:
      return "cancelled";
    case ScanStatus::kFailed:
      return "failed";
  }
  return "failed";
}

Napi::Object ChunkToJs(Napi::Env env, const Chunk& chunk) {
  Napi::Object out = Napi::Object::New(env);
  out.Set("kind", "chunk");
  out.Set("index", chunk.index);
  out.Set("total", chunk.total);
  out.Set("complete", chunk.complete);
  out.Set("closed", chunk.closed);
  Napi::Array open = Napi::Array::New(env, chunk.open.size());
  for (size_t i = 0; i < chunk.open.size(); ++i) {
    Napi::Object port = Napi::Object::New(env);
    port.Set("port", chunk.open[i].port);
    port.Set("banner", chunk.open[i].has_banner
                           ? Napi::Value(Napi::String::New(env, chunk.open[i].banner))
                           : env.Null());
    open.Set(static_cast<uint32_t>(i), port);
  }
  out.Set("open", open);
  Napi::Uint16Array filtered = Napi::Uint16Array::New(env, chunk.filtered.size());
  std::copy(chunk.filtered.begin(), chunk.filtered.end(), filtered.Data());
  out.Set("filtered", filtered);
  out.Set("etaMs", chunk.eta_us < 0 ? env.Null() : Napi::Number::New(env, chunk.eta_us / 1000.0));
  return out;
}

Napi::Object TimingToJs(Napi::Env env, const LearnedTiming& timing) {
  Napi::Object out = Napi::Object::New(env);
  out.Set("rate", timing.rate);
  out.Set("srttUs", static_cast<double>(timing.srtt_us));
  out.Set("rttvarUs", static_cast<double>(timing.rttvar_us));
  out.Set("samples", static_cast<double>(timing.samples));
  return out;
}

Napi::Object EndToJs(Napi::Env env, const ScanEnd& end) {
  Napi::Object out = Napi::Object::New(env);
  out.Set("kind", "end");
  out.Set("status", StatusName(end.status));
  out.Set("durationMs", static_cast<double>(end.duration_us) / 1000.0);
  out.Set("chunksComplete", end.chunks_complete);
  out.Set("totalChunks", end.total_chunks);
  out.Set("timing", TimingToJs(env, end.timing));
  if (end.status == ScanStatus::kFailed) {
    out.Set("errno", end.error_number);
    out.Set("syscall", end.syscall);
  }
  return out;
}

}  // namespace

Napi::Object ScanEventToJs(Napi::Env env, const ScanEvent& event) {
  return event.kind == ScanEvent::Kind::kChunk ? ChunkToJs(env, event.chunk)
                                               : EndToJs(env, event.end);
}

}  // namespace selfscan
