// yt-gst — the format a receiver announces for Opus before its first packet is what opusdec then decodes.
import GstPlayer
import Testing

@testable import Streaming

@Suite struct OpusDecodedCapsTests {
    init() { Gst.initialize() }

    /// Stereo and mono Opus, encoded and payloaded as a sender does and decoded as a receiver does: the caps of the
    /// decoded audio are the ones `RTPFormat.decodedCaps` gives for the payload type's caps (an output opened early
    /// with other caps would be opened again when the audio comes, late).
    @Test(arguments: [1, 2])
    func announcedCapsAreTheDecodedOnes(channels: Int) throws {
        let format = try #require(
            RTPFormat.knownPayloadTypes.first { $0.codec == .opus && $0.channels == channels })
        let pipeline = try Pipeline(
            launch: "audiotestsrc num-buffers=5 ! audio/x-raw,rate=48000,channels=\(channels) ! opusenc ! "
                + "rtpopuspay pt=\(format.payloadType) ! rtpopusdepay ! opusdec ! appsink name=out")
        defer { _ = try? pipeline.setState(.null) }
        _ = try pipeline.setState(.playing)
        let sample = try #require(try pipeline.appSink(named: "out").pull(timeout: .seconds(5)))
        let announced = try #require(RTPFormat.decodedCaps(ofRTP: format.rtpCaps))
        #expect(sample.caps == announced, "decoded \(String(describing: sample.caps)), announced \(announced)")
    }
}
