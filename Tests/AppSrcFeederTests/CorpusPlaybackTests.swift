// yt-gst — the shared corpus through real pipelines: every valid PCM/float file is fed through appsrc and must
// arrive bit-exact; every compressed one is decoded after the appsrc (A-law/mu-law bit-exact against libsndfile,
// ADPCM/GSM/MP3 within one block of its frame count and close to libsndfile's samples); every invalid file gets one
// clear error line or its real audio with a warning, from the binary.
import AppSrcFeeder
import Foundation
import GstPlayer
import Synchronization
import TestSupport
import Testing
import WAV

@Suite(.serialized) struct CorpusPlaybackTests {
    /// Tally by variant, printed at the end so the counts are visible in the test log.
    struct Tally {
        var rows: [String: (checked: Int, passed: Int, later: Int)] = [:]
        mutating func add(_ variant: String, checked: Bool, passed: Bool) {
            var entry = rows[variant, default: (0, 0, 0)]
            if checked { entry.checked += 1 } else { entry.later += 1 }
            if passed { entry.passed += 1 }
            rows[variant] = entry
        }
        func print(title: String) {
            let total = rows.values.reduce((0, 0, 0)) { ($0.0 + $1.checked, $0.1 + $1.passed, $0.2 + $1.later) }
            Swift.print("\(title): checked \(total.0), passed \(total.1), left for later \(total.2)")
            for (variant, entry) in rows.sorted(by: { $0.key < $1.key }) {
                Swift.print(
                    "  \(variant.padding(toLength: 34, withPad: " ", startingAt: 0)) checked \(entry.checked)  passed \(entry.passed)  later \(entry.later)"
                )
            }
        }
    }

    /// Feeds `path` through appsrc into an appsink and hashes the samples as little-endian bytes.
    func pcmHash(of path: String) throws -> (sha256: String, frames: Int64) {
        try pcmHash(of: try WAVFeeder(path: path), name: path)
    }

    /// Feeds `feeder` (a file's, or a pipe's) through appsrc into an appsink and hashes the samples as little-endian
    /// bytes of container width.
    func pcmHash(of feeder: WAVFeeder, name: String) throws -> (sha256: String, frames: Int64) {
        let player = Player(launch: "appsrc name=src ! appsink name=sink sync=false")
        defer { player.stop() }
        try player.play(feeder)
        let sink = try #require(player.pipeline).appSink(named: "sink")
        var hasher = SHA256.Hasher()
        var bytes = 0
        let deadline = ContinuousClock.now.advanced(by: .seconds(20))
        while ContinuousClock.now < deadline {
            if let sample = sink.pull(timeout: .milliseconds(20)) {
                Self.containerLittleEndian(sample.bytes, format: feeder.file.format).withUnsafeBytes {
                    hasher.update($0)
                }
                bytes += sample.bytes.count
            } else if sink.isEndOfStream {
                break
            }
            if case .error(let error)? = player.nextEvent(timeout: .zero)?.view { throw error }
        }
        #expect(sink.isEndOfStream, "\(name): no end of stream")
        let pushedUnitBytes = feeder.chunkBytes / Int(feeder.chunkUnits)
        return (hasher.finalize(), Int64(bytes / pushedUnitBytes))
    }

    /// Samples as the feeder pushes them (big-endian for RIFX, F64LE for packed 5-7 byte integers), back to the
    /// manifest's form: little-endian integers of the file's container width.
    static func containerLittleEndian(_ pushed: [UInt8], format: WAVFormat) -> [UInt8] {
        let swapWidth =
            format.byteOrder == .big && format.rawSampleFormat?.rawValue.hasSuffix("BE") == true
            ? format.bytesPerSample : 1
        var little = swapWidth > 1 ? swapped(pushed, width: swapWidth) : pushed
        if format.rawSampleFormat == .f64LE && format.encoding == .pcm {
            little = narrowed(little, width: format.bytesPerSample)
        }
        return little
    }

