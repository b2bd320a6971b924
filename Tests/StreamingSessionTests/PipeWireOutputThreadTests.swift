// yt-gst — the thread that hands ytpipewiresink's audio to PipeWire is one RealtimeThreads raises.
import Glibc
import GstPlayer
import TestSupport
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
            ProcessThreads.threads(getpid()).first {
                ProcessThreads.name(getpid(), thread: $0) == Gst.pipeWireOutputThreadName
            },
            "no thread named \(Gst.pipeWireOutputThreadName)")
        #expect(sched_getscheduler(thread) == SCHED_OTHER)
        RealtimeThreads.raiseAudioServerThreads()
        #expect(sched_getscheduler(thread) & 0xff == SCHED_RR)
        #expect(sched_getscheduler(0) == SCHED_OTHER)
    }
}
