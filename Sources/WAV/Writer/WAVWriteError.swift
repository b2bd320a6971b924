// yt-gst — the one error type of WAV writing.

/// Why a recording could not be created or written.
///
/// The message is one line that never names the file: the CLI prints `yt-gst: <path>: <message>`.
public struct WAVWriteError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// The file exists and replacing it was not asked for.
        case exists
        /// open(2) failed.
        case cannotCreate
        /// The device is full (ENOSPC, EDQUOT).
        case noSpace
        /// Any other write, sync or truncate failure.
        case io
    }

    public var kind: Kind
    public var message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { message }
}
