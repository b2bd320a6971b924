// yt-gst — the format a pipewiresink output opens in, and which streams it plays without opening again.
import GstPlayer
import Testing

@testable import Streaming

@Suite struct PipeWireOutputFormatTests {
    static let opened = Caps.rawAudio(format: .s16BE, rate: 48_000, channels: 2)

    @Test func theOutputOpensInFloatAtTheStreamsRateAndChannels() {
        let format = ReceiveSession.pipeWireOutputFormat(for: .rawAudio(format: .s24BE, rate: 44_100, channels: 1))
        #expect(format.format == .f32LE && format.rate == 44_100 && format.channels == 1)
    }

    @Test func streamsOfNoMoreChannelsPlayInItAndMoreOpenItAgain() {
        for (stream, keeps) in [
            (Caps.rawAudio(format: .s16BE, rate: 44_100, channels: 1), true),
            (.rawAudio(format: .s24BE, rate: 48_000, channels: 2), true),
            (.rawAudio(format: .s16LE, rate: 96_000, channels: 2), true),
            (.rawAudio(format: .s16BE, rate: 48_000, channels: 6), false),
        ] {
            #expect(ReceiveSession.pipeWireOutputKeeps(Self.opened, for: stream) == keeps, "\(stream)")
        }
        #expect(!ReceiveSession.pipeWireOutputKeeps(nil, for: Self.opened), "not opened yet")
        #expect(!ReceiveSession.pipeWireOutputKeeps(Self.opened, for: nil), "a format that does not decode to raw")
    }
}
