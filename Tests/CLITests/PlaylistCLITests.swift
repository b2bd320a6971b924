// yt-gst — playlists through the real binary: order, directories, m3u/pls, shuffle, loops, broken entries, --set.
import Foundation
import TestSupport
import Testing

@Suite(.serialized) final class PlaylistCLITests {
    let dir: URL
    init() throws { dir = try Paths.makeScratch("playlist") }
    deinit { Paths.removeScratch(dir) }

    /// A short mono 8-bit file whose every sample is `marker`, so the output shows which file played when.
    @discardableResult
    func marked(_ name: String, _ marker: UInt8, frames: Int = 800) throws -> String {
        let url = dir.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        return try SyntheticWAV(
            sampleRate: 8_000, channels: 1, bitsPerSample: 8, formatTag: 1,
            samples: [UInt8](repeating: marker, count: frames)
        ).write(to: url)
    }

    /// Plays `arguments` appending every file's raw samples to one file; returns the markers in play order.
    func playOrder(_ arguments: [String], extra: [String] = []) throws -> (markers: [UInt8], result: RunResult) {
        let output = dir.appendingPathComponent("out-\(UUID().uuidString).raw").path
        let r = try Run.ytGst(
            ["play"] + arguments + ["--pipeline", "appsrc name=src ! filesink append=true location=\(output)"] + extra)
        let bytes = (try? [UInt8](Data(contentsOf: URL(fileURLWithPath: output)))) ?? []
        var markers: [UInt8] = []
        for byte in bytes where markers.last != byte { markers.append(byte) }
        return (markers, r)
    }

    @Test func filesPlayInTheGivenOrder() throws {
        let files = try [3, 1, 2].map { try marked("f\($0).wav", UInt8($0)) }
        let (markers, r) = try playOrder(files)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(markers == [3, 1, 2])
    }

    @Test func directoriesAreWalkedRecursivelyInNaturalOrder() throws {
        try marked("album/track10.wav", 10)
        try marked("album/track2.wav", 2)
        try marked("album/cd2/track1.wav", 21)
        try marked("album/notes.txt.wav.bak", 99)
        try Data("not audio".utf8).write(to: dir.appendingPathComponent("album/cover.jpg"))
        let (markers, r) = try playOrder([dir.appendingPathComponent("album").path])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(markers == [21, 2, 10])
    }

    @Test func m3uAndPlsResolveRelativePaths() throws {
        try marked("lists/sub/a.wav", 1)
        try marked("b.wav", 2)
        let m3u = "#EXTM3U\n#EXTINF:1,A\nsub/a.wav\n../b.wav\n"
        try Data(m3u.utf8).write(to: dir.appendingPathComponent("lists/x.m3u8"))
        let pls = "[playlist]\nFile2=sub/a.wav\nFile1=\(dir.appendingPathComponent("b.wav").path)\nNumberOfEntries=2\n"
        try Data(pls.utf8).write(to: dir.appendingPathComponent("lists/y.pls"))
        let (m3uOrder, r1) = try playOrder([dir.appendingPathComponent("lists/x.m3u8").path])
        #expect(r1.status == 0, "\(r1.stderr)")
        #expect(m3uOrder == [1, 2])
        let (plsOrder, r2) = try playOrder([dir.appendingPathComponent("lists/y.pls").path])
        #expect(r2.status == 0, "\(r2.stderr)")
        #expect(plsOrder == [2, 1])
    }

    @Test func aBrokenFileInTheMiddleIsReportedAndTheRestPlays() throws {
        let a = try marked("a.wav", 1)
        let broken = dir.appendingPathComponent("broken.wav")
        try Data("RIFF\u{4}\u{0}\u{0}\u{0}WAVEjunk".utf8).write(to: broken)
        let c = try marked("c.wav", 3)
        let (markers, r) = try playOrder([a, broken.path, c])
        #expect(r.status == 1)
        #expect(markers == [1, 3])
        #expect(r.saysOneLine(containing: "broken.wav"))
    }

    @Test func loopRepeatsTheListAndShufflePermutesIt() throws {
        let files = try (1...6).map { try marked("s\($0).wav", UInt8($0)) }
        let (looped, r) = try playOrder(Array(files.prefix(2)), extra: ["--loop", "3"])
        #expect(r.status == 0)
        #expect(looped == [1, 2, 1, 2, 1, 2])
        var orders = Set<[UInt8]>()
        for _ in 0..<4 {
            let (shuffled, _) = try playOrder(files, extra: ["--shuffle"])
            #expect(shuffled.sorted() == [1, 2, 3, 4, 5, 6])
            orders.insert(shuffled)
        }
        #expect(orders.count > 1, "four shuffles gave the same order")
    }

