// yt-gst — every broadcast encoder takes the bitrate of every value `--bitrate` allows (32 to 320 kbit/s).
import GstPlayer
import Testing

@testable import Streaming

@Suite struct BroadcastEncoderTests {
    init() { Gst.initialize() }

    @Test(arguments: BroadcastCodec.allCases)
    func everyAllowedBitrateIsTaken(codec: BroadcastCodec) throws {
        let pipeline = try Pipeline(launch: "audiotestsrc ! \(codec.launch(encoderNamed: "enc")) ! fakesink")
        let encoder = try pipeline.element(named: "enc")
        for kilobits in [32, BroadcastCodec.defaultBitrate, 320] {
            #expect(throws: Never.self, "\(codec) at \(kilobits) kbit/s") {
                try encoder.set("bitrate", to: codec.bitrateValue(kilobits: kilobits))
            }
        }
    }
}
