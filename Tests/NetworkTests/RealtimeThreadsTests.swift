// yt-gst — the threads that carry the audio of `receive` and `stream` run realtime (RealtimeThreads), and only they.
import Foundation
import TestSupport
import Testing

@Suite(.serialized, .enabled(if: geteuid() == 0, "realtime scheduling needs root (or an rtprio limit)"))
struct RealtimeThreadsTests {
    /// A port of this test process's own (two tests never share one).
    static func port(_ offset: Int) -> Int { 20_000 + Int(getpid() % 1_000) * 16 + offset }

    /// A synchronised receiver and its sender on loopback: libpulse's I/O thread, the receiver's network source and
    /// jitter buffer and the sender's source run round-robin; the main threads (their loops) never do. With
    /// --no-realtime none does.
    @Test(arguments: [true, false])
    func theAudioThreadsRunRealtime(realtime: Bool) throws {
        let dir = try Paths.makeScratch("realtime")
        defer { Paths.removeScratch(dir) }
        let file = try SyntheticWAV.tone(frames: 44_100 * 30).write(to: dir.appendingPathComponent("tone.wav"))
        let port = Self.port(realtime ? 0 : 4)
        let option = realtime ? [] : ["--no-realtime"]
        let receiver = try Run.launch(
            Paths.binary, ["receive", "rtp://@:\(port)", "--sink", "pulsesink", "-q", "--no-control"] + option)
        defer { _ = receiver.wait(timeout: 0) }
        let sender = try Run.launch(Paths.binary, ["stream", file, "--to", "rtp://127.0.0.1:\(port)", "-q"] + option)
        defer { _ = sender.wait(timeout: 0) }
        let audioThreads: Set = ["threaded-ml", "rtp:src", "rtpjitterbuffer"]
        #expect(waitUntil(15) { audioThreads.isSubset(of: Self.threadNames(receiver.pid)) }, "the receiver plays")
        usleep(300_000)  // the jitter buffer's thread has entered its loop
        let expected = realtime ? audioThreads : []
        #expect(Self.realtimeThreads(receiver.pid).intersection(audioThreads) == expected)
        #expect(Self.realtimeThreads(sender.pid).contains("src:src") == realtime)
        for process in [receiver, sender] {
            #expect(Self.policy(process.pid, thread: process.pid) == 0, "the main thread keeps SCHED_OTHER")
            process.signal(SIGTERM)
        }
    }

    /// The names of a process's threads now.
    static func threadNames(_ pid: pid_t) -> Set<String> {
        Set(threads(pid).compactMap { name(pid, thread: $0) })
    }

    /// The names of a process's threads that run SCHED_RR.
    static func realtimeThreads(_ pid: pid_t) -> Set<String> {
        Set(threads(pid).filter { policy(pid, thread: $0) == SCHED_RR }.compactMap { name(pid, thread: $0) })
    }

    static func threads(_ pid: pid_t) -> [pid_t] {
        ((try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []).compactMap { pid_t($0) }
    }

    static func name(_ pid: pid_t, thread: pid_t) -> String? {
        (try? String(contentsOfFile: "/proc/\(pid)/task/\(thread)/comm", encoding: .utf8))?
            .trimmingCharacters(in: .newlines)
    }

    /// The scheduling policy (field 41 of /proc/PID/task/TID/stat; the name before it may hold spaces).
    static func policy(_ pid: pid_t, thread: pid_t) -> Int32? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/task/\(thread)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return nil }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        return fields.count > 38 ? Int32(fields[38]) : nil
    }
}
