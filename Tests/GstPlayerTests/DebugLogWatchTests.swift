// yt-gst — DebugLogWatch changes GStreamer's process-wide debug settings only while it runs.
import Foundation
import GstPlayer
import Testing

@Suite(.serialized) struct DebugLogWatchTests {
    /// "fakesink" is a category that exists once a fakesink was made, and that no other watch uses.
    let pipeline: Pipeline
    init() throws {
        Gst.initialize()
        pipeline = try Pipeline(launch: "fakesink")
    }

    func watch(level: DebugLogWatch.Level) -> DebugLogWatch {
        DebugLogWatch(
            category: "fakesink", level: level, patterns: ["never logged"], pipeline: pipeline,
            messageName: "test/never")
    }

    /// A watch raises its category's threshold and silences GStreamer's printing (unless GST_DEBUG asks for it);
    /// stop() puts back both.
    @Test func stopRestoresThresholdAndPrinting() throws {
        let threshold = try #require(DebugLogWatch.threshold(ofCategory: "fakesink"))
        let printing = DebugLogWatch.printsLog
        let watch = watch(level: .debug)
        #expect(try #require(DebugLogWatch.threshold(ofCategory: "fakesink")) > threshold)
        #expect(DebugLogWatch.printsLog == (printing && getenv("GST_DEBUG") != nil))
        watch.stop()
        #expect(DebugLogWatch.threshold(ofCategory: "fakesink") == threshold)
        #expect(DebugLogWatch.printsLog == printing)
    }

    /// stop() from many threads at once, then deinit: the watch is undone exactly once, so a second watch of the
    /// same category keeps its threshold and silence until it stops too.
    @Test func concurrentStopsUndoOnce() throws {
        let threshold = try #require(DebugLogWatch.threshold(ofCategory: "fakesink"))
        let printing = DebugLogWatch.printsLog
        let outer = watch(level: .info)
        let raised = try #require(DebugLogWatch.threshold(ofCategory: "fakesink"))
        #expect(raised > threshold)
        do {
            let inner = watch(level: .info)
            DispatchQueue.concurrentPerform(iterations: 8) { _ in inner.stop() }
        }
        #expect(DebugLogWatch.threshold(ofCategory: "fakesink") == raised)
        #expect(DebugLogWatch.printsLog == (printing && getenv("GST_DEBUG") != nil))
        outer.stop()
        #expect(DebugLogWatch.threshold(ofCategory: "fakesink") == threshold)
        #expect(DebugLogWatch.printsLog == printing)
    }
}
