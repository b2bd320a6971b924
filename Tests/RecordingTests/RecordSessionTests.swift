// yt-gst — RecordSession driven through its Control, without the command line: pause, marker, stop, limits, splits
// and errors, checked in the events and in the written files.
import AppSrcFeeder
import Foundation
import GstPlayer
import Recording
import Synchronization
import TestSupport
import Testing
import WAV

@Suite(.serialized) struct RecordSessionTests {
    init() { Gst.initialize() }

    typealias Configuration = RecordSession.Configuration

    /// Runs `configuration` on this thread, collecting every event; a watchdog stops it after `limit` seconds (as
    /// an interruption by SIGALRM, which no test expects) so a broken session cannot hang the suite.
    static func record(
        _ configuration: Configuration, limit: Double = 20,
        driver: @escaping @Sendable (RecordSession.Control) -> Void = { _ in }
    ) -> (result: Result<RecordSession.Ending, RecordingError>, events: [RecordSession.Event]) {
        let events = Mutex<[RecordSession.Event]>([])
        let session = RecordSession(configuration) { event in events.withLock { $0.append(event) } }
        let control = session.control
        DispatchQueue.global().async { driver(control) }
        DispatchQueue.global().asyncAfter(deadline: .now() + limit) { control.stop(.interrupted(SIGALRM)) }
        let result = Result { () throws(RecordingError) in try session.run() }
        return (result, events.withLock { $0 })
    }

    /// Waits (up to 10 s) until `events` holds one that `matches`.
    static func waitFor(_ events: () -> [RecordSession.Event], _ matches: (RecordSession.Event) -> Bool) {
        let deadline = Date().addingTimeInterval(10)
        while !events().contains(where: matches) && Date() < deadline { usleep(10_000) }
    }

    /// A live 440 Hz tone at half scale, converted by the session to 8 kHz mono S16: 1 s of audio a second.
    static func liveTone(to path: String) -> Configuration {
        var configuration = Configuration(
            output: .file(path), source: .fragment("audiotestsrc is-live=true volume=0.5"))
        configuration.rate = 8_000
        configuration.channels = 1
        configuration.statusInterval = .milliseconds(50)
        return configuration
    }

    /// A marker, then a pause of 0.6 s, then a stop, all sent from another thread: the marker lands where the
    /// event said, nothing is written while paused, and the file is finished.
    @Test func pauseMarkerAndStopThroughTheControl() throws {
        let dir = try Paths.makeScratch("session")
        defer { Paths.removeScratch(dir) }
        let out = dir.appendingPathComponent("take.wav").path
        let opened = Mutex<Date?>(nil)
        let stopped = Mutex<Date?>(nil)
        let (result, events) = Self.record(Self.liveTone(to: out)) { control in
            let deadline = Date().addingTimeInterval(10)
            while !FileManager.default.fileExists(atPath: out) && Date() < deadline { usleep(10_000) }
            opened.withLock { $0 = Date() }
            usleep(300_000)
            control.addMarker()
            usleep(100_000)
            control.pause()
            usleep(600_000)
            control.resume()
            usleep(300_000)
            stopped.withLock { $0 = Date() }
            control.stop()
        }
        let ending = try result.get()
        #expect(ending == RecordSession.Ending(reason: .stopped(.requested), receivedAudio: true, files: [out]))
        guard case .ended(let last)? = events.last else {
            Issue.record("the last event is not .ended: \(events.suffix(3))")
            return
        }
        #expect(last == ending)
        let fileEvents = events.compactMap { event -> Int? in
            if case .fileOpened(out, let index) = event { index } else { nil }
        }
        #expect(fileEvents == [1])
        let statuses = events.compactMap { event -> RecordSession.Status? in
            if case .status(let status) = event { status } else { nil }
        }
        #expect(statuses.contains { $0.state == .paused } && statuses.last?.state == .recording)
        let peaks = statuses.compactMap { $0.levels.count == 1 ? $0.levels[0].peak : nil }
        #expect(peaks.contains { abs($0 - -6.02) < 1 }, "no half-scale peak in \(peaks)")

        let (wav, _) = try WAVFile.open(path: out)
        #expect(wav.warnings.isEmpty && wav.format.sampleRate == 8_000 && wav.format.channels == 1)
        let cues = wav.metadata.cuePoints
        #expect(cues.map(\.label) == ["marker 1"])
        let markers = events.compactMap { event -> (Int, Double)? in
            if case .markerAdded(let number, let seconds) = event { (number, seconds) } else { nil }
        }
        #expect(markers.count == 1 && markers.first?.0 == 1)
        if let cue = cues.first, let marker = markers.first {
            #expect(abs(Double(cue.position) / 8_000 - marker.1) < 0.001, "cue \(cue.position), event \(marker.1)")
            #expect(marker.1 >= 0.1 && marker.1 <= 1.5, "marker at \(marker.1) s")
        }
        // About 0.3 + 0.1 + 0.3 s written: the paused 0.6 s is missing from the file (start-up and the 50 ms
        // turns of the loop give some slack on a busy machine).
        let wall = try #require(stopped.withLock { $0 }).timeIntervalSince(try #require(opened.withLock { $0 }))
        let recorded = wav.durationSeconds
        #expect(recorded >= 0.4 && recorded <= wall - 0.6 + 0.25, "recorded \(recorded) s in \(wall) s")
    }

