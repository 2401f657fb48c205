// swift-tools-version: 6.0
// SPDX-License-Identifier: GPL-3.0-or-later
// KioskPlayer: a music player appliance for single-board computers (FLAC, MP3, M4A, Ogg Vorbis, Opus). See README.md and docs/architecture.md.
import PackageDescription

// Tools version 6.0: Debian trixie's swiftlang (6.0.3, what a Raspberry Pi owner can apt install) reads
// this manifest too, so warnings-as-errors is the compiler flag (`treatAllWarnings` needs tools 6.2).
let strict: [SwiftSetting] = [
    .unsafeFlags(["-warnings-as-errors"]),
    .enableUpcomingFeature("ExistentialAny"),
]

// Code that runs per event, not per sample, file or pixel (the player's rules, configuration, MPD's
// protocol, inputs, the doctor, the command line, the system seams) is optimized for size in release
// builds (docs/performance.md, "kiosk-player's size"); the audio, the library's scan and the screen's
// drawing keep -O.
let sizeOptimized: [SwiftSetting] = strict + [.unsafeFlags(["-Osize"], .when(configuration: .release))]

let package = Package(
    name: "KioskPlayer",
    products: [
        .executable(name: "kiosk-player", targets: ["kiosk-player"]),
        // The benchmarks, apart so the appliance's binary carries none of their code (never packaged).
        .executable(name: "kiosk-bench", targets: ["kiosk-bench"]),
        // The phone page's HTTP server: a process of its own with fewer privileges than the player,
        // apart so that kiosk-player carries none of it (docs/architecture.md, "The phone page").
        .executable(name: "kiosk-web", targets: ["kiosk-web"]),
    ],
    targets: [
        // C libraries of the system, found through pkg-config.
        .systemLibrary(name: "CALSA", pkgConfig: "alsa", providers: [.apt(["libasound2-dev"])]),
        .systemLibrary(name: "CFLAC", pkgConfig: "flac", providers: [.apt(["libflac-dev"])]),
        .systemLibrary(name: "CGPIOD", pkgConfig: "libgpiod", providers: [.apt(["libgpiod-dev"])]),
        .systemLibrary(name: "CJPEG", pkgConfig: "libturbojpeg", providers: [.apt(["libturbojpeg0-dev"])]),
        .systemLibrary(name: "CPNG", pkgConfig: "libpng", providers: [.apt(["libpng-dev"])]),
        // libjpeg itself for decoding (its memory manager can be capped; TurboJPEG's cannot in 2.1).
        .systemLibrary(name: "CJPEGLib", pkgConfig: "libjpeg", providers: [.apt(["libjpeg-dev"])]),
        .systemLibrary(name: "CFreeType", pkgConfig: "freetype2", providers: [.apt(["libfreetype-dev"])]),
        .systemLibrary(name: "CMPG123", pkgConfig: "libmpg123", providers: [.apt(["libmpg123-dev"])]),
        .systemLibrary(name: "CVorbisFile", pkgConfig: "vorbisfile", providers: [.apt(["libvorbis-dev"])]),
        .systemLibrary(name: "COpusFile", pkgConfig: "opusfile", providers: [.apt(["libopusfile-dev"])]),
        .systemLibrary(name: "CTagLib", pkgConfig: "taglib", providers: [.apt(["libtag1-dev"])]),
        // zlib: compressed ID3v2 frames made by the tests and the id3 fuzz target.
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "CPCRE2", pkgConfig: "libpcre2-8", providers: [.apt(["libpcre2-dev"])]),
        // GNU libmicrohttpd: the phone page's HTTP server (kiosk-web only).
        .systemLibrary(name: "CMicroHTTPD", pkgConfig: "libmicrohttpd", providers: [.apt(["libmicrohttpd-dev"])]),
        // libmicrohttpd's variadic calls (MHD_start_daemon's options, MHD_get_connection_info) and
        // its request callback's upload protocol, which Swift cannot express or express safely.
        .target(
            name: "CKioskWeb", dependencies: ["CMicroHTTPD"],
            cSettings: [
                .unsafeFlags(["-Wall", "-Wextra", "-Werror"]),
                .define("_FORTIFY_SOURCE", to: "2", .when(configuration: .release)),
            ]),
        // The small C that Swift cannot express (ioctl macros, variadic calls, libgpiod v1/v2, setjmp).
        .target(
            name: "CKioskShims", dependencies: ["CALSA", "CGPIOD", "CPNG", "CJPEGLib"],
            cSettings: [
                .unsafeFlags(["-Wall", "-Wextra", "-Werror"]),
                // Checked libc calls in release builds (needs optimisation), as Debian builds C.
                .define("_FORTIFY_SOURCE", to: "2", .when(configuration: .release)),
            ]),
        // TagLib (C++) behind a small C interface: tags and pictures of every format but FLAC.
        .target(
            name: "CKioskTags", dependencies: ["CTagLib"],
            cxxSettings: [.unsafeFlags(["-Wall", "-Wextra", "-Werror"])],
            linkerSettings: [.linkedLibrary("dl")]),

        // The one dlopen loader of the three libraries below.
        .target(
            name: "CKioskLoader",
            cSettings: [.unsafeFlags(["-Wall", "-Wextra", "-Werror"])],
            linkerSettings: [.linkedLibrary("dl")]),
        // FFmpeg (MP4/M4A), opened with dlopen on first use: its headers only at build time (Debian's
        // libavformat-dev and libavcodec-dev, in the multiarch include path), no link.
        .target(
            name: "CKioskFFmpeg", dependencies: ["CKioskLoader"],
            cSettings: [.unsafeFlags(["-Wall", "-Wextra", "-Werror"])],
            linkerSettings: [.linkedLibrary("dl")]),
        // The resampler of the output stage (as MPD's and squeezelite's): a device that refuses the
        // stream's rate gets it converted, not skipped. libsoxr is opened with dlopen by the first
        // resampler: its header only at build time (libsoxr-dev), no link.
        .target(
            name: "CKioskSoxr", dependencies: ["CKioskLoader"],
            cSettings: [.unsafeFlags(["-Wall", "-Wextra", "-Werror"])]),
        // Spoken prompts, synthesized in process (not a program spawned per prompt) by libespeak-ng,
        // opened with dlopen by the first prompt: its header only at build time (libespeak-ng-dev), no link.
        .target(
            name: "CKioskEspeak", dependencies: ["CKioskLoader"],
            cSettings: [.unsafeFlags(["-Wall", "-Wextra", "-Werror"])]),

        // BlueZ's D-Bus API through libsystemd's sd-bus (Bluetooth headphones; docs/architecture.md).
        .target(
            name: "CKioskBlueZ",
            cSettings: [
                .unsafeFlags(["-Wall", "-Wextra", "-Werror"]),
                .define("_FORTIFY_SOURCE", to: "2", .when(configuration: .release)),
            ],
            linkerSettings: [.linkedLibrary("systemd")]),

        .target(name: "KioskSystem", dependencies: ["CKioskShims"], swiftSettings: sizeOptimized),
        // config.json's `web` section: one parser for the player's loader and the page's process.
        .target(name: "KioskWebSettings", dependencies: ["KioskSystem"], swiftSettings: sizeOptimized),
        // The vocabulary every layer shares, with no behaviour: screen states, actions, cards, the shuffle.
        .target(name: "KioskModel", dependencies: ["KioskSystem"], swiftSettings: sizeOptimized),
        // The buses boards wire things to: GPIO lines (libgpiod), spidev, battery gauges, BlueZ (D-Bus).
        .target(
            name: "KioskHardware", dependencies: ["KioskSystem", "CKioskShims", "CKioskBlueZ"],
            swiftSettings: sizeOptimized),
        .target(
            name: "KioskAudio",
            dependencies: [
                "KioskSystem", "KioskModel", "CKioskShims", "CALSA", "CFLAC", "CMPG123", "CVorbisFile", "COpusFile",
                "CKioskFFmpeg", "CKioskSoxr", "CKioskEspeak",
            ],
            // No `-enforce-exclusivity=unchecked` here: Swift 6.0.3 (Debian's, which builds the .deb) then
            // destroys a noncopyable value at once when it is assigned to a class's stored property, so
            // `SourceFile.open`'s descriptor was closed before its fstat (EBADF: the arm64 .deb played
            // nothing, CI 2026-12-07). 6.3.1 compiles the same code correctly.
            swiftSettings: strict),
        .target(
            name: "KioskLibrary",
            dependencies: ["CKioskShims", "KioskSystem", "KioskModel", "KioskAudio", "CFLAC", "CSQLite", "CKioskTags"],
            swiftSettings: strict),
        .target(
            name: "KioskInput", dependencies: ["KioskSystem", "KioskModel", "KioskHardware", "CKioskShims"],
            swiftSettings: sizeOptimized),
        .target(
            name: "KioskDisplay",
            dependencies: ["KioskSystem", "KioskModel", "KioskHardware", "CKioskShims", "CFreeType", "CJPEG"],
            swiftSettings: strict),
        // The configuration: config.json, board and HAT profiles, and the two resolved together. It
        // reads the profile sections the input and display modules parse (InputProfile, ScreenProfile).
        .target(
            name: "KioskConfig",
            dependencies: [
                "KioskSystem", "KioskModel", "KioskAudio", "KioskLibrary", "KioskInput", "KioskDisplay",
                "KioskWebSettings",
            ],
            swiftSettings: sizeOptimized),
        // The player's state machine and its rules, on the model's values (screen states, actions) and
        // the configuration; it owns the protocols it consumes (screen). Never the screen's, the
        // inputs' or the hardware's modules (GraphTests).
        .target(
            name: "KioskCore",
            dependencies: ["KioskSystem", "KioskModel", "KioskConfig"],
            swiftSettings: sizeOptimized),
        // `kiosk-player doctor`: a checklist of the box as it is (board, sound, config.txt, GPIO, SPI,
        // screen, USB, power, state directory and groups), each check reading the system through a root.
        .target(
            name: "KioskDoctor",
            dependencies: [
                "KioskConfig",
                "KioskModel", "KioskAudio", "KioskLibrary", "KioskInput", "KioskDisplay", "KioskHardware",
                "KioskSystem", "CALSA", "CKioskShims",
            ],
            swiftSettings: sizeOptimized),
        // Remote control over the MPD protocol (a server on the player's event loop).
        .target(
            name: "KioskMPD",
            dependencies: [
                "KioskModel", "KioskConfig", "KioskCore", "KioskSystem", "KioskLibrary", "KioskAudio", "CPCRE2",
            ],
            swiftSettings: sizeOptimized),
        // The composition root: the appliance wires loop, engine, library, display, inputs, player,
        // services (MPD, setup check) and systemd notification.
        .target(
            name: "KioskApp",
            dependencies: [
                "KioskConfig", "KioskModel",
                "KioskCore", "KioskMPD", "KioskDoctor", "KioskAudio", "KioskLibrary", "KioskInput", "KioskDisplay",
                "KioskHardware", "KioskSystem", "CKioskShims",
            ],
            swiftSettings: sizeOptimized),
        .executableTarget(
            name: "kiosk-player",
            dependencies: [
                "KioskConfig", "KioskModel",
                "KioskApp", "KioskCore", "KioskMPD", "KioskAudio", "KioskLibrary", "KioskInput", "KioskDisplay",
                "KioskHardware",
                "KioskSystem", "CKioskShims", "KioskDoctor", "KioskCommandLine",
            ],
            swiftSettings: sizeOptimized,
            // lld: relative relocations packed (DT_RELR, glibc ≥ 2.36: 241 KB of .rela.dyn become 3 KB) and
            // identical functions folded (generic specializations repeat across modules). `all`, because
            // swiftc writes no address-significance table (.llvm_addrsig), so lld's `safe` folds no Swift
            // function; Swift cannot compare function addresses, and gold's `safe` and `all` folded the
            // same set. docs/performance.md has the figures.
            linkerSettings: [
                .unsafeFlags(
                    ["-use-ld=lld", "-Xlinker", "--icf=all", "-Xlinker", "-z", "-Xlinker", "pack-relative-relocs"],
                    .when(configuration: .release))
            ]),

        // One target per parser of untrusted input (Sources/KioskFuzzTargets) and the program libFuzzer
        // drives (`make fuzz`: built with -sanitize=fuzzer,address and -DFUZZING; otherwise it replays
        // files: `kiosk-fuzz TARGET FILE...`).
        .target(
            name: "KioskFuzzTargets",
            dependencies: [
                "KioskConfig", "KioskModel", "KioskHardware",
                "KioskCore", "KioskMPD", "KioskAudio", "KioskLibrary", "KioskInput", "KioskDisplay", "KioskSystem",
                "CZlib", "KioskWeb", "KioskWebSettings", "KioskWebServer",
            ],
            swiftSettings: strict),
        .executableTarget(
            name: "kiosk-fuzz", dependencies: ["CKioskShims", "KioskFuzzTargets", "KioskSystem"], swiftSettings: strict),

        // Helpers shared by the test targets: temp dirs, child processes, the FLAC testbench, tools,
        // the virtual clock and the fake engine. Each test target lists what it imports.
        .target(
            name: "KioskTestSupport", dependencies: ["KioskSystem", "KioskModel", "KioskAudio", "KioskHardware"],
            path: "Tests/KioskTestSupport",
            swiftSettings: strict),
        .testTarget(
            name: "KioskSystemTests", dependencies: ["KioskSystem", "KioskTestSupport"], swiftSettings: strict),
        .testTarget(
            name: "KioskHardwareTests",
            dependencies: ["KioskHardware", "KioskSystem", "KioskTestSupport", "CKioskShims"],
            swiftSettings: strict),
        .testTarget(
            name: "KioskAudioTests",
            dependencies: ["KioskModel", "KioskAudio", "KioskSystem", "KioskTestSupport", "CKioskLoader"],
            swiftSettings: strict),
        .testTarget(
            name: "KioskLibraryTests",
            dependencies: ["KioskModel", "KioskLibrary", "KioskSystem", "KioskTestSupport", "CKioskTags", "CZlib"],
            swiftSettings: strict),
        .testTarget(
            name: "KioskInputTests",
            dependencies: [
                "KioskModel", "KioskInput", "KioskHardware", "KioskSystem", "KioskTestSupport", "CKioskShims",
            ],
            swiftSettings: strict),
        .testTarget(
            name: "KioskDisplayTests",
            dependencies: [
                "KioskModel", "KioskDisplay", "KioskHardware", "KioskSystem", "KioskTestSupport", "CKioskShims",
            ],
            swiftSettings: strict),
        .testTarget(
            name: "KioskConfigTests",
            dependencies: [
                "KioskConfig", "KioskModel", "KioskAudio", "KioskLibrary", "KioskInput", "KioskSystem",
                "KioskTestSupport",
            ],
            swiftSettings: strict),
        .testTarget(
            name: "KioskCoreTests",
            dependencies: [
                "KioskConfig", "KioskModel",
                "KioskCore", "KioskAudio", "KioskLibrary", "KioskInput", "KioskDisplay", "KioskSystem",
                "KioskTestSupport",
            ],
            swiftSettings: strict),
        .testTarget(
            name: "KioskAppTests",
            dependencies: [
                "KioskConfig", "KioskModel", "KioskAudio", "KioskDoctor",
                "KioskApp", "KioskCore", "KioskDisplay", "KioskHardware", "KioskInput", "KioskLibrary", "KioskSystem",
                "KioskTestSupport",
            ],
            swiftSettings: strict),
        .testTarget(
            name: "KioskFuzzTests",
            dependencies: ["KioskLibrary", "KioskFuzzTargets", "KioskSystem", "KioskTestSupport"],
            swiftSettings: strict),
        .testTarget(
            name: "KioskDoctorTests",
            dependencies: [
                "KioskConfig",
                "KioskDoctor", "KioskHardware", "KioskSystem", "KioskTestSupport", "CKioskShims",
            ],
            swiftSettings: strict),
        .testTarget(
            name: "KioskMPDTests",
            dependencies: [
                "KioskConfig", "KioskModel",
                "KioskMPD", "KioskCore", "KioskAudio", "KioskLibrary", "KioskInput", "KioskSystem", "KioskTestSupport",
            ],
            swiftSettings: strict),

        // The phone page: pairing, sessions, CSRF and rate limits, the player's MPD socket as its
        // only channel to the player, and the pages; no HTTP here (kiosk-web holds libmicrohttpd).
        .target(name: "KioskWeb", dependencies: ["KioskSystem", "KioskWebSettings"], swiftSettings: sizeOptimized),
        // libmicrohttpd started with the page's limits, its callbacks handing requests to PhoneAPI.
        .target(
            name: "KioskWebServer", dependencies: ["KioskWeb", "KioskSystem", "CKioskWeb", "CMicroHTTPD"],
            swiftSettings: sizeOptimized),
        .executableTarget(
            name: "kiosk-web",
            dependencies: ["KioskWeb", "KioskWebServer", "KioskWebSettings", "KioskSystem", "CKioskWeb"],
            swiftSettings: sizeOptimized,
            // As kiosk-player's: fewer pages to relocate and touch at start, identical Swift functions
            // folded (docs/performance.md).
            linkerSettings: [
                .unsafeFlags(
                    ["-use-ld=lld", "-Xlinker", "--icf=all", "-Xlinker", "-z", "-Xlinker", "pack-relative-relocs"],
                    .when(configuration: .release))
            ]),
        .testTarget(
            name: "KioskWebTests", dependencies: ["KioskWeb", "KioskWebSettings", "KioskSystem", "KioskTestSupport"],
            swiftSettings: strict),

        // Subcommands as data (options declared once, parsed and described from that), shared by the
        // two programs below and above.
        .target(name: "KioskCommandLine", dependencies: ["KioskSystem"], swiftSettings: sizeOptimized),
        // `kiosk-bench WHAT`: the performance figures of docs/performance.md (`make bench`).
        .executableTarget(
            name: "kiosk-bench",
            dependencies: [
                "KioskCommandLine", "KioskConfig", "KioskModel", "KioskCore", "KioskMPD", "KioskAudio", "KioskLibrary",
                "KioskInput", "KioskDisplay",
                "KioskHardware", "KioskSystem", "CKioskShims",
            ],
            swiftSettings: strict),
    ]
)
