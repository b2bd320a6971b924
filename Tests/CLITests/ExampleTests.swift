// yt-gst — the example program (Examples/PlayWAV) run as a library user would run it: bit-exact output, errors.
import Foundation
import TestSupport
import Testing

/// The README's example is built with everything else; running it proves that the library API it shows still
/// plays a file through a pipeline of the caller's choosing.
@Suite struct ExampleTests {
    /// play-wav from the build directory of the binary under test (.build/release with YT_GST_BINARY set by
    /// `make test`, else .build/debug).
    let example = URL(fileURLWithPath: Paths.binary).deletingLastPathComponent().appendingPathComponent("play-wav").path

    @Test(arguments: [(16, 2, 44_100), (24, 1, 48_000)])
    func copiesAWAVBitExactThroughItsOwnPipeline(bits: Int, channels: Int, rate: Int) throws {
        let dir = try Paths.makeScratch("example")
        defer { Paths.removeScratch(dir) }
        // 1.234 s: the last 0.2 s chunk is partial.
        let wav = SyntheticWAV.tone(frames: rate * 1234 / 1000, rate: rate, channels: channels, bits: bits)
        let input = try wav.write(to: dir.appendingPathComponent("in.wav"))
        let output = dir.appendingPathComponent("out.wav").path
        let r = try Run.run(example, [input, "appsrc name=src ! wavenc ! filesink location=\(output)"])
        #expect(r.termination == .exited(0) && r.stderr.isEmpty, "\(r.termination): \(r.stderr)")
        let written = try [UInt8](Data(contentsOf: URL(fileURLWithPath: output)))
        let samples = try #require(Self.dataChunk(of: written), "no data chunk in \(written.count) bytes")
        #expect(samples.count == wav.samples.count)
        #expect(samples == wav.samples)
    }

    @Test func missingFileIsOneLineAndExit1() throws {
        let r = try Run.run(example, ["/nonexistent/missing.wav"])
        #expect(r.termination == .exited(1))
        #expect(r.saysOneLine(containing: "play-wav: /nonexistent/missing.wav: "), "stderr: \(r.stderr)")
    }

    /// The body of the `data` chunk of a RIFF/WAVE file, read here rather than with the library under test.
    static func dataChunk(of file: [UInt8]) -> [UInt8]? {
        var offset = 12  // "RIFF", size, "WAVE"
        while offset + 8 <= file.count {
            let size = (0..<4).reduce(0) { $0 | Int(file[offset + 4 + $1]) << (8 * $1) }
            let body = offset + 8
            if file[offset..<offset + 4].elementsEqual("data".utf8) {
                return body + size <= file.count ? Array(file[body..<body + size]) : nil
            }
            offset = body + size + size % 2
        }
        return nil
    }
}
