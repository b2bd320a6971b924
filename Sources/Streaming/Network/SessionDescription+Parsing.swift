// yt-gst — reading SDP text (RFC 4566): the first RTP audio stream and its first payload type.
import AppSrcFeeder

extension SessionDescription {
    /// Parses SDP text: the first audio stream (m=audio) over RTP/AVP and its first payload type.
    ///
    /// - Throws: `SDPError` naming the line or the part that is missing.
    public init(parsing text: String) throws(SDPError) {
        var lines = SDPLines()
        for (index, line) in text.split(
            omittingEmptySubsequences: true, whereSeparator: { $0 == "\n" || $0 == "\r\n" }
        )
        .enumerated() {
            try lines.read(line, number: index + 1)
        }
        guard lines.sawVersion else { throw SDPError("not an SDP file (no v=0 line)") }
        guard let media = lines.media else { throw SDPError("no audio stream (m=audio line)") }
        guard let (address, ttl) = lines.mediaAddress ?? lines.sessionAddress else {
            throw SDPError("no connection address (c= line)")
        }
        guard let payloadType = media.payloadTypes.first else { throw SDPError("no payload type on the m=audio line") }
        let encoding = try SessionDescription.encoding(of: payloadType, rtpmap: lines.rtpmaps[payloadType])
        self.name = lines.name
        self.address = address
        self.ttl = ttl
        self.port = media.port
        self.rtcpPort = lines.rtcpPort ?? media.port + 1
        self.referenceClock = lines.mediaClock ?? lines.sessionClock
        self.payloadType = payloadType
        self.encodingName = encoding.name
        self.clockRate = encoding.clockRate
        self.encodingParameters = encoding.parameters
        self.formatParameters = SessionDescription.fmtpParameters(lines.fmtps[payloadType] ?? "")
    }

    /// "sprop-stereo=1; stereo=1" → [("sprop-stereo", "1"), ("stereo", "1")]; pairs without "=" are left out.
    public static func fmtpParameters(_ text: String) -> [(String, String)] {
        text.split(separator: ";").compactMap { pair in
            let parts = pair.split(separator: "=", maxSplits: 1).map { $0.trimmingSpaces }
            return parts.count == 2 ? (parts[0], parts[1]) : nil
        }
    }

    /// The encoding of `payloadType`: from its rtpmap ("L16/44100/2"), else from the static payload types yt-gst
    /// knows (RFC 3551's, below 96).
    private static func encoding(
        of payloadType: Int, rtpmap: String?
    ) throws(SDPError) -> (name: String, clockRate: Int, parameters: Int?) {
        if let map = rtpmap {
            let parts = map.split(separator: "/")
            guard parts.count >= 2, let rate = Int(parts[1]), (1...WAVFeeder.maxSampleRate).contains(rate) else {
                throw SDPError("bad rtpmap \"\(map)\" for payload type \(payloadType)")
            }
            let channels = parts.count > 2 ? Int(parts[2]) : nil
            // GStreamer carries at most 63 channels (audioconvert crashes beyond): refused here, not at play time.
            if let channels, !(1...WAVFeeder.maxChannels).contains(channels) {
                throw SDPError(
                    "rtpmap \"\(map)\" declares \(channels) channels; GStreamer's audio conversion takes 1 to "
                        + "\(WAVFeeder.maxChannels)")
            }
            return (String(parts[0]), rate, channels)
        }
        if let known = RTPFormat.knownPayloadTypes.first(where: {
            $0.payloadType == payloadType && $0.payloadType < 96
        }) {
            return (known.codec.encodingName, known.rate, known.channels)
        }
        throw SDPError("payload type \(payloadType) has no a=rtpmap line")
    }

    /// "IN IP4 239.255.0.1/4" → ("239.255.0.1", 4).
    fileprivate static func connection(_ value: String) throws(SDPError) -> (String, Int?) {
        let fields = value.split(separator: " ")
        guard fields.count == 3, fields[0] == "IN", fields[1] == "IP4" || fields[1] == "IP6" else {
            throw SDPError("bad connection line \"c=\(value)\"")
        }
        let parts = fields[2].split(separator: "/")
        return (String(parts[0]), parts.count > 1 && fields[1] == "IP4" ? Int(parts[1]) : nil)
    }
}

