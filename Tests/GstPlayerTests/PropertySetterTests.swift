// yt-gst — typed property setters: each Swift type reaches the property's own type, and what does not fit throws.
import GstPlayer
import Testing

@Suite struct PropertySetterTests {
    init() { Gst.initialize() }

    /// audiotestsrc's `wave` values used here, by GStreamer's nicks.
    enum Wave: String, PropertyEnum {
        case square
        case noSuchWave = "no-such-wave"
    }

    /// The largest S16 sample of `bytes`, as a magnitude.
    static func peak(_ bytes: [UInt8]) -> Int {
        stride(from: 0, to: bytes.count - 1, by: 2).map {
            abs(Int(Int16(bitPattern: UInt16(bytes[$0]) | UInt16(bytes[$0 + 1]) << 8)))
        }
        .max() ?? 0
    }

    /// Two buffers of a square wave at `volume` (or muted), pulled from an appsink: what the typed values did.
    static func render(volume: Double, muted: Bool) throws -> [[UInt8]] {
        let pipeline = try Pipeline(
            launch: "audiotestsrc name=src ! audio/x-raw,format=S16LE,rate=8000,channels=1 ! volume name=volume"
                + " ! appsink name=sink sync=false")
        defer { _ = try? pipeline.setState(.null) }
        let source = try pipeline.element(named: "src")
        try source.set("num-buffers", to: 2)
        try source.set("samplesperbuffer", to: 80)
        try source.set("wave", to: Wave.square)
        try pipeline.element(named: "volume").set("volume", to: volume)
        try pipeline.element(named: "volume").set("mute", to: muted)
        let sink = try pipeline.appSink(named: "sink")
        try pipeline.setState(.playing)
        var buffers: [[UInt8]] = []
        while let sample = sink.pull(timeout: .seconds(10)) { buffers.append(sample.bytes) }
        #expect(sink.isEndOfStream, "the stream ended (not a timeout)")
        return buffers
    }

    @Test func intDoubleBoolAndEnumValuesTakeEffect() throws {
        let half = try Self.render(volume: 0.5, muted: false)
        #expect(half.map(\.count) == [160, 160], "num-buffers and samplesperbuffer (gint) took effect")
        // A square wave at audiotestsrc's volume 0.8, halved: 0.4 of full scale.
        #expect(abs(Self.peak(half.flatMap { $0 }) - 13_107) <= 2, "wave=square (enum) and volume 0.5 (gdouble)")
        let muted = try Self.render(volume: 0.5, muted: true)
        #expect(muted.count == 2 && Self.peak(muted.flatMap { $0 }) == 0, "mute (gboolean)")
    }

    @Test func stringsUnsignedAndEnumsByValue() throws {
        let pipeline = try Pipeline(launch: "udpsrc name=udp ! rtpL16pay name=pay ! srtsink name=srt")
        let udp = try pipeline.element(named: "udp")
        try udp.set("address", to: "127.0.0.1")
        #expect(!udp.hasDefaultValue("address"))
        try udp.set("timeout", to: 5_000_000_000)  // guint64
        #expect(!udp.hasDefaultValue("timeout"))
        let pay = try pipeline.element(named: "pay")
        try pay.set("timestamp-offset", to: Int(UInt32.max))  // guint, its largest value
        let srt = try pipeline.element(named: "srt")
        try srt.set("pbkeylen", to: 16)  // GstSRTKeyLength, by value
        #expect(!srt.hasDefaultValue("pbkeylen"))
    }

    /// Nothing is converted through text: a value of the wrong type, out of range, or for a read-only property
    /// is an error that names the element and the property.
    @Test func valuesThatDoNotFitAreInvalid() throws {
        let pipeline = try Pipeline(
            launch: "audiotestsrc name=src ! volume name=volume ! fakesink name=sink"
                + " udpsrc name=udp ! rtpL16pay name=pay ! srtsink name=srt")
        let source = try pipeline.element(named: "src")
        let volume = try pipeline.element(named: "volume")
        let udp = try pipeline.element(named: "udp")
        let (pay, srt, sink) = try (
            pipeline.element(named: "pay"), pipeline.element(named: "srt"), pipeline.element(named: "sink")
        )
        let invalid: [(String, () throws(GstError) -> Void)] = [
            ("volume 11 (0 to 10)", { () throws(GstError) in try volume.set("volume", to: 11.0) }),
            ("a string for an int", { () throws(GstError) in try udp.set("port", to: "5004") }),
            ("a fraction for an int", { () throws(GstError) in try udp.set("port", to: 0.5) }),
            ("a bool for an int", { () throws(GstError) in try udp.set("port", to: true) }),
            ("port 70000", { () throws(GstError) in try udp.set("port", to: 70_000) }),
            ("a negative guint64", { () throws(GstError) in try udp.set("timeout", to: -1) }),
            ("past a guint", { () throws(GstError) in try pay.set("timestamp-offset", to: 1 << 32) }),
            ("an unknown nick", { () throws(GstError) in try source.set("wave", to: Wave.noSuchWave) }),
            ("an unknown enum value", { () throws(GstError) in try srt.set("pbkeylen", to: 17) }),
            ("read-only", { () throws(GstError) in try sink.set("last-message", to: "x") }),
        ]
        for (what, set) in invalid {
            let error = #expect(throws: GstError.self, "\(what)") { try set() }
            #expect(error?.kind == .invalidValue, "\(what): \(String(describing: error))")
        }
        let error = #expect(throws: GstError.self) { try volume.set("volume", to: 11.0) }
        #expect(error?.message == "element \"volume\" (volume): property \"volume\" cannot take 11.0 (out of range)")
        #expect(volume.hasDefaultValue("volume"), "a rejected value leaves the property as it was")
        let missing = #expect(throws: GstError.self) { try volume.set("no-such-property", to: 1) }
        #expect(missing?.kind == .notFound)
    }

    /// A field set in a structure-valued property (pulsesink's `stream-properties`, as a receiver names a
    /// pipewiresink's node) joins the fields set there before, or makes the structure where none was set; a property
    /// that holds no structure, or none at all, throws.
    @Test func aFieldJoinsAStructurePropertyAndKeepsItsOtherFields() throws {
        let pipeline = try Pipeline(
            launch: "audiotestsrc ! pulsesink name=set stream-properties=\"props,media.role=Music\" "
                + "audiotestsrc ! pulsesink name=unset")
        let set = try pipeline.element(named: "set")
        try set.set("node.name", to: "room-1", inStructure: "stream-properties")
        #expect(set.structure(of: "stream-properties")?.string("media.role") == "Music")
        #expect(set.structure(of: "stream-properties")?.string("node.name") == "room-1")
        let unset = try pipeline.element(named: "unset")
        #expect(unset.structure(of: "stream-properties") == nil)
        try unset.set("node.name", to: "room-2", inStructure: "stream-properties")
        #expect(unset.structure(of: "stream-properties")?.name == "stream-properties")
        #expect(unset.structure(of: "stream-properties")?.string("node.name") == "room-2")
        let notAStructure = #expect(throws: GstError.self) {
            try set.set("x", to: "y", inStructure: "device")
        }
        #expect(notAStructure?.kind == .invalidValue)
        let missing = #expect(throws: GstError.self) {
            try set.set("x", to: "y", inStructure: "no-such-property")
        }
        #expect(missing?.kind == .notFound)
    }
}
