// yt-gst — what a broadcast is given, what it reports, and what it can be told.
import AppSrcFeeder
import GstPlayer
import WAV

extension BroadcastSession {
    /// Everything a broadcast needs, as plain values.
    public struct Configuration: Sendable {
        /// The WAV files, in the order given (a directory already expanded into its files).
        public var files: [String]
        /// The destinations, codec, bitrate and HLS segmenting.
        public var plan: BroadcastPlan
        /// Each pass over the list in a new random order.
        public var shuffle = false
        /// Passes over the list; nil: forever.
        public var passes: Int? = 1
        /// Seconds a lost Icecast server is retried before the broadcast gives up.
        public var retrySeconds = 300.0
        /// How often `Event.status` comes; nil: never.
        public var statusInterval: Duration?

        public init(files: [String], plan: BroadcastPlan) {
            self.files = files
            self.plan = plan
        }
    }

    /// Where the broadcast is, at each status tick.
    public struct Status: Sendable {
        public enum State: Sendable {
            case broadcasting
            /// Silence goes out (`Command.pause`); the place is held.
            case paused
            /// The broadcast waits for this lost server since `since` (the first lost, if several).
            case lost(IcecastEndpoint, since: ContinuousClock.Instant)
        }
        public var state: State
        /// The time in the file now playing, and its title.
        public var fileTime: ClockTime
        public var title: String
    }

    /// What the broadcast reports, on the thread that runs it, to the one observer.
    public enum Event: Sendable {
        case status(Status)
        /// A new title went out (each file's, as it starts).
        case titleChanged(String)
        /// A file could not be opened ("PATH: problem"); the broadcast goes on with the others.
        case fileFailed(GaplessChain.Failure)
        /// A file with nothing to play, passed over (said once however often a loop passes it).
        case emptyFile(GaplessChain.EmptyFile)
        /// A problem an element works around.
        case warning(GstError)
        /// The server did not take the title: why.
        case titleNotSent(IcecastEndpoint, problem: String)
        /// Icecast cannot change an Ogg stream's title: listeners keep the first file's (said once).
        case titlesStayFirst(IcecastEndpoint)
        /// A server went away mid-broadcast; it is retried for `Configuration.retrySeconds`.
        case serverLost(IcecastEndpoint, GstError)
        /// A lost server is back, after `lostFor`.
        case streamingAgain(IcecastEndpoint, lostFor: Duration)
    }

    /// What the broadcast can be told, through `control`. `pause` holds the place and sends silence, so every
    /// Icecast mount keeps its source (a server drops a silent connection after its source-timeout, 10 s by default)
    /// and HLS goes on; `resume` goes on from the place. `next` and `previous` broadcast that file from its start;
    /// `stop` ends the broadcast at once.
    public typealias Command = SendCommand
    public typealias Control = SendControl

    /// How a broadcast ended.
    public enum Ending: Sendable, Equatable {
        /// The list ran out. `someFilesFailed`: files that could not be opened were left out.
        case finished(someFilesFailed: Bool)
        case stopped(StopReason)
    }
}
