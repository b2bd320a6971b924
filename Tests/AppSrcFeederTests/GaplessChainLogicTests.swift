import Foundation
import GstPlayer
import GstPlayerTesting
import TestSupport
import Testing

// yt-gst — the gapless chain's logic, step by step, against an in-memory appsrc: file switches and caps changes,
// windows, loops, empty files, skips and handoffs, with every byte, timestamp and event checked.
@testable import AppSrcFeeder

@Suite final class GaplessChainLogicTests {
    let dir: URL
    init() throws {
        Gst.initialize()
        dir = try Paths.makeScratch("chain-logic")
    }

    deinit { Paths.removeScratch(dir) }

    func write(_ name: String, _ wav: SyntheticWAV) throws -> String {
        try wav.write(to: dir.appendingPathComponent(name))
    }

    /// A chain that opens the next file at once on the calling thread, attached to a fresh in-memory appsrc.
    func attached(
        _ paths: [String], passes: Int? = 1, settings: GaplessChain.Settings = .init()
    ) throws -> (GaplessChain, EmbeddedAppSource) {
        let chain = GaplessChain(
            order: PlayOrder(files: paths, passes: passes), settings: settings, openAhead: { $0() }
        ) { path, settings, window in
            try WAVFeeder(
                path: path, chunkMilliseconds: settings.chunkMilliseconds, buffers: settings.buffers, window: window)
        }
        #expect(chain.prepare(at: 0))
        let appsrc = EmbeddedAppSource()
        try chain.attach(to: appsrc)
        return (chain, appsrc)
    }

    /// The caps events and the byte count of the buffers between them.
    static func runs(_ events: [EmbeddedAppSource.Event]) -> [(caps: Caps, bytes: Int)] {
        var runs: [(caps: Caps, bytes: Int)] = []
        for event in events {
            switch event {
            case .caps(let caps): runs.append((caps, 0))
            case .buffer(let buffer): runs[runs.count - 1].bytes += buffer.bytes.count
            default: break
            }
        }
        return runs
    }

    @Test func filesOfOtherFormatsFollowWithACapsChangeAndContinuousTime() throws {
        let first = SyntheticWAV.tone(frequency: 440, frames: 44_100 / 2, rate: 44_100, channels: 2, bits: 16)
        let second = SyntheticWAV.tone(frequency: 660, frames: 48_000 / 4, rate: 48_000, channels: 2, bits: 24)
        let third = SyntheticWAV.tone(frequency: 880, frames: 8_000, rate: 8_000, channels: 1, bits: 16)
        let (chain, appsrc) = try attached([
            try write("a.wav", first), try write("b.wav", second), try write("c.wav", third),
        ])
        #expect(appsrc.runToEnd())
        let runs = Self.runs(appsrc.events)
        #expect(runs.map(\.bytes) == [first.samples.count, second.samples.count, third.samples.count])
        #expect(runs.map(\.caps.rate) == [44_100, 48_000, 8_000])
        #expect(runs.map(\.caps.format) == [.s16LE, .s24LE, .s16LE])
        #expect(runs.map(\.caps.channels) == [2, 2, 1])
        let everything = appsrc.bytes == first.samples + second.samples + third.samples
        #expect(everything, "the three files' samples, in order, are not what was pushed")
        // Each buffer starts where the previous one ended, across both joins.
        let timings = appsrc.buffers.map(\.timing)
        for (previous, next) in zip(timings, timings.dropFirst()) {
            #expect(previous.end != nil && previous.end == next.pts)
        }
        #expect(timings.last?.end == ClockTime(seconds: 1.75))
        #expect(appsrc.events.last == .endOfStream)
        #expect(chain.ending == .endOfList)
        #expect(chain.segment(at: ClockTime(seconds: 0.6))?.position == 1)
        #expect(chain.segment(at: ClockTime(seconds: 0.75))?.position == 2)
    }

    @Test func theWindowCutsEveryFile() throws {
        let tone = SyntheticWAV.tone(frames: 8_000, rate: 8_000, channels: 1)
        let paths = [try write("a.wav", tone), try write("b.wav", tone)]
        let (_, appsrc) = try attached(
            paths, settings: .init(start: ClockTime(seconds: 0.25), end: ClockTime(seconds: 0.5)))
        #expect(appsrc.runToEnd())
        let window = Array(tone.samples[4_000..<8_000])
        let cut = appsrc.bytes == window + window
        #expect(cut, "pushed \(appsrc.bytes.count) bytes, not 0.25-0.5 s of each file")
        #expect(appsrc.buffers.first?.timing.pts == ClockTime(seconds: 0.25))
        #expect(appsrc.buffers.last?.timing.end == ClockTime(seconds: 0.75))
    }

