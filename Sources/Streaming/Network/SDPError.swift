// yt-gst — why an SDP file cannot be used.

/// An SDP file that cannot be used.
public struct SDPError: Error, Sendable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
