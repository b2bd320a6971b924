// yt-gst — reading back what a pipeline wrote with wavenc, independently of the reader under test.
import Foundation

/// The format and data chunk of a RIFF/WAVE file written by a recorder (wavenc, parec).
///
/// A recorder stopped without end of stream leaves a placeholder data size (wavenc writes 0x7FFF0000): the data
/// then runs to the end of the file.
public struct RecordedWAV {
    public var formatTag: UInt16
    public var channels: Int
    public var sampleRate: Int
    public var bitsPerSample: Int
    public var data: [UInt8]

    public init(path: String) throws {
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        func u32(_ at: Int) -> Int { (0..<4).reduce(0) { $0 | Int(bytes[at + $1]) << (8 * $1) } }
        func u16(_ at: Int) -> Int { Int(bytes[at]) | Int(bytes[at + 1]) << 8 }
        guard bytes.count >= 12, bytes[0..<4] == [0x52, 0x49, 0x46, 0x46], bytes[8..<12] == [0x57, 0x41, 0x56, 0x45]
        else { throw HarnessError(description: "\(path): not a RIFF/WAVE file (\(bytes.count) bytes)") }
        var format: (tag: Int, channels: Int, rate: Int, bits: Int)?
        var at = 12
        while at + 8 <= bytes.count {
            let id = String(decoding: bytes[at..<at + 4], as: UTF8.self)
            let size = u32(at + 4)
            let body = at + 8
            if id == "fmt " {
                var tag = u16(body)
                if tag == 0xFFFE && size >= 40 { tag = u16(body + 24) }  // extensible: the sub-format's first two bytes
                format = (tag, u16(body + 2), u32(body + 4), u16(body + 14))
            } else if id == "data" {
                guard let format else { throw HarnessError(description: "\(path): data before fmt") }
                formatTag = UInt16(format.tag)
                channels = format.channels
                sampleRate = format.rate
                bitsPerSample = format.bits
                data = Array(bytes[body..<min(bytes.count, body + size)])
                return
            }
            at = body + size + size % 2
        }
        throw HarnessError(description: "\(path): no data chunk")
    }

    /// The samples of a 32-bit float file, interleaved.
    public var floats: [Float] {
        precondition(formatTag == 3 && bitsPerSample == 32, "not float32: tag \(formatTag), \(bitsPerSample) bits")
        return Self.floats(data)
    }

    /// Little-endian 32-bit float samples.
    public static func floats(_ data: [UInt8]) -> [Float] {
        stride(from: 0, to: data.count - 3, by: 4).map {
            Float(
                bitPattern: UInt32(data[$0]) | UInt32(data[$0 + 1]) << 8 | UInt32(data[$0 + 2]) << 16
                    | UInt32(data[$0 + 3]) << 24)
        }
    }

    /// The samples of a 16-bit integer file, interleaved.
    public var int16s: [Int16] {
        precondition(formatTag == 1 && bitsPerSample == 16, "not 16-bit PCM: tag \(formatTag), \(bitsPerSample) bits")
        return stride(from: 0, to: data.count - 1, by: 2).map {
            Int16(bitPattern: UInt16(data[$0]) | UInt16(data[$0 + 1]) << 8)
        }
    }
}

/// Where two byte sequences first differ, as a failure message; nil when they are equal.
///
/// Use `#expect(firstDifference(a, b) == nil)` for large buffers: `#expect(a == b)` on arrays makes Swift Testing
/// compute a diff on failure, which takes minutes for a megabyte.
public func firstDifference(_ a: some Collection<UInt8>, _ b: some Collection<UInt8>) -> String? {
    var index = 0
    for (x, y) in zip(a, b) {
        if x != y { return "byte \(index) differs: \(x) vs \(y) (\(a.count) and \(b.count) bytes)" }
        index += 1
    }
    return a.count == b.count ? nil : "lengths differ: \(a.count) vs \(b.count) bytes (equal up to there)"
}