    @Test func aLoopedListPlaysEachPassAndEndsOnce() throws {
        let a = SyntheticWAV.tone(frequency: 440, frames: 2_000, rate: 8_000, channels: 1)
        let b = SyntheticWAV.tone(frequency: 880, frames: 3_000, rate: 8_000, channels: 1)
        let empty = SyntheticWAV.tone(frames: 0, rate: 8_000, channels: 1)
        let (_, appsrc) = try attached(
            [try write("a.wav", a), try write("e.wav", empty), try write("b.wav", b)], passes: 3)
        #expect(appsrc.runToEnd())
        let pass = a.samples + b.samples
        let threePasses = appsrc.bytes == pass + pass + pass
        #expect(threePasses)
        #expect(appsrc.events.filter { $0 == .endOfStream }.count == 1)
        #expect(Self.runs(appsrc.events).count == 1, "one format throughout: no caps change")
    }

    @Test func inVirtualTimeTheFilePlayingChangesAtTheJoinAndTheEndReachesTheBus() throws {
        let a = SyntheticWAV.tone(frequency: 440, frames: 4_000, rate: 8_000, channels: 1)
        let b = SyntheticWAV.tone(frequency: 880, frames: 2_000, rate: 8_000, channels: 1)
        let (chain, appsrc) = try attached([try write("a.wav", a), try write("b.wav", b)])
        var heard = appsrc.advance(by: .milliseconds(300))
        #expect(chain.segment(at: appsrc.now)?.position == 0)
        heard += appsrc.advance(by: .milliseconds(300))
        #expect(chain.segment(at: appsrc.now)?.position == 1, "0.6 s in: the second file plays")
        let began = appsrc.bus.events.map { message -> String? in
            guard case .application(let structure) = message.view else { return nil }
            return structure.name
        }
        #expect(began == [GaplessChain.fileBeganMessage], "the switch to the next file wakes the loop")
        for _ in began { _ = appsrc.bus.nextEvent(timeout: .zero) }
        heard += appsrc.advance(by: .milliseconds(150))
        let both = heard.flatMap(\.bytes) == a.samples + b.samples
        #expect(both, "the sink took both files, in order, by 0.75 s")
        guard case .endOfStream? = appsrc.bus.nextEvent(timeout: .zero)?.view else {
            Issue.record("no end of stream on the bus at the end of the list: \(appsrc.bus.events)")
            return
        }
        #expect(chain.ending == .endOfList)
    }

    /// Attaching a chain that opened no file (before `prepare`, or when none could open) says there is nothing
    /// to play, not that a state change failed.
    @Test func attachingBeforeAFileOpensIsNothingToPlay() throws {
        let missing = dir.appendingPathComponent("missing.wav").path
        let chain = GaplessChain(order: PlayOrder(files: [missing], passes: 1), settings: .init())
        let before = #expect(throws: GstError.self) { try chain.attach(to: EmbeddedAppSource()) }
        #expect(before?.kind == .nothingToPlay && before?.message == "nothing to play")
        #expect(!chain.prepare(at: 0), "the file cannot open")
        #expect((#expect(throws: GstError.self) { try chain.attach(to: EmbeddedAppSource()) })?.kind == .nothingToPlay)
    }

    @Test func aListPlayedOnceWithNothingToPlayPlaysAsNothing() throws {
        let empty = SyntheticWAV.tone(frames: 0, rate: 8_000, channels: 1)
        let paths = [try write("e1.wav", empty), try write("e2.wav", empty)]
        let (chain, appsrc) = try attached(paths)
        #expect(appsrc.runToEnd())
        // Its format, one empty buffer (an encoder finalises its file once one came), then the end of stream.
        #expect(Self.runs(appsrc.events).map(\.caps.rate) == [8_000])
        #expect(appsrc.buffers.map(\.bytes) == [[]])
        #expect(appsrc.buffers.first?.timing == BufferTiming(pts: .zero, duration: .zero, offset: 0, offsetEnd: 0))
        #expect(appsrc.events.last == .endOfStream)
        #expect(chain.ending == .endOfList)
        let passedOver = chain.takeEmptyFiles()
        #expect(passedOver.map(\.path) == paths && passedOver.allSatisfy { !$0.cutAway })
        #expect(passedOver.first?.warnings == ["the data chunk holds no audio"])
        #expect(chain.segment(at: .zero) == nil, "no file starts playing")
    }

