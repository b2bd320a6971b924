// yt-gst — generated variants: every container × codec × header edge, played through real pipelines.
//
// Each codec's payload is made once (PCM and float by hand; A-law, mu-law, IMA ADPCM, MS ADPCM and GSM by sox from
// the same tone; MP3 by GStreamer's lamemp3enc), then wrapped by `VariantWAV` in RIFF, RIFX, RF64, BW64 and Wave64
// with each header edge. PCM and float must arrive bit-exact; compressed variants must decode to exactly what the
// plain RIFF file decodes to, which itself is checked against an independent decode (sox, or the IMA reference).
import AppSrcFeeder
import Foundation
import GstPlayer
import TestSupport
import Testing
import WAV

/// A codec's payload for the generated files.
struct Payload: @unchecked Sendable {
    var name: String
    var fmt: [UInt8]
    var data: [UInt8]
    var fact: UInt32?
    /// For PCM/float: the sample width to swap in RIFX, and the little-endian raw format the appsink asks for.
    var sampleBytes: Int?
    var rawFormat: String?
    /// Frames of a block (tolerance for compressed frame counts).
    var block: Int
}

enum Payloads {
    static let rate = 8_000
    static let frames = 4_000

    /// A 440 Hz tone as Int16.
    static let tone: [Int16] = (0..<frames).map {
        Int16((sin(2 * Double.pi * 440 * Double($0) / Double(rate)) * 12_000).rounded())
    }

    static func pcm(_ name: String, bits: Int, float: Bool = false) -> Payload {
        var data: [UInt8] = []
        for sample in tone {
            let unit = Double(sample) / 32_768
            switch (float, bits) {
            case (false, 8): data.append(UInt8(Int(sample >> 8) + 128))
            case (false, 16): VariantWAV.le16(&data, Int(sample))
            case (false, 24):
                for i in 0..<3 { data.append(UInt8(truncatingIfNeeded: (Int(sample) << 8 | 0x5A) >> (8 * i))) }
            case (false, _): VariantWAV.le32(&data, Int(sample) << 16 | 0x1234)
            case (true, 32): VariantWAV.le32(&data, Int(Float(unit).bitPattern))
            default: VariantWAV.le64(&data, unit.bitPattern)
            }
        }
        let bytes = bits / 8
        let format = float ? "F\(bits)LE" : bits == 8 ? "U8" : "S\(bits)LE"
        let fmt = VariantWAV.fmtBody(
            tag: float ? 3 : 1, channels: 1, rate: rate, bytesPerSecond: rate * bytes, blockAlign: bytes, bits: bits,
            extra: float ? [] : nil)
        return Payload(
            name: name, fmt: fmt, data: data, fact: float ? UInt32(frames) : nil, sampleBytes: bytes,
            rawFormat: format, block: 1)
    }

    /// A tone encoded by sox (`-e a-law`, `ima-adpcm`, ...): its fmt body and data as sox wrote them.
    static func sox(_ name: String, encoding: [String]) throws -> Payload {
        let dir = try Paths.makeScratch("payload")
        defer { Paths.removeScratch(dir) }
        let input = dir.appendingPathComponent("in.wav")
        var samples: [UInt8] = []
        for sample in tone { VariantWAV.le16(&samples, Int(sample)) }
        try SyntheticWAV(sampleRate: rate, channels: 1, bitsPerSample: 16, formatTag: 1, samples: samples).write(
            to: input)
        let output = dir.appendingPathComponent("out.wav")
        let r = try Run.run("/usr/bin/sox", [input.path] + encoding + [output.path])
        guard r.status == 0 else { throw HarnessError(description: "sox \(encoding): \(r.stderr)") }
        let (file, reader) = try WAVFile.open(path: output.path)
        let fmtChunk = try #require(file.chunks.first { $0.id == "fmt " })
        let fmt = try reader.bytes(at: fmtChunk.offset + 8, count: Int(fmtChunk.size))
        let data = try reader.bytes(at: file.dataOffset, count: Int(file.dataByteCount))
        let block: Int
        if case .blocks(let framesPerBlock?) = file.format.packetization { block = framesPerBlock } else { block = 1 }
        return Payload(name: name, fmt: fmt, data: data, fact: file.factFrames.map { UInt32($0) }, block: block)
    }

