// yt-gst — the version the libraries name in what they write for others.

/// yt-gst's version, as an SDP's `a=tool` line says it (and `yt-gst --version`).
public let toolVersion = "0.1.0"
