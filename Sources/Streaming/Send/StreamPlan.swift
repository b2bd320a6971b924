// yt-gst — what `stream` builds: the transport and the format on the wire, and the launch string for them.
import GstPlayer
import WAV

/// What `stream` builds: the transport, and the format on the wire.
enum StreamPlan {
    enum SRTPayload {
        /// The raw audio as it is in the file; nil for a format with no raw form (which then fails to negotiate).
        case pcm(Caps?)
        case opus
    }

    /// RTP to one or more hosts or groups (one encoder, one clock).
    case rtp([RTPEndpoint], RTPFormat)
    case srt(SRTEndpoint, SRTPayload)

    /// "L16/44100/2", "PCM", "Opus".
    var formatName: String {
        switch self {
        case .rtp(_, let format): format.rtpmap
        case .srt(_, .pcm): "PCM"
        case .srt(_, .opus): "Opus"
        }
    }

    /// The volume element the stream's gain moves (`VolumeRamp`), and the converters around it.
    static let volumeName = "gain"
    static let converterNames = ["convert", "convert-out"]

    /// The launch string: constant text with named elements; every user value is set as a property afterwards.
    /// The files go one after another through the appsrc `src` (a `GaplessChain`), through the gain (`volumeName`,
    /// in a format it takes: at 1 it changes no sample) and converted to the format set on `format`.
    var launch: String {
        var text = "appsrc name=src ! "
        text += "audioconvert name=convert ! audioresample ! volume name=\(StreamPlan.volumeName) ! "
        text += "audioconvert name=convert-out ! capsfilter name=format ! "
        switch self {
        case .rtp(_, let format):
            switch format.codec {
            case .l16: text += "rtpL16pay name=pay"
            case .l24: text += "rtpL24pay name=pay"
            case .opus: text += "opusenc name=enc ! rtpopuspay name=pay"
            }
            // RTCP sender reports give the RTP time of the pipeline clock's time (see MediaClock).
            text += " ! rtpbin.send_rtp_sink_0 rtpbin name=rtpbin ntp-time-source=clock-time"
            text += " rtpbin.send_rtp_src_0 ! multiudpsink name=rtp"
            text += " rtpbin.send_rtcp_src_0 ! multiudpsink name=rtcp sync=false async=false"
        case .srt(_, let payload):
            if case .opus = payload { text += "opusenc name=enc ! " }
            text += "gdppay name=framing ! srtsink name=net auto-reconnect=false"
        }
        return text
    }
}
