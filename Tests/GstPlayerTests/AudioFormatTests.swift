// yt-gst — AudioFormat: every case is a name GStreamer reads back, and negotiates, as that same format.
import GstPlayer
import Testing

@Suite struct AudioFormatTests {
    init() { Gst.initialize() }

    /// Written into caps text, parsed by GStreamer (`gst_caps_from_string`), and read back as the same case.
    @Test(arguments: AudioFormat.allCases)
    func roundTripsThroughCapsText(format: AudioFormat) throws {
        let caps = Caps.rawAudio(format: format, rate: 48_000, channels: 2)
        #expect(caps.description.hasPrefix("audio/x-raw, format=(string)\(format.rawValue), "))
        let parsed = try Caps(parsing: caps.description)
        #expect(parsed.format == format)
        #expect(parsed == caps)
    }

    /// GStreamer knows each name as a raw audio format: audioconvert produces it, so the stream reaches its end.
    @Test(arguments: AudioFormat.allCases)
    func gstreamerNegotiatesIt(format: AudioFormat) throws {
        let pipeline = try Pipeline(
            launch: "audiotestsrc num-buffers=2 samplesperbuffer=64 ! audioconvert ! capsfilter name=format ! fakesink")
        defer { _ = try? pipeline.setState(.null) }
        try pipeline.element(named: "format").set("caps", to: .rawAudio(format: format, rate: 8_000, channels: 1))
        try pipeline.setState(.playing)
        let deadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < deadline {
            switch pipeline.nextMessage(timeout: .milliseconds(100))?.view {
            case .endOfStream?: return
            case .error(let error)?: Issue.record("\(format): \(error)"); return
            default: continue
            }
        }
        Issue.record("\(format): no end of stream within 10 s")
    }

    /// A format field that names no raw format (another media type's use of it, a typo) reads as nil.
    @Test func anUnknownFormatReadsAsNil() throws {
        #expect(try Caps(parsing: "audio/x-raw, format=S16XE, rate=8000").format == nil)
        #expect(try Caps(parsing: "audio/x-raw, rate=8000").format == nil)
        #expect(AudioFormat.s24_32LE.description == "S24_32LE", "messages show GStreamer's name")
    }
}
