import Foundation
import GstPlayer
import Synchronization
import TestSupport
import Testing

// yt-gst — the gapless chain's hard cases: files opened off the streaming thread, a slow disk at a join, a jump whose
// seek failed, and lists with nothing to play.
@testable import AppSrcFeeder

@Suite(.serialized) struct GaplessChainTests {
    init() { Gst.initialize() }

    /// Three short tones of different pitch, so each file's samples are its own.
    static func writeFiles(in dir: URL, frames: Int = 4_410) throws -> (paths: [String], waves: [SyntheticWAV]) {
        let waves = [440.0, 660.0, 880.0].map { SyntheticWAV.tone(frequency: $0, frames: frames) }
        let paths = try waves.enumerated().map { try $1.write(to: dir.appendingPathComponent("f\($0).wav")) }
        return (paths, waves)
    }

    /// The name the kernel knows the calling thread by (GStreamer names its streaming threads "element:pad").
    static func threadName() -> String {
        let comm = (try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? ""
        return comm.trimmingCharacters(in: .newlines)
    }

    /// Opens files as the chain would, noting on which thread, and taking `delay` for the files after the first
    /// (every file but `quick`, when it is given: the first of each of many chains).
    final class RecordingOpener: Sendable {
        let threads = Mutex<[String]>([])
        let paths = Mutex<[String]>([])
        let delay: Duration
        let quick: String?
        init(delay: Duration = .zero, quick: String? = nil) {
            self.delay = delay
            self.quick = quick
        }

        func open(_ path: String, _ settings: GaplessChain.Settings, _ window: FeedWindow) throws -> WAVFeeder {
            let isFirst = threads.withLock { threads in
                threads.append(GaplessChainTests.threadName())
                return threads.count == 1
            }
            paths.withLock { $0.append(path) }
            let isQuick = quick.map { $0 == path } ?? isFirst
            if !isQuick && delay > .zero { usleep(UInt32(delay.components.attoseconds / 1_000_000_000_000)) }
            return try WAVFeeder(
                path: path, chunkMilliseconds: settings.chunkMilliseconds, buffers: settings.buffers, window: window)
        }
    }

    /// Plays the three files through a chain that opens them with `opener`, to the end; checks every sample arrived.
    static func playThrough(opener: RecordingOpener, in dir: URL) throws -> (GaplessChain, Harness.Collected) {
        let (paths, waves) = try writeFiles(in: dir)
        let chain = GaplessChain(order: PlayOrder(files: paths), settings: .init(chunkMilliseconds: 20)) {
            try opener.open($0, $1, $2)
        }
        #expect(chain.prepare(at: 0))
        let collected = try Harness.collect(chain, launch: "appsrc name=src ! appsink name=sink sync=false")
        let complete = collected.bytes == waves.flatMap(\.samples)
        #expect(complete, "not every sample of the three files arrived in order")
        return (chain, collected)
    }

    @Test func theNextFileIsOpenedOffTheStreamingThread() throws {
        let dir = try Paths.makeScratch("chain")
        defer { Paths.removeScratch(dir) }
        let opener = RecordingOpener()
        _ = try Self.playThrough(opener: opener, in: dir)
        let threads = opener.threads.withLock { $0 }
        // The first on the test's thread, then one opening per following file (the last finds the list's end).
        #expect(threads.count == 3)
        #expect(threads.allSatisfy { !$0.hasPrefix("src:") }, "opened on a streaming thread: \(threads)")
    }

    @Test func aSlowDiskAtAJoinDelaysButLosesNothing() throws {
        let dir = try Paths.makeScratch("chain")
        defer { Paths.removeScratch(dir) }
        // The first file is fed long before the second opens: the stream runs dry, and the worker feeds it on.
        let (chain, collected) = try Self.playThrough(opener: RecordingOpener(delay: .milliseconds(300)), in: dir)
        // Timestamps continue across the joins: 20 ms chunks, each starting where the one before ended.
        let expected = (0..<collected.timestamps.count).map { ClockTime(frames: Int64($0 * 882), rate: 44_100) }
        #expect(collected.timestamps == expected.map { Optional($0) })
        #expect(chain.ending == .endOfList)
    }

    /// Playback stopped while the next file is being opened (the slow disk again: the stream ran dry, and the worker
    /// is to feed the appsrc when the file is ready) leaves the worker no freed appsrc to feed: 200 stops, half after
    /// `stopReading()` (as `play` does: the worker then feeds nothing), half by the player alone (the worker feeds
    /// the appsrc it kept a reference to, which refuses the data as flushing). `make test-asan` runs this with
    /// GLib's criticals fatal, where a push into a freed appsrc stops the run; every chain must also be released in
    /// the end (the appsrc the worker keeps must not keep the chain alive).
    @Test func stoppingWhileTheNextFileOpensLeavesNothingFreedToFeed() throws {
        let dir = try Paths.makeScratch("chain")
        defer { Paths.removeScratch(dir) }
        let (paths, waves) = try Self.writeFiles(in: dir, frames: 441)
        let opener = RecordingOpener(delay: .milliseconds(300), quick: paths[0])
        let player = Player(launch: "appsrc name=src ! appsink name=sink sync=false")
        var released: [() -> Bool] = []
        for round in 0..<200 {
            let chain = GaplessChain(order: PlayOrder(files: paths), settings: .init(chunkMilliseconds: 20)) {
                try opener.open($0, $1, $2)
            }
            #expect(chain.prepare(at: 0))
            try player.play(chain)
            let sink = try #require(player.pipeline).appSink(named: "sink")
            var bytes = 0
            let deadline = ContinuousClock.now.advanced(by: .seconds(10))
            while bytes < waves[0].samples.count, ContinuousClock.now < deadline {
                bytes += sink.pull(timeout: .milliseconds(100))?.bytes.count ?? 0
            }
            #expect(bytes == waves[0].samples.count, "round \(round): the first file did not arrive")
            // Nothing more comes while the second file opens: the streaming thread has gone to wait for it.
            #expect(sink.pull(timeout: .milliseconds(30)) == nil)
            if round % 2 == 0 { chain.stopReading() }
            player.stop()
            released.append { [weak chain] in chain == nil }
        }
        // Every worker finishes its open (300 ms), finds the playback gone and lets go of the chain and the appsrc.
        let deadline = ContinuousClock.now.advanced(by: .seconds(20))
        while !released.allSatisfy({ $0() }), ContinuousClock.now < deadline { usleep(20_000) }
        #expect(released.allSatisfy { $0() }, "\(released.filter { !$0() }.count) chains still held")
        // Fed on, a stopped chain takes the second file and opens the third: only those stopped by the player alone.
        #expect(opener.paths.withLock { $0.filter { $0 == paths[2] }.count } == 100)
    }

    @Test(arguments: [false, true])
    func aListOfEmptyFilesEndsInsteadOfLooping(repeatEachFile: Bool) throws {
        let dir = try Paths.makeScratch("chain")
        defer { Paths.removeScratch(dir) }
        let empty = try SyntheticWAV.tone(frames: 0).write(to: dir.appendingPathComponent("empty.wav"))
        let chain = GaplessChain(
            order: PlayOrder(files: [empty, empty], passes: nil), settings: .init(repeatEachFile: repeatEachFile))
        #expect(!chain.prepare(at: 0))
        #expect(chain.ending == .nothingToPlay)
        #expect(chain.takeFailures().isEmpty)
    }

    @Test func aWindowPastTheEndOfEveryFileIsNothingToPlay() throws {
        let dir = try Paths.makeScratch("chain")
        defer { Paths.removeScratch(dir) }
        let (paths, _) = try Self.writeFiles(in: dir)
        let chain = GaplessChain(
            order: PlayOrder(files: paths, passes: nil), settings: .init(start: ClockTime(seconds: 99)))
        #expect(!chain.prepare(at: 0))
        #expect(chain.ending == .nothingToPlay)
    }

    @Test func emptyFilesInAListArePassedOver() throws {
        let dir = try Paths.makeScratch("chain")
        defer { Paths.removeScratch(dir) }
        let (paths, waves) = try Self.writeFiles(in: dir)
        let empty = try SyntheticWAV.tone(frames: 0).write(to: dir.appendingPathComponent("empty.wav"))
        let chain = GaplessChain(
            order: PlayOrder(files: [empty, paths[0], empty, paths[1]], passes: 2), settings: .init())
        #expect(chain.prepare(at: 0))
        let collected = try Harness.collect(chain, launch: "appsrc name=src ! appsink name=sink sync=false")
        let pass = waves[0].samples + waves[1].samples
        let complete = collected.bytes == pass + pass
        #expect(complete, "the playable files' samples, twice, are not what arrived")
        #expect(chain.ending == .endOfList)
    }

    struct SeekRefused: Error {}

    /// Three 2 s files playing through one chain into an appsink that holds two buffers, so the stream waits for the
    /// test and a seek lands mid-file; the first buffer has been pulled.
    struct Playing {
        let chain: GaplessChain
        let player: Player
        let sink: AppSink
        let waves: [SyntheticWAV]
    }

    static func playing(in dir: URL) throws -> Playing {
        let (paths, waves) = try writeFiles(in: dir, frames: 44_100 * 2)
        let chain = GaplessChain(order: PlayOrder(files: paths), settings: .init(chunkMilliseconds: 100))
        #expect(chain.prepare(at: 0))
        let player = Player(launch: "appsrc name=src ! appsink name=sink sync=false max-buffers=2")
        try player.play(chain)
        let sink = try #require(player.pipeline).appSink(named: "sink")
        #expect(sink.pull(timeout: .seconds(5)) != nil)
        return Playing(chain: chain, player: player, sink: sink, waves: waves)
    }

    @Test func aJumpWhoseSeekFailedLeavesNothingBehind() throws {
        let dir = try Paths.makeScratch("chain")
        defer { Paths.removeScratch(dir) }
        let playing = try Self.playing(in: dir)
        defer { playing.player.stop() }
        let (chain, player, sink, waves) = (playing.chain, playing.player, playing.sink, playing.waves)
        #expect(throws: SeekRefused.self) {
            try chain.jump(to: 2, fileTime: nil) { () throws(SeekRefused) in throw SeekRefused() }
        }
        // A plain seek afterwards stays in the first file: its samples at 1 s, not the third file's.
        try player.seek(to: ClockTime(seconds: 1))
        let after = try #require(sink.pull(timeout: .seconds(5)))
        let frameBytes = waves[0].blockAlign
        let expected = Array(waves[0].samples[(44_100 * frameBytes)..<(44_100 * frameBytes + after.bytes.count)])
        #expect(after.pts == ClockTime(seconds: 1))
        let inFirstFile = after.bytes == expected
        #expect(inFirstFile, "the samples after the seek are not the first file's at 1 s")
        #expect(chain.segment(at: ClockTime(seconds: 1))?.position == 0)
    }

    @Test func aJumpLandsOnTheFileAskedFor() throws {
        let dir = try Paths.makeScratch("chain")
        defer { Paths.removeScratch(dir) }
        let playing = try Self.playing(in: dir)
        defer { playing.player.stop() }
        let (chain, player, sink, waves) = (playing.chain, playing.player, playing.sink, playing.waves)
        try chain.jump(to: 2, fileTime: ClockTime(seconds: 0.5)) { () throws(GstError) in try player.seek(to: .zero) }
        let after = try #require(sink.pull(timeout: .seconds(5)))
        let start = 22_050 * waves[2].blockAlign
        let inThirdFile = after.bytes == Array(waves[2].samples[start..<(start + after.bytes.count)])
        #expect(inThirdFile, "the samples after the jump are not the third file's at 0.5 s")
        #expect(chain.segment(at: .zero)?.position == 2)
    }
}
