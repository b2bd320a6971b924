// yt-gst — Pipeline, bus messages, states, queries: against real GStreamer elements.
import GstPlayer
import Synchronization
import Testing

@Suite struct PipelineTests {
    init() { Gst.initialize() }

    @Test func missingElementIsTypedAndNamed() {
        let error = #expect(throws: GstError.self) { try Pipeline(launch: "audiotestsrc ! nosuchelement ! fakesink") }
        #expect(error?.kind == .missingElement)
        #expect(error?.domain == "gst_parse_error")
        #expect(error?.code == 1)
        #expect(error?.message.contains("nosuchelement") == true)
    }

    @Test(arguments: ["audiotestsrc ! ! fakesink", "audiotestsrc num-buffers=abc ! fakesink", "( audiotestsrc"])
    func syntaxErrorsAreParseErrors(launch: String) {
        let error = #expect(throws: GstError.self) { try Pipeline(launch: launch) }
        #expect(error?.kind == .parse)
        #expect(error?.domain == "gst_parse_error")
    }

    @Test func singleElementIsWrappedInAPipeline() throws {
        let pipeline = try Pipeline(launch: "fakesink name=only")
        #expect(try pipeline.element(named: "only").factoryName == "fakesink")
    }

    /// A launch string of one element (or one bin) is wrapped in a pipeline; every reference to the element is
    /// owned once, so it is finalised with its pipeline, run after run.
    @Test(arguments: ["fakesink name=only", "( fakesink name=only )", "fakesrc ! fakesink name=only"])
    func elementIsFinalizedWithItsPipeline(launch: String) throws {
        let finalized = Counter()
        for _ in 0..<200 {
            let pipeline = try Pipeline(launch: launch)
            try pipeline.element(named: "only").whenFinalized { finalized.increment() }
        }
        #expect(finalized.value == 200)
    }

    @Test func elementLookup() throws {
        let pipeline = try Pipeline(launch: "appsrc name=src ! fakesink name=sink")
        #expect(try pipeline.element(named: "sink").name == "sink")
        #expect(try pipeline.appSource(named: "src").factoryName == "appsrc")
        #expect((#expect(throws: GstError.self) { try pipeline.element(named: "nope") })?.kind == .notFound)
        #expect((#expect(throws: GstError.self) { try pipeline.appSource(named: "sink") })?.kind == .missingAppElement)
    }

