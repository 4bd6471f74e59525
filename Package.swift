// swift-tools-version:6.0
import PackageDescription

// The layout is the architecture: the pure domain kernel, the adapters that
// implement its ports, and the composition roots in cli/. No package
// dependencies: only the toolchain's modules.
// Release builds look up generic type metadata through direct accessors
// rather than mangled names: a mangled-name look-up checks its protocol
// requirements by scanning every conformance record in the binary (~0.1 ms
// each, a dozen per command). See docs/performance.md, "Start-up".
let startupSettings: [SwiftSetting] = [
    .unsafeFlags(["-Xfrontend", "-disable-concrete-type-metadata-mangled-name-accessors",
                  "-Xfrontend", "-prespecialize-generic-metadata"], .when(configuration: .release)),
]

/// Release builds let the modules that use a context specialise its generic
/// code for their own types: `ReplicatedRecords<JSONValue>`, merged from
/// every change line on each read, ran unspecialised across the module
/// edge (a generic `Dictionary` of `JSONValue`s through witness tables,
/// its metadata instantiated at run time): about a third of a `status` on
/// a shared data folder. See docs/performance.md, "Devices sharing a data
/// folder".
let crossModule: [SwiftSetting] = [
    .unsafeFlags(["-cross-module-optimization"], .when(configuration: .release)),
]

/// The release binary is stripped of its symbol table (84 MB -> 62 MB;
/// docs/performance.md, "Size"), unless RETIME_KEEP_SYMBOLS is set, as
/// bench/order-symbols.sh sets it: its profiler needs the symbols.
let stripping: [String] = Context.environment["RETIME_KEEP_SYMBOLS"] == nil ? ["-Xlinker", "--strip-all"] : []

/// The release link's function order (see the `retime` target).
let hotSymbols = Context.packageDirectory + "/cli/retime/hot-symbols.order"

/// Every context of the domain. The outer rings name them beside the
/// `Domain` umbrella: a module seen only through an `@_exported import` is
/// not tracked by the incremental build, which then kept old code compiled
/// against a context's changed types (a crash, or a link error).
let contexts: [Target.Dependency] = ["RetimeShared", "RetimeDI", "RetimeGroup", "RetimeAuth", "RetimeSync", "RetimeSession",
                                     "RetimeSchedule", "RetimeHistory", "RetimeEnforcement"]

