// yt-gst — the one session loop and the messages a test posts, on the embedded bus: no pipeline.
import Dispatch
import GstPlayer
import GstPlayerTesting
import Testing

@Suite struct SessionLoopTests {
    /// A session that notes what each turn did and ends as told.
    final class Recorder: SessionLoopHandler {
        typealias Command = String
        typealias Ending = String
        typealias Failure = GstError
        var log: [String] = []
        var due: ContinuousClock.Instant? = nil

        func doWhatIsDue() -> String? {
            log.append("due")
            return nil
        }
        func perform(_ command: String) -> String? {
            log.append("command \(command)")
            return command == "stop" ? "stopped" : nil
        }
        func handle(_ message: Message) throws(GstError) -> String? {
            switch message.view {
            case .endOfStream: return "ended"
            case .error(let error): throw error
            case .application(let structure): log.append("application \(structure.name)")
            default: log.append("other")
            }
            return nil
        }
        func finishTurn() -> String? {
            log.append("finish")
            return nil
        }
        func nextDue() -> ContinuousClock.Instant? { due }
    }

    @Test func aTurnDoesWhatIsDueThenTheCommandsThenTheMessagesThenFinishes() throws {
        let bus = EmbeddedBus<Message>()
        let commands = CommandQueue<String>()
        let recorder = Recorder()
        commands.send("volume")
        bus.post(.application(name: "first"))
        bus.post(.endOfStream())
        let ending = try SessionLoop.run(recorder, bus: bus, commands: commands, first: ["early"])
        #expect(ending == "ended")
        #expect(recorder.log == ["due", "command early", "command volume", "application first"])
    }

    @Test func aCommandEndsTheLoopBeforeTheMessages() throws {
        let bus = EmbeddedBus<Message>()
        bus.post(.endOfStream())
        let commands = CommandQueue<String>()
        commands.send("stop")
        #expect(try SessionLoop.run(Recorder(), bus: bus, commands: commands) == "stopped")
        #expect(bus.events.count == 1)
    }

    @Test func anErrorMessageEndsTheLoopWithTheError() {
        let bus = EmbeddedBus<Message>()
        bus.post(.error(GstError(kind: .stream, message: "broken", elementPath: "/GstPipeline:p/GstUDPSrc:net")))
        let thrown = #expect(throws: GstError.self) {
            try SessionLoop.run(Recorder(), bus: bus, commands: CommandQueue<String>())
        }
        #expect(thrown?.message == "broken")
        #expect(thrown?.elementName == "net")
    }

    /// With nothing due the loop sleeps until a post wakes it (no deadline, no polling): a turn or two (a wake-up
    /// left by another test's command may cost one), not one per few milliseconds.
    @Test func withNothingDueTheLoopSleepsUntilAPost() throws {
        let bus = EmbeddedBus<Message>()
        let recorder = Recorder()
        let start = ContinuousClock.now
        DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(300)) { bus.post(.endOfStream()) }
        #expect(try SessionLoop.run(recorder, bus: bus, commands: CommandQueue<String>()) == "ended")
        #expect(ContinuousClock.now - start >= .milliseconds(250))
        #expect(recorder.log.filter { $0 == "due" }.count <= 3)
        #expect(recorder.log.last == "due")
    }

    @Test func madeMessagesReadBackThroughTheirView() {
        Gst.initialize()
        let structure = Structure(
            name: "GstUDPSrcTimeout", fields: [("timeout", .uint(5_000_000_000)), ("text", .string("a b"))],
            elementPath: "/GstPipeline:pipeline0/GstUDPSrc:rtp")
        guard case .element(let element) = Message.element(structure).view else {
            Issue.record("not an element message")
            return
        }
        #expect(element == structure)
        guard case .warning(let warning) = Message.warning(GstError(kind: .stream, message: "late", debug: "d")).view
        else {
            Issue.record("not a warning")
            return
        }
        #expect(warning.message == "late" && warning.debug == "d" && warning.domain == "GstPlayer")
        guard case .tags(let tags) = Message.tags([.init(name: "title", value: "Morning")]).view else {
            Issue.record("not tags")
            return
        }
        #expect(tags == [.init(name: "title", value: "Morning")])
        if case .segmentDone = Message.segmentDone().view {} else { Issue.record("not segment-done") }
    }
}
