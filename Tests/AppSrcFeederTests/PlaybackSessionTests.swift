// yt-gst — a playback session driven without the command line: every command sent through `Control` from another
// thread, checked by the events it reports.
import AppSrcFeeder
import Foundation
import GstPlayer
import Synchronization
import TestSupport
import Testing
import WAV

/// A session running on a thread of its own, its events collected for the test to wait for.
final class RunningSession: Sendable {
    let control: PlaybackSession.Control
    private let log = Log()
    /// What the session's thread shares with the test.
    private final class Log: Sendable {
        let events = Mutex<[PlaybackSession.Event]>([])
        let result = Mutex<Result<PlaybackSession.Ending, PlaybackError>?>(nil)
        /// The kernel's id of the session's thread, for its wake-up count.
        let threadID = Atomic<Int32>(0)
    }

    init(_ configuration: PlaybackSession.Configuration) {
        let log = self.log
        nonisolated(unsafe) let session = PlaybackSession(configuration) { event in
            log.events.withLock { $0.append(event) }
        }
        control = session.control
        Thread {
            log.threadID.store(Self.currentThreadID(), ordering: .relaxed)
            let outcome = Result { () throws(PlaybackError) in try session.run() }
            log.result.withLock { $0 = outcome }
        }.start()
    }

    /// The calling thread's id (/proc/thread-self is a link to PID/task/TID).
    static func currentThreadID() -> Int32 {
        let link = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/thread-self")) ?? ""
        return link.split(separator: "/").last.flatMap { Int32($0) } ?? 0
    }

    var thread: Int32 { log.threadID.load(ordering: .relaxed) }

    /// Every event so far.
    var all: [PlaybackSession.Event] { log.events.withLock { $0 } }

    /// The first event after the `skip` first that `match` accepts, waiting up to `timeout`.
    func wait<T>(
        for what: String, after skip: Int = 0, timeout: Duration = .seconds(10),
        _ match: (PlaybackSession.Event) -> T?
    ) throws -> T {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let found = all.dropFirst(skip).lazy.compactMap(match).first { return found }
            usleep(10_000)
        }
        throw HarnessError(description: "no \(what) within \(timeout): \(all.suffix(5))")
    }

    /// The first status after the events so far that `match` accepts.
    func status(_ what: String, _ match: @escaping (PlaybackSnapshot) -> Bool) throws -> PlaybackSnapshot {
        try wait(for: what, after: all.count) { event in
            if case .status(let snapshot) = event, match(snapshot) { return snapshot }
            return nil
        }
    }

    /// How the session ended, waiting up to `timeout` (it is sent `stop` first unless `stopping` is false).
    func end(stopping: Bool = true, timeout: Duration = .seconds(10)) throws -> PlaybackSession.Ending {
        if stopping { control.stop() }
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let result = log.result.withLock({ $0 }) { return try result.get() }
            usleep(10_000)
        }
        throw HarnessError(description: "the session did not end within \(timeout)")
    }
}

@Suite(.serialized) struct PlaybackSessionTests {
    let dir: URL
    /// Two files of 20 s (8 kHz mono, cheap to play in real time).
    let files: [String]

    init() throws {
        let dir = try Paths.makeScratch("session")
        self.dir = dir
        files = try ["one.wav", "two.wav"].map {
            try SyntheticWAV.tone(frames: 8_000 * 20, rate: 8_000, channels: 1)
                .write(to: dir.appendingPathComponent($0))
        }
    }

    /// Plays `files` in real time into a fakesink, with a volume control and scaletempo, reporting every 50 ms.
    func start(
        _ files: [String]? = nil, status: Duration? = .milliseconds(50)
    ) -> RunningSession {
        var configuration = PlaybackSession.Configuration(
            files: files ?? self.files, launch: "appsrc name=src ! audioconvert ! fakesink sync=true")
        configuration.processing = Processing(volume: true, tempo: true, level: false)
        configuration.statusInterval = status
        return RunningSession(configuration)
    }

    static func started(_ event: PlaybackSession.Event) -> PlaybackSession.File? {
        if case .fileStarted(let file) = event { return file }
        return nil
    }

