// yt-gst — the one error type of WAV reading.

/// Why a WAV file could not be opened, parsed or read.
///
/// The message is one line that names the problem and never the path: the CLI prints
/// `yt-gst: <path>: <message>`. Tests assert `kind` (and `formatTag`), not the text.
public struct WAVError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong, for callers and tests to act on; the message is for people.
    public enum Kind: Sendable, Equatable {
        /// open(2) or fstat(2) failed, or the path is a directory or not a regular file.
        case cannotOpen
        /// A read failed (EIO, ...) after the file was open.
        case io
        /// A read went back to bytes a pipe has already passed (a `StreamReader` reads forward only).
        case notSeekable
        /// The file does not start with a RIFF/RIFX/RF64/BW64 header of form type WAVE (this includes empty files).
        case notWAV
        /// The file ends inside the RIFF header or inside the fmt chunk.
        case truncatedHeader
        /// No fmt chunk before the data chunk.
        case missingFormat
        /// No data chunk.
        case missingData
        /// The fmt chunk is too short or self-contradictory (0 channels, block align, sample size, ...).
        case invalidFormat
        /// A valid format beyond what GStreamer can carry: 64 channels or more, a rate above 2147483647 Hz.
        case unsupportedFormat
        /// The samples need a decoder: A-law, ADPCM, MP3, ... (thrown by `WAVFile.requirePlayableRaw()` only).
        case unsupportedCodec
    }

    /// The category of the failure: what tests assert instead of the text.
    public var kind: Kind
    /// One line, e.g. `unsupported codec: format tag 0x0011 (IMA ADPCM)` or `No such file or directory`.
    public var message: String
    /// The effective format tag (the sub-format for extensible files); set for `.unsupportedCodec`.
    public var formatTag: UInt16?

    /// An error of `kind` with a one-line `message` that names no path; `formatTag` for codec errors.
    public init(_ kind: Kind, _ message: String, formatTag: UInt16? = nil) {
        self.kind = kind
        self.message = message
        self.formatTag = formatTag
    }

    /// The message alone, so interpolating the error gives the one line a caller prefixes with the path.
    public var description: String { message }
}
