// yt-gst — file:// URIs and the paths they name, as GLib converts them (percent-encoding, hostnames).
internal import CGStreamer

/// Converts between local paths and `file://` URIs.
///
/// The corresponding C functions are `g_filename_to_uri` and `g_filename_from_uri`.
public enum FileURI {
    /// `file:///...` for an absolute `path`; nil for a relative one.
    public static func uri(for path: String) -> String? {
        guard let uri = g_filename_to_uri(path, nil, nil) else { return nil }
        defer { g_free(uri) }
        return String(cString: uri)
    }

    /// The local path a `file://` URI names; nil for another scheme, a remote host or a malformed URI.
    public static func path(of uri: String) -> String? {
        var host: UnsafeMutablePointer<gchar>?
        guard let path = g_filename_from_uri(uri, &host, nil) else { return nil }
        defer {
            g_free(path)
            g_free(host)
        }
        if let host, String(cString: host) != "localhost" { return nil }
        return String(cString: path)
    }
}
