// yt-gst — what a playback session reports to its observer, and how it ended.
import GstPlayer

extension PlaybackSession {
    /// What the session reports, in order, on the thread that runs it.
    public enum Event: Sendable {
        /// Playback at this moment, every `Configuration.statusInterval` while a file plays or is paused.
        case status(PlaybackSnapshot)
        /// A file has started at the sink (the first, the next, or the same one again).
        case fileStarted(File)
        /// Metadata found in the playing file ("title", "artist", ...).
        case tags([Message.Tag])
        /// An element works around a problem while `path` plays.
        case warning(path: String, GstError)
        /// A file passed over for having nothing to play (it holds no audio, or `start`/`end` leave none): once per
        /// file however often a loop passes it, and never when the whole list has nothing (see `.nothingToPlay`).
        case fileSkipped(GaplessChain.EmptyFile)
        /// A file could not be opened, or its pipeline failed; the rest of the list goes on.
        case fileFailed(PlaybackError)
        /// The list has nothing to play: every file is empty or cut away by `start`/`end`. With one file in the
        /// list, that file.
        case nothingToPlay(GaplessChain.EmptyFile?)
        /// A command that moves within the file (a seek, a rate, a loop point) while `path`, a pipe, plays forward
        /// only: nothing moved.
        case seekUnavailable(path: String)
        /// A pause (true) or resume (false) command was run.
        case pausedChanged(Bool)
        /// A volume, mute or rate command took effect (so an observer without status ticks sees it too).
        case controlsChanged(volume: Double, muted: Bool, rate: Double)
        /// A loop or shuffle command changed what follows the playing file: each file repeats (`loopFile`), passes
        /// through the list from the playing one's on (nil: for ever), shuffled or not.
        case orderChanged(loopFile: Bool, passes: Int?, shuffle: Bool)
        /// A seek command moved within the playing file, to this many seconds of it.
        case seeked(Double)
        /// The pipeline refused a command (no volume control, a failed seek); playback goes on.
        case commandFailed(GstError)
        /// The session is over; the last event (`run()` returns the same).
        case ended(Ending)
    }

    /// A file as it starts playing.
    public struct File: Sendable, Equatable {
        /// Its place in the play order (counting on through loops).
        public var position: Int
        /// Its index in the list (`position` modulo the list's length).
        public var index: Int
        public var path: String
        /// What the header said about itself (`WAVFile.warnings`).
        public var warnings: [String]
        /// Read forward only (a pipe): commands that seek are refused.
        public var isStream: Bool
    }

    /// Why a `stop` command was sent.
    public enum StopReason: Sendable, Equatable {
        /// The listener quit.
        case requested
        /// A signal (SIGINT, SIGTERM) asked the program to stop.
        case interrupted(signal: Int32)
    }

    /// How a session ended.
    public enum Ending: Sendable, Equatable {
        /// The list played to its end. `filesFailed`: some files could not play.
        case finished(filesFailed: Bool)
        /// A `stop` command ended it.
        case stopped(StopReason, filesFailed: Bool)
        /// Nothing (more) could play: the list has nothing to play, or its files failed one after another.
        case failed
    }
}
