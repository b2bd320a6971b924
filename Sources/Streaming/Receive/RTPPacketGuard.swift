// yt-gst — a receiver's open port hears anything anyone sends: only the stream's own packets go on to be played.
import GstPlayer
import Synchronization

/// Why a datagram that reached a receiver's RTP port was dropped.
public enum RTPDropReason: Error, Sendable, CaseIterable {
    /// Not an RTP packet (too short, not version 2, or lengths that do not add up).
    case notRTP
    /// A payload type that is not the stream's (or that no table or SDP describes).
    case payloadType
    /// A payload that is empty or not a whole number of L16/L24 frames.
    case size
    /// From another synchronisation source (SSRC) than the stream's.
    case source
}

/// Lets through the RTP packets of one stream and drops, counting them by reason, everything else that reaches the
/// receiver's port: a junk or foreign packet that reached rtpbin would make it a second source pad that nothing
/// is linked to, or a depayloader error, and either stops the receiver.
///
/// The stream is the payload type and SSRC of the first packet of a known format (late joiners lock on whatever
/// they hear first). A sender that restarts comes back with another SSRC: once the locked one has been silent for
/// `relockSilence`, the next good packet's SSRC becomes the stream's, and its packets are passed on under the first
/// SSRC, so that rtpbin sees one source going on (with a jump in sequence and time) instead of a new one.
///
/// - Note: `Sendable` through atomics: `verdict` runs on the RTP source's streaming thread (the only writer),
///   the counts and the locked SSRC are read from the receiver's loop.
public final class RTPPacketGuard: Sendable {
    /// How long the stream's source must be silent before another may take its place.
    public static let relockSilence = Duration.seconds(1)

    /// Bytes per frame by payload type; 0: any non-empty payload (Opus).
    private let frameBytes: [Int: Int]
    /// The locked stream, `locked(pt, ssrc)`, and the SSRC rtpbin knows it by (0 before the first packet).
    private let stream = Atomic<UInt64>(0)
    private let downstreamSSRC = Atomic<UInt32>(0)
    /// When the stream's source last sent a packet that passed (ns on `ContinuousClock`'s scale).
    private let lastPassed = Atomic<Int64>(0)
    private let notRTP = Atomic<Int>(0)
    private let payloadType = Atomic<Int>(0)
    private let size = Atomic<Int>(0)
    private let source = Atomic<Int>(0)

    /// A guard for the formats of `caps` (an SDP's), or of every payload type yt-gst knows without one.
    public init(caps: Caps?) {
        if let caps, let pt = caps.int("payload") {
            frameBytes = [pt: RTPPacketGuard.frameBytes(caps)]
        } else {
            frameBytes = RTPFormat.knownCapsByPayloadType.mapValues(RTPPacketGuard.frameBytes)
        }
    }

    /// L16: 2 bytes a sample, L24: 3, times the channels (1 when unsaid, RFC 3551); other codecs: 0.
    private static func frameBytes(_ caps: Caps) -> Int {
        let channels = caps.int("channels") ?? 1
        switch caps.string("encoding-name")?.uppercased() {
        case "L16": return 2 * channels
        case "L24": return 3 * channels
        default: return 0
        }
    }

    /// Whether `packet` is an RTP packet of a format this receiver plays (the checks before the SSRC's).
    public func isPlayable(_ packet: UnsafeRawBufferPointer) -> Bool {
        (try? checkFormat(packet)) != nil
    }

    /// The verdict on one datagram, counting the dropped ones; `now` is `ContinuousClock`'s.
    public func verdict(on packet: UnsafeRawBufferPointer, at now: ContinuousClock.Instant = .now) -> PacketVerdict {
        let header: RTPHeader
        do { header = try checkFormat(packet) } catch { return drop(error) }
        let nanoseconds = RTPPacketGuard.nanoseconds(now)
        let locked = stream.load(ordering: .relaxed)
        if locked == 0 {
            downstreamSSRC.store(header.ssrc, ordering: .relaxed)
        } else if UInt8(truncatingIfNeeded: locked >> 32) != header.payloadType {
            return drop(.payloadType)
        } else if UInt32(truncatingIfNeeded: locked) != header.ssrc {
            let silence = nanoseconds - lastPassed.load(ordering: .relaxed)
            guard silence >= RTPPacketGuard.relockSilence.wholeNanoseconds else { return drop(.source) }
        }
        stream.store(RTPPacketGuard.locked(header.payloadType, header.ssrc), ordering: .relaxed)
        lastPassed.store(nanoseconds, ordering: .relaxed)
        let downstream = downstreamSSRC.load(ordering: .relaxed)
        return header.ssrc == downstream ? .pass : .passAsSource(ssrc: downstream)
    }

