// yt-gst — SDP (RFC 4566) for one RTP audio stream: written by `stream --sdp`, read by `receive sdp:FILE`.
import Glibc

/// The part of a session description that matters to an RTP audio receiver.
struct SessionDescription: Equatable {
    /// Session name (the s= line).
    var name: String
    /// Destination: a unicast address (the receiver's) or a multicast group.
    var address: String
    /// Multicast TTL, written as `c=IN IP4 GROUP/TTL`.
    var ttl: Int?
    var port: Int
    /// RTCP port; RFC 3550's default is the RTP port + 1.
    var rtcpPort: Int
    var payloadType: Int
    /// As in the rtpmap, e.g. "L16", "L24", "opus", "PCMU".
    var encodingName: String
    var clockRate: Int
    /// The rtpmap's encoding parameters (channels for audio), if any.
    var encodingParameters: Int?
    /// fmtp parameters, e.g. ["sprop-stereo": "1"].
    var formatParameters: [(String, String)]

    static func == (lhs: SessionDescription, rhs: SessionDescription) -> Bool {
        lhs.name == rhs.name && lhs.address == rhs.address && lhs.ttl == rhs.ttl && lhs.port == rhs.port
            && lhs.rtcpPort == rhs.rtcpPort && lhs.payloadType == rhs.payloadType
            && lhs.encodingName == rhs.encodingName
            && lhs.clockRate == rhs.clockRate && lhs.encodingParameters == rhs.encodingParameters
            && lhs.formatParameters.map { "\($0)=\($1)" } == rhs.formatParameters.map { "\($0)=\($1)" }
    }

    /// The description of a stream `stream` sends in `format` to `address`:`port`.
    init(name: String, format: RTPFormat, address: String, port: Int, ttl: Int?) {
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
        self.formatParameters = (format.fmtp ?? "").split(separator: ";").compactMap { pair in
            let parts = pair.split(separator: "=", maxSplits: 1).map { $0.trimmingSpaces }
            return parts.count == 2 ? (parts[0], parts[1]) : nil
        }
    }

    /// The SDP text, CRLF-terminated lines as RFC 4566 asks.
    var text: String {
        let family = address.contains(":") ? "IP6" : "IP4"
        let origin = family == "IP6" ? "::" : "0.0.0.0"
        let connection = ttl.map { "\(address)/\($0)" } ?? address
        var lines = [
            "v=0",
            "o=- \(SessionDescription.sessionID()) 1 IN \(family) \(origin)",
            "s=\(name.isEmpty ? "yt-gst" : name)",
            "c=IN \(family) \(connection)",
            "t=0 0",
            "a=tool:yt-gst \(Tool.version)",
            "a=recvonly",
            "m=audio \(port) RTP/AVP \(payloadType)",
        ]
        if rtcpPort != port + 1 { lines.append("a=rtcp:\(rtcpPort)") }
        let parameters = encodingParameters.map { "/\($0)" } ?? ""
        lines.append("a=rtpmap:\(payloadType) \(encodingName)/\(clockRate)\(parameters)")
        if !formatParameters.isEmpty {
            lines.append("a=fmtp:\(payloadType) " + formatParameters.map { "\($0)=\($1)" }.joined(separator: "; "))
        }
        return lines.map { $0 + "\r\n" }.joined()
    }

    private static func sessionID() -> String {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return String(UInt64(now.tv_sec) + 2_208_988_800)  // NTP seconds, as RFC 4566 suggests
    }

