// yt-gst — a test signal whose every frame says where in the file it came from, and the reading of a recording of
// it back into runs of file frames: where playback jumped, how loud each run was, and which runs repeat.
import Foundation

/// Stereo 16-bit frames that encode their own frame index: left = 0x4000 | (index & 0x3FFF), right = index >> 14
/// plus 1.
///
/// Left always lies in 16384...32767 and right is never 0, so the left/right pair of a scaled copy (volume) still
/// tells the gain, a copy at gain 1 tells the exact frame, and silence can never be mistaken for a frame.
public enum PositionCode {
    public static func values(frame: Int) -> (left: Int, right: Int) {
        (0x4000 | (frame & 0x3FFF), (frame >> 14) + 1)
    }

    /// The frame whose values these are (integers), or nil when they are not a frame's.
    public static func frame(left: Double, right: Double) -> Int? {
        guard left == left.rounded(), right == right.rounded(), (16_384.0...32_767.0).contains(left), right >= 1,
            right < 1_048_576
        else { return nil }
        return (Int(right) - 1) << 14 | (Int(left) & 0x3FFF)
    }
}

extension SyntheticWAV {
    /// `frames` frames of `PositionCode`, stereo 16-bit at `rate`.
    public static func positionCoded(frames: Int, rate: Int = 44_100) -> SyntheticWAV {
        var samples: [UInt8] = []
        samples.reserveCapacity(frames * 4)
        for frame in 0..<frames {
            let (left, right) = PositionCode.values(frame: frame)
            for value in [left, right] {
                samples.append(UInt8(truncatingIfNeeded: value))
                samples.append(UInt8(truncatingIfNeeded: value >> 8))
            }
        }
        return SyntheticWAV(sampleRate: rate, channels: 2, bitsPerSample: 16, formatTag: 1, samples: samples)
    }
}

/// A stretch of output that is consecutive frames of the file, all at one gain.
public struct PlayedRun: Equatable, CustomStringConvertible {
    /// Index of its first frame in the output.
    public var outputStart: Int
    /// The file frame it starts with.
    public var fileStart: Int
    public var frames: Int
    /// Output value / file value: the volume (0 when muted).
    public var gain: Double

    public var fileEnd: Int { fileStart + frames }
    public var outputEnd: Int { outputStart + frames }

    public var description: String {
        "out \(outputStart)+\(frames): file \(fileStart)..<\(fileEnd) x\((gain * 10_000).rounded() / 10_000)"
    }
}

/// A recording of `PositionCode` played back, read as runs.
public struct PlayedRuns {
    public var runs: [PlayedRun] = []
    /// Output frames that are no file frame at any gain (a blend, a click, garbage).
    public var unexplained = 0

    /// Reads output frames given as float samples in [-1, 1) (16-bit value / 32768), left and right interleaved.
    ///
    /// A frame continues the current run when it is the next file frame at the run's gain. Otherwise it starts a new
    /// run: at gain 1 when it is a frame exactly (a seek; or the volume back at 1), at a new gain when both channels
    /// are the expected frame scaled alike (a volume change, or 0 for mute), or at the old gain elsewhere in the
    /// file (a seek while the volume is not 1).
    public init(interleaved samples: [Float]) {
        var current: PlayedRun?
        for k in 0..<samples.count / 2 {
            let left = Double(samples[2 * k]) * 32_768
            let right = Double(samples[2 * k + 1]) * 32_768
            if var run = current {
                let (l, r) = PositionCode.values(frame: run.fileEnd)
                if Self.close(left, Double(l) * run.gain) && Self.close(right, Double(r) * run.gain) {
                    run.frames += 1
                    current = run
                    continue
                }
                runs.append(run)
                current = nil
                if let frame = PositionCode.frame(left: left, right: right) {
                    current = PlayedRun(outputStart: k, fileStart: frame, frames: 1, gain: 1)
                } else if Self.close(right, Double(r) * (left / Double(l))) {
                    current = PlayedRun(outputStart: k, fileStart: run.fileEnd, frames: 1, gain: left / Double(l))
                } else if run.gain != 0,
                    let frame = PositionCode.frame(
                        left: (left / run.gain).rounded(), right: (right / run.gain).rounded()),
                    Self.close(right, Double(PositionCode.values(frame: frame).right) * run.gain)
                {
                    current = PlayedRun(outputStart: k, fileStart: frame, frames: 1, gain: run.gain)
                } else {
                    unexplained += 1
                }
            } else if let frame = PositionCode.frame(left: left, right: right) {
                current = PlayedRun(outputStart: k, fileStart: frame, frames: 1, gain: 1)
            } else {
                unexplained += 1
            }
        }
        if let current { runs.append(current) }
    }

    /// Equal within float32 rounding of a value up to ~1.5 × full scale.
    static func close(_ a: Double, _ b: Double) -> Bool { abs(a - b) <= 0.01 }

    /// The runs with consecutive runs at one gain that continue each other merged (a gain step back and forth).
    public var merged: [PlayedRun] {
        var out: [PlayedRun] = []
        for run in runs {
            if var last = out.last, last.fileEnd == run.fileStart, last.outputEnd == run.outputStart,
                abs(last.gain - run.gain) < 1e-4
            {
                last.frames += run.frames
                out[out.count - 1] = last
            } else {
                out.append(run)
            }
        }
        return out
    }
}
