// yt-gst — what `receive` builds: RTP through rtpbin or SRT, then the decoder, a volume and the caller's output.
import GstPlayer

/// What `receive` builds.
enum ReceivePlan {
    /// RTP through rtpbin; `address` is a multicast group to join (nil: every local address); caps and the
    /// reference clock from an SDP.
    case rtp(address: String?, port: Int, rtcpPort: Int, caps: Caps?, clock: ReferenceClock? = nil)
    case srt(SRTEndpoint)

    /// The volume element the session controls.
    static let volumeName = "output-volume"
    /// The capsfilter right before the output: open (ANY) unless a pipewiresink output keeps its format for a
    /// stream in another (see `ReceiveSession.keptFormat`).
    static let outputFormatName = "output-format"

    var networkSourceName: String {
        switch self {
        case .rtp: "rtp"
        case .srt: "net"
        }
    }

    /// The filter that keeps what is not the stream's out of rtpbin (nil over SRT): a new one each call.
    func packetGuard() -> RTPPacketGuard? {
        guard case .rtp(_, _, _, let caps, _) = self else { return nil }
        return RTPPacketGuard(caps: caps)
    }

    /// The launch string: named elements, values set as properties afterwards; `output` is the user's part.
    ///
    /// The decoded audio passes a volume element (`volumeName`) whose gain the session's volume and mute commands
    /// ramp (`VolumeRamp`), between two converters so that it takes any decoded format and the output gets the one
    /// it asks for; at volume 1 it passes the samples through untouched. A resampler and a capsfilter
    /// (`outputFormatName`) follow: they pass everything through as it is, unless the capsfilter is set.
    func launch(output: String) -> String {
        let decode =
            "decodebin name=decode ! identity name=received silent=true ! audioconvert ! "
            + "volume name=\(ReceivePlan.volumeName) ! audioconvert ! audioresample ! "
            + "capsfilter name=\(ReceivePlan.outputFormatName) ! \(output)"
        switch self {
        case .rtp:
            return
                "rtpbin name=rtpbin udpsrc name=rtp ! rtpbin.recv_rtp_sink_0 udpsrc name=rtcp ! rtpbin.recv_rtcp_sink_0 "
                + "rtpbin. ! identity name=retime silent=true ! \(decode)"
        case .srt:
            return "srtsrc name=net ! gdpdepay name=framing ! \(decode)"
        }
    }
}
