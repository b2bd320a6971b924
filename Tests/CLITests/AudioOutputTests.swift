// yt-gst — sound really goes out: play a tone through the default pipeline into PulseAudio's null sink and
// record the sink's monitor. The test command (make test) starts that PulseAudio and sets PULSE_SERVER.
import AppSrcFeeder
import Foundation
import TestSupport
import Testing

@Suite(.serialized) struct AudioOutputTests {
    static let pulse = ProcessInfo.processInfo.environment["PULSE_SERVER"]
    static let sinkName = ProcessInfo.processInfo.environment["YT_GST_PULSE_SINK"] ?? "spk"

    @Test(.enabled(if: pulse != nil, "needs the private PulseAudio that `make test` starts"))
    func defaultOutputPlaysTheTone() throws {
        let dir = try Paths.makeScratch("audio")
        defer { Paths.removeScratch(dir) }
        let tone = SyntheticWAV.tone(frequency: 440, frames: 48_000 * 2, rate: 48_000, channels: 2)
        let input = try tone.write(to: dir.appendingPathComponent("tone.wav"))
        let recording = dir.appendingPathComponent("rec.wav").path
        let recorder = try Run.launch(
            "/usr/bin/parec",
            [
                "-d", "\(Self.sinkName).monitor", "--rate=48000", "--channels=2", "--format=s16le", "--file-format=wav",
                recording,
            ])
        defer { if recorder.isRunning { recorder.signal(SIGKILL) } }
        usleep(500_000)
        let played = try Run.ytGst(["play", input], timeout: 30)
        usleep(500_000)
        recorder.signal(SIGINT)  // parec writes its WAV header on SIGINT
        _ = recorder.wait(timeout: 5)
        #expect(played.status == 0, "\(played.stderr)")

        let (wav, source) = try WAVFile.open(path: recording)
        #expect(wav.format.sampleRate == 48_000 && wav.format.channels == 2)
        var bytes = [UInt8](repeating: 0, count: Int(wav.dataByteCount))
        let count = try bytes.withUnsafeMutableBytes { try source.read(at: wav.dataOffset, into: $0) }
        let left = stride(from: 0, to: count - 3, by: 4).map {
            Int16(bitPattern: UInt16(bytes[$0]) | UInt16(bytes[$0 + 1]) << 8)
        }
        let analysis = ToneAnalysis(samples: left, rate: 48_000)
        #expect(abs(analysis.soundingSeconds - 2.0) <= 0.03, "sounded for \(analysis.soundingSeconds) s")
        #expect(abs(analysis.frequency - 440) < 5, "frequency \(analysis.frequency) Hz")
    }
}

/// How long a recording sounds and at what frequency, from 10 ms windows whose RMS is well above silence (so an
/// underrun's gap neither adds nor hides time) and the zero crossings between consecutive sounding samples —
/// including the pairs that straddle two sounding windows, so the count does not depend on where the tone starts
/// relative to the window grid.
struct ToneAnalysis {
    var soundingSeconds: Double
    var frequency: Double

    init(samples: [Int16], rate: Int) {
        let window = rate / 100
        var sounding = [Bool](repeating: false, count: samples.count / window)
        for index in sounding.indices {
            let slice = samples[(index * window)..<((index + 1) * window)]
            let rms = (slice.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(window)).squareRoot()
            sounding[index] = rms > 1_000
        }
        var crossings = 0
        for i in 1..<(sounding.count * window) where sounding[i / window] && sounding[(i - 1) / window] {
            if (samples[i - 1] < 0) != (samples[i] < 0) { crossings += 1 }
        }
        let soundingWindows = sounding.filter { $0 }.count
        soundingSeconds = Double(soundingWindows) / 100
        frequency = soundingWindows == 0 ? 0 : Double(crossings) / 2 / soundingSeconds
    }
}
