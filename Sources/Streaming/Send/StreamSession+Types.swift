// yt-gst — what a stream is given, what it reports, and what it can be told.
import AppSrcFeeder
import GstPlayer
import WAV

extension StreamSession {
    /// Everything a stream needs, as plain values.
    public struct Configuration: Sendable {
        /// The WAV files (or "-", a FIFO, a device), sent one after another as one stream in the first's format.
        public var files: [String]
        /// Where to send: one or more RTP hosts or groups (one encoder, one clock), or one SRT peer.
        public var destinations: [StreamURL]
        /// The clock receivers synchronise to (RTP).
        public var clock: ReferenceClock = .sender
        /// The codec on the wire; nil: linear PCM as deep as the first file (L16, or L24 for deeper files).
        public var codec: NetworkCodec?
        /// Opus bitrate in kbit/s; nil: 64.
        public var bitrate: Int?
        /// Where to write an SDP that describes the RTP stream; nil: none.
        public var sdpPath: String?
        /// The network interface and time-to-live for multicast; nil: the route's, 1.
        public var interface: String?
        public var ttl: Int?
        /// How often `Event.status` comes; nil: never.
        public var statusInterval: Duration?
        /// Whether the threads the session starts run with realtime scheduling where the system allows it
        /// (`RealtimeThreads`): its packets leave on time beside a CPU hog.
        public var realtimeThreads = true

        public init(files: [String], destinations: [StreamURL]) {
            self.files = files
            self.destinations = destinations
        }

        /// The first destination (messages name it).
        public var destination: StreamURL { destinations[0] }
    }

    /// Where the stream is, at each status tick.
    public struct Status: Sendable, Equatable {
        public enum State: Sendable, Equatable {
            /// An SRT listener waits for a receiver to call; nothing is sent.
            case waitingForCaller
            case sending
            case paused
        }
        public var state: State
        /// Stream time sent since the start (or since the last jump to another file, or seek).
        public var position: ClockTime
        /// Where the file going out is (its own time, from its start); nil before it starts.
        public var fileTime: ClockTime?
        /// The duration of all the files; nil when unknown (a pipe's, or after a jump).
        public var total: ClockTime?
    }

    /// What the stream reports, on the thread that runs it, to the one observer.
    public enum Event: Sendable {
        case status(Status)
        /// The pipeline is built and about to send this format ("L16/44100/2", "PCM", "Opus").
        case sending(format: String)
        /// A file started going out (its position in the list); its header's warnings follow as `fileWarning`.
        case fileChanged(path: String, position: Int)
        case fileWarning(path: String, warning: String)
        /// A file could not be opened ("PATH: problem"); the stream goes on with the others.
        case fileFailed(GaplessChain.Failure)
        /// A file with nothing to send, passed over (or sent as nothing when it is all there is).
        case emptyFile(GaplessChain.EmptyFile)
        /// The clock could not be published on a port: receivers there will not be in step.
        case clockNotPublished(GstError)
        /// An SRT listener's receiver called; sending starts.
        case callerConnected
        /// A pause (true) or a resume took effect.
        case pausedChanged(Bool)
        /// A seek landed at this time of the file going out (a seek past its end is a `fileChanged` instead).
        case seeked(fileTime: ClockTime)
        /// What follows the file going out changed: loop and shuffle as they now are.
        case orderChanged(loop: LoopMode, shuffle: Bool)
        /// The gain of what goes out (linear) changed.
        case volumeChanged(Double)
        /// A problem an element works around (udpsink warns for every refused packet: the observer may say it once).
        case warning(GstError)
    }

    /// What the stream can be told, through `control`. `pause` stops sending and holds the place; receivers hear
    /// nothing until `resume` (RTP timestamps and a GDP segment then jump by the pause, so synchronised receivers
    /// stay in step). `next` and `previous` send that file from its start at once, and a seek that place of the file
    /// (the stream's time goes on: only what is sent jumps). `setLoop` and `setShuffle` change what follows the file
    /// going out (a list with a pipe in it cannot loop: it cannot be read again). `setVolume` ramps the gain of what
    /// goes out. `stop` ends the stream as at its end (RTP sends its BYE), within a grace period.
    public typealias Command = SendCommand
    public typealias Control = SendControl

    /// How a stream ended.
    public enum Ending: Sendable, Equatable {
        /// The last sample left. `someFilesFailed`: files that could not be opened were left out.
        case finished(someFilesFailed: Bool)
        /// A `stop` command ended it.
        case stopped(StopReason)
    }
}
