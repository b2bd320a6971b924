import Foundation
import GstPlayer
import TestSupport
import Testing

// yt-gst — Wave64 from an independent writer, a sparse RF64 file over 4 GiB, metadata chunks (INFO tags, bext,
// cue/labl/note, smpl, inst) in the reader, `info` and the tag event, and codecs nothing can decode.
@testable import AppSrcFeeder
@testable import WAV

@Suite(.serialized) struct ContainerAndMetadataTests {
    static func le(_ value: some BinaryInteger, _ width: Int) -> [UInt8] {
        (0..<width).map { UInt8(truncatingIfNeeded: UInt64(truncatingIfNeeded: value) >> (8 * UInt64($0))) }
    }

    static func chunk(_ id: String, _ body: [UInt8]) -> [UInt8] {
        Array(id.utf8) + le(body.count, 4) + body + (body.count % 2 == 1 ? [0] : [])
    }

    static func text(_ string: String, width: Int) -> [UInt8] {
        let bytes = Array(string.utf8)
        return bytes + [UInt8](repeating: 0, count: max(0, width - bytes.count))
    }

    /// A RIFF file: PCM 16-bit mono 8 kHz tone, with `metadata` chunks before the data.
    static func fileWithMetadata(_ metadata: [[UInt8]]) -> [UInt8] {
        let tone = SyntheticWAV.tone(frames: 800, rate: 8_000, channels: 1, bits: 16)
        let fmt = chunk("fmt ", le(1, 2) + le(1, 2) + le(8_000, 4) + le(16_000, 4) + le(2, 2) + le(16, 2))
        let body = Array("WAVE".utf8) + fmt + metadata.flatMap { $0 } + chunk("data", tone.samples)
        return Array("RIFF".utf8) + le(body.count, 4) + body
    }

    static let metadataChunks: [[UInt8]] = {
        let info = chunk(
            "LIST",
            Array("INFO".utf8)
                + chunk("INAM", Array("Überschrift\0".utf8)) + chunk("IART", Array("The Artist\0".utf8))
                + chunk("ICRD", Array("2019-03-01\0".utf8)) + chunk("ITRK", Array("7/12\0".utf8))
                + chunk("ISFT", Array("yt-gst tests\0".utf8)) + chunk("ITCH", Array("nobody\0".utf8)))
        var bext = text("A description", width: 256) + text("yt-gst", width: 32) + text("REF-1", width: 32)
        bext += Array("2024-05-06".utf8) + Array("07:08:09".utf8) + le(48_000 * 3600, 4) + le(1, 4) + le(2, 2)
        bext += [UInt8](repeating: 0, count: 64 + 10 + 180) + Array("A=PCM,F=8000\r\nA=PCM,F=48000\r\n".utf8)
        let cue =
            le(2, 4)
            + le(1, 4) + le(0, 4) + Array("data".utf8) + le(0, 4) + le(0, 4) + le(100, 4)
            + le(2, 4) + le(0, 4) + Array("data".utf8) + le(0, 4) + le(0, 4) + le(400, 4)
        let adtl = chunk(
            "LIST",
            Array("adtl".utf8)
                + chunk("labl", le(1, 4) + Array("Intro\0".utf8)) + chunk("note", le(1, 4) + Array("quiet\0".utf8))
                + chunk("ltxt", le(2, 4) + le(200, 4) + Array("rgn ".utf8) + le(0, 8) + Array("Verse\0".utf8)))
        let smpl =
            le(0, 4) + le(0, 4) + le(125_000, 4) + le(60, 4) + le(0, 4) + le(0, 4) + le(0, 4) + le(1, 4)
            + le(0, 4) + le(7, 4) + le(0, 4) + le(100, 4) + le(700, 4) + le(0, 4) + le(3, 4)
        let inst: [UInt8] = [60, 0xFE, 3, 0, 127, 1, 127]
        return [info, chunk("bext", bext), chunk("cue ", cue), adtl, chunk("smpl", smpl), chunk("inst", inst)]
    }()