    @Test func pauseHoldsThePositionAndResumeMovesOn() throws {
        defer { Paths.removeScratch(dir) }
        let session = start()
        let playing = try session.status("playing past 0.3 s") { $0.state == .playing && $0.position > 0.3 }
        session.control.pause()
        let paused = try session.status("paused") { $0.state == .paused }
        let held = try session.status("a later paused status") { $0.state == .paused }
        #expect(paused.position >= playing.position)
        #expect(held.position == paused.position)
        session.control.togglePause()
        _ = try session.status("playing on") { $0.state == .playing && $0.position > held.position + 0.2 }
        session.control.togglePause()
        _ = try session.status("paused by the toggle") { $0.state == .paused }
        session.control.resume()
        _ = try session.status("resumed") { $0.state == .playing }
        #expect(try session.end() == .stopped(.requested, filesFailed: false))
    }

    @Test func seeksMoveWithinTheFileAndPastItsEndToTheNext() throws {
        defer { Paths.removeScratch(dir) }
        let session = start()
        _ = try session.status("playing") { $0.state == .playing }
        session.control.seek(to: 12)
        let there = try session.status("at 12 s") { $0.position >= 12 }
        #expect(there.position < 13, "seek(to: 12) landed at \(there.position)")
        session.control.seek(by: -5)
        let back = try session.status("5 s back") { $0.position < 12 }
        #expect((7..<8.5).contains(back.position), "seek(by: -5) landed at \(back.position)")
        session.control.seek(by: 60)
        let next = try session.wait(for: "the next file") { Self.started($0).flatMap { $0.index == 1 ? $0 : nil } }
        #expect(next.path == files[1])
        _ = try session.status("the second file from its start") { $0.index == 1 && $0.position < 1 }
        #expect(try session.end() == .stopped(.requested, filesFailed: false))
    }

    @Test func nextPreviousAndJumpChangeTheFile() throws {
        defer { Paths.removeScratch(dir) }
        let session = start()
        _ = try session.status("the first file") { $0.index == 0 && $0.state == .playing }
        session.control.next()
        _ = try session.status("the second file") { $0.index == 1 && $0.file == files[1] }
        session.control.previous()
        _ = try session.status("the first file again") { $0.index == 0 && $0.file == files[0] }
        session.control.jump(to: 1)
        _ = try session.status("the second file by index") { $0.index == 1 }
        let starts = session.all.compactMap(Self.started).map(\.index)
        #expect(starts == [0, 1, 0, 1])
        // Next on the last file ends the list.
        session.control.next()
        #expect(try session.end(stopping: false) == .finished(filesFailed: false))
        guard case .ended(.finished(filesFailed: false))? = session.all.last else {
            Issue.record("the last event is not the ending: \(String(describing: session.all.last))")
            return
        }
    }

    @Test func volumeMuteAndRateAreReportedAsSet() throws {
        defer { Paths.removeScratch(dir) }
        let session = start()
        _ = try session.status("playing") { $0.state == .playing && $0.volume == 1 && !$0.muted && $0.rate == 1 }
        session.control.setVolume(0.5)
        _ = try session.status("volume 0.5") { $0.volume == 0.5 }
        session.control.send(.adjustVolume(percent: 5))
        _ = try session.status("volume 0.55") { $0.volume == 0.55 }
        session.control.setVolume(9)
        _ = try session.status("volume at most 1.5") { $0.volume == 1.5 }
        session.control.setMute(true)
        _ = try session.status("muted") { $0.muted }
        session.control.send(.toggleMute)
        _ = try session.status("unmuted") { !$0.muted }
        session.control.setRate(2)
        let fast = try session.status("rate 2") { $0.rate == 2 && $0.state == .playing }
        // Twice as fast: 2 s of the file in about 1 s (loosely, on a busy machine).
        let start = ContinuousClock.now
        let later = try session.status("2 s further") { $0.position >= fast.position + 2 }
        let took = ContinuousClock.now - start
        #expect(took < .milliseconds(1_800), "2 s of the file took \(took) at rate 2 (now at \(later.position))")
        session.control.send(.stepRate(-1))
        _ = try session.status("one step slower") { $0.rate == 1.5 }
        #expect(try session.end() == .stopped(.requested, filesFailed: false))
    }

