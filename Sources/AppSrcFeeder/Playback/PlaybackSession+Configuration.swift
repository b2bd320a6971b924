// yt-gst — everything a playback session needs, as plain values.
import GstPlayer

extension PlaybackSession {
    /// What to play, through what, and how: no command line, no templates (resolve those first).
    public struct Configuration: Sendable {
        /// The files in the order given (see `Playlist.expand`); "-" is standard input, a FIFO or a device is read
        /// forward only, once.
        public var files: [String]
        /// A gst-launch description containing `appsrc name=src`, e.g.
        /// "appsrc name=src ! audioconvert ! audioresample ! autoaudiosink".
        public var launch: String
        /// Values set on the pipeline's named elements after parsing (never pasted into `launch`).
        public var properties: [PropertySetting] = []
        /// Elements put in after the appsrc: a volume control (for `setVolume`/`setMute`), scaletempo (for rates other
        /// than 1, pitch kept) and a level meter (for `PlaybackSnapshot.levels`). None by default, so every sample
        /// reaches the sink exactly as stored.
        public var processing = Processing()
        /// Each pass through the list in a new random order.
        public var shuffle = false
        /// Passes through the list: nil plays it for ever.
        public var passes: Int? = 1
        /// Each file repeats until `next` (or `jump`) moves on.
        public var repeatEachFile = false
        /// Where each file starts and ends, in seconds of the file.
        public var start: Double?
        public var end: Double?
        /// The volume to start at (linear, 1 = unchanged); nil leaves the pipeline's own.
        public var volume: Double?
        public var muted = false
        /// The playback rate to start at (0.25 to 4; other than 1 needs `processing.tempo` to keep the pitch).
        public var rate: Double = 1
        /// Milliseconds of audio per pushed buffer; nil: the feeder's default (see `WAVFeeder`).
        public var chunkMilliseconds: Int?
        /// Buffers queued in the appsrc.
        public var buffers = WAVFeeder.defaultBuffers
        /// How often a `.status` event reports the playback while a file plays or is paused; nil: never, and then a
        /// session with nothing happening (paused) does not wake at all.
        public var statusInterval: Duration?
        /// Whether the threads that carry the audio run with realtime scheduling where the system allows it
        /// (`RealtimeThreads`): the output keeps playing beside a CPU hog.
        public var realtimeThreads = true

        /// Plays `files` once, in order, through `launch`; set the other fields as needed.
        public init(files: [String], launch: String) {
            self.files = files
            self.launch = launch
        }
    }
}