    @Test func metadataChunksAreDecoded() throws {
        let file = try WAVFile(reader: MemoryReader(Self.fileWithMetadata(Self.metadataChunks)))
        let m = file.metadata
        #expect(m.info.map(\.id) == ["INAM", "IART", "ICRD", "ITRK", "ISFT", "ITCH"])
        #expect(m.info.first?.value == "Überschrift")
        let tags = m.gstreamerTags.map { "\($0.name)=\($0.value)" }
        #expect(
            tags == [
                "title=Überschrift", "artist=The Artist", "datetime=2019-03-01", "track-number=7",
                "encoder=yt-gst tests",
                "description=A description",
            ])
        let bext = try #require(m.broadcast)
        #expect(
            bext.description == "A description" && bext.originator == "yt-gst" && bext.originatorReference == "REF-1")
        #expect(bext.originationDate == "2024-05-06" && bext.originationTime == "07:08:09")
        #expect(bext.timeReference == UInt64(48_000 * 3600) + (1 << 32) && bext.version == 2)
        #expect(bext.codingHistory == "A=PCM,F=8000\r\nA=PCM,F=48000")
        #expect(
            m.cuePoints == [
                .init(id: 1, position: 100, label: "Intro", note: "quiet", length: nil),
                .init(id: 2, position: 400, label: "Verse", note: nil, length: 200),
            ])
        let sampler = try #require(m.sampler)
        #expect(sampler.midiUnityNote == 60 && sampler.samplePeriod == 125_000)
        #expect(sampler.loops == [.init(id: 7, type: 0, start: 100, end: 700, fraction: 0, playCount: 3)])
        #expect(
            m.instrument
                == .init(
                    unshiftedNote: 60, fineTune: -2, gain: 3, lowNote: 0, highNote: 127,
                    lowVelocity: 1, highVelocity: 127))
        #expect(file.warnings.isEmpty && file.frameCount == 800)
    }

    @Test func metadataIsBoundedWhateverTheChunksDeclare() throws {
        // A cue chunk that declares 2^32-1 points and a smpl chunk that declares 2^32-1 loops, in a tiny file.
        let cue = Self.chunk("cue ", Self.le(UInt32.max, 4) + [UInt8](repeating: 0, count: 48))
        let smpl = Self.chunk("smpl", [UInt8](repeating: 0, count: 28) + Self.le(UInt32.max, 4) + Self.le(0, 4))
        let file = try WAVFile(reader: MemoryReader(Self.fileWithMetadata([cue, smpl])))
        #expect(file.metadata.cuePoints.count == 1)  // the two real points both have id 0: one point
        #expect(file.metadata.sampler?.loops.isEmpty == true)
    }

    @Test func tagsGoOutAsATagEventBeforeTheAudio() throws {
        Gst.initialize()
        let bytes = Self.fileWithMetadata(Self.metadataChunks)
        let reader = MemoryReader(bytes)
        let feeder = try WAVFeeder(file: WAVFile(reader: reader), reader: reader, name: "meta.wav")
        let collected = try Harness.collect(feeder, launch: "appsrc name=src ! appsink name=sink sync=false")
        let tags = Dictionary(collected.tags.map { ($0.name, $0.value) }, uniquingKeysWith: { a, _ in a })
        #expect(tags["title"] == "Überschrift" && tags["artist"] == "The Artist" && tags["track-number"] == "7")
        #expect(tags["description"] == "A description" && tags["encoder"] == "yt-gst tests")
        #expect(tags["datetime"]?.hasPrefix("2019-03-01") == true)
        #expect(collected.bytes.count == 1600)
    }

    @Test func infoShowsTheMetadataAsTextAndJSON() throws {
        let dir = try Paths.makeScratch("meta")
        defer { Paths.removeScratch(dir) }
        let path = dir.appendingPathComponent("meta.wav").path
        try Data(Self.fileWithMetadata(Self.metadataChunks)).write(to: URL(fileURLWithPath: path))
        let text = try Run.ytGst(["info", path])
        #expect(text.status == 0)
        for fragment in [
            "tags          INAM  Überschrift", "ITCH  nobody", "bext          description \"A description\"",
            "coding history \"A=PCM,F=8000 / A=PCM,F=48000\"",
            "cue points    id 1 at frame 100 \"Intro\", note \"quiet\"",
            "id 2 at frame 400 \"Verse\", 200 frames long", "sampler       unity note 60",
            "loop 7 forward 100...700, 3 times", "instrument    note 60, fine tune -2 cents, gain 3 dB",
        ] {
            #expect(text.stdout.contains(fragment), "missing \(fragment) in \(text.stdout)")
        }
        let json = try Run.ytGst(["info", "--json", path])
        let object = try #require(
            (try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]])?.first)
        #expect((object["tags"] as? [[String: String]])?.first?["value"] == "Überschrift")
        #expect((object["bext"] as? [String: Any])?["originator"] as? String == "yt-gst")
        #expect((object["cuePoints"] as? [[String: Any]])?.count == 2)
        #expect(((object["sampler"] as? [String: Any])?["loops"] as? [[String: Any]])?.first?["end"] as? Int == 700)
        #expect((object["instrument"] as? [String: Any])?["gain"] as? Int == 3)
    }

    /// sox writes Sony Wave64 independently of us: the samples must come out bit-exact.
    @Test func wave64FromSoxIsBitExact() throws {
        Gst.initialize()
        let dir = try Paths.makeScratch("w64")
        defer { Paths.removeScratch(dir) }
        let tone = SyntheticWAV.tone(frames: 4_410, rate: 44_100, channels: 2, bits: 16)
        let wav = try tone.write(to: dir.appendingPathComponent("in.wav"))
        let w64 = dir.appendingPathComponent("out.w64").path
        let r = try Run.run("/usr/bin/sox", [wav, "-t", "w64", w64])
        #expect(r.status == 0, "sox: \(r.stderr)")
        let feeder = try WAVFeeder(path: w64)
        #expect(feeder.file.container == .wave64 && feeder.file.frameCount == 4_410)
        #expect(feeder.file.chunks.map(\.id).contains("fmt ") && feeder.file.chunks.map(\.id).contains("data"))
        let collected = try Harness.collect(feeder, launch: "appsrc name=src ! appsink name=sink sync=false")
        #expect(collected.bytes == tone.samples)
    }

    /// A sparse RF64 file whose ds64 declares 5 GiB of audio: it opens, `info` reports it, and a seek to 0.5 s before
    /// the end plays exactly the marked last half second.
    @Test func sparseRF64OverFourGiBOpensAndSeeksNearItsEnd() throws {
        Gst.initialize()
        let dir = try Paths.makeScratch("rf64")
        defer { Paths.removeScratch(dir) }
        let path = dir.appendingPathComponent("big.wav").path
        let dataBytes: UInt64 = 5 << 30  // 5 GiB: 48 kHz stereo 16-bit, 7456.54 s
        let rate = 48_000
        let frameBytes = 4
        var header = Array("RF64".utf8) + Self.le(UInt32.max, 4) + Array("WAVE".utf8)
        header +=
            Array("ds64".utf8) + Self.le(28, 4) + Self.le(dataBytes + 72 - 8, 8) + Self.le(dataBytes, 8)
            + Self.le(dataBytes / UInt64(frameBytes), 8) + Self.le(0, 4)
        header += Self.chunk(
            "fmt ",
            Self.le(1, 2) + Self.le(2, 2) + Self.le(rate, 4) + Self.le(rate * 4, 4)
                + Self.le(4, 2) + Self.le(16, 2))
        header += Array("data".utf8) + Self.le(UInt32.max, 4)
        let dataOffset = UInt64(header.count)
        // The last 0.5 s: a counter pattern, so the seek target can be checked byte for byte.
        let tailFrames = rate / 2
        let tail = (0..<tailFrames * frameBytes).map { UInt8(truncatingIfNeeded: $0 * 7 + 1) }
        let fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0o644)
        #expect(fd >= 0)
        _ = header.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
        let tailOffset = off_t(dataOffset + dataBytes) - off_t(tail.count)
        _ = tail.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, tailOffset) }
        close(fd)

        let (file, _) = try WAVFile.open(path: path)
        #expect(file.container == .rf64 && file.dataByteCount == Int64(dataBytes) && file.warnings.isEmpty)
        #expect(file.frameCount == Int64(dataBytes) / 4)

        let info = try Run.ytGst(["info", "--json", path])
        #expect(info.status == 0 && info.stdout.contains("\"dataBytes\": 5368709120"), "\(info.stdout)")
        #expect(info.stdout.contains("\"frames\": \(dataBytes / 4)"))

        // Play, seek to the last half second (as FeederTests does for small files), then collect to the end.
        let feeder = try WAVFeeder(path: path)
        let player = Player(launch: "appsrc name=src ! appsink name=sink sync=true")
        defer { player.stop() }
        try player.play(feeder)
        let sink = try #require(player.pipeline).appSink(named: "sink")
        #expect(sink.pull(timeout: .seconds(5)) != nil)
        let target = ClockTime(frames: file.frameCount - Int64(tailFrames), rate: rate)
        try player.seek(to: target)
        var bytes: [UInt8] = []
        var firstPTS: ClockTime?
        while let sample = sink.pull(timeout: .seconds(5)) {
            if firstPTS == nil { firstPTS = sample.pts }
            bytes += sample.bytes
        }
        #expect(sink.isEndOfStream)
        #expect(firstPTS == target)
        #expect(bytes == tail, "got \(bytes.count) bytes after the seek, expected the \(tail.count)-byte tail")
    }

    /// Seeking compressed audio: the feeder restarts at the block that holds the time (stamped with its first frame),
    /// and the decoder clips that block to the seek segment, so the audio starts exactly at the time.
    @Test func seekingIMAADPCMStartsAtTheBlockHoldingTheTime() throws {
        Gst.initialize()
        let dir = try Paths.makeScratch("ima-seek")
        defer { Paths.removeScratch(dir) }
        let wav = try SyntheticWAV.tone(frames: 8_000 * 6, rate: 8_000, channels: 1).write(
            to: dir.appendingPathComponent("in.wav"))
        let ima = dir.appendingPathComponent("ima.wav").path
        let r = try Run.run("/usr/bin/sox", [wav, "-e", "ima-adpcm", ima])
        #expect(r.status == 0, "sox: \(r.stderr)")
        let feeder = try WAVFeeder(path: ima)
        guard case .blocks(let framesPerBlock?) = feeder.file.format.packetization else {
            Issue.record("IMA ADPCM is not block-packetized")
            return
        }
        let launch = Launch.insertingDecoder(
            afterSource: "src", in: "appsrc name=src ! audioconvert ! appsink name=sink sync=true",
            decoder: feeder.decoder)
        let player = Player(launch: launch)
        defer { player.stop() }
        try player.play(feeder)
        let sink = try #require(player.pipeline).appSink(named: "sink")
        #expect(sink.pull(timeout: .seconds(5)) != nil)
        try player.seek(to: ClockTime(seconds: 4))
        let after = try #require(sink.pull(timeout: .seconds(5)))
        #expect(after.pts == ClockTime(seconds: 4), "\(String(describing: after.pts))")
        var frames = after.bytes.count / 2
        while let sample = sink.pull(timeout: .seconds(5)) { frames += sample.bytes.count / 2 }
        #expect(sink.isEndOfStream)
        let total = Int(feeder.file.dataByteCount) / feeder.file.format.blockAlign * framesPerBlock
        #expect(frames == total - 4 * 8_000)
    }

    /// A tag GStreamer has no caps for, and one it has caps for but no installed decoder takes: one line, exit 1.
    @Test(arguments: [(UInt16(0x0004), "VSELP"), (UInt16(0x0075), "Voxware")])
    func aCodecNothingDecodesIsOneLineAndExitOne(tag: UInt16, name: String) throws {
        Gst.initialize()
        let dir = try Paths.makeScratch("codec")
        defer { Paths.removeScratch(dir) }
        var wav = SyntheticWAV.tone(frames: 800, rate: 8_000, channels: 1, bits: 16)
        wav.formatTag = tag
        let path = try wav.write(to: dir.appendingPathComponent("codec.wav"))
        let file = try WAVFile(reader: FileReader(path: path))
        if let caps = file.format.codecCaps, Gst.hasDecoder(forCaps: caps) { return }  // installed after all
        let error = #expect(throws: WAVError.self) { try WAVFeeder(path: path) }
        #expect(error?.kind == .unsupportedCodec && error?.formatTag == tag)
        let r = try Run.ytGst(["play", "--sink", "fakesink", path])
        #expect(r.status == 1)
        let lines = r.stderr.split(separator: "\n")
        #expect(lines.count == 1 && lines[0].contains(Hex4.text(tag)) && lines[0].contains(name), "\(r.stderr)")
    }
}

enum Hex4 {
    static func text(_ tag: UInt16) -> String {
        let digits = String(tag, radix: 16, uppercase: true)
        return "0x" + String(repeating: "0", count: 4 - digits.count) + digits
    }
}
