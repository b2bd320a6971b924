// yt-gst — reference decoders the tests compare GStreamer's output with, and the measure of "close".
//
// IMA ADPCM decoders differ in rounding (GStreamer's adpcmdec computes the step difference with a multiplication,
// libsndfile and the IMA reference with shifts), so bytes cannot be compared. This is the IMA/Microsoft reference
// algorithm with shifts; the corpus test first checks that it reproduces libsndfile's decode bit for bit
// (the manifest's decoded_s16_sha256), then measures GStreamer's output against it.
import Foundation

public enum ReferenceDecoders {
    static let imaStepTable: [Int32] = [
        7, 8, 9, 10, 11, 12, 13, 14, 16, 17, 19, 21, 23, 25, 28, 31, 34, 37, 41, 45, 50, 55, 60, 66, 73, 80, 88, 97,
        107, 118, 130, 143, 157, 173, 190, 209, 230, 253, 279, 307, 337, 371, 408, 449, 494, 544, 598, 658, 724, 796,
        876, 963, 1060, 1166, 1282, 1411, 1552, 1707, 1878, 2066, 2272, 2499, 2749, 3024, 3327, 3660, 4026, 4428, 4871,
        5358, 5894, 6484, 7132, 7845, 8630, 9493, 10442, 11487, 12635, 13899, 15289, 16818, 18500, 20350, 22385,
        24623, 27086, 29794, 32767,
    ]
    static let imaIndexTable: [Int] = [-1, -1, -1, -1, 2, 4, 6, 8, -1, -1, -1, -1, 2, 4, 6, 8]

    /// Decodes IMA ADPCM in WAV blocks (4-bit, per channel a 4-byte header, then interleaved 4-byte groups of 8
    /// samples) to interleaved Int16. Whole blocks only.
    public static func imaADPCM(_ data: [UInt8], channels: Int, blockAlign: Int) -> [Int16] {
        let samplesPerBlock = (blockAlign - 4 * channels) * 8 / (4 * channels) + 1
        var out: [Int16] = []
        out.reserveCapacity(data.count / blockAlign * samplesPerBlock * channels)
        var start = 0
        while start + blockAlign <= data.count {
            let block = data[start..<start + blockAlign]
            var predictor = [Int32](repeating: 0, count: channels)
            var index = [Int](repeating: 0, count: channels)
            var samples = [[Int16]](repeating: [], count: channels)
            for ch in 0..<channels {
                let at = start + 4 * ch
                predictor[ch] = Int32(Int16(bitPattern: UInt16(block[at]) | UInt16(block[at + 1]) << 8))
                index[ch] = min(max(Int(block[at + 2]), 0), 88)
                samples[ch].append(Int16(predictor[ch]))
            }
            var at = start + 4 * channels
            while at + 4 * channels <= start + blockAlign {
                for ch in 0..<channels {
                    for byte in 0..<4 {
                        let value = block[at + 4 * ch + byte]
                        for code in [value & 0x0F, value >> 4] {
                            let step = imaStepTable[index[ch]]
                            var diff = step >> 3
                            if code & 1 != 0 { diff += step >> 2 }
                            if code & 2 != 0 { diff += step >> 1 }
                            if code & 4 != 0 { diff += step }
                            if code & 8 != 0 { diff = -diff }
                            predictor[ch] = min(max(predictor[ch] + diff, -32768), 32767)
                            index[ch] = min(max(index[ch] + imaIndexTable[Int(code)], 0), 88)
                            samples[ch].append(Int16(predictor[ch]))
                        }
                    }
                }
                at += 4 * channels
            }
            for frame in 0..<samplesPerBlock {
                for ch in 0..<channels { out.append(samples[ch][frame]) }
            }
            start += blockAlign
        }
        return out
    }

