// yt-gst — why an SDP file cannot be used.

/// An SDP file that cannot be used.
struct SDPError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
