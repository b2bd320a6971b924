// swift-tools-version:6.0
// yt-gst: a WAV player and streamer for Linux, built on GStreamer.
import Foundation
import PackageDescription

/// The flags pkg-config gives for `arguments` (its options and modules), as words; stops the build saying which
/// packages to install when `missing`'s .pc files are not there.
func pkgConfig(_ arguments: [String], missing: String, installing: String) -> [String] {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["pkg-config"] + arguments
    let output = Pipe()
    process.standardOutput = output
    guard (try? process.run()) != nil else { fatalError("yt-gst needs pkg-config to find \(missing)") }
    let flags = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    guard process.terminationStatus == 0 else {
        fatalError("\(missing)'s development files are missing: apt install \(installing) (or scripts/install-deps.sh)")
    }
    return flags.split(whereSeparator: \.isWhitespace).map(String.init)
}

/// The values of the flags of one kind ("-I", "-L", "-l") among pkg-config's words.
func values(_ prefix: String, in words: [String]) -> [String] {
    words.filter { $0.hasPrefix(prefix) }.map { String($0.dropFirst(2)) }
}

/// GStreamer's include paths, library paths and libraries, as pkg-config gives them.
///
/// `.systemLibrary(pkgConfig:)` would read the same .pc files, but GLib's gmodule-no-export-2.0.pc (which
/// gstreamer-1.0.pc requires) adds `-pthread`, which SwiftPM does not pass on: every build printed "warning:
/// prohibited flag(s): -pthread" once per target. Nothing is lost by never asking for it: since glibc 2.34
/// (Debian 12 has 2.36) the POSIX threads library is part of libc (`pthread_create` is in libc.so.6, nothing links
/// libpthread), and the `_REENTRANT` it defines is only a synonym for POSIX 1995, below the default level.
let gstreamer: (includes: [String], libraryPaths: [String], libraries: [String]) = {
    let modules = [
        "gstreamer-1.0", "gstreamer-app-1.0", "gstreamer-audio-1.0", "gstreamer-net-1.0", "gstreamer-controller-1.0",
        "gio-2.0",
    ]
    let words = pkgConfig(
        ["--cflags-only-I", "--libs-only-L", "--libs-only-l"] + modules, missing: "GStreamer",
        installing: "libgstreamer1.0-dev libgstreamer-plugins-base1.0-dev")
    return (values("-I", in: words), values("-L", in: words), values("-l", in: words))
}()

/// PipeWire's and SPA's include paths, for the C shim of `ytpipewiresink` (GstPlayer/PipeWire): only the headers,
/// since the library is loaded when a PipeWire output opens, not linked.
let pipeWireIncludes = values(
    "-I", in: pkgConfig(["--cflags-only-I", "libpipewire-0.3"], missing: "PipeWire", installing: "libpipewire-0.3-dev"))

/// For an executable that plays into PulseAudio: it exports pa_stream_get_time, pa_stream_connect_playback,
/// pa_stream_write and pa_gettimeofday (Sources/Streaming/Sync/PulseStreamClock+Export.swift), so pulsesink's (and
/// libpulse's) calls reach Streaming's PulseStreamClock first: a stream time that never wraps, and a synchronised
/// receiver's fitted clock, its stream playing silence until the first sample, its snapshots stamped by the server
/// even under libfaketime.
let exportsPulseStreamClock = LinkerSetting.unsafeFlags([
    "-Xlinker", "--dynamic-list=\(Context.packageDirectory)/scripts/exported-symbols.list",
])