let package = Package(
    name: "retime",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "retime", targets: ["retime"]),
    ],
    targets: [
        // The domain kernel: one target per bounded context, each allowed to
        // use only the contexts it names (docs/architecture.md, "Contexts").
        // Shared is the kernel every context shares (clock, logging, errors,
        // ids, settings); DI is the registry container the roots build on.
        .target(name: "RetimeShared", path: "domain/Shared", swiftSettings: startupSettings),
        .target(name: "RetimeDI", dependencies: ["RetimeShared"], path: "domain/DI", swiftSettings: startupSettings),
        .target(name: "RetimeGroup", dependencies: ["RetimeShared"], path: "domain/Group", swiftSettings: startupSettings),
        .target(name: "RetimeAuth", dependencies: ["RetimeShared"], path: "domain/Auth", swiftSettings: startupSettings),
        .target(name: "RetimeSync", dependencies: ["RetimeShared"], path: "domain/Sync", swiftSettings: startupSettings + crossModule),
        .target(name: "RetimeSession", dependencies: ["RetimeShared", "RetimeGroup", "RetimeSync"], path: "domain/Session",
                swiftSettings: startupSettings),
        .target(name: "RetimeSchedule", dependencies: ["RetimeShared", "RetimeGroup", "RetimeSession"], path: "domain/Schedule",
                swiftSettings: startupSettings),
        .target(name: "RetimeHistory", dependencies: ["RetimeShared", "RetimeGroup", "RetimeSession", "RetimeSchedule", "RetimeSync"],
                path: "domain/History", swiftSettings: startupSettings),
        .target(name: "RetimeEnforcement", dependencies: ["RetimeShared", "RetimeGroup", "RetimeSession"], path: "domain/Enforcement",
                swiftSettings: startupSettings),
        // Every context at once, for the outer rings only (adapters, roots, tests).
        .target(name: "Domain", dependencies: ["RetimeShared", "RetimeDI", "RetimeGroup", "RetimeAuth", "RetimeSession",
                                               "RetimeSchedule", "RetimeHistory", "RetimeEnforcement", "RetimeSync"],
                path: "domain/Umbrella", swiftSettings: startupSettings),
        // JSON documents (a value, its text, its Codable coders): the store's
        // files and the CLI's `--json` output share them; not the domain's.
        .target(name: "JSONDocument", dependencies: ["RetimeShared"], path: "adapters/JSON", swiftSettings: startupSettings),
        .target(name: "Adapters", dependencies: ["Domain", "JSONDocument", "CRetimeLinux", .target(name: "CCrypt", condition: .when(platforms: [.linux])),
                                                 .target(name: "CRetimeBus", condition: .when(platforms: [.linux])),
                                                 .target(name: "CRetimeWayland", condition: .when(platforms: [.linux]))] + contexts,
                path: "adapters", exclude: ["CLinux", "CCrypt", "CBus", "CSystemd", "CWayland", "CWaylandClient", "JSON"],
                swiftSettings: startupSettings),
        // timerfd and inotify, which the Glibc module does not export.
        .target(name: "CRetimeLinux", path: "adapters/CLinux"),
        // libxcrypt (crypt_r, crypt_gensalt) for passcode hashes.
        .systemLibrary(name: "CCrypt", path: "adapters/CCrypt", providers: [.apt(["libcrypt-dev"])]),
        // sd-bus's declarations (libsystemd-dev); the library itself is
        // opened at run time by CRetimeBus, so the static release binary
        // needs no shared library to start (docs/desktop.md, "D-Bus").
        .systemLibrary(name: "CSystemd", path: "adapters/CSystemd", providers: [.apt(["libsystemd-dev"])]),
        // sd-bus for the daemon's D-Bus name and logind's signals: the
        // vtable built from a list, no variadic calls.
        .target(name: "CRetimeBus", dependencies: ["CSystemd"], path: "adapters/CBus"),
        // libwayland-client's declarations (libwayland-dev); the library is
        // opened at run time by CRetimeWayland, as libsystemd is above.
        .systemLibrary(name: "CWaylandClient", path: "adapters/CWaylandClient", providers: [.apt(["libwayland-dev"])]),
        // The compositor's idle notifications (ext-idle-notify-v1, KDE's
        // kwin idle): their interface tables written by hand, no callbacks
        // into Swift (docs/desktop.md, "Away time").
        .target(name: "CRetimeWayland", dependencies: ["CWaylandClient"], path: "adapters/CWayland"),
        .target(name: "RetimeCLI", dependencies: ["Domain", "JSONDocument", "Adapters"] + contexts, path: "cli/RetimeCLI", swiftSettings: startupSettings),
        // Release builds on Linux are one static, position-dependent
        // executable: no dynamic loader resolving libstdc++ and libc (~1.5 ms
        // of every run) and no PIE relocations (75,000, ~1 ms). lld lays the
        // functions that commands and the daemon run side by side, from the
        // list bench/order-symbols.sh writes: fewer page faults to start,
        // fewer resident pages when idle. See docs/performance.md, "Start-up".
        .executableTarget(name: "retime", dependencies: ["RetimeCLI"], path: "cli/retime",
                          exclude: ["hot-symbols.order"], swiftSettings: startupSettings,
                          linkerSettings: [.unsafeFlags(["-static-executable", "-use-ld=lld",
                                                         "-Xlinker", "--symbol-ordering-file=\(hotSymbols)",
                                                         "-Xlinker", "--no-warn-symbol-ordering"] + stripping,
                                                        .when(platforms: [.linux], configuration: .release))]),

        // Reusable contract verifiers: every adapter of a port runs the same checks.
        .target(name: "PortContracts", dependencies: ["Domain", "Adapters"] + contexts, path: "Tests/PortContracts",
                exclude: ["Helpers/wayland_activity.py"]),

        .testTarget(name: "DomainTests", dependencies: ["Domain", "Adapters", "PortContracts"] + contexts, path: "Tests/DomainTests"),
        .testTarget(name: "AdaptersTests", dependencies: ["Domain", "Adapters", "PortContracts", "StoreProbe"] + contexts,
                    path: "Tests/AdaptersTests"),
        // A helper process for the multi-process storage tests.
        .executableTarget(name: "StoreProbe", dependencies: ["Domain", "Adapters"], path: "Tests/Helpers/StoreProbe"),
        .testTarget(name: "RetimeCLITests", dependencies: ["RetimeCLI", "Domain", "Adapters", "PortContracts", "retime"] + contexts, path: "Tests/RetimeCLITests",
                    exclude: ["Helpers/pty_driver.py", "Helpers/dns_responder.py", "Helpers/tcp_listener.py", "Helpers/tcp_client.py",
                              "Helpers/systemctl", "Helpers/web_server.py", "Helpers/browser.py", "Helpers/dns_query.py"]),

        // Benchmarks: run by the scripts in bench/, never by `swift test`.
        .executableTarget(name: "DIBenchmark", dependencies: ["Domain"], path: "bench/DIBenchmark"),
        .executableTarget(name: "StoreBenchmark", dependencies: ["Domain", "Adapters"], path: "bench/StoreBenchmark"),
        .executableTarget(name: "ScheduleBenchmark", dependencies: ["Domain", "Adapters"], path: "bench/ScheduleBenchmark"),
    ],
    swiftLanguageModes: [.v6]
)
