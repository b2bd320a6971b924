// yt-gst — what a recording session is given: plain values, no command and no parsed arguments.
import GstPlayer
import WAV

extension RecordSession {
    /// Everything a recording needs: where it goes, where it comes from, the format, limits, metadata, voice
    /// activation and how often to report.
    public struct Configuration: Sendable {
        /// Where the audio goes.
        public enum Output: Sendable, Equatable {
            /// One file (created when the first sample arrives, since the source decides the format).
            case file(String)
            /// A new file at every split, named from `pattern` by `SplitName` ("take-%03d.wav", strftime fields).
            case files(pattern: String, split: Split)
            /// An open descriptor (standard output, a pipe), written front to back with a streaming header. The
            /// caller ignores SIGPIPE if a reader that goes away should end the recording rather than the process.
            case descriptor(Int32)
        }

        /// When a split recording starts its next file.
        public enum Split: Sendable, Equatable {
            /// Every `seconds` of audio written.
            case every(Double)
            /// At each utterance: when the voice gate opens and after it closes (needs `voiceActivation`).
            case utterance
        }

        /// What the audio comes from.
        public enum Source: Sendable, Equatable {
            /// A source fragment ("autoaudiosrc", "pulsesrc device=..."): the session converts it to `format`,
            /// `rate` and `channels` and ends it in the appsink.
            case fragment(String)
            /// A whole launch string that ends in "appsink name=sink" and gives `format`'s samples at a rate and
            /// channel count of its own.
            case pipeline(String)
        }

        /// Voice activation: only what is louder than `threshold`, with some audio before and after it.
        public struct VoiceActivation: Sendable, Equatable {
            /// The peak level, in dBFS, above which the gate opens.
            public var threshold: Double
            /// Seconds kept before the sound starts.
            public var preRoll: Double
            /// Seconds kept after the sound stops.
            public var hang: Double

            public init(threshold: Double, preRoll: Double = 0.2, hang: Double = 0.5) {
                self.threshold = threshold
                self.preRoll = preRoll
                self.hang = hang
            }
        }

        public var output: Output
        public var source: Source
        /// Values set on named elements after parsing (a template's values are never pasted into the launch string).
        public var properties: [PropertySetting] = []
        public var format: SampleFormat = .s16
        /// The rate and channels a `.fragment` source is converted to (nil: the source's own).
        public var rate: Int?
        public var channels: Int?
        /// Stop after this many seconds of audio written.
        public var duration: Double?
        /// Stop before a file grows beyond this many bytes.
        public var maxSize: UInt64?
        /// Replace a file that exists (else the recording refuses to start, and keeps it).
        public var replacesExisting = false
        /// The longest time between two syncs to disk: what a power cut can take.
        public var syncInterval: Duration = .seconds(1)
        /// The RIFF size past which a file becomes RF64 (nil: 4 GiB, the real limit).
        public var rf64Threshold: UInt64?
        /// LIST/INFO entries (INAM, IART, ICMT); ICMT is also the description of a bext chunk.
        public var info: [WAVMetadata.InfoEntry] = []
        /// Write a Broadcast Wave bext chunk (origination date and time, time reference).
        public var broadcastChunk = false
        /// The program named in a bext chunk's coding history ("T=yt-gst 0.1.0").
        public var software = "yt-gst"
        public var voiceActivation: VoiceActivation?
        /// How often the session reports `.status` (nil: never, and the levels are then only measured for voice
        /// activation).
        public var statusInterval: Duration?

        public init(output: Output, source: Source) {
            self.output = output
            self.source = source
        }

        /// How the output is split (nil: it is not).
        var split: Split? {
            if case .files(_, let split) = output { split } else { nil }
        }

        /// The whole launch string the session parses.
        public var launch: String {
            switch source {
            case .fragment(let fragment): Self.launch(fragment: fragment, format: format)
            case .pipeline(let launch): launch
            }
        }

        /// What the appsink accepts after a fragment: raw samples in the file's layout (S16 for the G.711
        /// encoders), at the asked rate and channels (the source's own when not asked).
        public var sinkCaps: String {
            var caps =
                "audio/x-raw, format=\(format == .alaw || format == .mulaw ? .s16LE : rawFormat)"
                + ", layout=interleaved"
            if let rate { caps += ", rate=\(rate)" }
            if let channels { caps += ", channels=\(channels)" }
            return caps
        }

        /// The samples the appsink takes (A-law and mu-law arrive encoded, as bytes).
        public var rawFormat: AudioFormat {
            switch format {
            case .s16: .s16LE
            case .s24: .s24LE
            case .s32: .s32LE
            case .f32: .f32LE
            case .u8, .alaw, .mulaw: .u8
            }
        }

        /// The launch string for a source fragment: the fragment, conversion to the asked format (set on the
        /// capsfilter "yt-gst-format"), the G.711 encoder if any, the appsink.
        public static func launch(fragment: String, format: SampleFormat) -> String {
            let encoder =
                switch format {
                case .alaw: "alawenc ! "
                case .mulaw: "mulawenc ! "
                default: ""
                }
            return "\(fragment) ! audioconvert ! audioresample ! capsfilter name=\(formatFilter) ! \(encoder)"
                + "appsink name=sink sync=false"
        }

        /// The capsfilter a fragment's conversion ends in.
        static let formatFilter = "yt-gst-format"
    }
}
