// yt-gst — what a WAV says about its audio besides the samples: INFO tags, bext, cue points, loops, instrument.

/// Metadata chunks of a WAV file, decoded for `info` and for the tag event `play` sends.
///
/// Every list is bounded (`maxItems`) and every chunk is read through at most 64 KiB, whatever the file declares.
public struct WAVMetadata: Sendable, Equatable {
    /// The most entries kept per list (INFO entries, cue points, labels, loops).
    public static let maxItems = 1_000

    /// One LIST/INFO entry: its id ("INAM", "IART", ...) and text.
    public struct InfoEntry: Sendable, Equatable {
        /// The four-character INFO id ("INAM" title, "IART" artist, ...), which picks the GStreamer tag.
        public var id: String
        /// The text up to its first NUL, trailing spaces dropped; UTF-8 when valid, else read as Latin-1.
        public var value: String

        /// An entry as parsed, or to write (`WAVWriter`).
        public init(id: String, value: String) {
            self.id = id
            self.value = value
        }
    }

    /// The EBU Broadcast Wave `bext` chunk (EBU Tech 3285).
    public struct Broadcast: Sendable, Equatable {
        /// Free text about the sound (256 bytes at most); sent on as the `description` tag.
        public var description: String
        /// Who made the sound, an organisation or a person (32 bytes at most).
        public var originator: String
        /// The originator's own unique reference for the sound (32 bytes at most).
        public var originatorReference: String
        /// The day the sound was made: "yyyy-mm-dd" as stored.
        public var originationDate: String
        /// The time of day it was made: "hh:mm:ss" as stored.
        public var originationTime: String
        /// Samples since midnight of the first sample (the file's timecode).
        public var timeReference: UInt64
        /// The bext version (0, 1 or 2), which says which later fields the writer filled in.
        public var version: Int
        /// The coding history, up to 64 KiB of it.
        public var codingHistory: String

        /// A bext chunk as parsed, or to write (`WAVWriter` cuts texts longer than their fixed fields).
        public init(
            description: String, originator: String, originatorReference: String, originationDate: String,
            originationTime: String, timeReference: UInt64, version: Int, codingHistory: String
        ) {
            self.description = description
            self.originator = originator
            self.originatorReference = originatorReference
            self.originationDate = originationDate
            self.originationTime = originationTime
            self.timeReference = timeReference
            self.version = version
            self.codingHistory = codingHistory
        }
    }

    /// A `cue ` point with its `labl`/`note`/`ltxt` texts from LIST/adtl.
    public struct CuePoint: Sendable, Equatable {
        /// dwName: the id `labl`, `note` and `ltxt` entries use to refer to the point.
        public var id: UInt32
        /// dwSampleOffset: the frame the point marks.
        public var position: UInt32
        /// The point's name, from `labl` (or the text of an `ltxt` region when there is no `labl`).
        public var label: String?
        /// A comment on the point, from `note`.
        public var note: String?
        /// From an `ltxt` entry: the length in frames of the region that starts here.
        public var length: UInt32?
    }

    /// One `smpl` loop.
    public struct Loop: Sendable, Equatable {
        /// dwIdentifier: the loop's id, which a cue point may share to name the loop.
        public var id: UInt32
        /// dwType: how the loop plays: 0 forward, 1 alternating (back and forth), 2 backward.
        public var type: UInt32
        /// dwStart: where the loop begins, in sample frames as writers store it.
        public var start: UInt32
        /// dwEnd: the loop's last sample frame, played as part of the loop.
        public var end: UInt32
        /// dwFraction: a fraction of a frame added to the loop's end, in 1/2^32 of a frame (0x80000000 = half).
        public var fraction: UInt32
        /// dwPlayCount: how many times the loop plays; 0 = forever.
        public var playCount: UInt32
    }

    /// The `smpl` sampler chunk.
    public struct Sampler: Sendable, Equatable {
        /// dwManufacturer: the MMA code of the sampler's maker the file is meant for; 0 = none.
        public var manufacturer: UInt32
        /// dwProduct: that maker's product code; 0 = none.
        public var product: UInt32
        /// dwSamplePeriod: nanoseconds per sample frame as the writer stored it (1e9 / rate).
        public var samplePeriod: UInt32
        /// dwMIDIUnityNote: the MIDI note (0...127) at which the sample plays at its recorded pitch.
        public var midiUnityNote: UInt32
        /// dwMIDIPitchFraction: fine tuning above `midiUnityNote`, in 1/2^32 of a semitone.
        public var midiPitchFraction: UInt32
        /// The loops that follow the header, as many as the chunk really holds (at most `maxItems`).
        public var loops: [Loop]
    }

    /// The `inst` instrument chunk.
    public struct Instrument: Sendable, Equatable {
        /// The MIDI note (0...127) at which the sample plays at its recorded pitch.
        public var unshiftedNote: Int
        /// Fine tuning in cents (-50...50) to apply on top of the note.
        public var fineTune: Int
        /// Gain in decibels to apply when the sample plays.
        public var gain: Int
        /// The lowest MIDI note the sample is meant to be played for.
        public var lowNote: Int
        /// The highest MIDI note the sample is meant to be played for.
        public var highNote: Int
        /// The lowest MIDI velocity (1...127) the sample is meant to be played for.
        public var lowVelocity: Int
        /// The highest MIDI velocity (1...127) the sample is meant to be played for.
        public var highVelocity: Int
    }

    /// The LIST/INFO entries in file order (at most `maxItems`): the file's title, artist and so on.
    public var info: [InfoEntry] = []
    /// The `bext` chunk of a Broadcast Wave file; nil when there is none.
    public var broadcast: Broadcast?
    /// The `cue ` points in file order with their LIST/adtl texts (at most `maxItems`).
    public var cuePoints: [CuePoint] = []
    /// The `smpl` chunk; nil when there is none.
    public var sampler: Sampler?
    /// The `inst` chunk; nil when there is none.
    public var instrument: Instrument?

    /// Metadata with nothing in it, which the parser fills chunk by chunk.
    public init() {}

    /// Whether the file holds no metadata at all, so `info` can leave the section out.
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