    /// The signal-to-noise ratio in dB of `test` against `reference` (Int16, same layout), over the common length;
    /// +infinity when they are equal.
    public static func snr(_ test: [Int16], reference: [Int16]) -> Double {
        let count = min(test.count, reference.count)
        var signal = 0.0
        var noise = 0.0
        for i in 0..<count {
            let r = Double(reference[i])
            let d = Double(test[i]) - r
            signal += r * r
            noise += d * d
        }
        if noise == 0 { return .infinity }
        return 10 * log10(max(signal, 1) / noise)
    }

    /// The root-mean-square difference of `test` and `reference` in LSB, over the common length.
    ///
    /// For near-silent signals SNR says nothing (a 2-LSB rounding difference on a signal of amplitude 60 is "1 dB");
    /// an RMS error of a few LSB (below -70 dBFS) is inaudible whatever the signal.
    public static func rmsError(_ test: [Int16], reference: [Int16]) -> Double {
        let count = min(test.count, reference.count)
        guard count > 0 else { return 0 }
        var noise = 0.0
        for i in 0..<count {
            let d = Double(test[i]) - Double(reference[i])
            noise += d * d
        }
        return (noise / Double(count)).squareRoot()
    }

    /// Close enough to count as the same audio decoded with other rounding: SNR of at least 30 dB, or an RMS error
    /// of at most 8 LSB (-72 dBFS).
    public static func isClose(_ test: [Int16], reference: [Int16]) -> Bool {
        snr(test, reference: reference) >= 30 || rmsError(test, reference: reference) <= 8
    }

    /// `path` decoded by sox to interleaved Int16 (sox reads MP3 through libmad, from libsox-fmt-mp3: a decoder
    /// GStreamer does not use).
    public static func sox(_ path: String) throws -> [Int16] {
        int16(try soxRaw(path, options: ["-e", "signed", "-b", "16", "-L"]))
    }

    /// The raw bytes sox decodes `path` to with the output `options` (none: the file's own encoding and width).
    public static func soxRaw(_ path: String, options: [String] = []) throws -> [UInt8] {
        let raw = FileManager.default.temporaryDirectory.appendingPathComponent("yt-gst-sox-\(UUID().uuidString).raw")
        defer { try? FileManager.default.removeItem(at: raw) }
        let r = try Run.run("/usr/bin/sox", [path, "-t", "raw"] + options + [raw.path])
        guard r.status == 0 else { throw HarnessError(description: "sox \(path): \(r.stderr)") }
        return Array(try Data(contentsOf: raw))
    }

    /// The shift of `test` against `reference` within ±`within` samples that makes them most alike (least mean
    /// squared difference over the overlap): `test[i]` lines up with `reference[i - lag]`. A test compares it with
    /// the decoders' known delay, so a shifted output fails instead of being aligned away.
    public static func bestLag(_ test: [Int16], reference: [Int16], within: Int) -> Int {
        var best = (lag: 0, error: Double.infinity)
        for lag in -within...within {
            let start = max(0, lag)
            let end = min(test.count, reference.count + lag)
            guard end - start >= reference.count / 2 else { continue }
            var error = 0.0
            for i in start..<end {
                let d = Double(test[i]) - Double(reference[i - lag])
                error += d * d
            }
            if error / Double(end - start) < best.error { best = (lag, error / Double(end - start)) }
        }
        return best.lag
    }

    /// The largest absolute difference of `test` and `reference` in LSB, over the common length.
    public static func maxDifference(_ test: [Int16], reference: [Int16]) -> Int {
        zip(test, reference).reduce(0) { max($0, abs(Int($1.0) - Int($1.1))) }
    }

    /// Little-endian bytes as Int16 samples.
    public static func int16(_ bytes: [UInt8]) -> [Int16] {
        stride(from: 0, to: bytes.count - 1, by: 2).map {
            Int16(bitPattern: UInt16(bytes[$0]) | UInt16(bytes[$0 + 1]) << 8)
        }
    }

    /// Int16 samples as little-endian bytes.
    public static func bytes(_ samples: [Int16]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(samples.count * 2)
        for sample in samples {
            out.append(UInt8(truncatingIfNeeded: sample))
            out.append(UInt8(truncatingIfNeeded: sample >> 8))
        }
        return out
    }
}
