// yt-gst — the WAV reader against every file of the shared corpus and its manifest.

import AppSrcFeeder
import Foundation
import TestSupport
import Testing
import WAV

@Suite("WAV corpus headers")
struct CorpusHeaderTests {
    @Test(.enabled(if: CorpusManifest.shouldRun, Comment(rawValue: CorpusManifest.skipNote)))
    func everyManifestRow() throws {
        var raw = (checked: 0, passed: 0, hashed: 0)
        var later: [String: Int] = [:]
        var invalid = (checked: 0, rejected: 0, refused: 0, accepted: 0)
        var invalidPassed = 0

        let rows = try CorpusManifest.rows()
        let intact = try CorpusManifest.intactAudio(rows: rows)
        for row in rows {
            let path = row.url.path
            if !row.expectedValid {
                invalid.checked += 1
                let outcome = judgeInvalid(row, path: path, intact: intact[row.path])
                switch outcome {
                case .rejected: invalid.rejected += 1
                case .refused: invalid.refused += 1
                case .accepted: invalid.accepted += 1
                case .failed(let why): Issue.record("\(row.path): \(why)")
                }
                if case .failed = outcome {} else { invalidPassed += 1 }
            } else if row.isPCMOrFloat {
                raw.checked += 1
                if let why = try checkRaw(row, path: path) {
                    Issue.record("\(row.path): \(why)")
                } else {
                    raw.passed += 1
                    if !row.pcmSHA256.isEmpty { raw.hashed += 1 }
                }
            } else {
                do {
                    let file = try WAVFile(reader: FileReader(path: path))
                    #expect(file.format.channels == row.channels, "\(row.path)")
                    #expect(file.format.sampleRate == row.sampleRate, "\(row.path)")
                    let error = #expect(throws: WAVError.self, "\(row.path)") { try file.requirePlayableRaw() }
                    #expect(error?.kind == .unsupportedCodec, "\(row.path)")
                    #expect(error?.formatTag == row.effectiveTag, "\(row.path)")
                    later[file.format.formatName, default: 0] += 1
                } catch {
                    Issue.record("\(row.path): header should open for info, got: \(error)")
                }
            }
        }

        let laterText = later.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
        print(
            "WAV corpus: PCM/float \(raw.passed)/\(raw.checked) passed (\(raw.hashed) sha256-checked);"
                + " other codecs \(later.values.reduce(0, +)) header-checked, decoded by CorpusPlaybackTests (\(laterText));"
                + " invalid \(invalidPassed)/\(invalid.checked) passed (\(invalid.rejected) rejected,"
                + " \(invalid.refused) refused as compressed, \(invalid.accepted) accepted with their intact samples)")
        #expect(raw.checked > 0 && raw.passed == raw.checked)
        #expect(invalidPassed == invalid.checked)
    }

    /// Opens a valid PCM/float row and compares everything the manifest knows; nil when it all matches.
    private func checkRaw(_ row: CorpusRow, path: String) throws -> String? {
        let file: WAVFile
        let reader: any ByteReader
        do {
            (file, reader) = try WAVFile.open(path: path)
            try file.requirePlayableRaw()
        } catch {
            return "should open as PCM/float, got: \(error)"
        }
        let format = file.format
        guard format.channels == row.channels, format.sampleRate == row.sampleRate else {
            return "channels/rate \(format.channels)/\(format.sampleRate), manifest"
                + " \(row.channels ?? -1)/\(row.sampleRate ?? -1)"
        }
        guard file.frameCount == row.frames else {
            return "\(file.frameCount) frames, manifest \(row.frames ?? -1) (warnings: \(file.warnings))"
        }
        let expected = row.pcmSHA256
        guard !expected.isEmpty else { return nil }
        let actual = try Self.sha256OfSamples(file, reader: reader)
        return actual == expected ? nil : "sha256 of samples \(actual), manifest \(expected)"
    }

    private enum InvalidOutcome { case rejected, refused, accepted, failed(String) }

    /// A file the manifest calls invalid: a clear error, a compressed header that will not play, or an acceptance
    /// listed in Tests/corpus-intact-audio.tsv with at least one warning and exactly the intact samples (those of
    /// its valid sibling, decoded by sox), so a reader that finds the data a byte off cannot pass.
    private func judgeInvalid(_ row: CorpusRow, path: String, intact: IntactAudio?) -> InvalidOutcome {
        let file: WAVFile
        let reader: any ByteReader
        do {
            (file, reader) = try WAVFile.open(path: path)
        } catch {
            return error.message.isEmpty ? .failed("empty error message") : .rejected
        }
        if file.format.encoding == .compressed {
            do {
                try file.requirePlayableRaw()
                return .failed("compressed header but requirePlayableRaw did not throw")
            } catch {
                return error.kind == .unsupportedCodec ? .refused : .failed("unexpected \(error.kind)")
            }
        }
        guard let intact else {
            return .failed(
                "opened (\(file.frameCount) frames, warnings \(file.warnings)) but is not in corpus-intact-audio.tsv")
        }
        guard file.frameCount == intact.frames else {
            return .failed("\(file.frameCount) frames, expected \(intact.frames) (\(intact.why))")
        }
        guard !file.warnings.isEmpty else {
            return .failed("accepted without a warning (\(intact.why))")
        }
        do {
            let expected = SHA256.hex(try CorpusManifest.intactSamples(intact))
            let actual = try Self.sha256OfSamples(file, reader: reader)
            guard actual == expected else {
                return .failed("sha256 of samples \(actual), intact audio \(expected) (\(intact.why))")
            }
        } catch {
            return .failed("\(error)")
        }
        return .accepted
    }

    /// SHA-256 of the data bytes as the manifest defines it: little-endian samples of container width.
    static func sha256OfSamples(_ file: WAVFile, reader: some ByteReader) throws -> String {
        var hasher = SHA256.Hasher()
        let width = file.format.bytesPerSample
        let swap = file.format.byteOrder == .big && width > 1
        var buffer = [UInt8](repeating: 0, count: 64 * 1024 / width * width)
        var offset: Int64 = 0
        while offset < file.dataByteCount {
            let count = Int(min(Int64(buffer.count), file.dataByteCount - offset))
            let got = try buffer.withUnsafeMutableBytes { bytes in
                try reader.read(
                    at: file.dataOffset + offset, into: UnsafeMutableRawBufferPointer(rebasing: bytes[0..<count]))
            }
            try #require(got == count, "short read inside the data chunk")
            if swap {
                for sample in stride(from: 0, to: count, by: width) { buffer[sample..<sample + width].reverse() }
            }
            buffer.withUnsafeBytes { hasher.update(UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
            offset += Int64(count)
        }
        return hasher.finalize()
    }
}
