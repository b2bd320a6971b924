// yt-gst — keeps one audio sink's output on the shared clock, sample by sample (see AlignmentFilter).
import GstPlayer
import Synchronization

/// The `OutputSlaving` of a synchronised receiver's audio sink: feeds the sink's clock readings to an
/// `AlignmentFilter` and hands its corrections back to the sink. Readable from any thread for the status line.
public final class OutputAligner: OutputSlaving {
    /// What the status line and the summary show.
    public struct Status: Sendable, Equatable {
        public var phase: AlignmentFilter.Phase
        /// The output's estimated distance from where the clock says (µs; positive: early), once measured.
        public var gap: Double?
        /// How much faster the device plays than the clock (ppm), once measured.
        public var drift: Double?
        public var corrections: Int
    }

    private let filter = Mutex(AlignmentFilter())

    /// The sink calls this for every buffer it renders (its streaming thread). The gap is where the output plays:
    /// the device clock's lead on the pipeline clock and the sink's own placement lead (see `OutputSlaving`). Why
    /// both: followed by the device clock alone, each room sat a constant fraction of a sample early, a different one
    /// for each (set by where its first buffer fell and by the moves made before it follows sample by sample): in a
    /// 10-minute run of the multi-room lab one room sat 11-13 µs off the other two (pair medians), 0.0-0.4 µs with it.
    public func correction(pipelineTime: Int64, deviceTime: Int64, placementLead: Double, sampleRate: Int) -> Int64 {
        guard sampleRate > 0 else { return 0 }
        let move = filter.withLock {
            $0.observe(
                time: Double(pipelineTime) / 1000, gap: (Double(deviceTime - pipelineTime) + placementLead) / 1000,
                samplePeriod: 1e6 / Double(sampleRate))
        }
        return Int64((move * 1000).rounded())
    }

    public func discontinuity(_ reason: OutputDiscontinuity) {
        // Realigning samples (after each correction, or a lost packet) leaves both clocks as they were.
        guard reason != .realigned else { return }
        filter.withLock { $0.restart() }
    }

    public var status: Status {
        filter.withLock { Status(phase: $0.phase, gap: $0.gap, drift: $0.drift, corrections: $0.corrections) }
    }
}