    /// F64LE samples widened from packed `width`-byte integers, back to those integers (little-endian).
    static func narrowed(_ bytes: [UInt8], width: Int) -> [UInt8] {
        var out: [UInt8] = []
        let scale = Double(sign: .plus, exponent: 8 * width - 1, significand: 1)
        for start in stride(from: 0, to: bytes.count - 7, by: 8) {
            var bits: UInt64 = 0
            for i in 0..<8 { bits |= UInt64(bytes[start + i]) << UInt64(8 * i) }
            let value = Int64(Double(bitPattern: bits) * scale)
            for i in 0..<width { out.append(UInt8(truncatingIfNeeded: value >> Int64(8 * i))) }
        }
        return out
    }

    static func swapped(_ bytes: [UInt8], width: Int) -> [UInt8] {
        var out = bytes
        for start in stride(from: 0, to: bytes.count - width + 1, by: width) {
            for i in 0..<width { out[start + i] = bytes[start + width - 1 - i] }
        }
        return out
    }

    @Test(.enabled(if: CorpusManifest.shouldRun, Comment(rawValue: CorpusManifest.skipNote)))
    func validPCMAndFloatArriveBitExact() throws {
        try checkValidPCMAndFloat(title: "corpus expected_valid=yes PCM/float through appsrc ! appsink") { row in
            try pcmHash(of: row.url.path)
        }
    }

    /// The same files through a pipe, at the library level: a `StreamReader` over the file's bytes handed out in
    /// odd-sized pieces (short reads everywhere), through a real appsrc; the samples must be the manifest's.
    @Test(.enabled(if: CorpusManifest.shouldRun, Comment(rawValue: CorpusManifest.skipNote)))
    func validPCMAndFloatArriveBitExactFromAStream() throws {
        let title = "corpus expected_valid=yes PCM/float from a stream through appsrc ! appsink"
        try checkValidPCMAndFloat(title: title) { row in
            let bytes = Array(try Data(contentsOf: row.url))
            let reader = StreamReader(MemoryStream(bytes, pieceSize: 4093))
            let file = try WAVFile(reader: reader)
            #expect(file.isStream, "\(row.path)")
            return try pcmHash(of: try WAVFeeder(file: file, reader: reader, name: row.path), name: row.path)
        }
    }

    /// Hashes the samples of every expected-valid PCM or float file of the corpus with `hash` and compares them
    /// and their frame count with the manifest's; prints the tally per variant under `title`.
    private func checkValidPCMAndFloat(
        title: String, hash: (CorpusRow) throws -> (sha256: String, frames: Int64)
    ) throws {
        Gst.initialize()
        var tally = Tally()
        for row in try CorpusManifest.rows() where row.expectedValid && row.isPCMOrFloat {
            var passed = false
            do {
                let (hash, frames) = try hash(row)
                let hashOK = row.pcmSHA256.isEmpty || hash == row.pcmSHA256
                passed = hashOK && frames == row.frames
                #expect(hashOK, "\(row.path): sha256 \(hash) != \(row.pcmSHA256)")
                #expect(frames == row.frames, "\(row.path): \(frames) frames, manifest says \(row.frames ?? -1)")
            } catch {
                Issue.record("\(row.path): \(error)")
            }
            tally.add(row.variant, checked: true, passed: passed)
        }
        tally.print(title: title)
    }

