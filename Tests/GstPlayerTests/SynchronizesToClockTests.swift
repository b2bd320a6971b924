// yt-gst — whether a pipeline plays in real time, which decides how the feeder cuts a file into buffers.
import GstPlayer
import Testing

@Suite struct SynchronizesToClockTests {
    @Test(arguments: [
        ("appsrc name=src ! fakesink sync=true", true),  // (fakesink does not synchronise by default)
        ("appsrc name=src ! fakesink sync=false", false),
        ("appsrc name=src ! tee name=t t. ! queue ! fakesink sync=false t. ! queue ! fakesink sync=true", true),
        // A broadcast: paced by clocksync, its network and file sinks do not synchronise themselves.
        ("appsrc name=src ! clocksync ! fakesink sync=false", true),
        ("appsrc name=src ! identity sync=true ! fakesink sync=false", true),
        ("appsrc name=src ! identity ! fakesink sync=false", false),
        ("appsrc name=src ! clocksync sync=false ! fakesink sync=false", false),
    ])
    func aPipelinePlaysInRealTimeWhenASinkOrAnElementOnTheWaySynchronises(launch: String, expected: Bool) throws {
        let pipeline = try Pipeline(launch: launch)
        #expect(try pipeline.element(named: "src").pipelineSynchronizesToClock == expected, "\(launch)")
    }
}
