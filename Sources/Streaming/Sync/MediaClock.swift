// yt-gst — the convention that lets every receiver find the sender's clock and the instant of every sample.
import GstPlayer

/// How a yt-gst RTP stream ties its audio to the sender's clock, so that receivers need nothing but the URL.
///
/// - The sender publishes its pipeline clock (GStreamer's network clock protocol, `GstNetTimeProvider`) on UDP port
///   `clockPort(rtpPort:)` = RTP port + 2 of the address its packets come from.
/// - RTP timestamps are a direct media clock of that clock (RFC 7273 `a=mediaclk:direct=0`): the timestamp of a
///   sample is the clock's time of that sample in units of the RTP clock rate, modulo 2³². Any receiver that
///   follows the clock knows from a packet alone when the sender played its first sample, however late it joined.
/// - RTCP sender reports carry the same clock (`ntp-time-source=clock-time`), for other receivers.
public enum MediaClock {
    /// The UDP port the sender publishes its clock on, for a stream on `rtpPort`.
    public static func clockPort(rtpPort: Int) -> Int { rtpPort + 2 }

    /// The RTP timestamp of clock time `time` at `rate`, to the nearest unit: the payloader's timestamp offset for a
    /// stream whose running time 0 is `time` (its base time).
    public static func rtpTimestamp(at time: ClockTime, rate: Int) -> UInt32 {
        let halfUnit = UInt64(500_000_000 / rate)
        return UInt32(truncatingIfNeeded: ClockTime(nanoseconds: time.nanoseconds + halfUnit).frames(rate: rate))
    }

    /// The clock time of the sample that carries RTP timestamp `timestamp`, the one of the 2³² possible that is
    /// nearest `now` (a timestamp wraps every 2³² ÷ rate seconds: 24.9 hours at 48 kHz).
    public static func time(ofRTPTimestamp timestamp: UInt32, rate: Int, near now: ClockTime) -> ClockTime {
        let nowUnits = now.frames(rate: rate)
        let ahead = Int64(Int32(bitPattern: timestamp &- UInt32(truncatingIfNeeded: nowUnits)))
        return ClockTime(frames: max(nowUnits + ahead, 0), rate: rate)
    }

    /// The RTP timestamp in a packet's first bytes (bytes 4 to 7 of the fixed header, network order), nil when the
    /// packet is too short or not RTP version 2.
    public static func rtpTimestamp(inPacket head: UnsafeRawBufferPointer) -> UInt32? {
        guard head.count >= 8, head[0] >> 6 == 2 else { return nil }
        return (4..<8).reduce(UInt32(0)) { $0 << 8 | UInt32(head[$1]) }
    }
}
