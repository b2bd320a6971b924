// yt-gst — what the control surfaces of `receive` (the IPC socket, MPRIS) know about the receiver: one model.
import Streaming

/// A receiver as its events told it, and the commands every surface sends, with what they change at once (the
/// session reports no volume, mute or delay: they are what was last asked).
///
/// - Note: Not Sendable: events and requests both arrive on the main loop's thread.
public final class ReceiveModel {
    /// Where the commands go; set once the session exists.
    public var control: ReceiveSession.Control?
    /// The URL received (the title until the stream gives one).
    public let source: String
    /// Linear, 1 = as received.
    public private(set) var volume = 1.0
    public private(set) var muted = false
    public private(set) var delayMilliseconds: Int
    public private(set) var receiving = false
    /// The sync state at the last status; nil when not synchronised.
    public private(set) var sync: SyncSummary?
    /// The stream's own title, once one came.
    public private(set) var streamTitle: String?

    /// The volume range a receiver keeps to (linear).
    public static let volumeRange = 0.0...10.0

    public init(configuration: ReceiveSession.Configuration) {
        source = configuration.source.description
        delayMilliseconds = configuration.delayMilliseconds
    }

    public var title: String { streamTitle ?? source }

    /// Takes one session event (before any surface reads it).
    public func update(_ event: ReceiveSession.Event) {
        switch event {
        case .status(let status):
            receiving = status.state == .receiving
            sync = status.sync
        case .title(let title):
            streamTitle = title
        case .warning, .packetsLost, .clockLost, .clockRegained, .problem, .senderFound:
            break
        }
    }

    /// Kept within `volumeRange`.
    public func setVolume(_ linear: Double) {
        volume = min(max(linear, Self.volumeRange.lowerBound), Self.volumeRange.upperBound)
        control?.setVolume(volume)
    }

    public func setMuted(_ mute: Bool) {
        muted = mute
        control?.setMute(mute)
    }

    /// Moves a synchronised receiver's output, live.
    public func setDelay(milliseconds: Int) {
        delayMilliseconds = milliseconds
        control?.setDelay(milliseconds: milliseconds)
    }

    public func stop() { control?.stop() }
}
