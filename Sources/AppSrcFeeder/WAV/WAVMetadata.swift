// yt-gst — what a WAV says about its audio besides the samples: INFO tags, bext, cue points, loops, instrument.

/// Metadata chunks of a WAV file, decoded for `info` and for the tag event `play` sends.
///
/// Every list is bounded (`maxItems`) and every chunk is read through at most 64 KiB, whatever the file declares.
public struct WAVMetadata: Sendable, Equatable {
    /// The most entries kept per list (INFO entries, cue points, labels, loops).
    public static let maxItems = 1_000

    /// One LIST/INFO entry: its id ("INAM", "IART", ...) and text.
    public struct InfoEntry: Sendable, Equatable {
        public var id: String
        public var value: String
    }

    /// The EBU Broadcast Wave `bext` chunk (EBU Tech 3285).
    public struct Broadcast: Sendable, Equatable {
        public var description: String
        public var originator: String
        public var originatorReference: String
        /// "yyyy-mm-dd" as stored.
        public var originationDate: String
        /// "hh:mm:ss" as stored.
        public var originationTime: String
        /// Samples since midnight of the first sample (the file's timecode).
        public var timeReference: UInt64
        public var version: Int
        /// The coding history, up to 64 KiB of it.
        public var codingHistory: String
    }

    /// A `cue ` point with its `labl`/`note`/`ltxt` texts from LIST/adtl.
    public struct CuePoint: Sendable, Equatable {
        public var id: UInt32
        /// dwSampleOffset: the frame the point marks.
        public var position: UInt32
        public var label: String?
        public var note: String?
        /// From an `ltxt` entry: the length in frames of the region that starts here.
        public var length: UInt32?
    }

    /// One `smpl` loop.
    public struct Loop: Sendable, Equatable {
        public var id: UInt32
        /// 0 forward, 1 alternating, 2 backward.
        public var type: UInt32
        public var start: UInt32
        public var end: UInt32
        public var fraction: UInt32
        /// 0 = forever.
        public var playCount: UInt32
    }

    /// The `smpl` sampler chunk.
    public struct Sampler: Sendable, Equatable {
        public var manufacturer: UInt32
        public var product: UInt32
        /// Nanoseconds per sample.
        public var samplePeriod: UInt32
        public var midiUnityNote: UInt32
        public var midiPitchFraction: UInt32
        public var loops: [Loop]
    }

    /// The `inst` instrument chunk.
    public struct Instrument: Sendable, Equatable {
        public var unshiftedNote: Int
        /// Cents.
        public var fineTune: Int
        /// Decibels.
        public var gain: Int
        public var lowNote: Int
        public var highNote: Int
        public var lowVelocity: Int
        public var highVelocity: Int
    }

    public var info: [InfoEntry] = []
    public var broadcast: Broadcast?
    public var cuePoints: [CuePoint] = []
    public var sampler: Sampler?
    public var instrument: Instrument?

    public init() {}

    public var isEmpty: Bool { self == WAVMetadata() }

    /// GStreamer tag names for INFO ids, as GStreamer's own RIFF code maps them (riff-read.c / wavenc).
    static let tagNames: [String: String] = [
        "IARL": "location", "IART": "artist", "ICMT": "comment", "ICOP": "copyright", "ICRD": "datetime",
        "IGNR": "genre", "IKEY": "keywords", "INAM": "title", "IPRD": "album", "ISBJ": "album-artist",
        "ISFT": "encoder", "ISRC": "isrc", "ITRK": "track-number", "IPRT": "track-number", "IENG": "performer",
        "IMUS": "composer",
    ]

    /// The INFO entries (and the bext description) as GStreamer tags: name ("title", "track-number", ...) and text.
    ///
    /// Entries GStreamer has no tag for are left out here; `info` shows them all.
    public var gstreamerTags: [(name: String, value: String)] {
        var tags: [(name: String, value: String)] = []
        for entry in info {
            guard let name = Self.tagNames[entry.id], !entry.value.isEmpty else { continue }
            switch name {
            case "track-number":
                // "3", "3/12": the leading number.
                let digits = entry.value.prefix { $0.isASCII && $0.isNumber }
                if let number = UInt32(digits), number > 0 { tags.append((name, String(number))) }
            case "datetime":
                if let date = Self.isoDate(entry.value) { tags.append((name, date)) }
            default:
                tags.append((name, entry.value))
            }
        }
        if let broadcast, !broadcast.description.isEmpty, !tags.contains(where: { $0.name == "description" }) {
            tags.append(("description", broadcast.description))
        }
        return tags
    }

    /// "2019-03-01", "2019-03", "2019" from the start of an ICRD text, else nil.
    static func isoDate(_ text: String) -> String? {
        let bytes = Array(text.utf8)
        func digits(_ range: Range<Int>) -> Bool {
            range.upperBound <= bytes.count && bytes[range].allSatisfy { (0x30...0x39).contains($0) }
        }
        guard digits(0..<4) else { return nil }
        if bytes.count >= 10, bytes[4] == 0x2D, bytes[7] == 0x2D, digits(5..<7), digits(8..<10) {
            return String(decoding: bytes[0..<10], as: UTF8.self)
        }
        if bytes.count >= 7, bytes[4] == 0x2D, digits(5..<7) { return String(decoding: bytes[0..<7], as: UTF8.self) }
        return String(decoding: bytes[0..<4], as: UTF8.self)
    }
}
