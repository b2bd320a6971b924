// yt-gst — what `play` says when its pipeline does not build, decided by the error's kind, not by its words.
import GstPlayer
import Testing

@testable import yt_gst

@Suite struct PipelineProblemTests {
    init() { Gst.initialize() }

    /// A pipeline without the appsrc the player feeds is a usage error that says what is missing.
    @Test func missingAppsrcIsNamed() {
        let launch = "audiotestsrc ! fakesink"
        let error = #expect(throws: GstError.self) { try Player(launch: launch).prepare() }
        let problem = error.map { PlayCommand.problem($0, launch: launch) }
        #expect(problem?.message == "the pipeline must contain an element \"appsrc name=src\": \(launch)")
        #expect(problem?.code == .usage)
    }

    /// An error that only mentions the appsrc (a property it lacks) is reported as itself.
    @Test func propertyErrorOnTheAppsrcIsNotAMissingAppsrc() throws {
        let launch = "appsrc name=src ! fakesink"
        let source = try Pipeline(launch: launch).element(named: "src")
        let error = #expect(throws: GstError.self) { try source.set("no-such-property", fromString: "1") }
        let problem = error.map { PlayCommand.problem($0, launch: launch) }
        #expect(problem?.message == "bad pipeline: element \"src\" (appsrc) has no property \"no-such-property\"")
        #expect(problem?.code == .usage)
    }
}
