// yt-gst — realtime scheduling for the threads that carry a session's audio, so a busy machine does not starve them.
import Glibc

/// Gives the threads that carry a session's audio round-robin realtime scheduling, as audio servers do for theirs:
/// the pipeline's streaming threads, each as it starts, libpulse's I/O thread, which hands pulsesink's buffers to
/// the server, and the thread that hands `ytpipewiresink`'s to PipeWire's graph each cycle.
///
/// Why: a receiver's output holds 40 ms (`ReceiverSync.outputBufferMicroseconds`) and a sender's packets are due as
/// the clock says; beside a CPU hog these threads waited tens of ms for a core. Measured in the multi-room lab with
/// `stress-ng --cpu 2`: dropouts of 50–120 ms on both receivers and a range of 0.7–4 ms between the rooms; with
/// these threads realtime on both sides, 0–17 ms and 33–800 µs. (The streaming threads alone, without libpulse's:
/// 56–290 ms.) `ytpipewiresink`'s thread answers the graph's every cycle (5.3 ms at 256 frames), as libpulse's does
/// the server's requests. A player is starved alike: two `play` on `ytpipewiresink` beside four CPU hogs lost 5-16
/// ms of sound in 4 of 6 runs with `--no-realtime`, in 2 of 6 with these threads realtime (both on a server itself
/// 300-550 ppm behind its rate); three beside `stress-ng --cpu 2` in a test once lost 64 ms in one room.
///
/// Never the loop's thread (which parses control input and must not be able to take a core), nor a host program's.
/// The priority stays below an audio server's (PulseAudio's 5), and children do not inherit it. It needs root,
/// CAP_SYS_NICE or an RLIMIT_RTPRIO of at least `priority` (Debian's `audio` group with jackd's limits); without,
/// nothing changes.
public enum RealtimeThreads {
    static let priority: Int32 = 4
    /// SCHED_RESET_ON_FORK: a child started from one of these threads gets normal scheduling.
    private static let resetOnFork: Int32 = 0x4000_0000
    /// What libpulse names the thread of its threaded main loop, and what `ytpipewiresink` names its own.
    private static let audioServerThreadNames: Set = ["threaded-ml", Gst.pipeWireOutputThreadName]

    /// Raises every streaming thread of `pipeline` as it starts; call before the pipeline leaves NULL.
    public static func raiseStreamingThreads(of pipeline: Pipeline) {
        pipeline.whenStreamingThreadStarts { raise(thread: 0) }
    }

    /// Raises libpulse's I/O threads and `ytpipewiresink`'s (both sinks open their connection when they go to READY).
    public static func raiseAudioServerThreads() {
        guard let directory = opendir("/proc/self/task") else { return }
        defer { closedir(directory) }
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) {
                String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self)
            }
            guard let thread = pid_t(name), let threadName = threadName(thread),
                audioServerThreadNames.contains(threadName)
            else { continue }
            raise(thread: thread)
        }
    }

    /// `thread` (0: the calling one) to round-robin at `priority`; a refusal leaves it as it was.
    private static func raise(thread: pid_t) {
        var parameters = sched_param(sched_priority: priority)
        _ = sched_setscheduler(thread, SCHED_RR | resetOnFork, &parameters)
    }

    /// A thread's name (its `comm`), without the newline.
    private static func threadName(_ thread: pid_t) -> String? {
        guard let file = fopen("/proc/self/task/\(thread)/comm", "r") else { return nil }
        defer { fclose(file) }
        var buffer = [CChar](repeating: 0, count: 32)
        guard fgets(&buffer, Int32(buffer.count), file) != nil else { return nil }
        let bytes = buffer.prefix { $0 != 0 && $0 != 10 }.map { UInt8(bitPattern: $0) }
        return String(decoding: bytes, as: UTF8.self)
    }
}
