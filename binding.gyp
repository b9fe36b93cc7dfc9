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
      "cflags_cc!": ["-std=gnu++17"],
      "conditions": [
        ["OS=='linux'", {
          "sources": ["native/compat/glibc_floor.cc"],
          "cflags_cc": ["-include", "<(module_root_dir)/native/compat/glibc_floor.h"],
          "ldflags": [
            "-static-libstdc++",
            "-Wl,--exclude-libs,ALL",
            "-Wl,--wrap=pthread_create,--wrap=pthread_join,--wrap=pthread_detach,--wrap=pthread_once",
            "-Wl,--wrap=pthread_key_create,--wrap=__pthread_key_create,--wrap=pthread_key_delete",
            "-Wl,--wrap=pthread_getspecific,--wrap=pthread_setspecific",
            "-Wl,--wrap=__libc_single_threaded,--wrap=getentropy,--wrap=arc4random"
          ]
        }]
      ]
    }
  ]
}
