// yt-gst — Caps: written in Swift, read back by GStreamer, and carried through a real appsrc ! appsink.
import GstPlayer
import Testing

@Suite struct CapsValueTests {
    init() { Gst.initialize() }

    /// Caps as yt-gst makes them: raw PCM with and without positions, and the codec caps of WAV files.
    static let examples: [Caps] = [
        .rawAudio(format: .s16LE, rate: 44_100, channels: 1),
        .rawAudio(format: .s16LE, rate: 44_100, channels: 2, channelMask: 0x3),
        .rawAudio(format: .s24_32LE, rate: 96_000, channels: 6, channelMask: 0x3F),
        .rawAudio(format: .f32BE, rate: 8_000, channels: 12, channelMask: 0),
        Caps(mediaType: "audio/x-alaw", fields: [("rate", .int(8_000)), ("channels", .int(1))]),
        Caps(
            mediaType: "audio/x-adpcm",
            fields: [
                ("layout", .string("microsoft")), ("rate", .int(22_050)), ("channels", .int(2)),
                ("block_align", .int(1_024)), ("codec_data", .buffer([0xF4, 0x07, 0x07, 0x00, 0x00, 0x01])),
            ]),
        Caps(
            mediaType: "audio/mpeg",
            fields: [("mpegversion", .int(1)), ("layer", .int(3)), ("rate", .int(44_100)), ("channels", .int(2))]),
        Caps(mediaType: "video/x-raw", fields: [("framerate", .fraction(30_000, 1_001))]),
        Caps(
            mediaType: "application/x-rtp",
            fields: [("media", .string("audio")), ("a-tool", .string("my \"tool\", v1; ünï")), ("empty", .string(""))]),
    ]

    @Test(arguments: examples)
    func descriptionParsesBackEqual(caps: Caps) throws {
        let parsed = try Caps(parsing: caps.description)
        #expect(parsed == caps, "\(caps.description) came back as \(parsed.description)")
        #expect(parsed.description == caps.description, "the same text as written")
    }

    @Test func descriptionIsGStreamersSyntax() {
        let caps = Caps.rawAudio(format: .s16LE, rate: 44_100, channels: 2, channelMask: 0x3)
        #expect(
            caps.description
                == "audio/x-raw, format=(string)S16LE, layout=(string)interleaved, rate=(int)44100, channels=(int)2,"
                + " channel-mask=(bitmask)0x0000000000000003")
        let codec = Caps(
            mediaType: "audio/x-adpcm", fields: [("layout", .string("dvi")), ("codec_data", .buffer([1, 0xAB]))])
        #expect(codec.description == "audio/x-adpcm, layout=(string)dvi, codec_data=(buffer)01ab")
    }

    @Test func typedAccessorsReadParsedText() throws {
        let caps = try Caps(
            parsing: "audio/x-raw,format=S24LE,layout=interleaved,rate=48000,channels=6,channel-mask=(bitmask)0x3f")
        #expect(caps.mediaType == "audio/x-raw")
        #expect(caps.format == .s24LE)
        #expect(caps.layout == "interleaved")
        #expect(caps.rate == 48_000)
        #expect(caps.channels == 6)
        #expect(caps.channelMask == 0x3F)
        #expect(caps.int("format") == nil && caps.string("rate") == nil, "a field of another type is nil")
        let adpcm = try Caps(parsing: "audio/x-adpcm, layout=(string)microsoft, block_align=(int)2048")
        #expect(adpcm.layout == "microsoft")
        #expect(adpcm.int("block_align") == 2048)
        #expect(adpcm.value("block_align") == .int(2048))
        #expect(adpcm.channelMask == nil && adpcm.rate == nil)
    }

    @Test func equalityIgnoresFieldOrderButNotValues() throws {
        let written = Caps.rawAudio(format: .s16LE, rate: 8_000, channels: 1)
        #expect(try Caps(parsing: "audio/x-raw, channels=1, rate=8000, layout=interleaved, format=S16LE") == written)
        #expect(try Caps(parsing: "audio/x-raw, channels=1, rate=8001, layout=interleaved, format=S16LE") != written)
        var more = written
        more["channel-mask"] = .bitmask(0x4)
        #expect(more != written && more.channelMask == 0x4)
        more["channel-mask"] = nil
        #expect(more == written)
    }

    @Test(arguments: ["", "audio/x-raw, rate=(int)notanumber", "ANY", "EMPTY", "audio/x-raw, =1"])
    func badTextThrowsInvalidValue(text: String) {
        let error = #expect(throws: GstError.self) { try Caps(parsing: text) }
        #expect(error?.kind == .invalidValue)
    }

    /// Caps made in Swift are what a real appsrc announces and what the appsink's sample carries.
    @Test(arguments: [
        Caps.rawAudio(format: .s16LE, rate: 8_000, channels: 1),
        Caps.rawAudio(format: .f32LE, rate: 48_000, channels: 6, channelMask: 0x3F),
    ])
    func appSourceCapsArriveAtTheAppSink(caps: Caps) throws {
        let pipeline = try Pipeline(launch: "appsrc name=src ! appsink name=sink sync=false")
        defer { _ = try? pipeline.setState(.null) }
        let source = try pipeline.appSource(named: "src")
        try source.configure(caps: caps, streamType: .stream, maxBytes: 1 << 16, duration: nil)
        let frameBytes = (caps.format == .s16LE ? 2 : 4) * (caps.channels ?? 1)
        let pushed = source.push(
            capacity: frameBytes * 100, fill: { $0.count },
            timing: { BufferTiming(frames: 0..<Int64($0 / frameBytes), rate: caps.rate ?? 1) })
        #expect(pushed == .ok)
        source.endOfStream()
        try pipeline.setState(.playing)
        let sample = try #require(try pipeline.appSink(named: "sink").pull(timeout: .seconds(5)))
        #expect(sample.bytes.count == frameBytes * 100)
        #expect(sample.caps == caps)
    }
}
