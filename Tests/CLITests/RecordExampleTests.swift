// yt-gst — the README's recorder (Examples/RecordWAV) run as a library user would: a live test tone into a WAV that
// is whole when it stops, after its duration or at Ctrl-C.
import Foundation
import Glibc
import TestSupport
import Testing

@Suite struct RecordExampleTests {
    /// record-wav from the build directory of the binary under test.
    let example = URL(fileURLWithPath: Paths.binary).deletingLastPathComponent().appendingPathComponent("record-wav")
        .path
    let tone = "audiotestsrc is-live=true freq=440"

    @Test func recordsItsDurationIntoAValidWAV() throws {
        let dir = try Paths.makeScratch("record-example")
        defer { Paths.removeScratch(dir) }
        let output = dir.appendingPathComponent("tone.wav").path
        let r = try Run.run(example, [output, "1.5", tone], timeout: 30)
        #expect(r.status == 0 && r.stderr.contains("recording into \(output)"), "\(r.termination): \(r.stderr)")
        let seconds = try Self.check(output)
        #expect(abs(seconds - 1.5) < 0.05, "\(seconds) s")
    }

    /// SIGINT stops it at once, however long it was asked to record, and the file is finished.
    @Test func stopsOnSIGINTWithAFinishedFile() throws {
        let dir = try Paths.makeScratch("record-example-sigint")
        defer { Paths.removeScratch(dir) }
        let output = dir.appendingPathComponent("tone.wav").path
        let recorder = try Run.launch(example, [output, "600", tone])
        // The file appears with the first audio; another second, then Ctrl-C.
        let deadline = Date().addingTimeInterval(20)
        while !FileManager.default.fileExists(atPath: output) && Date() < deadline && recorder.isRunning {
            Thread.sleep(forTimeInterval: 0.05)
        }
        let started = FileManager.default.fileExists(atPath: output)
        Thread.sleep(forTimeInterval: 1)
        recorder.signal(SIGINT)
        let r = recorder.wait(timeout: 20)
        #expect(started && r.status == 0 && r.stderr.contains("interrupted"), "\(r.termination): \(r.stderr)")
        let seconds = try Self.check(output)
        #expect(seconds > 0.5 && seconds < 15, "\(seconds) s")
    }

    /// Checks that the file at `path` is a finished WAV (its RIFF size is the file's, its data chunk whole) of
    /// sound, not silence, and gives its duration in seconds.
    static func check(_ path: String) throws -> Double {
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        let riffSize = (0..<4).reduce(0) { $0 | Int(bytes[4 + $1]) << (8 * $1) }
        #expect(riffSize + 8 == bytes.count, "RIFF size \(riffSize) in a file of \(bytes.count) bytes")
        let wav = try RecordedWAV(path: path)
        #expect(wav.formatTag == 1 && wav.bitsPerSample == 16)
        #expect(wav.int16s.map { abs(Int($0)) }.max() ?? 0 > 8_000, "silence")
        return Double(wav.data.count) / Double(wav.sampleRate * wav.channels * 2)
    }
}
