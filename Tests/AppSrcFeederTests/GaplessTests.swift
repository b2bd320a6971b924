// yt-gst — files of different formats through one appsrc (GaplessChain): every sample of each file arrives, in
// order, with the caps change exactly at the join; a seek or next/previous across the join lands on the right sample.
import AppSrcFeeder
import Foundation
import GstPlayer
import TestSupport
import Testing

/// One file's format and length, for the tables below.
struct ToneSpec: CustomStringConvertible, Sendable {
    var rate: Int
    var bits: Int
    var channels: Int
    var seed: UInt64
    /// Length in milliseconds; not a multiple of the 200 ms chunk, so each file ends on a partial chunk.
    var milliseconds = 1_370

    /// Noise, not a tone: a tone at a whole number of hertz repeats every second, so a seek a second off would
    /// read the same samples.
    var wav: SyntheticWAV {
        .noise(frames: rate * milliseconds / 1_000, rate: rate, channels: channels, bits: bits, seed: seed)
    }

    var description: String { "\(rate) Hz \(bits)-bit \(channels) ch" }
}

/// Consecutive samples pulled from the appsink under one caps.
struct CapsRun {
    var caps: Caps?
    var firstPTS: ClockTime?
    var bytes: [UInt8]
}

/// A chain of files playing into `appsrc ! appsink` that holds at most two buffers, so that the test paces the
/// stream by pulling, and seeks land while the stream is still going.
final class ChainPlayback {
    let files: [SyntheticWAV]
    let paths: [String]
    let chain: GaplessChain
    let player = Player(launch: "appsrc name=src ! appsink name=sink sync=false max-buffers=2")
    let sink: AppSink
    private let dir: URL

    init(_ files: [SyntheticWAV]) throws {
        self.files = files
        let dir = try Paths.makeScratch("gapless")
        self.dir = dir
        paths = try files.enumerated().map { try $1.write(to: dir.appendingPathComponent("f\($0).wav")) }
        chain = GaplessChain(order: PlayOrder(files: paths), settings: .init())
        guard chain.prepare(at: 0) else { throw HarnessError(description: "nothing to play: \(chain.takeFailures())") }
        try player.play(chain)
        guard let pipeline = player.pipeline else { throw HarnessError(description: "no pipeline") }
        sink = try pipeline.appSink(named: "sink")
    }

    deinit {
        player.stop()
        Paths.removeScratch(dir)
    }

    /// The next sample; fails on a pipeline error or when none comes within 5 s.
    func pull() throws -> AppSink.Sample {
        if case .error(let error)? = player.nextEvent(timeout: .zero)?.view { throw error }
        guard let sample = sink.pull(timeout: .seconds(5)) else {
            throw HarnessError(description: "no sample within 5 s (end of stream: \(sink.isEndOfStream))")
        }
        return sample
    }

    /// Every sample up to end of stream (within 20 s: a chain that never ends fails), grouped into runs of equal
    /// caps.
    func pullToEnd() throws -> [CapsRun] {
        var runs: [CapsRun] = []
        let deadline = ContinuousClock.now.advanced(by: .seconds(20))
        while ContinuousClock.now < deadline, let sample = sink.pull(timeout: .seconds(5)) {
            if let last = runs.last, last.caps == sample.caps {
                runs[runs.count - 1].bytes += sample.bytes
            } else {
                runs.append(CapsRun(caps: sample.caps, firstPTS: sample.pts, bytes: sample.bytes))
            }
        }
        guard sink.isEndOfStream else { throw HarnessError(description: "no end of stream within 5 s") }
        if case .error(let error)? = player.nextEvent(timeout: .zero)?.view { throw error }
        return runs
    }

    /// Makes the stream continue with file `position` at `fileTime` (nil: its start), as the player's keys do.
    func jump(to position: Int, fileTime: ClockTime?) throws {
        try chain.jump(to: position, fileTime: fileTime) { () throws(GstError) in try player.seek(to: fileTime ?? .zero)
        }
    }

    /// File `index`'s data bytes from `time` on.
    func data(of index: Int, from time: ClockTime = .zero) -> ArraySlice<UInt8> {
        let wav = files[index]
        return wav.samples[(Int(time.frames(rate: wav.sampleRate)) * wav.blockAlign)...]
    }
}

/// Whether the appsink's caps describe `wav`'s raw format exactly (typed fields, not text).
func caps(_ caps: Caps?, describe wav: SyntheticWAV) -> Bool {
    let format = wav.bitsPerSample == 8 ? "U8" : "S\(wav.bitsPerSample)LE"
    return caps?.format?.rawValue == format && caps?.rate == wav.sampleRate && caps?.channels == wav.channels
}

@Suite(.serialized) struct GaplessTests {
    init() { Gst.initialize() }

    static let formatChanges: [(ToneSpec, ToneSpec)] = [
        (
            .init(rate: 44_100, bits: 16, channels: 2, seed: 1),
            .init(rate: 48_000, bits: 24, channels: 2, seed: 2)
        ),
        (
            .init(rate: 44_100, bits: 16, channels: 1, seed: 1),
            .init(rate: 44_100, bits: 16, channels: 2, seed: 2)
        ),
        (
            .init(rate: 48_000, bits: 24, channels: 2, seed: 3),
            .init(rate: 8_000, bits: 8, channels: 1, seed: 4)
        ),
    ]

