// yt-gst — what a recording session reports, the commands it takes and why it ended.
import GstPlayer
import WAV

extension RecordSession {
    /// What the session reports to its observer, on the loop's thread.
    public enum Event: Sendable {
        /// At the rate `Configuration.statusInterval` asks.
        case status(Status)
        /// A file was created; `index` counts from 1 (the split files of one recording).
        case fileOpened(path: String, index: Int)
        /// A marker (cue point "marker N") was added at `seconds` into the current file.
        case markerAdded(number: Int, seconds: Double)
        /// Voice activation started (true) or stopped (false) letting audio through.
        case voiceGateChanged(open: Bool)
        /// An element reported a problem it works around.
        case warning(GstError)
        /// The recording ended without an error; `run()` returns the same value.
        case ended(Ending)
    }

    /// The state of the recording at one status tick.
    public struct Status: Sendable {
        public enum State: String, Sendable {
            case recording, paused
            /// Voice activation is waiting for sound.
            case waiting
        }

        public var state: State
        /// The current file (nil before the first one).
        public var file: String?
        /// Seconds of audio written to all files.
        public var seconds: Double
        /// The current file's length.
        public var bytes: UInt64
        /// Files created so far.
        public var files: Int
        /// Markers in the current file.
        public var markers: Int
        /// Peak and RMS (dBFS) and clipping per channel since the last tick (empty before the format is known).
        public var levels: [SampleLevels.Reading]

        public init(
            state: State, file: String?, seconds: Double, bytes: UInt64, files: Int, markers: Int,
            levels: [SampleLevels.Reading]
        ) {
            self.state = state
            self.file = file
            self.seconds = seconds
            self.bytes = bytes
            self.files = files
            self.markers = markers
            self.levels = levels
        }
    }

    /// Why the user or a program stops a recording.
    public enum StopReason: Sendable, Equatable {
        case requested
        /// A signal (SIGINT, SIGTERM) asked the process to stop.
        case interrupted(Int32)
    }

    /// How a recording ended (the file is finished in every case).
    public struct Ending: Sendable, Equatable {
        public enum Reason: Sendable, Equatable {
            /// The source reached its end.
            case sourceEnded
            /// The duration or size asked for was reached.
            case limitReached
            case stopped(StopReason)
        }

        public var reason: Reason
        /// Whether any audio came from the source (false: it ended or was stopped before its first buffer).
        public var receivedAudio: Bool
        /// The files created, in order ("-" for a descriptor).
        public var files: [String]

        public init(reason: Reason, receivedAudio: Bool, files: [String]) {
            self.reason = reason
            self.receivedAudio = receivedAudio
            self.files = files
        }
    }

    /// A command for the session, run on its loop.
    public enum Command: Sendable, Equatable {
        /// Nothing is written while paused (the source keeps running, and its audio is dropped).
        case pause, resume, togglePause
        /// A cue point "marker N" at the current end of the current file.
        case marker
        case stop(StopReason)
    }

    /// Sends commands to the session from any thread; they run on its loop at once (sending wakes it).
    public struct Control: Sendable {
        let queue: CommandQueue<Command>

        public func send(_ command: Command) { queue.send(command) }
        public func pause() { send(.pause) }
        public func resume() { send(.resume) }
        public func togglePause() { send(.togglePause) }
        public func addMarker() { send(.marker) }
        public func stop(_ reason: StopReason = .requested) { send(.stop(reason)) }
    }
}
