// yt-gst — SDP (RFC 4566) for one RTP audio stream: written by `stream --sdp`, read by `receive sdp:FILE`.
import Glibc
import GstPlayer

/// The part of a session description that matters to an RTP audio receiver.
public struct SessionDescription: Equatable, Sendable {
    /// Session name (the s= line).
    public var name: String
    /// Destination: a unicast address (the receiver's) or a multicast group.
    public var address: String
    /// Multicast TTL, written as `c=IN IP4 GROUP/TTL`.
    public var ttl: Int?
    public var port: Int
    /// RTCP port; RFC 3550's default is the RTP port + 1.
    public var rtcpPort: Int
    public var payloadType: Int
    /// As in the rtpmap, e.g. "L16", "L24", "opus", "PCMU".
    public var encodingName: String
    public var clockRate: Int
    /// The rtpmap's encoding parameters (channels for audio), if any.
    public var encodingParameters: Int?
    /// fmtp parameters, e.g. ["sprop-stereo": "1"].
    public var formatParameters: [(String, String)]
    /// The clock the RTP timestamps count (RFC 7273 `a=ts-refclk`, with `a=mediaclk:direct=0`), if given.
    public var referenceClock: ReferenceClock? = nil

    public static func == (lhs: SessionDescription, rhs: SessionDescription) -> Bool {
        lhs.name == rhs.name && lhs.address == rhs.address && lhs.ttl == rhs.ttl && lhs.port == rhs.port
            && lhs.rtcpPort == rhs.rtcpPort && lhs.payloadType == rhs.payloadType
            && lhs.encodingName == rhs.encodingName
            && lhs.clockRate == rhs.clockRate && lhs.encodingParameters == rhs.encodingParameters
            && lhs.referenceClock == rhs.referenceClock
            && lhs.formatParameters.map { "\($0)=\($1)" } == rhs.formatParameters.map { "\($0)=\($1)" }
    }

    /// The description of a stream `stream` sends in `format` to `address`:`port`.
    public init(
        name: String, format: RTPFormat, address: String, port: Int, ttl: Int?, clock: ReferenceClock? = nil
    ) {
        self.referenceClock = clock
        self.name = name
        self.address = address
        self.ttl = RTPEndpoint.isMulticastAddress(address) && !address.contains(":") ? ttl ?? 1 : nil
        self.port = port
        self.rtcpPort = port + 1
        self.payloadType = format.payloadType
        let map = format.rtpmap.split(separator: "/")
        self.encodingName = String(map[0])
        self.clockRate = format.rate
        self.encodingParameters = map.count > 2 ? Int(map[2]) : nil
        self.formatParameters = SessionDescription.fmtpParameters(format.fmtp ?? "")
    }

    /// The SDP text, CRLF-terminated lines as RFC 4566 asks.
    public var text: String {
        let family = address.contains(":") ? "IP6" : "IP4"
        let origin = family == "IP6" ? "::" : "0.0.0.0"
        let connection = ttl.map { "\(address)/\($0)" } ?? address
        var lines = [
            "v=0",
            "o=- \(SessionDescription.sessionID()) 1 IN \(family) \(origin)",
            "s=\(name.isEmpty ? "yt-gst" : name)",
            "c=IN \(family) \(connection)",
            "t=0 0",
            "a=tool:yt-gst \(toolVersion)",
            "a=recvonly",
            "m=audio \(port) RTP/AVP \(payloadType)",
        ]
        if rtcpPort != port + 1 { lines.append("a=rtcp:\(rtcpPort)") }
        let parameters = encodingParameters.map { "/\($0)" } ?? ""
        lines.append("a=rtpmap:\(payloadType) \(encodingName)/\(clockRate)\(parameters)")
        if !formatParameters.isEmpty {
            lines.append("a=fmtp:\(payloadType) " + formatParameters.map { "\($0)=\($1)" }.joined(separator: "; "))
        }
        if let referenceClock {
            lines.append("a=ts-refclk:\(referenceClock.sdpValue)")
            lines.append("a=mediaclk:direct=0")
        }
        return lines.map { $0 + "\r\n" }.joined()
    }

    private static func sessionID() -> String {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return String(UInt64(now.tv_sec) + 2_208_988_800)  // NTP seconds, as RFC 4566 suggests
    }

    public var isMulticast: Bool { RTPEndpoint.isMulticastAddress(address) }

    /// The RTP caps for rtpbin and the depayloader: encoding name upper-cased, channels and fmtp as fields.
    public var rtpCaps: Caps {
        var caps = Caps(
            mediaType: "application/x-rtp",
            fields: [
                ("media", .string("audio")), ("clock-rate", .int(Int64(clockRate))),
                ("encoding-name", .string(encodingName.uppercased())), ("payload", .int(Int64(payloadType))),
            ])
        if let encodingParameters {
            caps["encoding-params"] = .string(String(encodingParameters))
            if encodingName.uppercased() != "OPUS" { caps["channels"] = .int(Int64(encodingParameters)) }
        }
        for (key, value) in formatParameters
        where key.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" }) {
            caps[key] = .string(value)
        }
        return caps
    }
}
