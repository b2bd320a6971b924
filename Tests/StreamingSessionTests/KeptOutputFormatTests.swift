// yt-gst — which streams a pipewiresink output opened early plays converted, and which open it again.
import GstPlayer
import Testing

@testable import Streaming

@Suite struct KeptOutputFormatTests {
    static let opened = Caps.rawAudio(format: .s16BE, rate: 48_000, channels: 2)

    @Test func anotherRateOrFewerChannelsKeepTheOutputsRateAndChannels() throws {
        for stream in [
            Caps.rawAudio(format: .s16BE, rate: 44_100, channels: 1),
            .rawAudio(format: .s16BE, rate: 44_100, channels: 2),
            .rawAudio(format: .s16BE, rate: 96_000, channels: 1),
        ] {
            let kept = try #require(ReceiveSession.keptFormat(opened: Self.opened, stream: stream), "\(stream)")
            #expect(kept.mediaType == "audio/x-raw" && kept.rate == 48_000 && kept.channels == 2)
            #expect(kept.format == nil, "the sample format stays the one the output negotiated")
        }
    }

    @Test func moreChannelsOrAnotherSampleFormatOpenItAgain() {
        for stream in [
            Caps.rawAudio(format: .s16BE, rate: 48_000, channels: 6),
            .rawAudio(format: .s24BE, rate: 48_000, channels: 2),
            .rawAudio(format: .s16LE, rate: 48_000, channels: 1),
        ] {
            #expect(ReceiveSession.keptFormat(opened: Self.opened, stream: stream) == nil, "\(stream)")
        }
    }
}
