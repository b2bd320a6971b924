// yt-gst — the shared corpus through real pipelines: every valid PCM/float file is fed through appsrc and must
// arrive bit-exact; every invalid file gets one clear error line or its real audio with a warning, from the binary.
import AppSrcFeeder
import Foundation
import GstPlayer
import Testing
import TestSupport

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
                Swift.print("  \(variant.padding(toLength: 34, withPad: " ", startingAt: 0)) checked \(entry.checked)  passed \(entry.passed)  later \(entry.later)")
            }
        }
    }

    /// Feeds `path` through appsrc into an appsink and hashes the samples as little-endian bytes.
    func pcmHash(of path: String) throws -> (sha256: String, frames: Int64) {
        let feeder = try WAVFeeder(path: path)
        let player = Player(launch: "appsrc name=src ! appsink name=sink sync=false")
        defer { player.stop() }
        try player.play(feeder)
        let sink = try #require(player.pipeline).appSink(named: "sink")
        var hasher = SHA256.Hasher()
        var bytes = 0
        let format = feeder.file.format
        let swapWidth = format.byteOrder == .big && format.rawSampleFormat?.hasSuffix("BE") == true ? format.bytesPerSample : 1
        let narrowWidth = format.rawSampleFormat == "F64LE" && format.encoding == .pcm ? format.bytesPerSample : nil
        let deadline = ContinuousClock.now.advanced(by: .seconds(20))
        while ContinuousClock.now < deadline {
            if let sample = sink.pull(timeout: .milliseconds(20)) {
                var little = swapWidth > 1 ? Self.swapped(sample.bytes, width: swapWidth) : sample.bytes
                if let narrowWidth { little = Self.narrowed(little, width: narrowWidth) }
                little.withUnsafeBytes { hasher.update($0) }
                bytes += sample.bytes.count
            } else if sink.isEndOfStream {
                break
            }
            if case .error(let error)? = player.nextEvent(timeout: .zero) { throw error }
        }
        #expect(sink.isEndOfStream, "\(path): no end of stream")
        let pushedFrameBytes = feeder.chunkBytes / Int(feeder.chunkFrames)
        return (hasher.finalize(), Int64(bytes / pushedFrameBytes))
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

    @Test(.enabled(if: Paths.corpusAvailable, Comment(rawValue: CorpusManifest.skipNote)))
    func validPCMAndFloatArriveBitExact() throws {
        Gst.initialize()
        var tally = Tally()
        for row in try CorpusManifest.rows() where row.expectedValid {
            guard row.isPCMOrFloat else {
                tally.add(row.variant, checked: false, passed: false)  // other codecs: the codec issue
                continue
            }
            var passed = false
            do {
                let (hash, frames) = try pcmHash(of: row.url.path)
                let hashOK = row.pcmSHA256.isEmpty || hash == row.pcmSHA256
                passed = hashOK && frames == row.frames
                #expect(hashOK, "\(row.path): sha256 \(hash) != \(row.pcmSHA256)")
                #expect(frames == row.frames, "\(row.path): \(frames) frames, manifest says \(row.frames ?? -1)")
            } catch {
                Issue.record("\(row.path): \(error)")
            }
            tally.add(row.variant, checked: true, passed: passed)
        }
        tally.print(title: "corpus expected_valid=yes through appsrc ! appsink")
    }

    @Test(.enabled(if: Paths.corpusAvailable, Comment(rawValue: CorpusManifest.skipNote)))
    func invalidFilesGiveOneErrorLineOrTheirAudioWithAWarning() throws {
        let dir = try Paths.makeScratch("corpus-invalid")
        defer { Paths.removeScratch(dir) }
        var tally = Tally()
        var rejected = 0
        var played = 0
        for row in try CorpusManifest.rows() where !row.expectedValid {
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
                // Accepted: the audio that is really there, with a warning, and exactly as many frames as the
                // reader found between the data chunk's start and the end of the real data.
                let (wav, _) = try WAVFile.open(path: row.url.path)
                let size = (try? FileManager.default.attributesOfItem(atPath: output)[.size] as? Int) ?? -1
                passed = !lines.isEmpty && lines.allSatisfy { $0.contains("warning:") }
                    && Int64(size) == wav.dataByteCount
                #expect(passed, "\(row.path): played \(size) bytes (reader: \(wav.dataByteCount)), stderr: \(r.stderr)")
                played += 1
            default:
                #expect(Bool(false), "\(row.path): exit \(r.status) (timed out: \(r.timedOut)), stderr: \(r.stderr)")
            }
            try? FileManager.default.removeItem(atPath: output)
            tally.add(row.variant, checked: true, passed: passed)
        }
        tally.print(title: "corpus expected_valid=no through yt-gst play (\(rejected) rejected, \(played) played with a warning)")
    }
}
