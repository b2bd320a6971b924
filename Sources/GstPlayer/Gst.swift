// yt-gst — process-wide GStreamer initialisation and version.
internal import CGStreamer

/// GStreamer as a whole: initialisation and version.
public enum Gst {
    /// Initialises GStreamer once per process. Safe to call from any thread, any number of times.
    ///
    /// The corresponding C function is `gst_init`.
    public static func initialize() { _ = initialized }

    private static let initialized: Bool = {
        gst_init(nil, nil)
        return true
    }()

    /// The version of the GStreamer library this process runs with, e.g. "GStreamer 1.22.0".
    ///
    /// The corresponding C function is `gst_version_string`.
    public static var version: String {
        let text = gst_version_string()
        defer { g_free(text) }
        return text.map { String(cString: $0) } ?? "GStreamer (unknown version)"
    }

    /// Whether an element factory of this name is installed (for example "pulsesink").
    ///
    /// The corresponding C function is `gst_element_factory_find`.
    public static func hasElement(_ factoryName: String) -> Bool {
        requireInitialized()
        guard let factory = gst_element_factory_find(factoryName) else { return false }
        gst_object_unref(UnsafeMutableRawPointer(factory))
        return true
    }

    /// Traps when GStreamer is used before `initialize()`: that is a programming error, not an environment one.
    static func requireInitialized() {
        precondition(gst_is_initialized() != 0, "Gst.initialize() must be called before using GStreamer")
    }
}
