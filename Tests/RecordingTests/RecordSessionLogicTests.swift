// yt-gst — RecordSession's decisions on the embedded bus with scripted samples: commands, the bus's end and errors,
// with no pipeline and no audio device.
import Dispatch
import Foundation
import GstPlayer
import GstPlayerTesting
import Synchronization
import TestSupport
import Testing

@testable import Recording

@Suite struct RecordLogicLoopTests {
    /// Samples handed to the session as an appsink would: 0.1 s of 8 kHz mono S16LE each.
    final class ScriptedInput: SampleInput {
        private var samples: [AppSink.Sample]
        let ends: Bool

        init(buffers: Int, ends: Bool = false) {
            let caps = Caps.rawAudio(format: .s16LE, rate: 8_000, channels: 1)
            samples = (0..<buffers).map { _ in AppSink.Sample(bytes: [UInt8](repeating: 1, count: 1_600), caps: caps) }
            self.ends = ends
        }

        func pull(timeout: Duration, includingCaps: Bool) -> AppSink.Sample? {
            samples.isEmpty ? nil : samples.removeFirst()
        }

        var isEndOfStream: Bool { ends && samples.isEmpty }
    }

    /// Runs a session on `bus` and `input`, `react` answering each event (on the loop's thread, as a program
    /// would); an end of stream posted after 10 s keeps a broken session from hanging the suite.
    static func record(
        _ configuration: RecordSession.Configuration, bus: EmbeddedBus<Message> = EmbeddedBus(),
        input: ScriptedInput, before: (RecordSession.Control) -> Void = { _ in },
        react: @escaping (RecordSession.Event, RecordSession.Control) -> Void = { _, _ in }
    ) -> (result: Result<RecordSession.Ending, RecordingError>, events: [RecordSession.Event]) {
        var events: [RecordSession.Event] = []
        var control: RecordSession.Control?
        let session = RecordSession(configuration) { event in
            events.append(event)
            if let control { react(event, control) }
        }
        control = session.control
        before(session.control)
        DispatchQueue.global().asyncAfter(deadline: .now() + 10) { bus.post(.endOfStream()) }
        let result = Result { () throws(RecordingError) in try session.record(bus: bus, input: input, wakeUp: nil) }
        return (result, events)
    }

    static func configuration(_ path: String) -> RecordSession.Configuration {
        RecordSession.Configuration(output: .file(path), source: .fragment("audiotestsrc"))
    }

    @Test func aMarkerLandsAtTheEndOfWhatWasWrittenAndAStopFinishesTheFile() throws {
        let dir = try Paths.makeScratch("record-logic")
        defer { Paths.removeScratch(dir) }
        let path = dir.appendingPathComponent("take.wav").path
        let (result, events) = Self.record(
            Self.configuration(path), input: ScriptedInput(buffers: 3),
            react: { event, control in
                if case .fileOpened = event { control.addMarker() }
                if case .markerAdded = event { control.stop() }
            })
        let ending = try result.get()
        #expect(ending == RecordSession.Ending(reason: .stopped(.requested), receivedAudio: true, files: [path]))
        let markers = events.compactMap { if case .markerAdded(let n, let s) = $0 { (n, s) } else { nil } }
        #expect(markers.count == 1 && markers.first?.0 == 1 && markers.first?.1 == 0.3)
        #expect(events.contains { if case .fileOpened(path, 1) = $0 { true } else { false } })
        let size = try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int ?? 0
        #expect(size >= 4_800 + 44)
    }

    @Test func nothingIsWrittenWhilePaused() throws {
        let dir = try Paths.makeScratch("record-logic")
        defer { Paths.removeScratch(dir) }
        let path = dir.appendingPathComponent("paused.wav").path
        var configuration = Self.configuration(path)
        configuration.statusInterval = .milliseconds(10)
        var states: [RecordSession.Status.State] = []
        let (result, events) = Self.record(
            configuration, input: ScriptedInput(buffers: 3), before: { $0.pause() },
            react: { event, control in
                guard case .status(let status) = event else { return }
                states.append(status.state)
                control.stop(.interrupted(SIGINT))
            })
        let ending = try result.get()
        #expect(ending.reason == .stopped(.interrupted(SIGINT)))
        #expect(ending.files.isEmpty && ending.receivedAudio)
        #expect(states.first == .paused)
        #expect(!events.contains { if case .fileOpened = $0 { true } else { false } })
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    @Test func theSourcesEndEndsTheRecording() throws {
        let dir = try Paths.makeScratch("record-logic")
        defer { Paths.removeScratch(dir) }
        let path = dir.appendingPathComponent("ended.wav").path
        let (result, _) = Self.record(Self.configuration(path), input: ScriptedInput(buffers: 2, ends: true))
        #expect(try result.get() == RecordSession.Ending(reason: .sourceEnded, receivedAudio: true, files: [path]))
        let bus = EmbeddedBus<Message>()
        bus.post(.endOfStream())
        let (early, _) = Self.record(Self.configuration(path + ".2"), bus: bus, input: ScriptedInput(buffers: 0))
        #expect(try early.get() == RecordSession.Ending(reason: .sourceEnded, receivedAudio: false, files: []))
    }

    @Test func anErrorOnTheBusFailsTheRecordingAndAWarningIsReported() throws {
        let dir = try Paths.makeScratch("record-logic")
        defer { Paths.removeScratch(dir) }
        let bus = EmbeddedBus<Message>()
        bus.post(.warning(GstError(kind: .stream, message: "overrun")))
        bus.post(.error(GstError(kind: .stream, message: "device gone", elementPath: "/GstPipeline:p/GstPulseSrc:in")))
        let (result, events) = Self.record(
            Self.configuration(dir.appendingPathComponent("x.wav").path), bus: bus, input: ScriptedInput(buffers: 0))
        guard case .failure(.sourceFailed(let error)) = result else {
            Issue.record("expected sourceFailed, got \(result)")
            return
        }
        #expect(error.message == "device gone" && error.elementName == "in")
        #expect(events.contains { if case .warning(let w) = $0 { w.message == "overrun" } else { false } })
    }
}
