// yt-gst — how the feeder cuts a data chunk into buffers and stamps them (pure arithmetic, no GStreamer).
import WAV

/// The feeder's plan for one file: the unit it never splits (a frame, a codec block, or a byte of a stream a parser
/// frames), how many units go in one pushed buffer, and how a unit index becomes a time.
///
/// Times always come from the unit index (never from summed durations), so nothing accumulates:
/// frame-based units at the sample rate, byte-based ones at nAvgBytesPerSec.
public struct PacketPlan: Sendable, Equatable {
    /// How unit indices turn into times.
    public enum Clock: Sendable, Equatable {
        /// Each unit decodes to `framesPerUnit` frames at `rate` (PCM: 1; IMA ADPCM: samples per block).
        case frames(framesPerUnit: Int, rate: Int)
        /// Each unit is `bytesPerUnit` bytes of a stream that plays `bytesPerSecond` bytes a second.
        case bytes(bytesPerUnit: Int, bytesPerSecond: Int)
        /// No clock in the header (byte rate 0): buffers go out without timestamps; the parser or decoder sets them.
        case none
    }

    /// Bytes of one unit in the data chunk.
    public let unitBytes: Int
    /// Units in one pushed buffer (the last may hold fewer); at most `maxChunkBytes` of them.
    public let chunkUnits: Int64
    /// Whole units in the data chunk.
    public let totalUnits: Int64
    /// How a unit index becomes a time: by frames, by bytes, or not at all (no timestamps).
    public let clock: Clock

    /// The plan for `file` with buffers of about `chunkMilliseconds` of audio; nil when its packets are unknown
    /// (a compressed format with no caps mapping).
    public init?(file: WAVFile, chunkMilliseconds: Int) {
        let format = file.format
        let milliseconds = Int64(max(1, chunkMilliseconds))
        var chunkUnits: Int64
        let framesPerChunk = max(1, Int64(format.sampleRate) * milliseconds / 1000)
        switch format.packetization {
        case .frames:
            unitBytes = format.blockAlign
            chunkUnits = framesPerChunk
            clock = .frames(framesPerUnit: 1, rate: format.sampleRate)
        case .blocks(let framesPerBlock?):
            unitBytes = format.blockAlign
            chunkUnits = max(1, framesPerChunk / Int64(framesPerBlock))
            clock = .frames(framesPerUnit: framesPerBlock, rate: format.sampleRate)
        case .blocks(nil):
            unitBytes = format.blockAlign
            let rate = Int64(format.averageBytesPerSecond)
            chunkUnits = max(1, rate * milliseconds / 1000 / Int64(format.blockAlign))
            clock = rate > 0 ? .bytes(bytesPerUnit: format.blockAlign, bytesPerSecond: Int(rate)) : .none
        case .stream:
            guard format.encoding == .compressed else { return nil }
            unitBytes = 1
            let rate = Int64(format.averageBytesPerSecond)
            chunkUnits = rate > 0 ? min(max(512, rate * milliseconds / 1000), 1 << 20) : 4096
            clock = rate > 0 ? .bytes(bytesPerUnit: 1, bytesPerSecond: Int(rate)) : .none
        }
        totalUnits = file.dataByteCount / Int64(unitBytes)
        // A header's rate never sizes a buffer beyond this (a bogus 4 GHz rate would otherwise ask for gigabytes).
        self.chunkUnits = min(chunkUnits, max(1, Int64(Self.maxChunkBytes / unitBytes)))
    }

    /// The largest buffer the plan asks for, whatever the header declares (one unit may exceed it: a 64 KiB block).
    public static let maxChunkBytes = 4 << 20

    /// Nanoseconds at which unit `index` starts, or nil without a clock.
    public func nanoseconds(atUnit index: Int64) -> UInt64? {
        switch clock {
        case .frames(let perUnit, let rate):
            return Self.scale(Self.product(index, perUnit), 1_000_000_000, UInt64(rate))
        case .bytes(let perUnit, let perSecond):
            return Self.scale(Self.product(index, perUnit), 1_000_000_000, UInt64(perSecond))
        case .none:
            return nil
        }
    }

    /// Timing of the units `range`: start and duration in nanoseconds (nil without a clock) and the offsets GStreamer
    /// puts on buffers (frames for frame clocks, bytes otherwise).
    public func timing(units range: Range<Int64>) -> (pts: UInt64?, duration: UInt64?, offset: Int64, offsetEnd: Int64)
    {
        let start = nanoseconds(atUnit: range.lowerBound)
        let end = nanoseconds(atUnit: range.upperBound)
        let duration = start.flatMap { start in end.map { $0 >= start ? $0 - start : 0 } }
        switch clock {
        case .frames(let perUnit, _):
            return (
                start, duration, Int64(clamping: Self.product(range.lowerBound, perUnit)),
                Int64(clamping: Self.product(range.upperBound, perUnit))
            )
        case .bytes, .none:
            return (
                start, duration, Int64(clamping: Self.product(range.lowerBound, unitBytes)),
                Int64(clamping: Self.product(range.upperBound, unitBytes))
            )
        }
    }

    /// The unit that holds time `nanoseconds` (the frame at or after it, rounded down to a whole unit), at most
    /// `totalUnits`.
    public func unit(atNanoseconds nanoseconds: UInt64) -> Int64 {
        let unit: UInt64
        switch clock {
        case .frames(let perUnit, let rate):
            // The first frame at or after the time (rounded up), so a frame's own timestamp maps back to it.
            unit = Self.scale(nanoseconds, UInt64(rate), 1_000_000_000, roundingUp: true) / UInt64(perUnit)
        case .bytes(let perUnit, let perSecond):
            unit = Self.scale(nanoseconds, UInt64(perSecond), 1_000_000_000) / UInt64(perUnit)
        case .none:
            unit = 0
        }
        return min(Int64(clamping: unit), totalUnits)
    }

    /// index × perUnit, saturating (indices are never negative).
    static func product(_ index: Int64, _ perUnit: Int) -> UInt64 {
        let (value, overflow) = UInt64(max(0, index)).multipliedReportingOverflow(by: UInt64(perUnit))
        return overflow ? .max : value
    }

    /// a × b ÷ c rounded down, in 128 bits; UInt64.max when the result does not fit (like gst_util_uint64_scale).
    static func scale(_ a: UInt64, _ b: UInt64, _ c: UInt64, roundingUp: Bool = false) -> UInt64 {
        let product = a.multipliedFullWidth(by: b)
        guard product.high < c else { return .max }
        let (quotient, remainder) = c.dividingFullWidth(product)
        return roundingUp && remainder > 0 && quotient < .max ? quotient + 1 : quotient
    }
}