    @Test func nextAndPreviousJumpToTheFilesStart() throws {
        let a = SyntheticWAV.tone(frequency: 440, frames: 8_000, rate: 8_000, channels: 1)
        let b = SyntheticWAV.tone(frequency: 880, frames: 8_000, rate: 8_000, channels: 1)
        let (chain, appsrc) = try attached([try write("a.wav", a), try write("b.wav", b)])
        appsrc.needData()
        appsrc.consume()
        // n: the next file from its start, at the seek's stream time.
        chain.jump(to: 1, fileTime: nil) { #expect(appsrc.seek(to: ClockTime(seconds: 0.3))) }
        let before = appsrc.buffers.count
        appsrc.needData()
        let afterNext = appsrc.buffers[before]
        #expect(afterNext.timing.pts == ClockTime(seconds: 0.3))
        #expect(afterNext.bytes == Array(b.samples.prefix(afterNext.bytes.count)))
        #expect(chain.segment(at: ClockTime(seconds: 0.3))?.position == 1)
        // p: back to the first file, 0.5 s into it.
        chain.jump(to: 0, fileTime: ClockTime(seconds: 0.5)) { #expect(appsrc.seek(to: ClockTime(seconds: 1))) }
        let mark = appsrc.buffers.count
        #expect(appsrc.runToEnd())
        let rest = appsrc.buffers[mark...].flatMap(\.bytes)
        let firstHalfThenB = rest == Array(a.samples[8_000...]) + b.samples
        #expect(firstHalfThenB, "after p: the rest of the first file, then the second")
        #expect(appsrc.buffers[mark].timing.pts == ClockTime(seconds: 1))
    }

    @Test func aSeekWithinTheFileMovesTheNextChunk() throws {
        let a = SyntheticWAV.tone(frames: 8_000, rate: 8_000, channels: 1)
        let (_, appsrc) = try attached([try write("a.wav", a)])
        appsrc.needData()
        #expect(appsrc.seek(to: ClockTime(seconds: 0.75)))
        let mark = appsrc.buffers.count
        #expect(appsrc.runToEnd())
        let tail = appsrc.buffers[mark...].flatMap(\.bytes) == Array(a.samples[12_000...])
        #expect(tail)
    }

    @Test func loopFileRepeatsUntilAJumpMovesOn() throws {
        let a = SyntheticWAV.tone(frequency: 440, frames: 800, rate: 8_000, channels: 1)
        let b = SyntheticWAV.tone(frequency: 880, frames: 800, rate: 8_000, channels: 1)
        let (chain, appsrc) = try attached(
            [try write("a.wav", a), try write("b.wav", b)], settings: .init(repeatEachFile: true))
        for _ in 0..<20 {
            appsrc.needData()
            appsrc.consume()
        }
        #expect(!appsrc.isEnded)
        let repeats = appsrc.bytes.count / a.samples.count
        #expect(repeats >= 5)
        let onlyA = appsrc.bytes == Array(repeatElement(a.samples, count: repeats).joined())
        #expect(onlyA, "--loop-file fed something other than the first file, whole, again and again")
        chain.jump(to: 1, fileTime: nil) { #expect(appsrc.seek(to: .zero)) }
        let mark = appsrc.buffers.count
        appsrc.needData()
        #expect(appsrc.buffers[mark].bytes == Array(b.samples.prefix(appsrc.buffers[mark].bytes.count)))
    }

    @Test func aFileNeedingADecoderEndsTheStreamForAHandoff() throws {
        let pcm = SyntheticWAV.tone(frames: 800, rate: 8_000, channels: 1)
        let alaw = SyntheticWAV(
            sampleRate: 8_000, channels: 1, bitsPerSample: 8, formatTag: 6,
            samples: [UInt8](repeating: 0xD5, count: 800))
        let (chain, appsrc) = try attached([try write("a.wav", pcm), try write("b.wav", alaw)])
        #expect(appsrc.runToEnd())
        let onlyFirst = appsrc.bytes == pcm.samples
        #expect(onlyFirst)
        #expect(chain.ending == .handoff(1))
        #expect(chain.handoff == 1)
    }
}