    @Test func startAndEndCutEachFile() throws {
        // 1 s at 8 kHz, 8-bit: --start 0.25 --end 0.75 keeps exactly the middle 4000 samples.
        var wav = SyntheticWAV(sampleRate: 8_000, channels: 1, bitsPerSample: 8, formatTag: 1, samples: [])
        wav.samples = (0..<8_000).map { UInt8(truncatingIfNeeded: $0 / 32) }
        let input = try wav.write(to: dir.appendingPathComponent("ramp.wav"))
        let output = dir.appendingPathComponent("cut.raw").path
        let arguments = [
            "play", input, "--start", "0.25", "--end", "0.75", "--pipeline",
            "appsrc name=src ! filesink location=\(output)",
        ]
        let r = try Run.ytGst(arguments)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try [UInt8](Data(contentsOf: URL(fileURLWithPath: output))) == Array(wav.samples[2_000..<6_000]))
    }

    /// Two halves of one tone, played in a row into wavenc, come out as exactly the whole tone: no gap, no click,
    /// one stream through the same appsrc.
    @Test(arguments: [(16, 2, 44_100), (24, 1, 48_000)])
    func gaplessHalvesMakeTheWhole(bits: Int, channels: Int, rate: Int) throws {
        let whole = SyntheticWAV.tone(
            frequency: 997, frames: rate * 2 + 331, rate: rate, channels: channels, bits: bits)
        let cut = (rate + 123) * whole.blockAlign  // not on a chunk boundary
        var first = whole
        first.samples = Array(whole.samples[..<cut])
        var second = whole
        second.samples = Array(whole.samples[cut...])
        let a = try first.write(to: dir.appendingPathComponent("half1.wav"))
        let b = try second.write(to: dir.appendingPathComponent("half2.wav"))
        let output = dir.appendingPathComponent("joined.wav").path
        let r = try Run.ytGst(["play", a, b, "--sink", "wavenc ! filesink location=\(output)"])
        #expect(r.status == 0, "\(r.stderr)")
        let written = try [UInt8](Data(contentsOf: URL(fileURLWithPath: output)))
        #expect(written.count == 44 + whole.samples.count, "one header and every sample, nothing between")
        #expect(firstDifference(written.suffix(whole.samples.count), whole.samples) == nil)
    }

    /// An 8-bit mono file, a 16-bit stereo one and the first again, through one appsrc into audioconvert: each
    /// file's samples come out converted exactly by its own format, so the caps changed at each join.
    @Test func filesOfDifferentFormatsChangeCapsInOnePipeline() throws {
        let mono = SyntheticWAV.tone(frequency: 300, frames: 8_000 + 13, rate: 8_000, channels: 1, bits: 8)
        let stereo = SyntheticWAV.tone(frequency: 1_000, frames: 44_100 + 7, rate: 44_100, channels: 2, bits: 16)
        let m = try mono.write(to: dir.appendingPathComponent("m.wav"))
        let s = try stereo.write(to: dir.appendingPathComponent("s.wav"))
        let output = dir.appendingPathComponent("s32.raw").path
        let launch = "appsrc name=src ! audioconvert ! audio/x-raw,format=S32LE ! filesink location=\(output)"
        let r = try Run.ytGst(["play", m, s, m, "--pipeline", launch], timeout: 20)
        #expect(r.status == 0, "\(r.stderr)")
        /// 8-bit unsigned and 16-bit signed samples widened to 32 bits, as audioconvert does (no dither upwards).
        func widened(_ wav: SyntheticWAV) -> [UInt8] {
            let values: [Int32] =
                wav.bitsPerSample == 8
                ? wav.samples.map { (Int32($0) - 128) << 24 }
                : ReferenceDecoders.int16(wav.samples).map { Int32($0) << 16 }
            return values.flatMap { value in (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
        }
        let written = try [UInt8](Data(contentsOf: URL(fileURLWithPath: output)))
        let expected = widened(mono) + widened(stereo) + widened(mono)
        #expect(firstDifference(written, expected) == nil)
    }

    @Test func setValuesArriveUnchangedThroughATemplate() throws {
        let input = try marked("in.wav", 7)
        let name = "my song! \"quoted\" a=b.wav"
        let target = dir.appendingPathComponent(name).path
        let r = try Run.ytGst(["play", input, "--pipeline", "wav-file", "--set", "location=\(target)"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(FileManager.default.fileExists(atPath: target))
        let missing = try Run.ytGst(["play", input, "--pipeline", "wav-file"])
        #expect(missing.status == 64)
        #expect(missing.saysOneLine(containing: "location"))
    }

    @Test func pipelinesCommandListsAndShows() throws {
        let list = try Run.ytGst(["pipelines"])
        #expect(list.status == 0 && list.stdout.contains("rtp-l16") && list.stdout.contains("(built-in)"))
        let show = try Run.ytGst(["pipelines", "show", "wav-file"])
        #expect(show.status == 0 && show.stdout.contains("location    required"))
        let custom = dir.appendingPathComponent("mine")
        try FileManager.default.createDirectory(at: custom, withIntermediateDirectories: true)
        try Data("# Mine.\nappsrc name=src ! fakesink\n".utf8).write(
            to: custom.appendingPathComponent("default.pipeline"))
        let shadowed = try Run.run(Paths.binary, ["pipelines"], environment: ["YT_GST_PIPELINES": custom.path])
        #expect(shadowed.stdout.contains("default   Mine.") && shadowed.stdout.contains(custom.path))
        let missing = try Run.ytGst(["pipelines", "show", "nope"])
        #expect(missing.status == 1)
    }
}
