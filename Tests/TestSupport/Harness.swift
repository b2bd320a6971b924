// yt-gst — runs a real pipeline to its end for a test: push in through the source, collect what happened.
import GstPlayer

public struct HarnessError: Error, CustomStringConvertible {
    public var description: String
    public init(description: String) { self.description = description }
}

public enum Harness {
    /// Plays `source` through `launch` until end of stream and returns the events seen on the way.
    ///
    /// - Throws: the pipeline's error, or `HarnessError` when neither EOS nor an error came within `timeout`.
    @discardableResult
    public static func play(
        _ source: some Feeder, launch: String, timeout: Duration = .seconds(20),
        whilePlaying: (Player) throws -> Void = { _ in }
    ) throws -> [Message.View] {
        let player = Player(launch: launch)
        defer { player.stop() }
        try player.play(source)
        try whilePlaying(player)
        var events: [Message.View] = []
        let deadline = ContinuousClock.now.advanced(by: timeout)
        while ContinuousClock.now < deadline {
            guard let event = player.nextEvent(timeout: .milliseconds(50))?.view else { continue }
            events.append(event)
            switch event {
            case .endOfStream: return events
            case .error(let error): throw error
            default: continue
            }
        }
        throw HarnessError(description: "no end of stream within \(timeout)")
    }
}