    @Test func unknownPropertyIsAnErrorNotIgnored() throws {
        let sink = try Pipeline(launch: "fakesink name=sink").element(named: "sink")
        #expect(sink.hasProperty("sync"))
        #expect(
            (#expect(throws: GstError.self) { try sink.set("no-such-property", fromString: "1") })?.kind == .notFound)
    }

    @Test func endOfStreamAndStateChangesArrive() throws {
        let pipeline = try Pipeline(launch: "audiotestsrc num-buffers=5 ! fakesink")
        #expect(try pipeline.setState(.playing) == .async)
        var sawPlaying = false
        var sawEOS = false
        for _ in 0..<200 {
            guard let message = pipeline.nextMessage(timeout: .milliseconds(50))?.view else { continue }
            if case .stateChanged(_, .playing, _, true) = message { sawPlaying = true }
            if case .endOfStream = message {
                sawEOS = true
                break
            }
        }
        #expect(sawPlaying && sawEOS)
        try pipeline.setState(.null)
    }

    @Test func liveSourceDoesNotPreroll() throws {
        let pipeline = try Pipeline(launch: "audiotestsrc is-live=true ! fakesink")
        #expect(try pipeline.setState(.paused) == .noPreroll)
        try pipeline.setState(.null)
    }

    @Test func streamingErrorCarriesSourceAndDebug() throws {
        let pipeline = try Pipeline(launch: "filesrc location=/nonexistent/yt-gst.wav ! fakesink")
        let error = #expect(throws: GstError.self) { try pipeline.setState(.playing) }
        #expect(error?.kind == .stateChange)
        #expect(error?.domain == "gst-resource-error-quark")
        #expect(error?.elementPath?.contains("GstFileSrc") == true)
        #expect(error?.debug?.isEmpty == false)
        #expect(error?.elementName == "filesrc0")
    }

    @Test func tagsAndApplicationMessages() throws {
        let pipeline = try Pipeline(
            launch: "audiotestsrc num-buffers=3 ! taginject tags=\"title=Hello,artist=Me\" ! fakesink")
        pipeline.postApplicationMessage(named: "yt-gst/test")
        try pipeline.setState(.playing)
        var tags: [Message.Tag] = []
        var application: String?
        for _ in 0..<200 {
            guard let message = pipeline.nextMessage(timeout: .milliseconds(50))?.view else { continue }
            if case .tags(let found) = message { tags += found }
            if case .application(let structure) = message { application = structure.name }
            if case .endOfStream = message { break }
        }
        #expect(tags.contains(Message.Tag(name: "title", value: "Hello")))
        #expect(tags.contains(Message.Tag(name: "artist", value: "Me")))
        #expect(application == "yt-gst/test")
        try pipeline.setState(.null)
    }

    @Test func elementMessagesCarryTheirStructure() throws {
        let pipeline = try Pipeline(launch: "audiotestsrc num-buffers=20 ! level interval=10000000 ! fakesink")
        try pipeline.setState(.playing)
        var level: Structure?
        for _ in 0..<200 {
            guard let message = pipeline.nextMessage(timeout: .milliseconds(50))?.view else { continue }
            if case .element(let structure) = message, structure.name == "level" { level = structure }
            if case .endOfStream = message { break }
        }
        // One reading per channel (audiotestsrc is mono), in dBFS: typed numbers, not text.
        #expect(level?.numbers("rms")?.count == 1)
        #expect(level?.numbers("peak")?.allSatisfy { $0 <= 0 && $0 > -60 } == true)
        #expect(level?.count("endtime") != nil)
        #expect(level?.elementPath?.contains("level") == true)
        try pipeline.setState(.null)
    }

    @Test func positionDurationAndSeek() throws {
        let pipeline = try Pipeline(
            launch: "audiotestsrc num-buffers=100 samplesperbuffer=441 ! audio/x-raw,rate=44100 ! fakesink sync=true")
        try pipeline.setState(.paused)
        #expect(pipeline.state(timeout: .seconds(5)) == .paused)
        try pipeline.seek(to: ClockTime(seconds: 0.5))
        #expect(pipeline.state(timeout: .seconds(5)) == .paused)
        let position = try #require(pipeline.position)
        #expect(abs(position.seconds - 0.5) < 0.02)
        try pipeline.setState(.null)
    }

    @Test func clockTimeIsExactFromFrames() {
        #expect(ClockTime(frames: 44_100, rate: 44_100).nanoseconds == 1_000_000_000)
        #expect(ClockTime(frames: 1, rate: 3).nanoseconds == 333_333_333)
        // 10 days at 192 kHz: no overflow.
        let long = ClockTime(frames: 192_000 * 86_400 * 10, rate: 192_000)
        #expect(long.nanoseconds == 864_000 * 1_000_000_000)
        #expect(ClockTime(nanoseconds: 1_000_000_000).frames(rate: 48_000) == 48_000)
        #expect(ClockTime(seconds: 83.5).description == "1:23.5")
        #expect(ClockTime(seconds: 3723).description == "1:02:03.0")
    }

    @Test func bufferTimingHasNoAccumulatedRounding() throws {
        // 441 chunks of 100 frames at 44.1 kHz: each end is computed from the frame index.
        var end = ClockTime.zero
        for chunk in 0..<441 {
            let timing = BufferTiming(frames: Int64(chunk * 100)..<Int64(chunk * 100 + 100), rate: 44_100)
            #expect(timing.pts == end)
            end = try #require(timing.end)
        }
        #expect(end.nanoseconds == 1_000_000_000)
    }
}

/// A count that callbacks on any thread can add to.
final class Counter: Sendable {
    private let count = Atomic(0)
    var value: Int { count.load(ordering: .relaxed) }
    func increment() { count.add(1, ordering: .relaxed) }
}
