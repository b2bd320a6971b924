// yt-gst — WAV format → GStreamer raw-audio caps, checked by GStreamer itself where it matters.
import AppSrcFeeder
import GstPlayer
import Testing
import WAV

@Suite struct CapsTests {
    @Test(arguments: [
        (SampleEncoding.pcm, 8, ByteOrder.little, AudioFormat.u8), (.pcm, 16, .little, .s16LE),
        (.pcm, 24, .little, .s24LE), (.pcm, 32, .little, .s32LE), (.float, 32, .little, .f32LE),
        (.float, 64, .little, .f64LE), (.pcm, 16, .big, .s16BE), (.pcm, 24, .big, .s24BE), (.float, 32, .big, .f32BE),
    ])
    func sampleFormats(encoding: SampleEncoding, bits: Int, order: ByteOrder, expected: AudioFormat) {
        let format = WAVFormat(
            formatTag: encoding == .pcm ? 1 : 3, encoding: encoding, byteOrder: order, channels: 1, sampleRate: 8000,
            bitsPerSample: bits, blockAlign: bits / 8)
        #expect(format.rawSampleFormat == expected)
        #expect(format.rawCaps == .rawAudio(format: expected, rate: 8000, channels: 1))
        #expect(format.rawCaps?.channelMask == nil, "one channel: no mask")
    }

    @Test func fewerValidBitsUseTheContainer() {
        let format = WAVFormat(
            formatTag: 0xFFFE, subFormatTag: 1, encoding: .pcm, channels: 2, sampleRate: 48_000, bitsPerSample: 32,
            validBits: 24, blockAlign: 8)
        #expect(format.rawSampleFormat == .s32LE)
    }

    @Test(
        arguments: [
            // (channels, WAV mask, GStreamer mask)
            (2, nil, 0x3), (6, nil, 0x3F), (8, nil, 0xC3F), (12, nil, 0x0),
            (6, 0x60F, 0xC0F),  // 5.1 with side surrounds: SL/SR are bits 10/11 in GStreamer
            (4, 0x33, 0x33), (2, 0x30, 0x30),
            (3, 0x3, 0x7),  // a mask that names fewer speakers than channels: the default layout
            (3, 0x1803, 0x7),  // TC before TFL in WAV order but after it in GStreamer's: the default layout
        ] as [(Int, UInt32?, UInt64)])
    func channelMasks(channels: Int, wavMask: UInt32?, gstMask: UInt64) {
        let format = WAVFormat(
            formatTag: 0xFFFE, subFormatTag: 1, encoding: .pcm, channels: channels, sampleRate: 48_000,
            bitsPerSample: 16, blockAlign: 2 * channels, channelMask: wavMask)
        #expect(format.rawCaps?.channelMask == gstMask)
        #expect(format.rawCaps?.channels == channels)
    }

    @Test(arguments: [1, 2, 3, 4, 5, 6, 7, 8, 10])
    func gstreamerAcceptsTheCapsForEveryChannelCount(channels: Int) throws {
        Gst.initialize()
        let format = WAVFormat(
            formatTag: 1, encoding: .pcm, channels: channels, sampleRate: 48_000, bitsPerSample: 16,
            blockAlign: 2 * channels)
        let caps = try #require(format.rawCaps)
        let pipeline = try Pipeline(launch: "audiotestsrc num-buffers=2 ! audioconvert ! capsfilter name=f ! fakesink")
        try pipeline.element(named: "f").set("caps", to: caps)
        try pipeline.setState(.playing)
        var ended = false
        for _ in 0..<100 {
            switch pipeline.nextMessage(timeout: .milliseconds(50))?.view {
            case .endOfStream?: ended = true
            case .error(let error)?: Issue.record("\(channels) channels: \(error)")
            default: continue
            }
            break
        }
        #expect(ended)
        try pipeline.setState(.null)
    }
}
