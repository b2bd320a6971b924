// yt-gst — RTP payload formats on the wire and the payload types both sides know.
import GstPlayer

/// One RTP audio stream's format: codec, clock rate, channels and payload type.
public struct RTPFormat: Equatable, Sendable {
    public var codec: NetworkCodec
    /// RTP clock rate: the sample rate for L16/L24, 48000 for Opus.
    public var rate: Int
    public var channels: Int
    public var payloadType: Int

    /// Payload types that `receive` understands without an SDP, and that `stream` uses: RFC 3551's static
    /// L16 types 10 and 11, and a fixed yt-gst table in the dynamic range (96-125). 126 and 127 are left for
    /// formats that only an SDP describes (e.g. more than two channels).
    public static let knownPayloadTypes: [RTPFormat] = {
        var table = [
            RTPFormat(codec: .l16, rate: 44_100, channels: 2, payloadType: 10),
            RTPFormat(codec: .l16, rate: 44_100, channels: 1, payloadType: 11),
            RTPFormat(codec: .opus, rate: 48_000, channels: 2, payloadType: 96),
            RTPFormat(codec: .opus, rate: 48_000, channels: 1, payloadType: 97),
        ]
        var next = 98
        for rate in [8_000, 16_000, 22_050, 24_000, 32_000, 48_000, 88_200, 96_000] {
            for channels in [2, 1] {
                table.append(RTPFormat(codec: .l16, rate: rate, channels: channels, payloadType: next))
                next += 1
            }
        }
        for rate in [32_000, 44_100, 48_000, 88_200, 96_000, 192_000] {
            for channels in [2, 1] {
                table.append(RTPFormat(codec: .l24, rate: rate, channels: channels, payloadType: next))
                next += 1
            }
        }
        return table
    }()

    /// The payload type used for formats that are not in the table: only an SDP can describe them.
    public static let sdpOnlyPayloadType = 127

    /// The format for a codec, rate and channel count, with its known payload type or `sdpOnlyPayloadType`.
    public init(codec: NetworkCodec, rate: Int, channels: Int) {
        let rate = codec == .opus ? 48_000 : rate
        let known = RTPFormat.knownPayloadTypes.first {
            $0.codec == codec && $0.rate == rate && $0.channels == channels
        }
        self.init(
            codec: codec, rate: rate, channels: channels,
            payloadType: known?.payloadType ?? RTPFormat.sdpOnlyPayloadType)
    }

    public init(codec: NetworkCodec, rate: Int, channels: Int, payloadType: Int) {
        self.codec = codec
        self.rate = rate
        self.channels = channels
        self.payloadType = payloadType
    }

    /// Whether a receiver without an SDP knows this format from its payload type.
    public var isKnownWithoutSDP: Bool { RTPFormat.knownPayloadTypes.contains(self) }

    /// The caps of these RTP packets, as rtpbin and the depayloaders expect them.
    public var rtpCaps: Caps {
        var caps = Caps(
            mediaType: "application/x-rtp",
            fields: [
                ("media", .string("audio")), ("clock-rate", .int(Int64(rate))),
                ("encoding-name", .string(codec.encodingName)), ("payload", .int(Int64(payloadType))),
            ])
        switch codec {
        case .l16, .l24:
            caps["encoding-params"] = .string(String(channels))
            caps["channels"] = .int(Int64(channels))
        case .opus:
            caps["encoding-params"] = .string("2")
            caps["sprop-stereo"] = .string(channels == 2 ? "1" : "0")
        }
        return caps
    }

    /// The raw audio the payloader takes (`audio/x-raw, format=S16BE, rate=44100, channels=2`).
    public var rawCaps: Caps {
        switch codec {
        case .l16: .rawAudio(format: .s16BE, rate: rate, channels: channels)
        case .l24: .rawAudio(format: .s24BE, rate: rate, channels: channels)
        case .opus: NetworkCodec.opusInput(channels: channels)
        }
    }

    /// The raw audio that the depayloader or decoder of RTP packets with these caps puts out, so that an output can
    /// open before the first packet is decoded: L16 and L24 as the caps say; Opus as `opusdec` decodes it (16-bit at
    /// 48 kHz; stereo, front left and right, unless `sprop-stereo` is 0, as the depayloader reads it); nil for
    /// another encoding.
    public static func decodedCaps(ofRTP caps: Caps) -> Caps? {
        guard case .string(let name) = caps["encoding-name"], let rate = caps["clock-rate"]?.number else { return nil }
        let parameters: Double? =
            if case .string(let text) = caps["encoding-params"] { Double(text) } else { nil }
        let channels = Int(caps["channels"]?.number ?? parameters ?? 1)
        switch name.uppercased() {
        case NetworkCodec.l16.encodingName: return .rawAudio(format: .s16BE, rate: Int(rate), channels: channels)
        case NetworkCodec.l24.encodingName: return .rawAudio(format: .s24BE, rate: Int(rate), channels: channels)
        case NetworkCodec.opus.encodingName:
            let stereo: Bool = if case .string(let flag) = caps["sprop-stereo"] { flag == "1" } else { true }
            return .rawAudio(format: .s16LE, rate: 48_000, channels: stereo ? 2 : 1, channelMask: stereo ? 0x3 : nil)
        default: return nil
        }
    }

    /// The SDP rtpmap value: "L16/44100/2", "opus/48000/2" (Opus always says 2; RFC 7587).
    public var rtpmap: String {
        switch codec {
        case .l16, .l24: "\(codec.encodingName)/\(rate)/\(channels)"
        case .opus: "opus/48000/2"
        }
    }

    /// The SDP fmtp parameters, if any.
    public var fmtp: String? {
        codec == .opus ? "sprop-stereo=\(channels == 2 ? 1 : 0); stereo=\(channels == 2 ? 1 : 0)" : nil
    }

    /// The caps for every known payload type, for rtpbin's request-pt-map.
    public static var knownCapsByPayloadType: [Int: Caps] {
        Dictionary(uniqueKeysWithValues: knownPayloadTypes.map { ($0.payloadType, $0.rtpCaps) })
    }
}
