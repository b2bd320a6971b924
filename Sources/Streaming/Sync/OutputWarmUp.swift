// yt-gst — a synchronised receiver's pulsesink outputs, playing from when they open until their first sample.
import Glibc
import GstPlayer
import Synchronization

/// Reads the clock of every `pulsesink` of a synchronised receiver every `interval`, from when its output opens
/// (while it waits for a sender) until each stream this process started plays its client's samples: on
/// pipewire-pulse each reading starts the stream, keeps its silence coming and its snapshots going
/// (`PulseStreamClock.Start.whenAsked`), so that its position is exact when the first sample is placed. Ends by
/// itself once no stream awaits its client (at once on PulseAudio itself, whose streams start when placed), or
/// when released.
final class OutputWarmUp {
    /// Between two readings (µs): well within the silence's lead (`PulseStreamClock.silenceLead`).
    static let interval: UInt32 = 5_000

    private let shared: Shared
    private let thread: pthread_t
    private var joined = false

    /// Starts reading the clocks of `sinks`; nil without any (or without a thread).
    init?(sinks: [Element]) {
        guard !sinks.isEmpty else { return nil }
        let shared = Shared(sinks: sinks)
        let context = Unmanaged.passRetained(shared).toOpaque()
        var thread = pthread_t()
        let started = pthread_create(
            &thread, nil,
            { context in
                Unmanaged<Shared>.fromOpaque(context!).takeRetainedValue().run()
                return nil
            }, context)
        guard started == 0 else {
            Unmanaged<Shared>.fromOpaque(context).release()
            return nil
        }
        (self.shared, self.thread) = (shared, thread)
    }

    /// Stops reading (an output closed to open again for another format), within one `interval`.
    func stop() {
        guard !joined else { return }
        shared.stopped.store(true, ordering: .relaxed)
        pthread_join(thread, nil)
        joined = true
    }

    deinit { stop() }

    /// What the thread reads, and whether it is to stop.
    private final class Shared: Sendable {
        let sinks: [Element]
        let stopped = Atomic(false)

        init(sinks: [Element]) { self.sinks = sinks }

        func run() {
            while !stopped.load(ordering: .relaxed) {
                let round = PulseStreamClock.monotonicMicroseconds()
                for sink in sinks { _ = sink.providedClockTime }
                if PulseStreamClock.feedsSilence(askedSince: round) == false { return }
                usleep(OutputWarmUp.interval)
            }
        }
    }
}
