{
  "variables": {
    "sanitize%": 0,
    "prebuild%": 0
  },
  "targets": [
    {
      "target_name": "volbench",
      "sources": [
        "native/addon.cc",
        "native/beneath.cc",
        "native/buffers.cc",
        "native/clock.cc",
        "native/convert.cc",
        "native/crc32c.cc",
        "native/fio_header.cc",
        "native/free_map.cc",
        "native/job.cc",
        "native/md5.cc",
        "native/nvme_log_page.cc",
        "native/offsets.cc",
        "native/page_cache.cc",
        "native/probe.cc",
        "native/root_call.cc",
        "native/runner.cc",
        "native/sampler.cc",
        "native/sleep.cc",
        "native/steady_state.cc",
        "native/stuck_tally.cc",
        "native/target.cc",
        "native/verifier.cc",
        "native/engines/common.cc",
        "native/engines/io_uring.cc",
        "native/engines/libaio.cc",
        "native/engines/registry.cc"
      ],
      "include_dirs": ["<!(node -p \"require('node-addon-api').include_dir\")"],
      "defines": ["NAPI_VERSION=8", "NODE_ADDON_API_DISABLE_DEPRECATED"],
      "cflags!": ["-fno-exceptions"],
      "cflags_cc!": ["-fno-exceptions", "-std=gnu++17"],
      "cflags_cc": ["-std=c++17", "-O2", "-g", "-Wall", "-Wextra", "-Wno-unused-parameter", "-Wno-missing-field-initializers"],
      "cflags": ["-O2"],
      "conditions": [
        ["OS!='linux'", { "sources": [] }],
        ["sanitize==1", {
          "cflags": [
            "-fsanitize=address,undefined,float-cast-overflow", "-fno-sanitize-recover=undefined,float-cast-overflow",
            "-fno-omit-frame-pointer", "-D_GLIBCXX_SANITIZE_VECTOR", "-D_GLIBCXX_ASSERTIONS"
          ],
          "ldflags": ["-fsanitize=address,undefined"]
        }],
        ["prebuild==1", {
          "ldflags": ["-static-libstdc++", "-static-libgcc", "-Wl,--exclude-libs,ALL"]
        }]
      ]
    }
  ]
}
