// yt-gst — running a source through a pipeline that ends in `appsink name=sink` and keeping every byte that arrived.
import GstPlayer

extension Harness {
    /// What reached the appsink: the bytes in order, the buffers' timestamps and the caps of the first one.
    public struct Collected: Sendable {
        public var bytes: [UInt8] = []
        public var timestamps: [ClockTime?] = []
        public var caps: Caps?
        public var tags: [Message.Tag] = []
    }

    /// Plays `source` through `launch` (which must contain `appsink name=sink`) to end of stream and collects it.
    ///
    /// - Throws: the pipeline's error, or `HarnessError` without end of stream within `timeout`.
    public static func collect(
        _ source: some Feeder, launch: String, timeout: Duration = .seconds(20)
    ) throws -> Collected {
        let player = Player(launch: launch)
        defer { player.stop() }
        try player.play(source)
        guard let pipeline = player.pipeline else { throw HarnessError(description: "no pipeline") }
        let sink = try pipeline.appSink(named: "sink")
        var collected = Collected()
        let deadline = ContinuousClock.now.advanced(by: timeout)
        var ended = false
        while ContinuousClock.now < deadline, !ended {
            if let sample = sink.pull(timeout: .milliseconds(20)) {
                collected.bytes += sample.bytes
                collected.timestamps.append(sample.pts)
                if collected.caps == nil { collected.caps = sample.caps }
            } else if sink.isEndOfStream {
                ended = true
            }
            while let event = player.nextEvent(timeout: .zero)?.view {
                switch event {
                case .error(let error): throw error
                case .endOfStream: ended = true
                case .tags(let tags): collected.tags += tags
                default: break
                }
            }
        }
        while let sample = sink.pull(timeout: .milliseconds(5)) { collected.bytes += sample.bytes }
        // The appsink can report its end before the bus has delivered everything (tags come before the EOS message).
        let drainUntil = ContinuousClock.now.advanced(by: .seconds(2))
        drain: while ended, ContinuousClock.now < drainUntil {
            switch player.nextEvent(timeout: .milliseconds(50))?.view {
            case .tags(let tags)?: collected.tags += tags
            case .endOfStream?, .error?: break drain
            default: continue
            }
        }
        guard ended else { throw HarnessError(description: "no end of stream within \(timeout)") }
        return collected
    }
}
