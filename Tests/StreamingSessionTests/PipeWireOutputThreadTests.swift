// yt-gst — the thread that hands ytpipewiresink's audio to PipeWire is one RealtimeThreads raises.
import Glibc
import GstPlayer
import Testing

@testable import Streaming

@Suite(
    .serialized, .enabled(if: geteuid() == 0, "realtime scheduling needs root (or an rtprio limit)"),
    .enabled(if: dlopen("libpipewire-0.3.so.0", RTLD_NOW) != nil, "needs libpipewire"))
struct PipeWireOutputThreadTests {
    /// The sink starts its thread as it opens (READY: no PipeWire server needed yet), under the name RealtimeThreads
    /// looks for; raised, it runs SCHED_RR, and the thread that raised it keeps its own scheduling.
    @Test func theOutputThreadIsRaised() throws {
        let pipeline = try Pipeline(launch: "audiotestsrc ! ytpipewiresink")
        defer { _ = try? pipeline.setState(.null) }
        _ = try pipeline.setState(.ready)
        let thread = try #require(
            Self.threads().first { Self.name(of: $0) == Gst.pipeWireOutputThreadName },
            "no thread named \(Gst.pipeWireOutputThreadName)")
        #expect(sched_getscheduler(thread) == SCHED_OTHER)
        RealtimeThreads.raiseAudioServerThreads()
        #expect(sched_getscheduler(thread) & 0xff == SCHED_RR)
        #expect(sched_getscheduler(0) == SCHED_OTHER)
    }

    static func threads() -> [pid_t] {
        guard let directory = opendir("/proc/self/task") else { return [] }
        defer { closedir(directory) }
        var threads: [pid_t] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) {
                String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self)
            }
            if let thread = pid_t(name) { threads.append(thread) }
        }
        return threads
    }

    static func name(of thread: pid_t) -> String? {
        guard let file = fopen("/proc/self/task/\(thread)/comm", "r") else { return nil }
        defer { fclose(file) }
        var buffer = [CChar](repeating: 0, count: 32)
        guard fgets(&buffer, Int32(buffer.count), file) != nil else { return nil }
        return String(decoding: buffer.prefix { $0 != 0 && $0 != 10 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
