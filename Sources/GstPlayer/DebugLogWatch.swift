// yt-gst — watching GStreamer's debug log for a line that no element reports any other way.
internal import CGStreamer

/// Turns matching lines of one GStreamer debug category into application messages on a pipeline's bus.
///
/// Some facts reach only the debug log: an SRT listener whose caller used the wrong passphrase just keeps
/// waiting, while libsrt logs "rsp(REJECT): 1010 - Incorrect passphrase" in the "srtlib" category. A watch raises
/// that category's threshold to `level` and posts `messageName` (field `text` = the line) for lines that contain
/// one of `patterns`. Unless GST_DEBUG is set, GStreamer's own printing of the log is switched off, so the raised
/// threshold prints nothing.
///
/// - Note: `@unchecked Sendable`: `context` is only handed to GStreamer, which owns it until `stop()`.
public final class DebugLogWatch: @unchecked Sendable {
    private final class Context {
        let bus: UnsafeMutablePointer<GstBus>
        let category: String
        let patterns: [String]
        let messageName: String
        init(bus: UnsafeMutablePointer<GstBus>, category: String, patterns: [String], messageName: String) {
            self.bus = bus
            self.category = category
            self.patterns = patterns
            self.messageName = messageName
            gst_object_ref(UnsafeMutableRawPointer(bus))
        }
        deinit { gst_object_unref(UnsafeMutableRawPointer(bus)) }
    }

    /// How detailed a debug line is; only lines of this level or more important are seen.
    public enum Level: Sendable {
        case error, warning, info, debug

        var raw: GstDebugLevel {
            switch self {
            case .error: GST_LEVEL_ERROR
            case .warning: GST_LEVEL_WARNING
            case .info: GST_LEVEL_INFO
            case .debug: GST_LEVEL_DEBUG
            }
        }
    }

    private let context: UnsafeMutableRawPointer
    private var stopped = false

    /// Starts watching. Call before the pipeline creates the elements that log (their plugin reads the threshold
    /// when it loads).
    ///
    /// The corresponding C functions are `gst_debug_set_threshold_for_name` and `gst_debug_add_log_function`.
    public init(category: String, level: Level, patterns: [String], pipeline: Pipeline, messageName: String) {
        if getenv("GST_DEBUG") == nil {
            gst_debug_remove_log_function(gst_debug_log_default)
        }
        gst_debug_set_threshold_for_name(category, level.raw)
        let context = Unmanaged.passRetained(
            Context(bus: pipeline.bus, category: category, patterns: patterns, messageName: messageName)
        ).toOpaque()
        self.context = context
        gst_debug_add_log_function(
            { category, level, _, _, _, _, message, context in
                guard let category, let message, let context,
                    let categoryName = gst_debug_category_get_name(category)
                else { return }
                let watch = Unmanaged<Context>.fromOpaque(context).takeUnretainedValue()
                guard String(cString: categoryName) == watch.category, let text = gst_debug_message_get(message)
                else { return }
                let line = String(cString: text)
                guard watch.patterns.contains(where: { line.contains($0) }) else { return }
                DebugLogWatch.post(line, named: watch.messageName, on: watch.bus)
            }, context,
            { context in
                guard let context else { return }
                Unmanaged<Context>.fromOpaque(context).release()
            })
    }

    deinit { stop() }

    /// Stops watching; the context is released by GStreamer.
    public func stop() {
        guard !stopped else { return }
        stopped = true
        _ = gst_debug_remove_log_function_by_data(context)
    }

    private static func post(_ line: String, named name: String, on bus: UnsafeMutablePointer<GstBus>) {
        guard let structure = gst_structure_new_empty(name) else { return }
        var value = GValue()
        g_value_init(&value, CGst_type_string())
        g_value_set_string(&value, line)
        gst_structure_set_value(structure, "text", &value)
        g_value_unset(&value)
        guard let message = gst_message_new_application(nil, structure) else { return }
        _ = gst_bus_post(bus, message)  // takes the message
    }
}