    /// Parses SDP text: the first audio stream (m=audio) over RTP/AVP and its first payload type.
    ///
    /// - Throws: `SDPError` naming the line or the part that is missing.
    init(parsing text: String) throws(SDPError) {
        var sessionAddress: (String, Int?)? = nil
        var mediaAddress: (String, Int?)? = nil
        var media: (port: Int, payloadTypes: [Int])? = nil
        var name = ""
        var rtcpPort: Int? = nil
        var rtpmaps: [Int: String] = [:]
        var fmtps: [Int: String] = [:]
        var inAudio = false
        var sawVersion = false
        for (index, rawLine) in text.split(
            omittingEmptySubsequences: true, whereSeparator: { $0 == "\n" || $0 == "\r\n" }
        )
        .enumerated() {
            let line = rawLine.hasSuffix("\r") ? rawLine.dropLast() : rawLine
            guard line.count >= 2, line[line.index(after: line.startIndex)] == "=" else {
                if line.allSatisfy(\.isWhitespace) { continue }
                throw SDPError("line \(index + 1) is not \"x=value\": \(line.prefix(40))")
            }
            let kind = line.first!
            let value = String(line.dropFirst(2))
            switch kind {
            case "v":
                guard value == "0" else { throw SDPError("unsupported SDP version \(value)") }
                sawVersion = true
            case "s":
                if media == nil { name = value }
            case "c":
                let parsed = try SessionDescription.connection(value)
                if media == nil { sessionAddress = parsed } else if inAudio { mediaAddress = parsed }
            case "m":
                if media != nil && inAudio { break }  // only the first audio stream
                let fields = value.split(separator: " ")
                inAudio = fields.first == "audio"
                guard inAudio else { continue }
                guard fields.count >= 4, let port = Int(fields[1].split(separator: "/")[0]), (1...65_534).contains(port)
                else { throw SDPError("bad media line \"m=\(value)\"") }
                guard fields[2] == "RTP/AVP" || fields[2] == "RTP/AVPF" else {
                    throw SDPError("unsupported transport \(fields[2]) (yt-gst receives RTP/AVP)")
                }
                media = (port, fields[3...].compactMap { Int($0) })
            case "a" where inAudio:
                if value.hasPrefix("rtpmap:") {
                    let parts = value.dropFirst(7).split(separator: " ", maxSplits: 1)
                    if parts.count == 2, let pt = Int(parts[0]) { rtpmaps[pt] = parts[1].trimmingSpaces }
                } else if value.hasPrefix("fmtp:") {
                    let parts = value.dropFirst(5).split(separator: " ", maxSplits: 1)
                    if parts.count == 2, let pt = Int(parts[0]) { fmtps[pt] = parts[1].trimmingSpaces }
                } else if value.hasPrefix("rtcp:") {
                    rtcpPort = Int(value.dropFirst(5).split(separator: " ")[0])
                }
            default:
                continue
            }
        }
        guard sawVersion else { throw SDPError("not an SDP file (no v=0 line)") }
        guard let media else { throw SDPError("no audio stream (m=audio line)") }
        guard let (address, ttl) = mediaAddress ?? sessionAddress else {
            throw SDPError("no connection address (c= line)")
        }
        guard let payloadType = media.payloadTypes.first else { throw SDPError("no payload type on the m=audio line") }
        self.name = name
        self.address = address
        self.ttl = ttl
        self.port = media.port
        self.rtcpPort = rtcpPort ?? media.port + 1
        self.payloadType = payloadType
        if let map = rtpmaps[payloadType] {
            let parts = map.split(separator: "/")
            guard parts.count >= 2, let rate = Int(parts[1]), rate > 0 else {
                throw SDPError("bad rtpmap \"\(map)\" for payload type \(payloadType)")
            }
            encodingName = String(parts[0])
            clockRate = rate
            encodingParameters = parts.count > 2 ? Int(parts[2]) : nil
        } else if let known = RTPFormat.knownPayloadTypes.first(where: {
            $0.payloadType == payloadType && $0.payloadType < 96
        }) {
            encodingName = known.codec.encodingName
            clockRate = known.rate
            encodingParameters = known.channels
        } else {
            throw SDPError("payload type \(payloadType) has no a=rtpmap line")
        }
        formatParameters = (fmtps[payloadType] ?? "").split(separator: ";").compactMap { pair in
            let parts = pair.split(separator: "=", maxSplits: 1).map { $0.trimmingSpaces }
            return parts.count == 2 ? (parts[0], parts[1]) : nil
        }
    }

    /// "IN IP4 239.255.0.1/4" → ("239.255.0.1", 4).
    private static func connection(_ value: String) throws(SDPError) -> (String, Int?) {
        let fields = value.split(separator: " ")
        guard fields.count == 3, fields[0] == "IN", fields[1] == "IP4" || fields[1] == "IP6" else {
            throw SDPError("bad connection line \"c=\(value)\"")
        }
        let parts = fields[2].split(separator: "/")
        return (String(parts[0]), parts.count > 1 && fields[1] == "IP4" ? Int(parts[1]) : nil)
    }

    var isMulticast: Bool { RTPEndpoint.isMulticastAddress(address) }

    /// The RTP caps for rtpbin and the depayloader: encoding name upper-cased, channels and fmtp as fields.
    var rtpCaps: String {
        var caps = "application/x-rtp,media=(string)audio,clock-rate=(int)\(clockRate)"
        caps += ",encoding-name=(string)\(encodingName.uppercased()),payload=(int)\(payloadType)"
        if let encodingParameters {
            caps += ",encoding-params=(string)\(encodingParameters)"
            if encodingName.uppercased() != "OPUS" { caps += ",channels=(int)\(encodingParameters)" }
        }
        for (key, value) in formatParameters
        where key.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" }) {
            let safe = value.filter { $0 != "\"" && $0 != "\\" }
            caps += ",\(key)=(string)\"\(safe)\""
        }
        return caps
    }
}

/// An SDP file that cannot be used.
struct SDPError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

extension Substring {
    var trimmingSpaces: String {
        String(drop(while: { $0 == " " || $0 == "\t" }).reversed().drop(while: { $0 == " " || $0 == "\t" }).reversed())
    }
}
