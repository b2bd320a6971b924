// yt-gst — SRT settings and messages shared by `stream` and `receive`.
import GstPlayer

/// What `stream` and `receive` do alike over SRT.
public enum NetworkSRT {
    /// Sets an srtsrc's or srtsink's address, mode and encryption; auto-reconnect is off so failures are errors.
    public static func configure(_ element: Element, endpoint: SRTEndpoint, latency: Int?) throws(GstError) {
        try element.set("uri", to: endpoint.elementURI)
        try element.set("auto-reconnect", to: false)
        if let passphrase = endpoint.passphrase {
            try element.set("passphrase", to: passphrase)
            try element.set("pbkeylen", to: endpoint.keyLength ?? 16)
        }
        if let latency = endpoint.latency ?? latency { try element.set("latency", to: latency) }
        // Wake up every 100 ms instead of blocking until the peer is declared dead (~5 s), so stopping is prompt.
        try element.set("poll-timeout", to: 100)
    }
}
