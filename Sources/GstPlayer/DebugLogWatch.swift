// yt-gst — watching GStreamer's debug log for a line that no element reports any other way.
internal import CGStreamer
import Synchronization

/// Turns matching lines of one GStreamer debug category into application messages on a pipeline's bus.
///
/// Some facts reach only the debug log: an SRT listener whose caller used the wrong passphrase just keeps
/// waiting, while libsrt logs "rsp(REJECT): 1010 - Incorrect passphrase" in the "srtlib" category. A watch raises
/// that category's threshold to `level` (when it is lower) and posts `messageName` (field `text` = the line) for
/// lines that contain one of `patterns`. Unless GST_DEBUG is set, GStreamer's own printing of the log is switched
/// off, so the raised threshold prints nothing.
///
/// Both are process-wide settings: they are changed when the first watch (of a category) starts and put back when
/// the last one stops, so watches may overlap and the process prints as before once none runs.
///
/// - Note: `@unchecked Sendable`: `context` is only handed to GStreamer, which owns it from `stop()` on; `stopped`
///   is atomic, and every other property is immutable.
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
    ///
    /// The corresponding C type is `GstDebugLevel`.
    public enum Level: Sendable {
        /// Failures (`GST_LEVEL_ERROR`).
        case error
        /// Problems that do not stop anything (`GST_LEVEL_WARNING`).
        case warning
        /// Rare, noteworthy events such as state changes (`GST_LEVEL_INFO`).
        case info
        /// Details for debugging, e.g. libsrt's handshake lines (`GST_LEVEL_DEBUG`).
        case debug

        var raw: GstDebugLevel {
            switch self {
            case .error: GST_LEVEL_ERROR
            case .warning: GST_LEVEL_WARNING
            case .info: GST_LEVEL_INFO
            case .debug: GST_LEVEL_DEBUG
            }
        }
    }

    /// What the running watches changed in GStreamer's process-wide debug settings, to be put back by the last.
    private struct Changes {
        var watches = 0
        /// Whether the first watch removed GStreamer's default log function (which prints to stderr).
        var removedPrinting = false
        /// Per category: how many watches run, and whether one of them raised its threshold.
        var categories: [String: (watches: Int, raised: Bool)] = [:]
    }
    private static let changes = Mutex(Changes())

    private let category: String
    private let context: UnsafeMutableRawPointer
    private let stopped = Atomic(false)

    /// Starts watching. Call before the pipeline creates the elements that log (their plugin reads the threshold
    /// when it loads).
    ///
    /// The corresponding C functions are `gst_debug_set_threshold_for_name` and `gst_debug_add_log_function`.
    public init(category: String, level: Level, patterns: [String], pipeline: Pipeline, messageName: String) {
        self.category = category
        DebugLogWatch.changes.withLock { changes in
            if changes.watches == 0, getenv("GST_DEBUG") == nil {
                changes.removedPrinting = gst_debug_remove_log_function(gst_debug_log_default) > 0
            }
            changes.watches += 1
            var entry = changes.categories[category] ?? (watches: 0, raised: false)
            entry.watches += 1
            if (DebugLogWatch.threshold(ofCategory: category) ?? 0) < Int(level.raw.rawValue) {
                gst_debug_set_threshold_for_name(category, level.raw)
                entry.raised = true
            }
            changes.categories[category] = entry
        }
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

    /// Stops watching; the context is released by GStreamer. The last watch to stop restores the default log
    /// function and the category's threshold. Safe to call from any thread, any number of times.
    ///
    /// The corresponding C functions are `gst_debug_remove_log_function_by_data`,
    /// `gst_debug_unset_threshold_for_name` and `gst_debug_add_log_function`.
    public func stop() {
        guard !stopped.exchange(true, ordering: .acquiringAndReleasing) else { return }
        _ = gst_debug_remove_log_function_by_data(context)
        DebugLogWatch.changes.withLock { changes in
            if var entry = changes.categories[category] {
                entry.watches -= 1
                changes.categories[category] = entry.watches > 0 ? entry : nil
                if entry.watches == 0 && entry.raised {
                    // Unsetting removes every threshold of this name, GST_DEBUG's too: that one is set again.
                    gst_debug_unset_threshold_for_name(category)
                    if let userLevels = getenv("GST_DEBUG") { gst_debug_set_threshold_from_string(userLevels, 0) }
                }
            }
            changes.watches -= 1
            if changes.watches == 0 && changes.removedPrinting {
                gst_debug_add_log_function(gst_debug_log_default, nil, nil)
                changes.removedPrinting = false
            }
        }
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

extension DebugLogWatch {
    /// The threshold of the debug category `name` as GStreamer's level number (1 = ERROR ... 5 = DEBUG), or nil
    /// when no category of that name exists yet.
    ///
    /// The corresponding C functions are `gst_debug_get_all_categories` and `gst_debug_category_get_threshold`.
    package static func threshold(ofCategory name: String) -> Int? {
        let categories = gst_debug_get_all_categories()
        defer { g_slist_free(categories) }
        var node = categories
        while let current = node {
            if let category = current.pointee.data?.assumingMemoryBound(to: GstDebugCategory.self),
                let categoryName = gst_debug_category_get_name(category), String(cString: categoryName) == name
            {
                return Int(gst_debug_category_get_threshold(category).rawValue)
            }
            node = current.pointee.next
        }
        return nil
    }

    /// Whether GStreamer's own log printing (to stderr) is installed. For tests: it is found by removing it and
    /// adding it back, which moves it to the end of the log functions.
    ///
    /// The corresponding C functions are `gst_debug_remove_log_function` and `gst_debug_add_log_function`.
    package static var printsLog: Bool {
        changes.withLock { _ in  // no watch starts or stops in between
            let installed = gst_debug_remove_log_function(gst_debug_log_default)
            for _ in 0..<installed { gst_debug_add_log_function(gst_debug_log_default, nil, nil) }
            return installed > 0
        }
    }
}
