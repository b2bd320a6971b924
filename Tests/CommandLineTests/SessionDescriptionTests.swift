// yt-gst — reading SDP: the first audio stream's values, never those of the other streams around it.
import Testing

@testable import Streaming
@testable import yt_gst

@Suite struct SessionDescriptionTests {
    @Test func otherStreamsAroundTheAudioStreamDoNotLeakIntoIt() throws {
        let text = """
            v=0
            o=- 1 1 IN IP4 10.0.0.1
            s=radio
            c=IN IP4 239.255.0.1/4
            t=0 0
            m=video 6000 RTP/AVP 96
            c=IN IP4 239.255.9.9/4
            a=rtpmap:96 H264/90000
            a=rtcp:6001
            m=audio 5004 RTP/AVP 97
            a=rtpmap:97 L16/44100/2
            m=video 7000 RTP/AVP 97
            c=IN IP4 239.255.8.8/4
            a=rtpmap:97 H264/90000
            a=rtcp:7777
            m=audio 8000 RTP/AVP 98
            a=rtpmap:98 L24/48000/1
            """
        let sdp = try SessionDescription(parsing: text)
        #expect(sdp.name == "radio")
        #expect(sdp.address == "239.255.0.1" && sdp.ttl == 4, "the session's address, not a video stream's")
        #expect(sdp.port == 5004 && sdp.rtcpPort == 5005, "the audio stream's ports, not a later stream's a=rtcp")
        #expect(sdp.payloadType == 97 && sdp.encodingName == "L16" && sdp.clockRate == 44_100)
        #expect(sdp.encodingParameters == 2, "the audio stream's rtpmap, not the later video's for the same number")
    }

    /// GStreamer carries 1 to 63 channels at rates that fit a gint: an SDP beyond them is refused before any
    /// pipeline (64 channels crashed the receiver in audioconvert).
    @Test(arguments: ["L16/48000/64", "L16/48000/0", "L24/4294967295/2"])
    func formatsGStreamerCannotCarryAreRefused(rtpmap: String) {
        let text = "v=0\nc=IN IP4 239.255.0.1\nm=audio 5004 RTP/AVP 96\na=rtpmap:96 \(rtpmap)\n"
        let error = #expect(throws: SDPError.self) { try SessionDescription(parsing: text) }
        #expect(error?.description.contains(rtpmap) == true, "\(error.map(String.init(describing:)) ?? "")")
    }
}
