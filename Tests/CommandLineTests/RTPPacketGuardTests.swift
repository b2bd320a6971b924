// yt-gst — what a receiver lets through from its open RTP port: the stream's packets only, the rest counted.
import GstPlayer
import Testing

@testable import Streaming
@testable import yt_gst

@Suite struct RTPPacketGuardTests {
    /// An RTP packet: version 2, `payloadType`, `ssrc`, `payload` bytes of zeros.
    static func packet(_ payloadType: UInt8 = 10, ssrc: UInt32 = 0x1234_5678, payload: Int = 1_400) -> [UInt8] {
        let ssrcBytes = (0..<4).map { UInt8(truncatingIfNeeded: ssrc >> (24 - 8 * $0)) }
        return [0x80, payloadType, 0, 1, 0, 0, 0, 0] + ssrcBytes + [UInt8](repeating: 0, count: payload)
    }

    static func verdict(
        _ packetGuard: RTPPacketGuard, _ bytes: [UInt8], at instant: ContinuousClock.Instant
    )
        -> PacketVerdict
    {
        bytes.withUnsafeBytes { packetGuard.verdict(on: $0, at: instant) }
    }

    @Test func onlyTheStreamsPacketsPassAndTheRestIsCountedByReason() {
        let packetGuard = RTPPacketGuard(caps: nil)
        let start = ContinuousClock.now
        let cases: [([UInt8], PacketVerdict)] = [
            ([1, 2, 3], .drop),  // not RTP: too short
            ([0x40] + Self.packet().dropFirst(), .drop),  // not RTP: version 1
            ([0x8F] + Self.packet(payload: 40).dropFirst(), .drop),  // 15 CSRCs announced, not there
            (Self.packet(33), .drop),  // a payload type no table knows
            (Self.packet(payload: 1_401), .drop),  // L16 stereo: 4-byte frames
            (Self.packet(payload: 0), .drop),
            (Self.packet(), .pass),  // the stream: locked from here
            (Self.packet(96), .drop),  // Opus is known, but not this stream's type
            (Self.packet(ssrc: 0xDEAD_BEEF), .drop),  // another source, the stream's is not silent
            (Self.packet(11, payload: 2), .drop),  // mono L16 is known, not this stream's
            (Self.packet(), .pass),
        ]
        for (index, (bytes, expected)) in cases.enumerated() {
            #expect(Self.verdict(packetGuard, bytes, at: start + .milliseconds(index)) == expected, "case \(index)")
        }
        #expect(packetGuard.drops.map(\.reason) == [.notRTP, .payloadType, .size, .source])
        #expect(packetGuard.drops.map(\.count) == [3, 3, 2, 1])
        #expect(packetGuard.isStreamSource(0x1234_5678) && !packetGuard.isStreamSource(0xDEAD_BEEF))
        let stats = ReceiveStats(jitterBuffer: nil, audio: nil, dropped: packetGuard.drops)
        #expect(
            stats.summary
                == "9 packets dropped (3 not RTP, 3 of another payload type, 2 of a wrong size, 1 from another "
                + "source); 0:00.0 of audio")
    }

    /// A sender that restarts comes back with another SSRC: once the first has been silent long enough, the new
    /// one is the stream, passed on under the first one's SSRC (rtpbin then sees one source going on).
    @Test func aRestartedSenderTakesOverAfterASilence() {
        let packetGuard = RTPPacketGuard(caps: nil)
        let start = ContinuousClock.now
        #expect(Self.verdict(packetGuard, Self.packet(ssrc: 1), at: start) == .pass)
        #expect(Self.verdict(packetGuard, Self.packet(ssrc: 2), at: start + .milliseconds(900)) == .drop)
        let later = start + RTPPacketGuard.relockSilence
        #expect(Self.verdict(packetGuard, Self.packet(ssrc: 2), at: later) == .passAsSource(ssrc: 1))
        #expect(packetGuard.isStreamSource(2) && !packetGuard.isStreamSource(1))
        #expect(Self.verdict(packetGuard, Self.packet(ssrc: 1), at: later + .milliseconds(10)) == .drop)
        #expect(Self.verdict(packetGuard, Self.packet(96, ssrc: 3), at: later + .seconds(5)) == .drop, "type kept")
    }

    /// With an SDP the payload type and frame size are the SDP's: 24-bit stereo is 6-byte frames.
    @Test func anSDPsFormatIsTheOnlyOne() throws {
        let sdp = RTPFormat(codec: .l24, rate: 48_000, channels: 2, payloadType: 120)
        let packetGuard = RTPPacketGuard(caps: sdp.rtpCaps)
        let start = ContinuousClock.now
        #expect(Self.verdict(packetGuard, Self.packet(120, payload: 1_400), at: start) == .drop)
        #expect(Self.verdict(packetGuard, Self.packet(10, payload: 1_404), at: start) == .drop)
        #expect(Self.verdict(packetGuard, Self.packet(120, payload: 1_404), at: start) == .pass)
        // Padding and an extension are not payload.
        var padded = Self.packet(120, payload: 1_404 + 2)
        padded[0] |= 0x20
        padded[padded.count - 1] = 2
        #expect(Self.verdict(packetGuard, padded, at: start) == .pass)
        var extended = Self.packet(120, payload: 8 + 1_404)
        extended[0] |= 0x10
        extended[12 + 3] = 1  // one 32-bit word after the extension's 4-byte head
        #expect(Self.verdict(packetGuard, extended, at: start) == .pass)
    }
}