    /// A stop sent before `run()` is taken at the first turn: nothing recorded, no file, not an error.
    @Test func aStopBeforeAnyAudioEndsWithoutAFile() throws {
        let dir = try Paths.makeScratch("session-early")
        defer { Paths.removeScratch(dir) }
        let out = dir.appendingPathComponent("never.wav").path
        let session = RecordSession(Self.liveTone(to: out)) { _ in }
        session.control.stop(.interrupted(SIGINT))
        let ending = try session.run()
        #expect(ending == RecordSession.Ending(reason: .stopped(.interrupted(SIGINT)), receivedAudio: false, files: []))
        #expect(!FileManager.default.fileExists(atPath: out))
    }

    /// A duration limit and a split every 0.1 s: three files of 800, 800 and 400 frames, reported in order.
    @Test func aDurationLimitEndsASplitRecording() throws {
        let dir = try Paths.makeScratch("session-split")
        defer { Paths.removeScratch(dir) }
        let pattern = dir.appendingPathComponent("part-%03d.wav").path
        var configuration = Configuration(
            output: .files(pattern: pattern, split: .every(0.1)),
            source: .pipeline(
                "audiotestsrc num-buffers=100 samplesperbuffer=80 ! audio/x-raw,format=S16LE,rate=8000,channels=1 ! "
                    + "appsink name=sink sync=false"))
        configuration.duration = 0.25
        let (result, events) = Self.record(configuration)
        let names = (1...3).map { String(format: pattern, $0) }
        #expect(
            (try? result.get()) == RecordSession.Ending(reason: .limitReached, receivedAudio: true, files: names),
            "\(result)")
        let opened = events.compactMap { event -> String? in
            if case .fileOpened(let path, let index) = event, path == names[index - 1] { path } else { nil }
        }
        #expect(opened == names)
        #expect(try names.map { try WAVFile.open(path: $0).file.frameCount } == [800, 800, 400])
    }

    /// Errors name what they concern: the file that exists (kept as it was), the launch without an appsink.
    @Test func errorsNameTheFileAndThePipeline() throws {
        let dir = try Paths.makeScratch("session-errors")
        defer { Paths.removeScratch(dir) }
        let out = dir.appendingPathComponent("keep.wav").path
        try Data("precious".utf8).write(to: URL(fileURLWithPath: out))
        let (kept, _) = Self.record(Self.liveTone(to: out))
        guard case .failure(.outputExists(out)) = kept else {
            Issue.record("not outputExists(\(out)): \(kept)")
            return
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: out)) == Data("precious".utf8))

        let launch = "audiotestsrc num-buffers=1 ! fakesink"
        let (bad, _) = Self.record(Configuration(output: .file(out + "2"), source: .pipeline(launch)))
        guard case .failure(.pipeline(let error, launch)) = bad else {
            Issue.record("not a pipeline error about \(launch): \(bad)")
            return
        }
        #expect(error.kind == .missingAppElement)
    }
}
