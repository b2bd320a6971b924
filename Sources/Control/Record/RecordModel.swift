// yt-gst — what the IPC socket of `record` knows about the recording: one model, fed by the session's events.
import Recording

/// A recording as its events told it, and the commands a surface sends, with what they change at once.
///
/// - Note: Not Sendable: events and requests both arrive on the main loop's thread.
public final class RecordModel {
    /// Where the commands go; set once the session exists.
    public var control: RecordSession.Control?
    public private(set) var paused = false
    /// Seconds of audio written (all files), at the last status; nil before the first.
    public private(set) var seconds: Double?
    /// Peak level (dBFS) per channel since the status before.
    public private(set) var peaks: [Double] = []
    /// The file written now, and its place among the split files (from 1).
    public private(set) var path: String?
    public private(set) var splitIndex: Int?
    public private(set) var markers = 0

    public init() {}

    /// Takes one session event (before any surface reads it).
    public func update(_ event: RecordSession.Event) {
        switch event {
        case .status(let status):
            paused = status.state == .paused
            seconds = status.seconds
            peaks = status.levels.map(\.peak)
            markers = status.markers
        case .fileOpened(let path, let index):
            self.path = path
            splitIndex = index
            markers = 0
        case .markerAdded(let number, _):
            markers = number
        case .voiceGateChanged, .warning, .ended:
            break
        }
    }

    public func setPaused(_ pause: Bool) {
        paused = pause
        pause ? control?.pause() : control?.resume()
    }

    public func addMarker() { control?.addMarker() }

    public func stop() { control?.stop() }
}