    /// A tone as MPEG layer III (lamemp3enc, CBR 16 kbit/s), in an MPEGLAYER3WAVEFORMAT fmt.
    static func mp3() throws -> Payload {
        let dir = try Paths.makeScratch("payload")
        defer { Paths.removeScratch(dir) }
        let out = dir.appendingPathComponent("tone.mp3")
        let r = try Run.run(
            "/usr/bin/gst-launch-1.0",
            [
                "-q", "audiotestsrc", "num-buffers=8", "samplesperbuffer=500", "freq=440", "!",
                "audio/x-raw,rate=8000,channels=1", "!", "lamemp3enc", "target=bitrate", "cbr=true", "bitrate=16", "!",
                "filesink", "location=\(out.path)",
            ])
        guard r.status == 0 else { throw HarnessError(description: "lamemp3enc: \(r.stderr)") }
        let data = Array(try Data(contentsOf: out))
        var extra: [UInt8] = []
        VariantWAV.le16(&extra, 1)  // wID: MPEGLAYER3_ID_MPEG
        VariantWAV.le32(&extra, 2)  // fdwFlags: padding off
        VariantWAV.le16(&extra, 72)  // nBlockSize
        VariantWAV.le16(&extra, 1)  // nFramesPerBlock
        VariantWAV.le16(&extra, 1393)  // nCodecDelay
        let fmt = VariantWAV.fmtBody(
            tag: 0x55, channels: 1, rate: rate, bytesPerSecond: 2000, blockAlign: 1, bits: 0, extra: extra)
        return Payload(name: "MP3", fmt: fmt, data: data, fact: UInt32(frames), block: 1152)
    }

    static func all() throws -> [Payload] {
        [
            pcm("PCM 8", bits: 8), pcm("PCM 16", bits: 16), pcm("PCM 24", bits: 24), pcm("PCM 32", bits: 32),
            pcm("float 32", bits: 32, float: true), pcm("float 64", bits: 64, float: true),
            try sox("A-law", encoding: ["-e", "a-law"]), try sox("mu-law", encoding: ["-e", "mu-law"]),
            try sox("IMA ADPCM", encoding: ["-e", "ima-adpcm"]), try sox("MS ADPCM", encoding: ["-e", "ms-adpcm"]),
            try sox("GSM 6.10", encoding: ["-e", "gsm-full-rate"]), try mp3(),
        ]
    }
}

@Suite(.serialized) struct GeneratedVariantTests {
    static let rawLaunch =
        "appsrc name=src ! audioconvert ! audio/x-raw,format=FORMAT,layout=interleaved ! appsink name=sink sync=false"
    static let decodeLaunch =
        "appsrc name=src ! audioconvert ! audio/x-raw,format=S16LE,layout=interleaved ! appsink name=sink sync=false"

    func play(_ bytes: [UInt8], payload: Payload) throws -> (Harness.Collected, WAVFeeder) {
        let reader = MemoryReader(bytes)
        let file = try WAVFile(reader: reader)
        let feeder = try WAVFeeder(file: file, reader: reader, name: payload.name, chunkMilliseconds: 50)
        let launch =
            feeder.needsDecoder
            ? Launch.insertingDecoder(afterSource: "src", in: Self.decodeLaunch, decoder: feeder.decoder)
            : Self.rawLaunch.replacingOccurrences(of: "FORMAT", with: payload.rawFormat ?? "S16LE")
        return (try Harness.collect(feeder, launch: launch), feeder)
    }

