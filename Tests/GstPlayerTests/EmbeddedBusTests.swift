// yt-gst — the bus in memory: events in order, a descriptor readable exactly while some wait, and a loop asleep in
// MainLoop.wait woken by a post from another thread, as by a message on a pipeline's bus.
import Dispatch
import Glibc
import GstPlayer
import GstPlayerTesting
import Testing

@Suite struct EmbeddedBusTests {
    /// Whether `descriptor` is readable now.
    static func isReadable(_ descriptor: Int32?) -> Bool {
        guard let descriptor else { return false }
        var watched = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        return poll(&watched, 1, 0) == 1
    }

    /// Reads `bus` as a session's loop reads a pipeline's, until the end of stream or an error; nil when neither
    /// came before `deadline`.
    static func outcome(of bus: some EventBus<Message>, before deadline: ContinuousClock.Instant) -> String? {
        while ContinuousClock.now < deadline {
            while let message = bus.nextEvent(timeout: .zero)?.view {
                switch message {
                case .endOfStream: return "end"
                case .error(let error): return "error: \(error.message)"
                default: continue
                }
            }
            MainLoop.wait(for: [bus.eventDescriptor], until: deadline)
        }
        return nil
    }

    @Test func eventsComeInOrderAndTheDescriptorIsReadableWhileSomeWait() {
        let bus = EmbeddedBus<Message>()
        #expect(!Self.isReadable(bus.eventDescriptor))
        bus.post(.application(Structure(name: "yt-gst/first")))
        bus.post(.endOfStream())
        #expect(Self.isReadable(bus.eventDescriptor))
        guard case .application(let first)? = bus.nextEvent(timeout: .zero)?.view, first.name == "yt-gst/first" else {
            Issue.record("not the first event first")
            return
        }
        #expect(Self.isReadable(bus.eventDescriptor), "one more waits")
        guard case .endOfStream? = bus.nextEvent(timeout: .zero)?.view else {
            Issue.record("not the second event second")
            return
        }
        #expect(!Self.isReadable(bus.eventDescriptor), "readable with nothing left")
        #expect(bus.events.isEmpty)
    }

    @Test func aPostFromAnotherThreadWakesALoopAsleepOnTheMainLoop() {
        let bus = EmbeddedBus<Message>()
        let start = ContinuousClock.now
        DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(50)) {
            bus.post(.warning(GstError(kind: .stream, message: "late")))
            bus.post(.error(GstError(kind: .stream, message: "stopped")))
        }
        #expect(Self.outcome(of: bus, before: start + .seconds(20)) == "error: stopped")
        #expect(start.duration(to: .now) < .seconds(10), "the loop slept through the post")
    }

    @Test func nextEventWaitsUpToItsTimeoutForAPost() {
        let bus = EmbeddedBus<Message>()
        DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(20)) { bus.post(.endOfStream()) }
        guard case .endOfStream? = bus.nextEvent(timeout: .seconds(20))?.view else {
            Issue.record("nothing came within the timeout")
            return
        }
    }
}
