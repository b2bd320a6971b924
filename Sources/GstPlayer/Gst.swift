// yt-gst — process-wide GStreamer initialisation and version.
internal import CGStreamer

/// GStreamer as a whole: initialisation and version.
///
/// Initialisation policy: every entry point of GstPlayer that reaches GStreamer (`Gst`'s functions, `Pipeline`,
/// `Player`, `Launch.insertingDecoder` and the rest) initialises it on first use, once per process. Calling
/// `initialize()` yourself is never required; call it early only to pay `gst_init`'s few milliseconds at a moment of
/// your choosing.
public enum Gst {
    /// Initialises GStreamer once per process. Safe to call from any thread, any number of times.
    ///
    /// The corresponding C function is `gst_init`.
    public static func initialize() { _ = initialized }

    private static let initialized: Bool = {
        gst_init(nil, nil)
        PipeWireSink.register()
        return true
    }()

    /// The name of the thread that feeds `ytpipewiresink`'s PipeWire stream (one per sink): a session that makes its
    /// audio threads realtime raises it too.
    public static let pipeWireOutputThreadName = PipeWireOutput.threadName

    /// The version of the GStreamer library this process runs with, e.g. "GStreamer 1.22.0".
    ///
    /// The corresponding C function is `gst_version_string`.
    public static var version: String {
        initialize()
        let text = gst_version_string()
        defer { g_free(text) }
        return text.map { String(cString: $0) } ?? "GStreamer (unknown version)"
    }

    /// Whether an element factory of this name is installed (for example "pulsesink").
    ///
    /// The corresponding C function is `gst_element_factory_find`.
    public static func hasElement(_ factoryName: String) -> Bool {
        initialize()
        guard let factory = gst_element_factory_find(factoryName) else { return false }
        gst_object_unref(UnsafeMutableRawPointer(factory))
        return true
    }

    /// Names of the audio output devices GStreamer can see (PulseAudio sinks, ALSA cards, ...), probed now.
    ///
    /// Empty means `autoaudiosink` has nowhere real to play to. PipeWire's own device provider is left out (its rank
    /// set to none, which the monitor skips): `autoaudiosink` never picks `pipewiresink` (rank none), and its probe
    /// (gstreamer1.0-pipewire 0.3.65) crashed now and then on its thread loop, in the device provider's registry
    /// events: a receiver started beside PipeWire died of a SIGSEGV before its first sound in 2 of some 40 lab runs.
    /// The corresponding C function is `gst_device_monitor_get_devices` with the class "Audio/Sink".
    public static func audioOutputs() -> [String] {
        initialize()
        if let pipeWire = gst_device_provider_factory_find("pipewiredeviceprovider") {
            gst_plugin_feature_set_rank(pipeWire, guint(GST_RANK_NONE.rawValue))
            gst_object_unref(UnsafeMutableRawPointer(pipeWire))
        }
        let monitor = gst_device_monitor_new()!
        defer { gst_object_unref(UnsafeMutableRawPointer(monitor)) }
        _ = gst_device_monitor_add_filter(monitor, "Audio/Sink", nil)
        var names: [String] = []
        let devices = gst_device_monitor_get_devices(monitor)
        defer { g_list_free_full(devices, gst_object_unref) }
        var list = devices
        while let node = list {
            if let device = node.pointee.data {
                let name = gst_device_get_display_name(
                    UnsafeMutableRawPointer(device).assumingMemoryBound(to: GstDevice.self))
                names.append(name.map { String(cString: $0) } ?? "unnamed device")
                g_free(name)
            }
            list = node.pointee.next
        }
        return names
    }
}
