// yt-gst — a test signal whose every frame says where in the file it came from, and the reading of a recording of
// it back into runs of file frames: where playback jumped, how loud each run was, and which runs repeat.
import Foundation

/// Stereo 16-bit frames that encode their own frame index: left = 0x2000 + (index & 0x3FFF), right = 0x2000 +
/// (index >> 14).
///
/// Both channels lie in 8192...24575: a copy scaled by up to 1.33 does not clip, the ratio of a scaled copy to
/// the frame it came from tells the gain to 1/8192, a copy at gain 1 tells the exact frame, and silence can never
/// be mistaken for a frame. Enough for 2^28 frames (1.7 hours at 44.1 kHz).
public enum PositionCode {
    public static func values(frame: Int) -> (left: Int, right: Int) {
        (0x2000 + (frame & 0x3FFF), 0x2000 + (frame >> 14))
    }

    /// The frame whose values these are (integers), or nil when they are not a frame's.
    public static func frame(left: Double, right: Double) -> Int? {
        let range = 8_192.0...24_575.0
        guard left == left.rounded(), right == right.rounded(), range.contains(left), range.contains(right) else {
            return nil
        }
        return (Int(right) - 0x2000) << 14 | (Int(left) - 0x2000)
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

    /// Reads output frames given as float samples (16-bit value / 32768), left and right interleaved.
    ///
    /// A frame continues the current run when it is the next file frame at the run's gain. Otherwise it starts a new
    /// run: at a new gain when both channels are the expected frame scaled alike (a volume change, 0 for mute), at
    /// gain 1 when it is a frame exactly (a seek), or at the old gain elsewhere in the file (a seek while the volume
    /// is not 1). At gain 1 frames must match exactly; at other gains within 2.5 LSB, as a volume element working
    /// on 16-bit samples rounds (its gain is the run's average ratio).
    public init(interleaved samples: [Float]) {
        var current: Tracker?
        for k in 0..<samples.count / 2 {
            let left = Double(samples[2 * k]) * 32_768
            let right = Double(samples[2 * k + 1]) * 32_768
            if var run = current {
                let (l, r) = PositionCode.values(frame: run.run.fileEnd)
                if run.matches(left, right, Double(l), Double(r)) {
                    run.add(left + right, Double(l + r))
                    current = run
                    continue
                }
                runs.append(run.finished)
                current = nil
                let gain = left / Double(l)
                if abs(right - Double(r) * gain) <= 2.5 {
                    current = Tracker(
                        outputStart: k, fileStart: run.run.fileEnd, output: left + right, file: Double(l + r))
                } else if let frame = PositionCode.frame(left: left, right: right) {
                    current = Tracker(outputStart: k, fileStart: frame, exact: true)
                } else if run.gain != 0,
                    let frame = PositionCode.frame(
                        left: (left / run.gain).rounded(), right: (right / run.gain).rounded())
                {
                    let (fl, fr) = PositionCode.values(frame: frame)
                    if run.matches(left, right, Double(fl), Double(fr)) {
                        current = Tracker(
                            outputStart: k, fileStart: frame, output: left + right, file: Double(fl + fr))
                    } else {
                        unexplained += 1
                    }
                } else {
                    unexplained += 1
                }
            } else if let frame = PositionCode.frame(left: left, right: right) {
                current = Tracker(outputStart: k, fileStart: frame, exact: true)
            } else {
                unexplained += 1
            }
        }
        if let current { runs.append(current.finished) }
    }

    /// A run being read, with the sums its gain is measured from.
    private struct Tracker {
        var run: PlayedRun
        var output = 0.0
        var file = 0.0
        /// Started as an exact copy: gain 1 and no tolerance.
        var exact = false

        init(outputStart: Int, fileStart: Int, exact: Bool) {
            run = PlayedRun(outputStart: outputStart, fileStart: fileStart, frames: 1, gain: 1)
            self.exact = exact
        }

        init(outputStart: Int, fileStart: Int, output: Double, file: Double) {
            run = PlayedRun(outputStart: outputStart, fileStart: fileStart, frames: 1, gain: output / file)
            self.output = output
            self.file = file
            exact = output == file
        }

        var gain: Double { exact ? 1 : output / file }

        func matches(_ left: Double, _ right: Double, _ l: Double, _ r: Double) -> Bool {
            if exact { return left == l && right == r }
            return abs(left - l * gain) <= 2.5 && abs(right - r * gain) <= 2.5
        }

        mutating func add(_ output: Double, _ file: Double) {
            run.frames += 1
            self.output += output
            self.file += file
        }

        var finished: PlayedRun {
            var run = run
            run.gain = gain
            return run
        }
    }

    /// The runs with consecutive runs at one gain that continue each other merged (a gain step back and forth).
    public var merged: [PlayedRun] {
        var out: [PlayedRun] = []
        for run in runs {
            if var last = out.last, last.fileEnd == run.fileStart, last.outputEnd == run.outputStart,
                abs(last.gain - run.gain) < 1e-3
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