/// What the lines of an SDP file have said so far, read one at a time.
private struct SDPLines {
    var sawVersion = false
    /// The session name (s=), from before the first media line.
    var name = ""
    var sessionAddress: (String, Int?)? = nil
    var mediaAddress: (String, Int?)? = nil
    var media: (port: Int, payloadTypes: [Int])? = nil
    var rtcpPort: Int? = nil
    var rtpmaps: [Int: String] = [:]
    var fmtps: [Int: String] = [:]
    /// `a=ts-refclk` of the session and of the audio stream (the stream's wins).
    var sessionClock: ReferenceClock? = nil
    var mediaClock: ReferenceClock? = nil
    /// Whether the lines now read are session-level (before the first m= line of any kind).
    var inSession = true
    /// Whether the lines now read belong to the first audio stream (from its m= line to the next m= line).
    var inAudio = false

    /// Reads one "x=value" line; `number` counts from 1, for the message.
    mutating func read(_ rawLine: Substring, number: Int) throws(SDPError) {
        let line = rawLine.hasSuffix("\r") ? rawLine.dropLast() : rawLine
        guard line.count >= 2, line[line.index(after: line.startIndex)] == "=" else {
            if line.allSatisfy(\.isWhitespace) { return }
            throw SDPError("line \(number) is not \"x=value\": \(line.prefix(40))")
        }
        let value = String(line.dropFirst(2))
        switch line.first! {
        case "v":
            guard value == "0" else { throw SDPError("unsupported SDP version \(value)") }
            sawVersion = true
        case "s":
            if inSession { name = value }
        case "c":
            let parsed = try SessionDescription.connection(value)
            if inSession { sessionAddress = parsed } else if inAudio { mediaAddress = parsed }
        case "m":
            try readMedia(value)
        case "a" where inAudio:
            readAttribute(value)
        case "a" where inSession && value.hasPrefix("ts-refclk:"):
            sessionClock = ReferenceClock(sdpValue: String(value.dropFirst(10)))
        default:
            break
        }
    }

    /// "m=audio 5004 RTP/AVP 10 11": the port and payload types of the first audio stream.
    private mutating func readMedia(_ value: String) throws(SDPError) {
        inSession = false
        if media != nil {  // only the first audio stream: what follows belongs to other streams
            inAudio = false
            return
        }
        let fields = value.split(separator: " ")
        inAudio = fields.first == "audio"
        guard inAudio else { return }
        guard fields.count >= 4, let port = Int(fields[1].split(separator: "/")[0]), (1...65_534).contains(port)
        else { throw SDPError("bad media line \"m=\(value)\"") }
        guard fields[2] == "RTP/AVP" || fields[2] == "RTP/AVPF" else {
            throw SDPError("unsupported transport \(fields[2]) (yt-gst receives RTP/AVP)")
        }
        media = (port, fields[3...].compactMap { Int($0) })
    }

    /// "a=rtpmap:…", "a=fmtp:…", "a=ts-refclk:…" and "a=rtcp:…" of the audio stream; other attributes do not matter.
    private mutating func readAttribute(_ value: String) {
        if value.hasPrefix("rtpmap:") {
            let parts = value.dropFirst(7).split(separator: " ", maxSplits: 1)
            if parts.count == 2, let pt = Int(parts[0]) { rtpmaps[pt] = parts[1].trimmingSpaces }
        } else if value.hasPrefix("fmtp:") {
            let parts = value.dropFirst(5).split(separator: " ", maxSplits: 1)
            if parts.count == 2, let pt = Int(parts[0]) { fmtps[pt] = parts[1].trimmingSpaces }
        } else if value.hasPrefix("ts-refclk:") {
            mediaClock = ReferenceClock(sdpValue: String(value.dropFirst(10)))
        } else if value.hasPrefix("rtcp:") {
            rtcpPort = Int(value.dropFirst(5).split(separator: " ")[0])
        }
    }
}

extension Substring {
    fileprivate var trimmingSpaces: String {
        String(drop(while: { $0 == " " || $0 == "\t" }).reversed().drop(while: { $0 == " " || $0 == "\t" }).reversed())
    }
}