let package = Package(
    name: "yt-gst",
    products: [
        .executable(name: "yt-gst", targets: ["yt-gst"]),
        .library(name: "WAV", targets: ["WAV"]),
        .library(name: "GstPlayer", targets: ["GstPlayer"]),
        .library(name: "AppSrcFeeder", targets: ["AppSrcFeeder"]),
        .library(name: "Recording", targets: ["Recording"]),
        .library(name: "Streaming", targets: ["Streaming"]),
        .library(name: "Control", targets: ["Control"]),
    ],
    targets: [
        // GStreamer's C headers; the shim wraps only the macros Swift cannot import. Its flags come from `gstreamer`.
        .systemLibrary(name: "CGStreamer"),
        // PipeWire's C headers and the functions loaded from libpipewire at run time (`ytpipewiresink`).
        .systemLibrary(name: "CPipeWire"),
        // Safe Swift over GStreamer: the only module that imports CGStreamer (`internal import`, so no client needs
        // GStreamer's headers).
        .target(
            name: "GstPlayer", dependencies: ["CGStreamer", "CPipeWire"],
            swiftSettings: [.unsafeFlags((gstreamer.includes + pipeWireIncludes).flatMap { ["-Xcc", "-I\($0)"] })],
            linkerSettings: [.linkedLibrary("m"), .unsafeFlags(gstreamer.libraryPaths.map { "-L\($0)" })]
                + gstreamer.libraries.map { .linkedLibrary($0) }),
        // Test doubles for code written on GstPlayer: an appsrc and a bus in memory, driven step by step, in virtual
        // time. For tests only (no product).
        .target(name: "GstPlayerTesting", dependencies: ["GstPlayer"]),
        // WAV in pure Swift, no GStreamer: the reader (files, memory, forward-only streams), formats, metadata, and the
        // crash-safe writer with its levels and voice gate.
        .target(name: "WAV"),
        // The need-data feeder that pushes a WAV into an appsrc, the gapless chain, play order, packet plans, caps, and
        // playback sessions (Playback/).
        .target(name: "AppSrcFeeder", dependencies: ["WAV", "GstPlayer"]),
        // Recording sessions: an appsink's audio into crash-safe WAV files, with levels, voice activation, splits.
        .target(name: "Recording", dependencies: ["WAV", "GstPlayer"]),
        // RTP/SRT receive and send, HTTP/HLS receive and broadcast, SDP, endpoints and multi-room sync, as sessions.
        .target(name: "Streaming", dependencies: ["WAV", "GstPlayer", "AppSrcFeeder"]),
        // mpv's JSON IPC over a Unix socket (`--input-ipc-server`) and MPRIS: the server on the main loop, the protocol,
        // and each session kind's model, properties and commands (play, record, receive, stream). Nothing below
        // depends on it.
        .target(name: "Control", dependencies: ["WAV", "GstPlayer", "AppSrcFeeder", "Recording", "Streaming"]),
        // The command-line tool. Release builds link the Swift runtime and libstdc++ statically with lld (see
        // scripts/static-libstdc++), with packed relative relocations (glibc 2.36+) and the functions a run uses laid
        // out together (scripts/link-order.sh): the process then maps and relocates less, starting faster in less
        // memory (see README, Performance).
        .executableTarget(
            name: "yt-gst", dependencies: ["WAV", "GstPlayer", "AppSrcFeeder", "Recording", "Streaming", "Control"],
            linkerSettings: [
                exportsPulseStreamClock,
                .unsafeFlags(
                    [
                        "-static-stdlib", "-use-ld=lld", "-Xlinker", "-z", "-Xlinker", "pack-relative-relocs",
                        "-L\(Context.packageDirectory)/scripts/static-libstdc++",
                        "-Xlinker", "--symbol-ordering-file=\(Context.packageDirectory)/scripts/link-order.txt",
                        "-Xlinker", "--no-warn-symbol-ordering",
                    ], .when(platforms: [.linux], configuration: .release)),
            ]),
        // The example in the README: a WAV played through the libraries with a pipeline of its own. Built by every
        // build (so `make test` compiles it, and Tests/CLITests/ExampleTests.swift runs it), never installed.
        .executableTarget(name: "play-wav", dependencies: ["GstPlayer", "AppSrcFeeder"], path: "Examples/PlayWAV"),
        // The README's receiver: a synchronised receiver of rtp://@:PORT through the Streaming library (built by every
        // build; Tests/NetworkTests/SyncedReceiverExampleTests.swift runs it against a stream in a lab).
        .executableTarget(
            name: "synced-receiver", dependencies: ["Streaming"], path: "Examples/SyncedReceiver",
            linkerSettings: [exportsPulseStreamClock]),
        // The README's recorder: a source into a crash-safe WAV through the Recording library, for SECONDS or until
        // Ctrl-C (built by every build; Tests/CLITests/RecordExampleTests.swift runs it).
        .executableTarget(name: "record-wav", dependencies: ["Recording"], path: "Examples/RecordWAV"),
        .target(name: "TestSupport", dependencies: ["GstPlayer"], path: "Tests/TestSupport"),
        .testTarget(name: "GstPlayerTests", dependencies: ["GstPlayer", "GstPlayerTesting", "TestSupport"]),
        .testTarget(
            name: "AppSrcFeederTests",
            dependencies: ["WAV", "AppSrcFeeder", "GstPlayer", "GstPlayerTesting", "TestSupport"]),
        .testTarget(name: "CLITests", dependencies: ["WAV", "AppSrcFeeder", "TestSupport"]),
        .testTarget(name: "NetworkTests", dependencies: ["AppSrcFeeder", "GstPlayer", "TestSupport"]),
        .testTarget(
            name: "CommandLineTests",
            dependencies: [
                "yt-gst", "WAV", "AppSrcFeeder", "GstPlayer", "Recording", "Streaming", "Control", "TestSupport",
            ]),
        .testTarget(
            name: "RecordingTests",
            dependencies: ["Recording", "WAV", "AppSrcFeeder", "GstPlayer", "GstPlayerTesting", "TestSupport"]),
        .testTarget(
            name: "StreamingSessionTests", dependencies: ["Streaming", "GstPlayer", "GstPlayerTesting", "TestSupport"]),
        .testTarget(name: "ControlTests", dependencies: ["Control", "TestSupport"]),
    ],
    swiftLanguageModes: [.v6]
)
