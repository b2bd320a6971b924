// yt-gst — an appsink that wakes the main loop for the first sample after the loop found none.
internal import CGStreamer
import Synchronization

extension AppSink {
    /// Lets a loop that pulls from this sink sleep with no deadline while no audio comes: once armed, the next sample
    /// wakes the thread asleep in `MainLoop.wait` (once); while audio flows the loop disarms it and looks on its own
    /// schedule (waking per buffer would cost more than writing them).
    ///
    /// The corresponding C function is `gst_app_sink_set_callbacks` (its `new_sample`; the samples stay queued for
    /// `pull`). Call it once; samples that came before wait for the loop's first look.
    public func wakeLoopOnSample() -> SampleWakeUp {
        let wakeUp = SampleWakeUp()
        var callbacks = GstAppSinkCallbacks()
        callbacks.new_sample = { _, context in
            Unmanaged<SampleWakeUp>.fromOpaque(context!).takeUnretainedValue().sampleArrived()
            return GST_FLOW_OK
        }
        gst_app_sink_set_callbacks(
            CGst_app_sink(raw), &callbacks, Unmanaged.passRetained(wakeUp).toOpaque(),
            { Unmanaged<SampleWakeUp>.fromOpaque($0!).release() })
        return wakeUp
    }
}

/// Whether the next sample of an appsink wakes the loop, shared with its streaming thread (which never blocks).
public final class SampleWakeUp: Sendable {
    private let armed = Atomic<Bool>(true)

    fileprivate init() {}

    /// The next sample wakes the loop. Arm before pulling: a sample that comes after the last pull then wakes it.
    public func arm() { armed.store(true, ordering: .sequentiallyConsistent) }

    /// The loop looks again by itself (it found audio and has a deadline).
    public func disarm() { armed.store(false, ordering: .sequentiallyConsistent) }

    fileprivate func sampleArrived() {
        if armed.exchange(false, ordering: .sequentiallyConsistent) { MainLoop.wake() }
    }
}
