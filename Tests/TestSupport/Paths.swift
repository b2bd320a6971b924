// yt-gst — where tests find the package, the built binary, the shared corpus and scratch space.
import Foundation

public enum Paths {
    /// The package root (the folder with Package.swift).
    public static let packageRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The yt-gst binary under test: $YT_GST_BINARY, else the debug build.
    public static var binary: String {
        ProcessInfo.processInfo.environment["YT_GST_BINARY"]
            ?? packageRoot.appendingPathComponent(".build/debug/yt-gst").path
    }

    /// The shared WAV corpus: $YT_GST_WAV_CORPUS, else ../shared/wav-corpus beside the checkout.
    public static var corpus: URL {
        if let path = ProcessInfo.processInfo.environment["YT_GST_WAV_CORPUS"] { return URL(fileURLWithPath: path) }
        return packageRoot.deletingLastPathComponent().appendingPathComponent("shared/wav-corpus")
    }

    public static var corpusAvailable: Bool {
        FileManager.default.fileExists(atPath: corpus.appendingPathComponent("manifest.tsv").path)
    }

    /// $YT_GST_REQUIRE_CORPUS set (and not "0"), as `.ci/run` does: a missing corpus then fails the corpus suites
    /// instead of skipping them, so CI cannot pass without having checked the corpus.
    public static var corpusRequired: Bool {
        let value = ProcessInfo.processInfo.environment["YT_GST_REQUIRE_CORPUS"] ?? ""
        return !value.isEmpty && value != "0"
    }

    /// A fresh empty directory for one test; removed by `removeScratch`.
    public static func makeScratch(_ label: String = "test") throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("yt-gst-\(label)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    public static func removeScratch(_ url: URL) { try? FileManager.default.removeItem(at: url) }
}
