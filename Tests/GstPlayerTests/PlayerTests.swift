// yt-gst — Player: playing, transport controls, events and resource release, through real pipelines.
import Foundation
import GstPlayer
import Testing

@Suite(.serialized) struct PlayerTests {
    init() { Gst.initialize() }

    /// Waits for end of stream or an error; fails the test on timeout.
    func waitForEnd(_ player: Player, timeout: Duration = .seconds(10)) throws -> Message.View? {
        let deadline = ContinuousClock.now.advanced(by: timeout)
        while ContinuousClock.now < deadline {
            switch player.nextEvent(timeout: .milliseconds(50))?.view {
            case .endOfStream?: return .endOfStream
            case .error(let error)?: throw error
            default: continue
            }
        }
        return nil
    }

    /// Every buffer pulled from `player`'s `appsink name=sink` up to end of stream.
    func pullAll(_ player: Player) throws -> [AppSink.Sample] {
        let sink = try #require(player.pipeline).appSink(named: "sink")
        var samples: [AppSink.Sample] = []
        while let sample = sink.pull(timeout: .seconds(5)) { samples.append(sample) }
        #expect(sink.isEndOfStream)
        return samples
    }

    /// The buffers `SilenceSource(buffers: count)` pushes: 800 frames of zeros each, timestamped by frame.
    func expectSilence(
        _ samples: [AppSink.Sample], buffers count: Int, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(
            samples.map(\.pts) == (0..<count).map { ClockTime(frames: Int64($0) * 800, rate: 8_000) },
            sourceLocation: sourceLocation)
        #expect(samples.allSatisfy { $0.bytes == [UInt8](repeating: 0, count: 1_600) }, sourceLocation: sourceLocation)
    }

    @Test func playsToEndOfStreamThroughNeedData() throws {
        let source = SilenceSource(buffers: 20)
        let player = Player(launch: "appsrc name=src ! appsink name=sink sync=false")
        try player.play(source)
        expectSilence(try pullAll(player), buffers: 20)
        #expect(try waitForEnd(player) != nil)
        #expect(player.duration == ClockTime(seconds: 2))
    }

    @Test func missingAppSourceIsNamed() {
        let player = Player(launch: "audiotestsrc ! fakesink")
        let error = #expect(throws: GstError.self) { try player.play(SilenceSource(buffers: 1)) }
        #expect(error?.kind == .missingAppElement)
        #expect(error?.message.contains("appsrc name=src") == true)
    }

    @Test func pauseResumeSeekAndVolume() throws {
        let source = SilenceSource(buffers: 50)  // 5 s
        let player = Player(launch: "appsrc name=src ! volume name=volume ! fakesink sync=true")
        try player.play(source)
        #expect(player.pipeline?.state(timeout: .seconds(2)) == .playing)
        try player.pause()
        #expect(player.pipeline?.state(timeout: .seconds(2)) == .paused)
        try player.seek(to: ClockTime(seconds: 3))
        #expect(player.pipeline?.state(timeout: .seconds(2)) == .paused)
        let position = try #require(player.position)
        #expect(abs(position.seconds - 3) < 0.15)
        #expect(source.seeks.contains(ClockTime(seconds: 3)))
        try player.setVolume(0.25)
        let volume = try #require(player.pipeline?.volumeElement())
        #expect(volume.name == "volume")
        try player.resume()
        #expect(try waitForEnd(player) != nil)
    }

    @Test func volumeWithoutAControlIsAnError() throws {
        let player = Player(launch: "appsrc name=src ! fakesink")
        try player.play(SilenceSource(buffers: 5))
        #expect((#expect(throws: GstError.self) { try player.setVolume(0.5) })?.kind == .notFound)
    }

    /// Controls before the first play or after `stop()` say that nothing plays (not that a state change failed).
    @Test func controlsWithNothingPlayingAreNotPlaying() throws {
        let player = Player(launch: "appsrc name=src ! volume name=volume ! fakesink")
        let controls: [(String, () throws(GstError) -> Void)] = [
            ("seek", { () throws(GstError) in try player.seek(to: .zero) }),
            ("volume", { () throws(GstError) in try player.setVolume(0.5) }),
            ("mute", { () throws(GstError) in try player.setMuted(true) }),
        ]
        for (name, control) in controls {
            let before = #expect(throws: GstError.self, "\(name)") { try control() }
            #expect(before?.kind == .notPlaying && before?.message == "nothing is playing", "\(name)")
        }
        try player.play(SilenceSource(buffers: 5))
        try player.setVolume(0.5)
        player.stop()
        #expect((#expect(throws: GstError.self) { try player.setVolume(0.5) })?.kind == .notPlaying)
    }

    @Test func playingAgainRestartsCleanly() throws {
        let first = SilenceSource(buffers: 1000)
        let second = SilenceSource(buffers: 3)
        let player = Player(launch: "appsrc name=src ! appsink name=sink sync=true")
        try player.play(first)
        try player.play(second)
        // Exactly the second source's three buffers from its start: nothing left over from the first play.
        expectSilence(try pullAll(player), buffers: 3)
        #expect(try waitForEnd(player) != nil)
    }

    @Test func applicationMessagesComeBackAsEvents() throws {
        let player = Player(launch: "appsrc name=src ! fakesink sync=true")
        try player.play(SilenceSource(buffers: 30))
        player.post("yt-gst/key")
        var names: [String] = []
        for _ in 0..<40 {
            if case .application(let message)? = player.nextEvent(timeout: .milliseconds(50))?.view {
                names.append(message.name)
            }
        }
        #expect(names == ["yt-gst/key"])
    }

    @Test func delegateIsReleasedWithThePipeline() throws {
        let probe = ReleaseProbe()
        do {
            let player = Player(launch: "appsrc name=src ! fakesink sync=false")
            try player.play(ProbedSilenceSource(probe: probe, buffers: 3))
            _ = try waitForEnd(player)
            player.stop()
        }
        let released = probe.released.load(ordering: .relaxed)
        #expect(released)
    }

    @Test func errorsStopThePlayerAndCarryTheElement() throws {
        let player = Player(launch: "appsrc name=src ! audio/x-raw,format=F32LE ! fakesink")
        try player.play(SilenceSource(buffers: 5))
        let error = #expect(throws: GstError.self) { _ = try waitForEnd(player) }
        #expect(error?.kind == .stream)
        #expect(error?.elementPath != nil)
        #expect(player.pipeline == nil)
    }

    /// 200 plays in one process leave the thread count and open file descriptors where they started.
    @Test func twoHundredPlaysLeakNothing() throws {
        let player = Player(launch: "appsrc name=src ! audioconvert ! fakesink sync=false")
        func playOnce() throws {
            try player.play(SilenceSource(buffers: 4))
            #expect(try waitForEnd(player) != nil)
            player.stop()
        }
        for _ in 0..<5 { try playOnce() }  // warm up: plugin loading, GStreamer's thread pools
        let threadsBefore = ProcessStats.threads
        let descriptorsBefore = ProcessStats.openDescriptors
        for _ in 0..<200 { try playOnce() }
        // Pool threads wind down asynchronously after NULL; give them a moment before counting.
        var threadsAfter = ProcessStats.threads
        for _ in 0..<50 where threadsAfter > threadsBefore {
            usleep(20_000)
            threadsAfter = ProcessStats.threads
        }
        #expect(threadsAfter <= threadsBefore)
        #expect(ProcessStats.openDescriptors == descriptorsBefore)
    }
}

enum ProcessStats {
    static var threads: Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task").count) ?? -1
    }
    static var openDescriptors: Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? -1
    }
}