    /// Whether an RTCP BYE from `ssrc` ends the stream: it is the stream's source, or none is known yet.
    public func isStreamSource(_ ssrc: UInt32) -> Bool {
        let locked = stream.load(ordering: .relaxed)
        return locked == 0 || UInt32(truncatingIfNeeded: locked) == ssrc
    }

    /// The dropped packets by reason, in `RTPDropReason`'s order, the reasons with none left out.
    public var drops: [(reason: RTPDropReason, count: Int)] {
        RTPDropReason.allCases.map { reason in (reason, withCounter(reason) { $0.load(ordering: .relaxed) }) }
            .filter { $0.count > 0 }
    }

    /// The header of a packet of a playable format.
    ///
    /// - Throws: why it is not one.
    private func checkFormat(_ packet: UnsafeRawBufferPointer) throws(RTPDropReason) -> RTPHeader {
        guard let header = RTPHeader(packet) else { throw .notRTP }
        guard let frame = frameBytes[Int(header.payloadType)] else { throw .payloadType }
        guard header.payloadBytes > 0, frame == 0 || header.payloadBytes % frame == 0 else { throw .size }
        return header
    }

    private func drop(_ reason: RTPDropReason) -> PacketVerdict {
        withCounter(reason) { _ = $0.add(1, ordering: .relaxed) }
        return .drop
    }

    private func withCounter<R>(_ reason: RTPDropReason, _ body: (borrowing Atomic<Int>) -> R) -> R {
        switch reason {
        case .notRTP: body(notRTP)
        case .payloadType: body(payloadType)
        case .size: body(size)
        case .source: body(source)
        }
    }

    private static func locked(_ payloadType: UInt8, _ ssrc: UInt32) -> UInt64 {
        1 << 40 | UInt64(payloadType) << 32 | UInt64(ssrc)
    }

    private static func nanoseconds(_ instant: ContinuousClock.Instant) -> Int64 {
        (instant - RTPPacketGuard.origin).wholeNanoseconds
    }

    /// Instants are counted from here (the first guard's making): they fit an atomic integer.
    private static let origin = ContinuousClock.now
}

/// The fields of an RTP header (RFC 3550 5.1) a receiver checks, from a packet whose lengths add up.
struct RTPHeader: Equatable {
    var payloadType: UInt8
    var ssrc: UInt32
    /// The payload's length: the packet less the header, CSRCs, extension and padding.
    var payloadBytes: Int

    /// nil unless `packet` is RTP version 2 with a fixed header, CSRC list, extension and padding that fit.
    init?(_ packet: UnsafeRawBufferPointer) {
        guard packet.count >= 12, packet[0] >> 6 == 2 else { return nil }
        var headerBytes = 12 + 4 * Int(packet[0] & 0x0F)
        if packet[0] & 0x10 != 0 {  // an extension: 4 bytes, then its length in 32-bit words
            guard packet.count >= headerBytes + 4 else { return nil }
            headerBytes += 4 + 4 * (Int(packet[headerBytes + 2]) << 8 | Int(packet[headerBytes + 3]))
        }
        // Padding: its last byte counts the padding, itself included.
        let padding = packet[0] & 0x20 != 0 ? max(Int(packet[packet.count - 1]), 1) : 0
        guard headerBytes + padding <= packet.count else { return nil }
        payloadType = packet[1] & 0x7F
        ssrc = UInt32(packet[8]) << 24 | UInt32(packet[9]) << 16 | UInt32(packet[10]) << 8 | UInt32(packet[11])
        payloadBytes = packet.count - headerBytes - padding
    }
}