    @Test(arguments: formatChanges)
    func everySampleOfEachFileArrivesInOrderWithTheCapsChangeAtTheJoin(first: ToneSpec, second: ToneSpec) throws {
        let playback = try ChainPlayback([first.wav, second.wav])
        let runs = try playback.pullToEnd()
        try #require(runs.count == 2, "caps runs: \(runs.map(\.caps))")
        #expect(caps(runs[0].caps, describe: playback.files[0]), "\(runs[0].caps)")
        #expect(caps(runs[1].caps, describe: playback.files[1]), "\(runs[1].caps)")
        #expect(firstDifference(runs[0].bytes, playback.files[0].samples) == nil)
        #expect(firstDifference(runs[1].bytes, playback.files[1].samples) == nil)
        #expect(runs[0].firstPTS == .zero)
        // The second file's timestamps continue exactly where the first one's stopped.
        let end = ClockTime(frames: Int64(playback.files[0].frames), rate: first.rate)
        #expect(runs[1].firstPTS == end)
        #expect(playback.chain.segment(at: end)?.position == 1)
        #expect(playback.chain.segment(at: ClockTime(nanoseconds: end.nanoseconds - 1))?.position == 0)
    }

    @Test(arguments: formatChanges)
    func nextAndPreviousAcrossTheJoinLandOnTheRightSample(first: ToneSpec, second: ToneSpec) throws {
        let playback = try ChainPlayback([first.wav, second.wav])
        let opening = try playback.pull()
        #expect(caps(opening.caps, describe: playback.files[0]))
        #expect(firstDifference(opening.bytes, playback.data(of: 0).prefix(opening.bytes.count)) == nil)

        // n with a time (as a seek past the end of the first file does): the second file, from 0.25 s.
        let quarter = ClockTime(seconds: 0.25)
        try playback.jump(to: 1, fileTime: quarter)
        let landed = try playback.pull()
        #expect(
            caps(landed.caps, describe: playback.files[1]), "\(landed.caps.map(String.init(describing:)) ?? "none")")
        #expect(landed.pts == quarter)
        #expect(firstDifference(landed.bytes, playback.data(of: 1, from: quarter).prefix(landed.bytes.count)) == nil)
        #expect(playback.chain.segment(at: quarter)?.position == 1)

        // p: back to the first file's start, which then runs into the second file again, whole.
        try playback.jump(to: 0, fileTime: nil)
        let runs = try playback.pullToEnd()
        try #require(runs.count == 2, "caps runs: \(runs.map(\.caps))")
        #expect(caps(runs[0].caps, describe: playback.files[0]))
        #expect(runs[0].firstPTS == .zero)
        #expect(firstDifference(runs[0].bytes, playback.files[0].samples) == nil)
        #expect(caps(runs[1].caps, describe: playback.files[1]))
        #expect(firstDifference(runs[1].bytes, playback.files[1].samples) == nil)
    }

    @Test(arguments: formatChanges)
    func aSeekNearTheEndOfTheFirstFileRunsOnIntoTheSecond(first: ToneSpec, second: ToneSpec) throws {
        let playback = try ChainPlayback([first.wav, second.wav])
        _ = try playback.pull()
        let oneSecond = ClockTime(seconds: 1)
        try playback.jump(to: 0, fileTime: oneSecond)
        let runs = try playback.pullToEnd()
        try #require(runs.count == 2, "caps runs: \(runs.map(\.caps))")
        #expect(runs[0].firstPTS == oneSecond)
        #expect(firstDifference(runs[0].bytes, playback.data(of: 0, from: oneSecond)) == nil)
        #expect(firstDifference(runs[1].bytes, playback.files[1].samples) == nil)
        let remaining = Int64(playback.files[0].frames - first.rate)
        #expect(
            runs[1].firstPTS
                == ClockTime(
                    nanoseconds: oneSecond.nanoseconds + ClockTime(frames: remaining, rate: first.rate).nanoseconds))
    }

    @Test func aJumpFromTheSecondFileBackIntoTheFirstChangesTheCapsBack() throws {
        let playback = try ChainPlayback([
            ToneSpec(rate: 44_100, bits: 16, channels: 1, seed: 1).wav,
            ToneSpec(rate: 48_000, bits: 24, channels: 2, seed: 2).wav,
        ])
        try playback.jump(to: 1, fileTime: nil)
        let second = try playback.pull()
        #expect(caps(second.caps, describe: playback.files[1]))
        #expect(firstDifference(second.bytes, playback.data(of: 1).prefix(second.bytes.count)) == nil)
        let half = ClockTime(seconds: 0.5)
        try playback.jump(to: 0, fileTime: half)
        let back = try playback.pull()
        #expect(caps(back.caps, describe: playback.files[0]), "\(back.caps.map(String.init(describing:)) ?? "none")")
        #expect(back.pts == half)
        #expect(firstDifference(back.bytes, playback.data(of: 0, from: half).prefix(back.bytes.count)) == nil)
    }
}
