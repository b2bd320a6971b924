// yt-gst — SRT settings and messages shared by `stream` and `receive`.
import GstPlayer

/// What `stream` and `receive` do alike over SRT.
public enum NetworkSRT {
    /// The custom event `stream` sends through GDP just before its end of stream.
    public static let endMarker = "yt-gst/end-of-stream"
    /// Sets an srtsrc's or srtsink's address, mode and encryption; auto-reconnect is off so failures are errors.
    public static func configure(_ element: Element, endpoint: SRTEndpoint, latency: Int?) throws(GstError) {
        try element.set("uri", fromString: endpoint.elementURI)
        try element.set("auto-reconnect", fromString: "false")
        if let passphrase = endpoint.passphrase {
            try element.set("passphrase", fromString: passphrase)
            try element.set("pbkeylen", fromString: String(endpoint.keyLength ?? 16))
        }
        if let latency = endpoint.latency ?? latency { try element.set("latency", fromString: String(latency)) }
        // Wake up every 100 ms instead of blocking until the peer is declared dead (~5 s), so stopping is prompt.
        try element.set("poll-timeout", fromString: "100")
    }
}
