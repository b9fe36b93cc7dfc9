{
  "targets": [
    {
      "target_name": "selfscan",
      "sources": [
        "native/addon/addon.cc",
        "native/addon/scan_args.cc",
        "native/addon/scan_event_js.cc",
        "native/core/banner.cc",
        "native/core/canary_ledger.cc",
        "native/core/clean_stretch.cc",
        "native/core/connect_outcome.cc",
        "native/core/connect_workers.cc",
        "native/core/engine.cc",
        "native/core/fd_budget.cc",
        "native/core/filtered_rule.cc",
        "native/core/loss_history.cc",
        "native/core/pacer.cc",
        "native/core/path_loss.cc",
        "native/core/rtt_estimator.cc",
        "native/core/scan_job.cc",
        "native/core/target_state.cc"
      ],
      "dependencies": [
        "<!(node -p \"require('node-addon-api').targets\"):node_addon_api_except"
      ],
      "defines": ["NAPI_VERSION=8"],
      "cflags_cc": ["-std=c++17", "-O2", "-Wall", "-Wextra", "-Wno-missing-field-initializers"],
      "cflags_cc!": ["-std=gnu++17"]
    }
  ]
}