    @Test func loopPointsRepeatTheStretchBetweenThem() throws {
        defer { Paths.removeScratch(dir) }
        let session = start()
        _ = try session.status("playing past 1 s") { $0.position >= 1 }
        session.control.setLoopPoint()
        let a = try session.status("A set") { $0.loopA != nil }
        _ = try session.status("1 s after A") { $0.position >= a.loopA! + 1 }
        session.control.setLoopPoint()
        let b = try session.status("B set") { $0.loopB != nil }
        let (loopA, loopB) = (try #require(b.loopA), try #require(b.loopB))
        // Back to A at once, then within [A, B] for as long as the loop is set, around it at least twice.
        _ = try session.status("back near A") { $0.position < (loopA + loopB) / 2 }
        var positions: [Double] = []
        let until = ContinuousClock.now + .seconds(3)
        while ContinuousClock.now < until {
            positions.append(try session.status("a status in the loop") { _ in true }.position)
        }
        #expect(
            positions.allSatisfy { (loopA - 0.01...loopB + 0.2).contains($0) },
            "outside [\(loopA), \(loopB)]: \(positions)")
        let wraps = zip(positions, positions.dropFirst()).filter { $0 > $1 }.count
        #expect(wraps >= 2, "looped \(wraps) times: \(positions)")
        session.control.setLoopPoint()
        _ = try session.status("the loop cleared") { $0.loopA == nil && $0.loopB == nil }
        #expect(try session.end() == .stopped(.requested, filesFailed: false))
    }

    @Test func aStopFromASignalEndsWithItsReason() throws {
        defer { Paths.removeScratch(dir) }
        let session = start()
        _ = try session.status("playing") { $0.state == .playing }
        session.control.stop(.interrupted(signal: SIGTERM))
        #expect(try session.end(stopping: false) == .stopped(.interrupted(signal: SIGTERM), filesFailed: false))
    }

    @Test func aFileThatFailsIsReportedAndTheRestPlays() throws {
        defer { Paths.removeScratch(dir) }
        let missing = dir.appendingPathComponent("missing.wav").path
        let session = start([missing, files[0]])
        let failed = try session.wait(for: "the failure") { event -> String? in
            if case .fileFailed(.file(let path, let error)) = event, error is WAVError { return path }
            return nil
        }
        #expect(failed == missing)
        _ = try session.status("the second file playing") { $0.file == files[0] && $0.state == .playing }
        #expect(try session.end() == .stopped(.requested, filesFailed: true))
    }

    @Test func aLaunchStringThatDoesNotBuildIsThrown() throws {
        defer { Paths.removeScratch(dir) }
        var configuration = PlaybackSession.Configuration(files: files, launch: "appsrc name=src ! nosuchelement")
        configuration.statusInterval = nil
        let session = PlaybackSession(configuration) { _ in }
        let error = #expect(throws: PlaybackError.self) { try session.run() }
        guard case .launch(_, let gstError)? = error else {
            Issue.record("not a launch error: \(String(describing: error))")
            return
        }
        #expect(gstError.kind == .missingElement)
    }

    /// With no status asked for, a paused session sleeps until something happens: its thread does not wake at all.
    @Test func aPausedSessionDoesNotWake() throws {
        defer { Paths.removeScratch(dir) }
        let session = start(status: nil)
        _ = try session.wait(for: "the first file") { Self.started($0) }
        session.control.pause()
        // Let the pause settle (the state change and its bus messages), then count for 3 s.
        usleep(500_000)
        let before = try Self.voluntarySwitches(of: session.thread)
        usleep(3_000_000)
        let after = try Self.voluntarySwitches(of: session.thread)
        #expect(after - before == 0, "the paused session's thread woke \(after - before) times in 3 s")
        #expect(try session.end() == .stopped(.requested, filesFailed: false))
    }

    /// The times a thread of this process gave up the CPU to wait (its wake-ups), from /proc.
    static func voluntarySwitches(of thread: Int32) throws -> Int {
        let status = try String(contentsOfFile: "/proc/self/task/\(thread)/status", encoding: .utf8)
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("voluntary_ctxt_switches:") }),
            let count = Int(line.split(separator: ":")[1].trimmingCharacters(in: .whitespaces))
        else { throw HarnessError(description: "no voluntary_ctxt_switches for thread \(thread)") }
        return count
    }
}
