// swift-tools-version:6.0
// yt-gst: a WAV player and streamer for Linux, built on GStreamer.
import PackageDescription

let package = Package(
    name: "yt-gst",
    products: [
        .executable(name: "yt-gst", targets: ["yt-gst"]),
        .library(name: "GstPlayer", targets: ["GstPlayer"]),
        .library(name: "AppSrcFeeder", targets: ["AppSrcFeeder"]),
    ],
    targets: [
        // GStreamer's C headers; the shim wraps only the macros Swift cannot import.
        .systemLibrary(
            name: "CGStreamer",
            pkgConfig: "gstreamer-1.0 gstreamer-app-1.0 gstreamer-audio-1.0",
            providers: [.apt(["libgstreamer1.0-dev", "libgstreamer-plugins-base1.0-dev"])]
        ),
        // Safe Swift over GStreamer: the only module that imports CGStreamer.
        .target(name: "GstPlayer", dependencies: ["CGStreamer"], linkerSettings: [.linkedLibrary("m")]),
        // WAV reading (pure Swift) and the need-data feeder that pushes it into an appsrc.
        .target(name: "AppSrcFeeder", dependencies: ["GstPlayer"]),
        // The command-line tool. Release builds link the Swift runtime and libstdc++ statically with lld (see
        // scripts/static-libstdc++), with packed relative relocations (glibc 2.36+) and the functions a run uses laid
        // out together (scripts/link-order.sh): the process then maps and relocates less, starting faster in less
        // memory (see README, Performance).
        .executableTarget(
            name: "yt-gst", dependencies: ["GstPlayer", "AppSrcFeeder"],
            linkerSettings: [
                .unsafeFlags(
                    [
                        "-static-stdlib", "-use-ld=lld", "-Xlinker", "-z", "-Xlinker", "pack-relative-relocs",
                        "-L\(Context.packageDirectory)/scripts/static-libstdc++",
                        "-Xlinker", "--symbol-ordering-file=\(Context.packageDirectory)/scripts/link-order.txt",
                        "-Xlinker", "--no-warn-symbol-ordering",
                    ], .when(platforms: [.linux], configuration: .release))
            ]),
        .target(name: "TestSupport", dependencies: ["GstPlayer"], path: "Tests/TestSupport"),
        .testTarget(name: "GstPlayerTests", dependencies: ["GstPlayer", "TestSupport"]),
        .testTarget(name: "AppSrcFeederTests", dependencies: ["AppSrcFeeder", "GstPlayer", "TestSupport"]),
        .testTarget(name: "CLITests", dependencies: ["AppSrcFeeder", "TestSupport"]),
        .testTarget(name: "NetworkTests", dependencies: ["AppSrcFeeder", "GstPlayer", "TestSupport"]),
        .testTarget(name: "CommandLineTests", dependencies: ["yt-gst", "GstPlayer", "TestSupport"]),
    ],
    swiftLanguageModes: [.v6]
)
