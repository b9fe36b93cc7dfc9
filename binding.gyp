{
  "targets": [
    {
      "target_name": "selfscan",
      "variables": {
        # Tests only: the kqueue backend on Linux, over the translation in
        # test/native/kqueue-on-epoll (scripts/build-kqueue-translation.mjs).
        "kqueue_on_epoll%": 0
      },
      "sources": [
        "native/addon/addon.cc",
        "native/addon/descriptor_dup.cc",
        "native/addon/scan_args.cc",
        "native/addon/scan_event_js.cc",
        "native/core/banner.cc",
        "native/core/canary_ledger.cc",
        "native/core/clean_stretch.cc",
        "native/core/connect_outcome.cc",
        "native/core/connect_workers.cc",
        "native/core/engine.cc",
        "native/core/engine_banner.cc",
        "native/core/engine_launch.cc",
        "native/core/engine_verdicts.cc",
        "native/core/fd_budget.cc",
        "native/core/filtered_rule.cc",
        "native/core/loss_history.cc",
        "native/core/packet_codec.cc",
        "native/core/pacer.cc",
        "native/core/path_loss.cc",
        "native/core/poller.cc",
        "native/core/poller_poll.cc",
        "native/core/rtt_estimator.cc",
        "native/core/scan_job.cc",
        "native/core/siphash.cc",
        "native/core/target_state.cc",
        "native/core/wake_pipe.cc"
      ],
      "dependencies": [
        "<!(node -p \"require('node-addon-api').targets\"):node_addon_api_except"
      ],
      "defines": ["NAPI_VERSION=8"],
      "cflags_cc": ["-std=c++17", "-O2", "-Wall", "-Wextra", "-Wno-missing-field-initializers"],
      "cflags_cc!": ["-std=gnu++17"],
      "conditions": [
        ["OS=='linux'", {
          "sources": [
            "native/core/link_hop_linux.cc",
            "native/core/poller_epoll.cc",
            "native/core/send_thread_linux.cc",
            "native/core/syn_transport_linux.cc",
            "native/compat/glibc_floor.cc"
          ],
          "defines": ["SELFSCAN_HAVE_EPOLL"],
          "cflags_cc": ["-include", "<(module_root_dir)/native/compat/glibc_floor.h"],
          "ldflags": [
            "-static-libstdc++",
            "-Wl,--exclude-libs,ALL",
            "-Wl,--wrap=pthread_create,--wrap=pthread_join,--wrap=pthread_detach,--wrap=pthread_once",
            "-Wl,--wrap=pthread_key_create,--wrap=__pthread_key_create,--wrap=pthread_key_delete",
            "-Wl,--wrap=pthread_getspecific,--wrap=pthread_setspecific",
            "-Wl,--wrap=__libc_single_threaded,--wrap=getentropy,--wrap=arc4random"
          ]
        }],
        ["OS=='mac'", {
          "sources": ["native/core/poller_kqueue.cc", "native/core/syn_transport_none.cc"],
          "defines": ["SELFSCAN_HAVE_KQUEUE"],
          "xcode_settings": {
            "MACOSX_DEPLOYMENT_TARGET": "11.0",
            "CLANG_CXX_LANGUAGE_STANDARD": "c++17",
            "GCC_ENABLE_CPP_EXCEPTIONS": "YES",
            "OTHER_CPLUSPLUSFLAGS": ["-O2", "-Wall", "-Wextra", "-Wno-missing-field-initializers"]
          }
        }],
        ["OS=='freebsd' or OS=='openbsd' or OS=='netbsd'", {
          "sources": ["native/core/poller_kqueue.cc", "native/core/syn_transport_none.cc"],
          "defines": ["SELFSCAN_HAVE_KQUEUE"]
        }],
        ["kqueue_on_epoll==1", {
          "sources": [
            "native/core/poller_kqueue.cc",
            "test/native/kqueue-on-epoll/kqueue_on_epoll.cc"
          ],
          "include_dirs": ["test/native/kqueue-on-epoll"],
          "defines": ["SELFSCAN_HAVE_KQUEUE"]
        }]
      ]
    }
  ]
}