    /// The same files through a real pipe into the binary: `cat FILE | yt-gst play - --pipeline '... filesink'`, four
    /// processes at a time; what reaches the file sink must be the manifest's samples.
    @Test(.enabled(if: CorpusManifest.shouldRun, Comment(rawValue: CorpusManifest.skipNote)))
    func validPCMAndFloatPlayBitExactThroughCatIntoPlayDash() throws {
        let dir = try Paths.makeScratch("corpus-pipe")
        defer { Paths.removeScratch(dir) }
        let rows = try CorpusManifest.rows().filter { $0.expectedValid && $0.isPCMOrFloat }
        let failures = Mutex<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 4) { worker in
            for (index, row) in rows.enumerated() where index % 4 == worker {
                if let why = Self.playThroughCat(row, output: dir.appendingPathComponent("\(index).raw").path) {
                    failures.withLock { $0.append("\(row.path): \(why)") }
                }
            }
        }
        for failure in failures.withLock({ $0 }) { Issue.record(Comment(rawValue: failure)) }
        print(
            "corpus expected_valid=yes PCM/float through cat | yt-gst play -: \(rows.count) files,"
                + " \(failures.withLock { $0.count }) failed")
        #expect(rows.count > 100)
    }

    /// Plays `row` through `cat | yt-gst play -` into `output`; nil when the samples are the manifest's.
    static func playThroughCat(_ row: CorpusRow, output: String) -> String? {
        do {
            let (file, _) = try WAVFile.open(path: row.url.path)
            let r = try Run.run(
                "/bin/sh",
                [
                    "-c", "cat \"$1\" | \"$2\" play - -q --pipeline \"appsrc name=src ! filesink location=$3\"", "sh",
                    row.url.path, Paths.binary, output,
                ], timeout: 30)
            guard r.status == 0 else { return "exit \(r.status): \(r.stderr)" }
            if row.frames == 0 {
                // As from a path: a valid file without audio plays as nothing (its warning silenced by -q).
                let pushed = (try? Data(contentsOf: URL(fileURLWithPath: output)))?.count
                return r.stderr.isEmpty && pushed == 0 ? nil : "\(pushed ?? -1) bytes, stderr: \(r.stderr)"
            }
            let pushed = Array(try Data(contentsOf: URL(fileURLWithPath: output)))
            let samples = containerLittleEndian(pushed, format: file.format)
            guard samples.count / file.format.blockAlign == Int(row.frames ?? -1) else {
                return "\(samples.count / file.format.blockAlign) frames, manifest \(row.frames ?? -1)"
            }
            let hash = SHA256.hex(samples)
            return row.pcmSHA256.isEmpty || hash == row.pcmSHA256 ? nil : "sha256 \(hash) != \(row.pcmSHA256)"
        } catch {
            return "\(error)"
        }
    }

    /// The valid files without audio play as nothing from their path, as sox and gst-launch play them: exit 0, the
    /// header's warnings (the one that says the data chunk holds no audio, and any other), and a copy through wavenc
    /// that is a complete, empty WAV of their format (PCM and float; a decoder between gets no buffer, and wavenc
    /// then leaves its placeholder sizes).
    @Test(.enabled(if: CorpusManifest.shouldRun, Comment(rawValue: CorpusManifest.skipNote)))
    func validFilesWithoutAudioPlayAsNothing() throws {
        let dir = try Paths.makeScratch("corpus-empty")
        defer { Paths.removeScratch(dir) }
        let rows = try CorpusManifest.rows().filter { $0.expectedValid && $0.frames == 0 }
        for row in rows {
            let copy = dir.appendingPathComponent("copy.wav").path
            try? FileManager.default.removeItem(atPath: copy)
            let r = try Run.ytGst(["play", row.url.path, "--sink", "wavenc ! filesink location=\(copy)"], timeout: 20)
            #expect(r.status == 0, "\(row.path): exit \(r.status), stderr: \(r.stderr)")
            let warnings = try WAVFile.open(path: row.url.path).file.warnings
            #expect(warnings.last == "the data chunk holds no audio", "\(row.path): \(warnings)")
            let lines = warnings.map { "yt-gst: \(row.url.path): warning: \($0)\n" }.joined()
            #expect(r.stderr == lines, "\(row.path): stderr: \(r.stderr)")
            guard row.isPCMOrFloat else { continue }
            let (written, _) = try WAVFile.open(path: copy)
            #expect(written.frameCount == 0 && written.warnings == ["the data chunk holds no audio"], "\(row.path)")
            #expect(written.format.channels == row.channels, "\(row.path)")
        }
        print("corpus expected_valid=yes without audio through yt-gst play: \(rows.count) files")
        #expect(rows.count >= 4)
    }

    /// The launch string compressed files are decoded with: the feeder's decoder goes in by
    /// `Launch.insertingDecoder`, exactly as `play` does it.
    static let rawLaunch =
        "appsrc name=src ! audioconvert ! audio/x-raw,format=S16LE,layout=interleaved ! appsink name=sink sync=false"

    /// Feeds a compressed file through appsrc and a decoder and returns the decoded interleaved S16LE bytes.
    static func decodedS16(of path: String) throws -> (bytes: [UInt8], feeder: WAVFeeder) {
        let feeder = try WAVFeeder(path: path)
        #expect(feeder.needsDecoder, "\(path): compressed but needsDecoder is false")
        let player = Player(launch: Launch.insertingDecoder(afterSource: "src", in: rawLaunch, decoder: feeder.decoder))
        defer { player.stop() }
        try player.play(feeder)
        let sink = try #require(player.pipeline).appSink(named: "sink")
        var bytes: [UInt8] = []
        let deadline = ContinuousClock.now.advanced(by: .seconds(20))
        var ended = false
        while ContinuousClock.now < deadline, !ended {
            if let sample = sink.pull(timeout: .milliseconds(20)) {
                bytes += sample.bytes
            } else if sink.isEndOfStream {
                ended = true
            }
            switch player.nextEvent(timeout: .zero)?.view {
            case .error(let error)?: throw error
            case .endOfStream?: ended = true
            default: break
            }
        }
        while let sample = sink.pull(timeout: .milliseconds(5)) { bytes += sample.bytes }
        #expect(ended, "\(path): no end of stream")
        return (bytes, feeder)
    }

    /// The data chunk's bytes (small corpus files only).
    static func dataBytes(_ feeder: WAVFeeder) throws -> [UInt8] {
        let reader = try FileReader(path: feeder.displayName)
        var bytes = [UInt8](repeating: 0, count: Int(feeder.file.dataByteCount))
        let read = try bytes.withUnsafeMutableBytes { try reader.read(at: feeder.file.dataOffset, into: $0) }
        return Array(bytes.prefix(read))
    }

    /// What a compressed corpus file must do, and whether it did: (passed, how it was judged).
    static func judgeCompressed(_ row: CorpusRow) throws -> (Bool, String) {
        let (bytes, feeder) = try decodedS16(of: row.url.path)
        let format = feeder.file.format
        let frames = Int64(bytes.count / 2 / format.channels)
        let expected = row.frames ?? -1
        let hash = SHA256.hex(bytes)
        switch format.effectiveTag {
        case 0x0006, 0x0007:
            // G.711 has one right answer: bit-exact with libsndfile, every frame.
            return (hash == row.decodedS16SHA256 && frames == expected, "sha256 \(hash), \(frames) frames")
        default:
            let block: Int64
            switch format.packetization {
            case .blocks(let framesPerBlock?): block = Int64(framesPerBlock)
            default: block = 1152  // an MPEG-1 layer III frame
            }
            let framesOK = abs(frames - expected) <= block
            if hash == row.decodedS16SHA256 { return (framesOK, "\(frames) frames (block \(block)), bit-exact") }
            // Not bit-exact: measure against a reference decode that is shown to be libsndfile's, or sox's.
            let reference: [Int16]
            if format.effectiveTag == 0x0011 {
                let data = try dataBytes(feeder)
                let decoded = ReferenceDecoders.imaADPCM(data, channels: format.channels, blockAlign: format.blockAlign)
                let referenceHash = SHA256.hex(ReferenceDecoders.bytes(decoded))
                #expect(
                    referenceHash == row.decodedS16SHA256, "\(row.path): reference IMA decoder differs from libsndfile")
                reference = decoded
            } else {
                reference = try ReferenceDecoders.sox(row.url.path)
            }
            let samples = ReferenceDecoders.int16(bytes)
            let snr = ReferenceDecoders.snr(samples, reference: reference)
            let rms = ReferenceDecoders.rmsError(samples, reference: reference)
            return (
                framesOK && ReferenceDecoders.isClose(samples, reference: reference),
                "\(frames) frames (block \(block)), SNR \(snr.isFinite ? String(Int(snr.rounded())) : "inf") dB,"
                    + " RMS error \(Int(rms.rounded())) LSB"
            )
        }
    }

    @Test(.enabled(if: CorpusManifest.shouldRun, Comment(rawValue: CorpusManifest.skipNote)))
    func validCompressedFilesDecodeAfterTheAppsrc() throws {
        Gst.initialize()
        var tally = Tally()
        for row in try CorpusManifest.rows() where row.expectedValid && !row.isPCMOrFloat {
            var passed = false
            do {
                let (ok, how) = try Self.judgeCompressed(row)
                passed = ok
                #expect(ok, "\(row.path): \(how); manifest: \(row.frames ?? -1) frames, \(row.decodedS16SHA256)")
            } catch {
                Issue.record("\(row.path): \(error)")
            }
            tally.add(row.variant, checked: true, passed: passed)
        }
        tally.print(title: "corpus expected_valid=yes compressed through appsrc ! its decoder ! appsink")
    }

    @Test(.enabled(if: CorpusManifest.shouldRun, Comment(rawValue: CorpusManifest.skipNote)))
    func invalidFilesGiveOneErrorLineOrTheirAudioWithAWarning() throws {
        let dir = try Paths.makeScratch("corpus-invalid")
        defer { Paths.removeScratch(dir) }
        var tally = Tally()
        var rejected = 0
        var played = 0
        let rows = try CorpusManifest.rows()
        let intact = try CorpusManifest.intactAudio(rows: rows)
        for row in rows where !row.expectedValid {
            let output = dir.appendingPathComponent("out.raw").path
            let r = try Run.ytGst(
                ["play", row.url.path, "--pipeline", "appsrc name=src ! filesink location=\(output)"], timeout: 20)
            let lines = r.stderr.split(separator: "\n")
            var passed = false
            switch r.status {
            case 1:
                passed = lines.count == 1 && lines[0].hasPrefix("yt-gst: \(row.url.path): ")
                #expect(passed, "\(row.path): expected one error line, got \(r.stderr)")
                rejected += 1
            case 0:
                // Played: only a file listed in corpus-intact-audio.tsv may be, with a warning, and what came out
                // must be its intact audio sample for sample (its valid sibling's, decoded by sox).
                let got = (try? Data(contentsOf: URL(fileURLWithPath: output))).map { Array($0) } ?? []
                guard let entry = intact[row.path] else {
                    Issue.record("\(row.path): played \(got.count) bytes but is not in corpus-intact-audio.tsv")
                    break
                }
                let expected = try CorpusManifest.intactSamples(entry)
                let warned = !lines.isEmpty && lines.allSatisfy { $0.contains("warning:") }
                passed = warned && got == expected
                let intactText = "intact audio \(expected.count) bytes, sha256 \(SHA256.hex(expected))"
                #expect(
                    passed,
                    "\(row.path): played \(got.count) bytes, sha256 \(SHA256.hex(got)); \(intactText); stderr: \(r.stderr)"
                )
                played += 1
            default:
                #expect(Bool(false), "\(row.path): exit \(r.status) (timed out: \(r.timedOut)), stderr: \(r.stderr)")
            }
            try? FileManager.default.removeItem(atPath: output)
            tally.add(row.variant, checked: true, passed: passed)
        }
        tally.print(
            title:
                "corpus expected_valid=no through yt-gst play (\(rejected) rejected, \(played) played with a warning)")
    }
}