    @Test func everyContainerCodecAndEdge() throws {
        Gst.initialize()
        var table: [String: (files: Int, passed: Int)] = [:]
        for payload in try Payloads.all() {
            let builder = VariantWAV(fmt: payload.fmt, data: payload.data, factFrames: payload.fact)
            // The reference: the plain RIFF file.
            let (reference, referenceFeeder) = try play(builder.bytes(container: .riff, edge: .plain), payload: payload)
            if payload.sampleBytes != nil {
                #expect(reference.bytes == payload.data, "\(payload.name): plain RIFF is not bit-exact")
            } else {
                try checkAgainstIndependentDecode(reference.bytes, payload: payload, feeder: referenceFeeder)
            }
            for container in TestContainer.allCases {
                for edge in TestEdge.allCases where edge.applies(to: container) {
                    let label = "\(container.rawValue) \(payload.name) \(edge.rawValue)"
                    var passed = false
                    do {
                        let bytes = builder.bytes(container: container, edge: edge, sampleBytes: payload.sampleBytes)
                        let (got, feeder) = try play(bytes, payload: payload)
                        passed = got.bytes == reference.bytes
                        #expect(passed, "\(label): \(got.bytes.count) bytes, reference \(reference.bytes.count)")
                        let expectWarning = edge == .streamingZero || edge == .streamingUnknown || edge == .pastEnd
                        #expect(
                            feeder.file.warnings.isEmpty != expectWarning, "\(label): warnings \(feeder.file.warnings)")
                        if edge == .chunksAround {
                            #expect(feeder.file.metadata.info.map(\.value) == ["variant", "yt-gst"], "\(label)")
                            #expect(
                                got.tags.contains(Message.Tag(name: "title", value: "variant")),
                                "\(label): tags \(got.tags)")
                        }
                    } catch {
                        Issue.record("\(label): \(error)")
                    }
                    table["\(container.rawValue) \(payload.name)", default: (0, 0)].files += 1
                    if passed { table["\(container.rawValue) \(payload.name)", default: (0, 0)].passed += 1 }
                }
            }
        }
        print("generated variants (container codec: files passed):")
        for (variant, entry) in table.sorted(by: { $0.key < $1.key }) {
            print("  \(variant.padding(toLength: 24, withPad: " ", startingAt: 0)) \(entry.files) \(entry.passed)")
        }
    }

    /// The plain RIFF decode against a decoder that is not GStreamer's: sox for G.711 (bit-exact), MS ADPCM and GSM
    /// (close), the IMA reference for IMA ADPCM (close), sox with libmad for MP3 (aligned, within a few LSB).
    func checkAgainstIndependentDecode(_ decoded: [UInt8], payload: Payload, feeder: WAVFeeder) throws {
        let frames = decoded.count / 2
        #expect(abs(frames - Payloads.frames) <= 2 * payload.block, "\(payload.name): \(frames) frames decoded")
        let samples = ReferenceDecoders.int16(decoded)
        let reference: [Int16]
        let dir = try Paths.makeScratch("reference")
        defer { Paths.removeScratch(dir) }
        switch payload.name {
        case "IMA ADPCM":
            reference = ReferenceDecoders.imaADPCM(payload.data, channels: 1, blockAlign: feeder.file.format.blockAlign)
        case "MP3":
            let mp3 = dir.appendingPathComponent("tone.mp3")
            try Data(payload.data).write(to: mp3)
            checkMP3(samples, reference: try ReferenceDecoders.sox(mp3.path))
            return
        default:
            let wav = dir.appendingPathComponent("in.wav")
            let builder = VariantWAV(fmt: payload.fmt, data: payload.data, factFrames: payload.fact)
            try Data(builder.bytes(container: .riff, edge: .plain)).write(to: wav)
            reference = try ReferenceDecoders.sox(wav.path)
        }
        let snr = ReferenceDecoders.snr(samples, reference: reference)
        if payload.name == "A-law" || payload.name == "mu-law" {
            #expect(samples == reference, "\(payload.name): not bit-exact with sox")
        } else {
            #expect(
                ReferenceDecoders.isClose(samples, reference: reference),
                "\(payload.name): SNR \(snr) dB against the independent decode")
        }
    }

    /// The MP3 payload as GStreamer decodes it after the appsrc (libmpg123) against sox's decode of the same stream
    /// (libmad). Neither trims the encoder delay, so they line up at lag 0 (measured: at most 1 LSB apart, SNR
    /// 107 dB); the lag is searched only to say how far off a wrong output is, and must be 0. libmad leaves out the
    /// last frame, so every reference sample must be covered.
    func checkMP3(_ samples: [Int16], reference: [Int16]) {
        let lag = ReferenceDecoders.bestLag(samples, reference: reference, within: 1152)
        #expect(lag == 0, "MP3: the decode is \(lag) samples off sox's")
        #expect(
            samples.count >= reference.count, "MP3: \(samples.count) samples decoded, sox gives \(reference.count)")
        let snr = ReferenceDecoders.snr(samples, reference: reference)
        let maxDifference = ReferenceDecoders.maxDifference(samples, reference: reference)
        #expect(snr >= 60 && maxDifference <= 4, "MP3: SNR \(snr) dB, max difference \(maxDifference) LSB against sox")
        print("MP3 against sox (libmad): lag \(lag), SNR \(Int(snr.rounded())) dB, max difference \(maxDifference) LSB")
    }
}
