// yt-gst — the threads that carry the audio of `play`, `receive` and `stream` run realtime (RealtimeThreads), and only they.
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
        #expect(waitUntil(15) { audioThreads.isSubset(of: ProcessThreads.names(receiver.pid)) }, "the receiver plays")
        usleep(300_000)  // the jitter buffer's thread has entered its loop
        let expected = realtime ? audioThreads : []
        #expect(Self.realtimeThreads(receiver.pid).intersection(audioThreads) == expected)
        #expect(Self.realtimeThreads(sender.pid).contains("src:src") == realtime)
        for process in [receiver, sender] {
            #expect(ProcessThreads.policy(process.pid, thread: process.pid) == 0, "the main thread keeps SCHED_OTHER")
            process.signal(SIGTERM)
        }
    }

    /// A player on pulsesink: libpulse's I/O thread and the appsrc's streaming thread (the feeder's reads) run
    /// round-robin, the main thread (the session's loop) never does. With --no-realtime neither does.
    @Test(arguments: [true, false])
    func aPlayersAudioThreadsRunRealtime(realtime: Bool) throws {
        let dir = try Paths.makeScratch("realtime-play")
        defer { Paths.removeScratch(dir) }
        let file = try SyntheticWAV.tone(frames: 44_100 * 30).write(to: dir.appendingPathComponent("tone.wav"))
        let option = realtime ? [] : ["--no-realtime"]
        let player = try Run.launch(Paths.binary, ["play", file, "--sink", "pulsesink", "--no-mpris", "-q"] + option)
        defer { _ = player.wait(timeout: 0) }
        let audioThreads: Set = ["threaded-ml", "src:src"]
        #expect(waitUntil(15) { audioThreads.isSubset(of: ProcessThreads.names(player.pid)) }, "the player plays")
        #expect(Self.realtimeThreads(player.pid).intersection(audioThreads) == (realtime ? audioThreads : []))
        #expect(ProcessThreads.policy(player.pid, thread: player.pid) == 0, "the main thread keeps SCHED_OTHER")
        player.signal(SIGTERM)
    }

    /// The names of a process's threads that run SCHED_RR.
    static func realtimeThreads(_ pid: pid_t) -> Set<String> {
        Set(
            ProcessThreads.threads(pid).filter { ProcessThreads.policy(pid, thread: $0) == SCHED_RR }
                .compactMap { ProcessThreads.name(pid, thread: $0) })
    }
}
